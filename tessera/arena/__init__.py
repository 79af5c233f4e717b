"""Matches between agents: ``play_match`` (seats alternated, Wilson 95 % intervals) and ``tessera match``.

>>> from tessera.arena import play_match
>>> res = play_match("ikabegama(distance=2)", "greedy", "random", games=4, seed=1)
>>> res.wins + res.draws + res.losses
4
"""

from tessera.arena.match import GameRecord, MatchResult, play_game, play_match, wilson_interval

__all__ = ["GameRecord", "MatchResult", "play_game", "play_match", "wilson_interval"]
