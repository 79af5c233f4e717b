"""The whole-turn search agent ``turns`` (tessera.agents.turns): the four-player Nymbat search levels."""

from __future__ import annotations

import random

import pytest

import tessera
from tessera.agents import TurnAgent, make_agent
from tessera.agents.turns import finish_turn

FOUR = tessera.load_game("nymbat(players=4)")
SMALL = "nymbat(players=4,reserve=12,first_limit=8,max_turns=120)"


def _open_home_row() -> tessera.State:
    """Red to move; Blue (opposite, racing to Red's home row o) stands on o5 and Red has no piece on
    row o, so Blue wins at the start of his turn ('a player who has a piece on his opponent home row
    while the player opposite him has none there wins') unless Red covers row o or takes the piece.
    Green's 3 on e2 is an easy capture for Red's 4s — the bait greedy takes."""
    return FOUR.state_from_dict(
        {
            "to_move": 0,
            "pieces": {"o5": [2, 2], "h5": [0, 4], "h6": [0, 4], "c3": [2, 5], "e2": [1, 3], "e12": [3, 3]},
            "reserves": [10, 10, 10, 10],
            "delays": [0, 0, 0, 0],
            "first_turn_done": [True] * 4,
        }
    )


def _play_turn(agent: TurnAgent, st: tessera.State, rng: random.Random, iterations: int) -> list[str]:
    me = st.current_player()
    moves = []
    while not st.is_terminal() and st.current_player() == me:
        a = agent.choose(st, iterations=iterations, rng=rng)
        moves.append(st.action_to_string(a))
        st.apply_action(a)
    return moves


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_turns_covers_its_home_row_against_the_player_opposite(seed: int) -> None:
    """The rollouts play the other players' whole turns, so the agent sees Blue's home-row win coming
    and covers row o (or takes Blue's piece): after Green's turn Blue, at the start of his turn, has not won."""
    st = _open_home_row()
    rng = random.Random(seed)
    _play_turn(TurnAgent(seed=seed), st, rng, iterations=30)
    assert st.own[0] & st.L.target[2] or not st.own[2] & st.L.target[2]
    green = make_agent("greedy")
    while not st.is_terminal() and st.current_player() == 1:
        st.apply_action(green.choose(st, rng=rng))
    assert st.current_player() == 2 and st.returns() == [0.0] * 4


def _after_red_and_green(lv: int, seed: int) -> tessera.State:
    """Red (level ``lv``) plays his turn in the open-home-row position, then Green a greedy turn."""
    st = _open_home_row()
    rng = random.Random(seed)
    red = make_agent(f"level{lv}", game="nymbat")
    while st.current_player() == 0:
        st.apply_action(red.choose(st, rng=rng))
    green = make_agent("greedy")
    while not st.is_terminal() and st.current_player() == 1:
        st.apply_action(green.choose(st, rng=rng))
    return st


def test_four_player_levels_4_and_5_cover_the_home_row_that_level_3_leaves_open() -> None:
    """Blue stands on Red's home row and Red has no piece there: 'a player who has a piece on his
    opponent home row while the player opposite him has none there wins' at the start of his turn.
    Level 3 (greedy) takes the bait (a Green 3) and Blue wins; level 5 covers the row at every seed
    tried and level 4 (8 iterations, one noisy rollout per candidate) at nearly every one."""
    saved = {lv: [_after_red_and_green(lv, seed).returns() == [0.0] * 4 for seed in range(10)] for lv in (3, 4, 5)}
    assert not any(saved[3])
    assert sum(saved[4]) >= 8
    assert all(saved[5])


def test_turns_plays_the_planned_turn_without_searching_again() -> None:
    """One search per turn: the later steps of the chosen turn come from the kept plan, and a
    position the plan does not expect (another game) makes it search afresh."""
    st = FOUR.new_initial_state()
    agent = TurnAgent(seed=3)
    rng = random.Random(3)
    searches = 0
    steps = 0
    while st.current_player() == 0:
        st.apply_action(agent.choose(st, iterations=6, rng=rng))
        steps += 1
        searches += not agent.stats.get("plan")
    assert steps > 1 and searches == 1
    other = FOUR.new_initial_state()
    agent.choose(other, iterations=6, rng=rng)
    assert not agent.stats.get("plan") and agent.stats["iterations"] >= 1


def test_finish_turn_plays_exactly_the_movers_turn() -> None:
    """``finish_turn`` plays steps of the player to move until another player is to move (or the game ends)."""
    st = FOUR.new_initial_state()
    rng = random.Random(5)
    for _ in range(12):
        if st.is_terminal():
            break
        me = st.current_player()
        before = len(st.history())
        steps = finish_turn(st, rng, noise=0.3)
        assert steps and all(p == me for p, _ in st.history()[before:])
        assert len(st.history()) - before == len(steps)
        assert st.is_terminal() or st.current_player() != me


