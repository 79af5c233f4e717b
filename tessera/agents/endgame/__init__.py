"""Exact endgames: the games' compiled solvers, consulted by levels 4 and 5 and the analysis board
when the end of the game is within reach.

A game declares its solver (``Game.solver()``, an :class:`~tessera.core.kits.solver.EndgameSolver`
from ``games/<game>/solver.py``: Nibble's, Nume's and Ikabegamá's); this package reaches it only
through that hook.

* :mod:`tessera.agents.endgame.agent` — :class:`EndgameAgent`, the wrapper the levels use:
  the solver first within reach, the level's own search otherwise; :func:`solver_of`,
  :func:`games_with_solver`, :func:`warm_solvers`.
* :mod:`tessera.agents.endgame.analysis` — :func:`endgame_verdict`, "forced win in N" /
  "lost with best play" for the analysis board.
* :class:`Solution` (what every solver proves) and :class:`EndgameSolver` come from the kit
  :mod:`tessera.core.kits.solver`.
"""

from tessera.agents.endgame.agent import (
    EndgameAgent,
    games_with_solver,
    solver_of,
    warm_solvers,
    with_endgame,
    within_reach,
)
from tessera.agents.endgame.analysis import Verdict, endgame_verdict
from tessera.core.kits.solver import EndgameSolver, Solution

__all__ = [
    "EndgameAgent",
    "EndgameSolver",
    "Solution",
    "Verdict",
    "endgame_verdict",
    "games_with_solver",
    "solver_of",
    "warm_solvers",
    "with_endgame",
    "within_reach",
]
