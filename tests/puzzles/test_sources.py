"""Self-play sources of puzzles: games played for a few plies only (``tessera puzzles make --stop``)."""

from __future__ import annotations

import pytest

from tessera.core.game import State
from tessera.core.records import play_stored
from tessera.core.registry import load_game
from tessera.puzzles.sources import PlayedGame, selfplay

AGENTS = ("greedy", "greedy(noise=0.5)")


def replayed(played: PlayedGame) -> State:
    state = load_game(played.spec).new_initial_state(seed=played.seed)
    for player, move in played.moves:
        play_stored(state, player, move)
    return state


def test_with_stop_a_self_play_game_is_played_for_that_many_plies_at_most() -> None:
    """'--stop N: play each game for N plies at most' (its positions are those of a played game)."""
    full = next(selfplay("nibble", 1, AGENTS, 1304))
    assert len(full.moves) > 8 and replayed(full).is_terminal()
    (cut,) = selfplay("nibble", 1, AGENTS, 1304, stop=8)
    assert cut.label == f"{full.label}, 8 plies at most"
    assert len(cut.moves) == 8 and not replayed(cut).is_terminal()
    # seeded: the same call plays the same game; a game that ends before the stop is played to its end
    assert list(selfplay("nibble", 1, AGENTS, 1304, stop=8)) == [cut]
    (whole,) = selfplay("nibble", 1, AGENTS, 1304, stop=10_000)
    assert replayed(whole).is_terminal()


def test_a_stop_below_one_ply_is_refused() -> None:
    with pytest.raises(ValueError, match="stop must be 1 or more plies"):
        next(selfplay("nibble", 1, AGENTS, 0, stop=0))
