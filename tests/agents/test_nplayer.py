"""Agents in games of more than two players (four-player Nymbat; issue 16)."""

from __future__ import annotations

import random

import pytest

import tessera
from tessera.agents import TurnAgent, make_agent
from tessera.agents.spec import level
from tessera.arena import play_seats

FOUR = tessera.load_game("nymbat(players=4)")


def _showdown(to_move: int) -> tessera.State:
    """``to_move`` has a 1 next to Blue's 1, every reserve is 0: attacking empties the board and wins
    ('If the board is empty and every reserve is 0, the player who moved last wins')."""
    return FOUR.state_from_dict(
        {
            "to_move": to_move,
            "pieces": {"h8": [to_move, 1], "g8": [2, 1]},
            "reserves": [0, 0, 0, 0],
            "delays": [0, 0, 0, 0],
            "first_turn_done": [True] * 4,
        }
    )


@pytest.mark.parametrize("player", [0, 1, 3])
def test_mcts_credits_each_player_his_own_result_max_n(player: int) -> None:
    """Max-n: each node's statistics are the result of the player who moved into it, so Green and
    Yellow (not only player 0) see their winning attack as worth +1 and take it."""
    st = _showdown(player)
    agent = make_agent("mcts(seed=1)")
    move = st.action_to_string(agent.choose(st, iterations=300, rng=random.Random(0)))
    assert move == "h8-g8"
    assert agent.stats["value"] == pytest.approx(1.0)


def test_levels_of_four_player_nymbat_climb_from_random_through_greedy_to_whole_turn_search() -> None:
    """Four-player Nymbat's own ladder (docs/agents.md, each rung measured against three of the level
    below): 1 random, 2 greedy with noise 0.75, 3 greedy, 4 and 5 ``turns`` at 8 and 40 iterations per
    turn (the level's time an upper bound); two players keep their levels."""
    assert level(3, "nymbat").spec == "alphabeta"
    assert level(1, "nymbat").spec == "greedy(noise=0.5)"
    assert level(2, "nymbat").spec == "greedy"
    specs = [level(n, "nymbat", players=4).spec for n in range(1, 6)]
    assert specs == ["random", "greedy(noise=0.75)", "greedy", "turns(limit=8)", "turns(limit=40)"]
    assert [level(n, "nymbat", players=4).seconds for n in range(1, 6)] == [None, None, None, 1.0, 3.0]
    agent = make_agent("level4(scale=0.05)")
    st = FOUR.new_initial_state()
    rng = random.Random(3)
    for _ in range(40):
        if st.is_terminal():
            break
        st.apply_action(agent.choose(st, rng=rng))
    inner = agent._inner["nymbat/4"]
    assert isinstance(inner, TurnAgent) and inner.limit == 8 and inner.name == "turns(limit=8)"
    assert agent.default_seconds == pytest.approx(1.0 * 0.05)
    with pytest.raises(ValueError, match="scale"):
        make_agent("level3(scale=0)")


def test_every_level_finishes_a_four_player_game_with_legal_moves() -> None:
    """Levels 1–5 all play four-player Nymbat to the end (tiny budgets), seats rotated."""
    game = "nymbat(players=4,reserve=12,first_limit=8,max_turns=120)"
    res = play_seats(game, ["level1", "level2", "level4", "level5"], games=1, iterations=15, seed=4)
    rec = res.records[0]
    assert rec.error is None
    assert rec.returns == [0.0] * 4 or sorted(rec.returns) == [-1 / 3] * 3 + [1.0]


@pytest.mark.parametrize("player", [1, 3])
def test_alphabeta_searches_four_players_as_me_against_the_rest_paranoid(player: int) -> None:
    """With more than two players alpha-beta is paranoid: every position is worth evaluate(me) to the
    root player and its negation to the others, so Green and Yellow see their winning attack as a win."""
    st = _showdown(player)
    agent = make_agent("alphabeta(seed=1)")
    move = st.action_to_string(agent.choose(st, iterations=3, rng=random.Random(0)))
    assert move == "h8-g8" and agent.stats["value"] > 1.5
    assert agent._static(st, player, 0) == -agent._static(st, 2, 0) == st.evaluate(player)
