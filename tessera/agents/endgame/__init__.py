"""Exact endgames: compiled solvers that levels 4 and 5 consult when the end of the game is within reach.

* :mod:`tessera.agents.endgame.nibble` — Nibble's solver (alpha-beta with a transposition
  table over bit sets, numba) and ``solve(state, seconds) -> (value, best_move, plies) | None``.
* :mod:`tessera.agents.endgame.agent` — :class:`EndgameAgent`, the wrapper the levels use:
  the solver first within reach, the level's own search otherwise.
* :mod:`tessera.agents.endgame.analysis` — :func:`endgame_verdict`, "forced win in N" /
  "lost with best play" for the analysis board.
"""

from tessera.agents.endgame.agent import EndgameAgent, with_endgame, within_reach
from tessera.agents.endgame.analysis import Verdict, endgame_verdict
from tessera.agents.endgame.nibble import REACH, NibbleSolver, Solution, solve

__all__ = [
    "REACH",
    "EndgameAgent",
    "NibbleSolver",
    "Solution",
    "Verdict",
    "endgame_verdict",
    "solve",
    "with_endgame",
    "within_reach",
]