@pytest.mark.parametrize("seed", range(3))
def test_turns_plays_whole_four_player_games_with_legal_moves(seed: int) -> None:
    """Random four-player games in which one seat is ``turns``: every step it returns is legal and the game ends."""
    game = tessera.load_game(SMALL)
    st = game.new_initial_state()
    rng = random.Random(seed)
    agent = make_agent(f"turns(width=2,rounds=2,noise=0.5,seed={seed})")
    other = make_agent("random")
    seat = seed % 4
    while not st.is_terminal():
        a = (agent if st.current_player() == seat else other).choose(st, iterations=3, rng=rng)
        assert a in st.legal_actions()
        st.apply_action(a)
    assert sorted(st.returns()) in ([0.0] * 4, [-1 / 3] * 3 + [1.0])


def test_turns_spec_options_are_checked() -> None:
    """``turns(width=…,rounds=…,noise=…,c=…)`` builds the agent; a bad value is a clear ValueError."""
    agent = make_agent("turns(width=3,rounds=2,noise=0.2,c=0.5)")
    assert isinstance(agent, TurnAgent) and (agent.width, agent.rounds, agent.noise, agent.c) == (3, 2, 0.2, 0.5)
    assert agent.name == "turns(width=3,rounds=2,noise=0.2,c=0.5)"
    for bad in (
        "turns(width=0)",
        "turns(rounds=0)",
        "turns(noise=2)",
        "turns(c=-1)",
        "turns(depth=2)",
        "turns(reply=0)",
        "turns(cap=-1)",
    ):
        with pytest.raises(ValueError):
            make_agent(bad)


def test_best_turn_keeps_the_best_of_the_players_k_turns_for_him() -> None:
    """``best_turn(state, rng, k)``: the mover's best of his k greedy-completed turns by his own
    evaluation at the turn's end — never worse for him than the greedy turn (k=1), which is one of them."""
    from tessera.agents.base import terminal_or_eval
    from tessera.agents.turns import best_turn

    game = tessera.load_game(SMALL)
    rng = random.Random(11)
    st = game.new_initial_state()
    checked = 0
    for _ in range(16):
        if st.is_terminal():
            break
        me = st.current_player()
        greedy = best_turn(st, random.Random(1), 1)
        best = best_turn(st, random.Random(1), 4)
        for after in (greedy, best):
            assert after.is_terminal() or after.current_player() != me  # a whole turn was played
        assert terminal_or_eval(best, me) >= terminal_or_eval(greedy, me) - 1e-9
        checked += 1
        finish_turn(st, rng, noise=0.3)
    assert checked >= 8


def test_turns_with_a_cap_keeps_at_most_cap_candidates_and_replies_by_best_turns() -> None:
    """``cap`` bounds the candidate turns (the rest of the budget goes to rollouts) and ``reply=k`` makes
    the other players answer with their best of k turns; both play legal whole turns."""
    game = tessera.load_game(SMALL)
    st = game.new_initial_state()
    agent = make_agent("turns(cap=3,reply=2,seed=2)")
    assert isinstance(agent, TurnAgent) and (agent.cap, agent.reply) == (3, 2)
    rng = random.Random(2)
    for _ in range(3):
        me = st.current_player()
        a = agent.choose(st, iterations=30, rng=rng)
        assert agent.stats["candidates"] <= 3 and agent.stats["rollouts"] >= 20
        assert a in st.legal_actions()
        st.apply_action(a)
        while not st.is_terminal() and st.current_player() == me:
            st.apply_action(agent.choose(st, iterations=30, rng=rng))
        finish_turn(st, rng)
        if st.is_terminal():
            break


@pytest.mark.parametrize("limit", [5, 12, 40])
def test_turns_limit_caps_the_iterations_of_a_turn_below_the_callers_budget(limit: int) -> None:
    """``turns(limit=N)``: a turn's search stops after N iterations (candidate completions and
    rollouts) even when the caller's budget allows more, so a level can be set by effort."""
    st = _open_home_row()
    agent = make_agent(f"turns(limit={limit},seed=1)")
    assert isinstance(agent, TurnAgent) and agent.limit == limit
    agent.choose(st, iterations=1000, rng=random.Random(1))
    assert agent.stats["iterations"] == limit
    unlimited = TurnAgent(seed=1)
    unlimited.choose(st, iterations=limit + 20, rng=random.Random(1))
    assert unlimited.stats["iterations"] == limit + 20
    with pytest.raises(ValueError, match="limit"):
        make_agent("turns(limit=-1)")
