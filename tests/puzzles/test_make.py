"""The finder (``tessera.puzzles.make``): what positions of a played game it searches."""

from __future__ import annotations

from tessera.puzzles.make import Report, Settings, find
from tessera.puzzles.sources import PlayedGame, selfplay


def searched(spec: str, moves: PlayedGame) -> int:
    report = Report()
    game = PlayedGame(moves.label, spec, moves.seed, moves.moves)
    list(find("ikabegama", [game], Settings(reach=2, horizon=7, tries=1), report=report))
    return report.positions


def test_a_race_is_not_searched_where_the_safeguard_falls_within_its_horizon() -> None:
    """'the game's safeguard (a draw) falls within the race's horizon': such positions are skipped, since
    there the only step that wins within the horizon is mostly the only one that wins before the draw."""
    (played,) = selfplay("ikabegama(max_plies=40)", 1, ("greedy", "greedy(noise=0.5)"), 5, stop=5)
    assert len(played.moves) == 5
    assert searched("ikabegama(max_plies=40)", played) == 5
    # the same moves under a safeguard at ply 9: only plies 0 and 1 have 7 plies before it
    assert searched("ikabegama(max_plies=9)", played) == 2
