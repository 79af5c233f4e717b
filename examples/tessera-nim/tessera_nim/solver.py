"""Nim's exact solver: the theory of the subtraction game, declared with ``NimGame.solver()``.

The player to move loses exactly when the heap is a multiple of ``take + 1``; the winner takes the
rest of that multiple, and every round after it (the loser takes ``x``, the winner ``take + 1 − x``)
lasts two plies whatever the loser takes.  The levels from 4 up and the analysis board ask it
through the hook, as they ask the built-in games' solvers.
"""

from __future__ import annotations

from typing import Any

from tessera.core.kits.solver import SOLVER_SHARE, EndgameSolver, Solution, check_budget


class NimSolver:
    """Solves any Nim position at once (the table size of the solver protocol is not needed)."""

    def __init__(self, tt_bits: int = 20) -> None:
        self.tt_bits = tt_bits

    def solve(
        self, state: Any, seconds: float | None = None, *, nodes: int | None = None, exact: bool = True
    ) -> Solution | None:
        """The value for the player to move (+1 win, −1 loss), a best move and the plies to the end."""
        check_budget(seconds, nodes)
        if state.is_terminal():
            return None
        stones, period = state.stones, state.take + 1
        rest = stones % period
        rounds = stones // period
        if rest:  # a win: take the rest, then answer every take with what completes the period
            return Solution(1, rest - 1, 1 + 2 * rounds, 1)
        return Solution(-1, 0, 2 * rounds, 1)  # a loss: every take lasts as long


def _within(state: Any, reach: int) -> bool:
    return bool(state.stones <= reach)


SOLVER = EndgameSolver(NimSolver, _within, 60, 60, SOLVER_SHARE, warm_up="nim(stones=5)")
"""Nim's solver as the levels and the analysis board use it: every heap the parameters allow is in reach."""

__all__ = ["SOLVER", "NimSolver"]
