"""The arena: one runner for every kind of self-play — matches, tournaments, balance studies.

Every run is a list of games (:class:`~tessera.arena.play.Task`: the game string, the
agent of every seat, the budget and the seeds) played by one game loop
(:func:`~tessera.arena.play.play_game`, with the forfeit rule) into one record type
(:class:`~tessera.arena.play.GameResult`), in this process, in local processes (``jobs``)
or on Ray (``ray_address``), and, given an ``out`` directory, kept in a results file that
the same call continues (:mod:`tessera.arena.runner`).  On top:

* :func:`play_match` (two agents, seats alternated) and :func:`play_seats` (one agent per
  seat, seats rotated, any number of players) — ``tessera match``;
* :func:`run_tournament` (round robin or gauntlet, Bradley–Terry ratings) — ``tessera tournament``;
* :func:`run_balance` and :func:`find_fair` (self-play balance figures, the fair value of a
  parameter) — ``tessera balance``.

Statistics are in :mod:`tessera.arena.stats`, plots in :mod:`tessera.arena.plots`, the
commands in :mod:`tessera.arena.cli`.  Ratings and the fair-value search need scipy
(``pip install 'tessera[lab]'``; matplotlib for PNG plots).

>>> from tessera.arena import play_match
>>> res = play_match("ikabegama(distance=2)", "greedy", "random", games=4, seed=1)
>>> res.wins + res.draws + res.losses, [r.key for r in res.records]
(4, ['0', '1', '2', '3'])
"""

from tessera.arena.balance import run_balance
from tessera.arena.fair import find_fair
from tessera.arena.match import MatchResult, SeatsResult, play_match, play_seats
from tessera.arena.play import GameResult, Task, play_game, play_task
from tessera.arena.runner import ResultsFile, run_tasks
from tessera.arena.stats import wilson_interval
from tessera.arena.tournament import run_tournament

__all__ = [
    "GameResult",
    "MatchResult",
    "ResultsFile",
    "SeatsResult",
    "Task",
    "find_fair",
    "play_game",
    "play_match",
    "play_seats",
    "play_task",
    "run_balance",
    "run_tasks",
    "run_tournament",
    "wilson_interval",
]
