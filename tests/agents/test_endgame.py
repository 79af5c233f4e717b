"""Exact endgames: the Nibble solver against a plain minimax, the levels' wrapper, the analysis verdict.

The solver must agree with an independent search over the State API (value and steps to the
end with best play) on hundreds of small endgames, square and hex, between turns and in the
middle of a turn; levels 4 and 5 must keep every forced win they are given; the wrapper must
leave the level's search alone where the end is out of reach.
"""

from __future__ import annotations

import json
import random

import pytest

import tessera
from tessera import State
from tessera.agents import make_agent
from tessera.agents.endgame import EndgameAgent, endgame_verdict, with_endgame, within_reach
from tessera.games.nibble.solver import REACH, NibbleSolver, solve
from tests.agents.endgames import assert_level_plays_the_win_out

SQUARE = tessera.load_game("nibble")
HEX = tessera.load_game("nibble(board=hex)")


def endgame(game: tessera.Game, seed: int, blocks: int) -> State | None:
    """A seeded random game played until at most ``blocks`` blocks are left (possibly mid-turn); None if it ended."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    while not state.is_terminal() and len(state.to_dict()["cells"]) > blocks:
        state.apply_action(state.random_action(rng))
    extra = rng.randrange(3)  # sometimes stop inside a turn
    while extra and not state.is_terminal():
        state.apply_action(state.random_action(rng))
        extra -= 1
    return None if state.is_terminal() else state


def some_endgame(seed: int, blocks: int) -> State:
    """The first seeded endgame from ``seed`` on that did not end before ``blocks`` blocks were left."""
    while True:
        st = endgame(SQUARE, seed, blocks)
        if st is not None:
            return st
        seed += 1


def minimax(state: State) -> tuple[int, int]:
    """``(result, steps)`` for the player to move by plain exhaustive search over the State API.

    ``result`` is +1 / 0 / −1; ``steps`` the fastest win, or the longest loss, in steps (each
    ``apply_action``); the player to move may move again in the middle of a turn.  Positions
    met twice are looked up by their position dict.
    """
    memo: dict[str, tuple[int, int]] = {}

    def value_of(st: State) -> tuple[int, int]:
        d = st.to_dict()
        d.pop("seed", None)
        key = json.dumps(d, sort_keys=True)
        if key in memo:
            return memo[key]
        me = st.current_player()
        best: tuple[int, int] | None = None
        for a in st.legal_actions():
            child = st.clone()
            child.apply_action(a)
            if child.is_terminal():
                r = child.returns()[me]
                res, steps = (1 if r > 0 else -1 if r < 0 else 0), 1
            else:
                cr, cs = value_of(child)
                res = cr if child.current_player() == me else -cr
                steps = cs + 1
            if best is None or _better((res, steps), best):
                best = (res, steps)
        assert best is not None
        memo[key] = best
        return best

    return value_of(state)


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether outcome ``a`` is better than ``b`` for the player choosing: a win, sooner; a loss, later."""
    if a[0] != b[0]:
        return a[0] > b[0]
    if a[0] > 0:
        return a[1] < b[1]
    if a[0] < 0:
        return a[1] > b[1]
    return False


def small_endgames() -> list[State]:
    out = []
    for seed in range(170):
        st = endgame(SQUARE, seed, 5 + seed % 4)
        if st is not None:
            out.append(st)
    for seed in range(60):
        st = endgame(HEX, 1000 + seed, 5 + seed % 3)
        if st is not None:
            out.append(st)
    return out


def test_solver_equals_plain_minimax_on_small_endgames() -> None:
    """Value and steps to the end with best play, and a best step, as an exhaustive search finds them."""
    states = small_endgames()
    assert len(states) >= 200
    solver = NibbleSolver(16)  # one table for all: entries must stay exact from one position to the next
    results = set()
    for st in states:
        expected = minimax(st)
        got = solver.solve(st)
        assert got is not None
        assert (got.value, got.plies) == expected, st.to_dict()
        results.add(got.value)
        child = st.clone()
        child.apply_action(got.best_move)  # legal, and it reaches the optimum
        if child.is_terminal():
            assert expected == (1 if child.returns()[st.current_player()] > 0 else -1, 1)
        else:
            cr, cs = minimax(child)
            same = child.current_player() == st.current_player()
            assert ((cr if same else -cr), cs + 1) == expected
    assert results == {1, -1}, "the sample has won and lost positions"


def test_solver_result_does_not_depend_on_the_table_it_starts_with() -> None:
    """A solver that already solved other positions (the table kept) answers as a fresh one."""
    warm = NibbleSolver(12)  # small, so slots are overwritten often
    for seed in range(40):
        st = endgame(SQUARE, 500 + seed, 9)
        if st is None:
            continue
        a = warm.solve(st)
        b = NibbleSolver(12).solve(st)
        assert a is not None and b is not None
        assert (a.value, a.plies) == (b.value, b.plies)


def test_solve_returns_value_move_and_steps_or_none() -> None:
    """``solve(state, seconds)``: (value, best_move, plies_to_end), None beyond the solver's reach."""
    st = some_endgame(7, 10)
    value, move, plies = solve(st) or (None, None, None)
    assert value in (1, -1) and move in st.legal_actions() and isinstance(plies, int)
    assert solve(SQUARE.new_initial_state(1), 0.01) is None  # 81 blocks: out of reach


