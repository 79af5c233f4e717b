"""Self-play sources of puzzles: branches of a played game (``tessera puzzles make --branches``)."""

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


def test_a_branch_is_its_game_up_to_branch_plies_before_the_end_then_a_finished_game_of_its_own() -> None:
    """'K more games that share its moves up to --branch-plies before its end and go on with other seeds'."""
    games = list(selfplay("nibble", 1, AGENTS, 1304, branches=2, branch_plies=10))
    assert len(games) == 3
    main, *branches = games
    start = len(main.moves) - 10
    for b, other in enumerate(branches, 1):
        assert other.label == f"{main.label}, branch {b} from ply {start}"
        assert (other.spec, other.seed) == (main.spec, main.seed)
        assert other.moves[:start] == main.moves[:start]
        assert replayed(other).is_terminal()
    assert replayed(main).is_terminal()
    # seeded: the same call plays the same branches
    assert list(selfplay("nibble", 1, AGENTS, 1304, branches=2, branch_plies=10)) == games


def test_a_branch_of_a_game_shorter_than_branch_plies_starts_at_the_beginning() -> None:
    """A branch leaves its game at ply max(0, length − branch_plies)."""
    _, other = selfplay("nibble", 1, AGENTS, 1304, branches=1, branch_plies=10_000)
    assert other.label.endswith("branch 1 from ply 0")
    assert replayed(other).is_terminal()


def test_with_stop_a_game_and_its_branches_are_played_for_that_many_plies_at_most() -> None:
    """'--stop N: play each game for N plies at most' (the positions are those of played games)."""
    full = next(selfplay("nibble", 1, AGENTS, 1304))
    assert len(full.moves) > 8
    main, other = selfplay("nibble", 1, AGENTS, 1304, branches=1, branch_plies=3, stop=8)
    assert main.label == f"{full.label}, 8 plies at most"
    assert len(main.moves) == 8 and not replayed(main).is_terminal()
    assert other.label == f"{main.label}, branch 1 from ply 5"
    assert len(other.moves) == 8 and other.moves[:5] == main.moves[:5]


@pytest.mark.parametrize(("branches", "plies", "stop"), [(-1, 24, None), (2, 0, None), (0, 24, 0)])
def test_bad_branch_settings_are_refused(branches: int, plies: int, stop: int | None) -> None:
    with pytest.raises(ValueError, match="branch"):
        next(selfplay("nibble", 1, AGENTS, 0, branches=branches, branch_plies=plies, stop=stop))
