"""The one place puzzles reach the exact solvers: :func:`solver_for`.

A puzzle is *proved* when its game declares an exact solver (Nibble's endgames, Nume's last empty
cells, Ikabegamá's short races: :func:`tessera.agents.endgame.solver_of`) and *found by search*
otherwise.  Everything in :mod:`tessera.puzzles` that needs a solver asks :func:`solver_for`, so
where the solvers live is known here alone.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from tessera.core.game import State

SOLVE_SECONDS = 20.0
"""Most seconds one solve may take before the position is given up as unknown."""


@dataclass(frozen=True)
class PuzzleSolver:
    """One game's exact solver, as the puzzle finder and the proof test use it."""

    game: str
    spec: Any
    """The game's :class:`~tessera.agents.endgame.EndgameSolver` (``make``, ``within``, ``reach``)."""
    reach: int
    """Positions within this reach (the game's own measure: blocks, empty cells, moves to win) are searched."""
    horizon: int | None
    """Plies looked ahead by a solver that proves races only (its ``solve`` takes a ``horizon``; Ikabegamá);
    ``None``: the solver solves to the end of the game."""

    def new(self) -> Any:
        """A fresh solver (its own transposition table: 2**20 slots; a race solver's, cleared before every
        solve, 2**16 — clearing a larger one cost more than the small searches of a puzzle)."""
        return self.spec.make(20 if self.horizon is None else 16)

    def within(self, state: State) -> bool:
        """Whether ``state`` is small enough to look for a puzzle in it."""
        return not state.is_terminal() and state.game.num_players == 2 and bool(self.spec.within(state, self.reach))

    def _solve(self, solver: Any, state: State, exact: bool) -> Any:
        if self.horizon is None:
            return solver.solve(state, SOLVE_SECONDS, exact=exact)
        # A race solver's table keeps wins proved by earlier searches, some of them longer than the
        # horizon: "wins within the horizon" would then depend on what was solved before (the finder
        # and the proof check disagreed on 8 of 86 Ikabegamá openings).  Each solve starts afresh.
        solver.clear()
        return solver.solve(state, SOLVE_SECONDS, exact=exact, horizon=self.horizon)

    def verdict(self, solver: Any, state: State, mover: int) -> bool | None:
        """Whether ``mover`` has a forced win in ``state``: ``True``, ``False`` (proved not), ``None`` (unknown).

        A finished game is read from its winner.  A race solver that proves nothing has proved that
        neither side wins within its horizon: then ``mover`` does not win in it (``False``).
        """
        if state.is_terminal():
            return state.winner() == mover
        out = self._solve(solver, state, exact=False)
        if out is None:
            return False if self.horizon is not None else None
        value = out.value if state.current_player() == mover else -out.value
        return bool(value > 0)

    def best(self, solver: Any, state: State) -> int | None:
        """A best step of the player to move (the fastest win, the longest resistance), or ``None``."""
        out = self._solve(solver, state, exact=True)
        return None if out is None else int(out.best_move)


def solver_for(game: str, *, reach: int | None = None, horizon: int | None = None) -> PuzzleSolver | None:
    """The exact solver that proves puzzles of ``game``, or ``None`` (its puzzles are found by search).

    ``reach``: the largest positions searched (default: the levels' reach of the solver);
    ``horizon``: the plies a race solver looks ahead (default: its own).
    """
    from tessera.agents.endgame import solver_of

    spec = solver_of(game)
    if spec is None:
        return None
    param = inspect.signature(spec.make(10).solve).parameters.get("horizon")
    races = param is not None
    if param is not None and horizon is None:
        horizon = int(param.default)
    return PuzzleSolver(game, spec, spec.reach if reach is None else reach, horizon if races else None)


__all__ = ["SOLVE_SECONDS", "PuzzleSolver", "solver_for"]
