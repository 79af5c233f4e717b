"""Matches between agents: ``play_match`` (two players, seats alternated, Wilson 95 % intervals),
``play_seats`` (any number of players, one agent per seat, seats rotated) and ``tessera match``.

>>> from tessera.arena import play_match
>>> res = play_match("ikabegama(distance=2)", "greedy", "random", games=4, seed=1)
>>> res.wins + res.draws + res.losses
4
"""

from tessera.arena.match import (
    GameRecord,
    MatchResult,
    SeatsRecord,
    SeatsResult,
    play_game,
    play_match,
    play_seats,
    wilson_interval,
)

__all__ = [
    "GameRecord",
    "MatchResult",
    "SeatsRecord",
    "SeatsResult",
    "play_game",
    "play_match",
    "play_seats",
    "wilson_interval",
]
