"""Exact endgames: compiled solvers that levels 4 and 5 consult when the end of the game is within reach.

* :mod:`tessera.agents.endgame.nibble` — Nibble's solver (alpha-beta with a transposition
  table over bit sets, numba) and ``solve(state, seconds) -> (value, best_move, plies) | None``.
* :mod:`tessera.agents.endgame.nume` — Nume's last empty cells: alpha-beta over the game's
  placement kernel, trying only the numbers that can matter (1 up to the largest size the new
  group can reach).
* :mod:`tessera.agents.endgame.ikabegama` — Ikabegamá's short races: a compiled search that
  proves a forced win or loss within a horizon (a bound on the moves each side needs to win
  prunes it), over the game's own kernels.
* :mod:`tessera.agents.endgame.solution` — :class:`Solution`, what every solver proves.
* :mod:`tessera.agents.endgame.agent` — :class:`EndgameAgent`, the wrapper the levels use:
  the solver first within reach, the level's own search otherwise; :data:`SOLVERS`, the games
  with a solver.
* :mod:`tessera.agents.endgame.analysis` — :func:`endgame_verdict`, "forced win in N" /
  "lost with best play" for the analysis board.
"""

from tessera.agents.endgame.agent import (
    SOLVERS,
    EndgameAgent,
    EndgameSolver,
    warm_solvers,
    with_endgame,
    within_reach,
)
from tessera.agents.endgame.analysis import Verdict, endgame_verdict
from tessera.agents.endgame.ikabegama import IkabegamaSolver
from tessera.agents.endgame.nibble import REACH, NibbleSolver, solve
from tessera.agents.endgame.nume import NumeSolver
from tessera.agents.endgame.solution import Solution

__all__ = [
    "REACH",
    "SOLVERS",
    "EndgameAgent",
    "EndgameSolver",
    "IkabegamaSolver",
    "NibbleSolver",
    "NumeSolver",
    "Solution",
    "Verdict",
    "endgame_verdict",
    "solve",
    "warm_solvers",
    "with_endgame",
    "within_reach",
]