def test_a_node_budget_too_small_proves_nothing() -> None:
    st = some_endgame(11, 16)
    assert NibbleSolver(14).solve(st, nodes=50) is None
    full = NibbleSolver(14).solve(st)
    assert full is not None and full.nodes > 50


def test_solver_refuses_bad_input() -> None:
    """Bad input gets a clear error."""
    with pytest.raises(ValueError, match="tt_bits"):
        NibbleSolver(4)
    over = SQUARE.new_initial_state(3)
    rng = random.Random(3)
    while not over.is_terminal():
        over.apply_action(over.random_action(rng))
    with pytest.raises(ValueError, match="over"):
        NibbleSolver(12).solve(over)
    with pytest.raises(ValueError, match="Nibble"):
        NibbleSolver(12).solve(tessera.load_game("nume(size=2)").new_initial_state(1))
    st = some_endgame(3, 10)
    with pytest.raises(ValueError, match="seconds"):
        NibbleSolver(12).solve(st, -1)


def won_positions(count: int, blocks: int) -> list[State]:
    """Seeded endgames where the player to move has a forced win."""
    out: list[State] = []
    solver = NibbleSolver(18)
    seed = 0
    while len(out) < count:
        seed += 1
        st = endgame(SQUARE, 2000 + seed, blocks)
        if st is None:
            continue
        got = solver.solve(st)
        if got is not None and got.value > 0:
            out.append(st)
    return out


@pytest.mark.parametrize("n", [4, 5])
def test_level_with_a_forced_win_plays_it_out(n: int) -> None:
    """A level that sees a forced win within its time never gives it away: it wins every game from there."""
    judge = NibbleSolver(18)
    for i, start in enumerate(won_positions(3, 14) + won_positions(3, 17)):
        assert_level_plays_the_win_out(start, n, judge.solve, iterations=30, seed=i)


def test_levels_1_to_3_have_no_solver_and_other_games_none() -> None:
    """Levels 1–3 are unchanged; games without a solver are not wrapped."""
    for n in (1, 2, 3):
        inner = make_agent(f"level{n}", game="nibble")._agent_for("nibble")  # type: ignore[attr-defined]
        assert not isinstance(inner, EndgameAgent)
    assert isinstance(make_agent("level4", game="nibble")._agent_for("nibble"), EndgameAgent)  # type: ignore[attr-defined]
    assert not isinstance(make_agent("level5", game="nymbat")._agent_for("nymbat"), EndgameAgent)  # type: ignore[attr-defined]
    mcts = make_agent("mcts")
    assert with_endgame(mcts, "nymbat") is mcts


def test_wrapper_falls_back_to_the_search_out_of_reach() -> None:
    """Out of reach the wrapped search chooses exactly as it does alone (same seed, same iterations)."""
    st = some_endgame(21, 40)
    assert not within_reach(st)
    alone = make_agent("mcts(c=0.7,rollout_cutoff=-1)").choose(st, iterations=60, rng=4)
    wrapped = EndgameAgent(make_agent("mcts(c=0.7,rollout_cutoff=-1)"))
    assert wrapped.choose(st, iterations=60, rng=4) == alone
    assert "solver" not in wrapped.stats


def test_wrapper_lets_the_search_play_a_proven_loss() -> None:
    """In a lost position the solver's proof is recorded and the search picks the move (more chances)."""
    solver = NibbleSolver(16)
    for seed in range(60):
        st = endgame(SQUARE, 3000 + seed, 12)
        if st is None:
            continue
        got = solver.solve(st)
        if got is not None and got.value < 0:
            break
    else:
        pytest.fail("no lost position in the sample")
    wrapped = EndgameAgent(make_agent("mcts"))
    a = wrapped.choose(st, iterations=40, rng=1)
    assert a in st.legal_actions()
    assert wrapped.stats["solver"] == "loss" and wrapped.stats["iterations"] >= 1
    assert wrapped.stats["value"] == -1.0


def test_wrapper_without_time_to_solve_uses_the_search() -> None:
    st = some_endgame(31, REACH)
    assert within_reach(st)
    wrapped = EndgameAgent(make_agent("mcts"), nodes=10)
    a = wrapped.choose(st, iterations=20, rng=2)
    assert a in st.legal_actions() and wrapped.stats["solver"] == "unknown"


def test_endgame_verdict_says_forced_win_or_lost() -> None:
    """The analysis board's line: "Forced win in N steps for P", "… is lost with best play", or None."""
    texts = []
    for seed in range(30):
        st = endgame(SQUARE, 4000 + seed, 10)
        if st is None:
            continue
        v = endgame_verdict(st, 5.0)
        assert v is not None and v.plies is not None
        p = st.current_player()
        if v.winner == p:
            assert v.text.startswith(f"Forced win in {v.plies} steps for {SQUARE.info.player_names[p]}")
        else:
            assert "is lost with best play" in v.text
        assert st.string_to_action(v.best_move) in st.legal_actions()
        assert v.as_dict()["text"] == v.text
        texts.append(v.winner == p)
    assert True in texts and False in texts
    assert endgame_verdict(SQUARE.new_initial_state(2)) is None
    assert endgame_verdict(tessera.load_game("nymbat").new_initial_state(2)) is None


def test_the_warm_up_loads_every_solver() -> None:
    """The AI worker processes load each game's solver at start (a level's first solve would otherwise
    spend its share of time loading it)."""
    from tessera.agents.endgame import games_with_solver, warm_solvers

    assert sorted(warm_solvers()) == sorted(games_with_solver()) == ["ikabegama", "nibble", "nume"]
