"""What every game's exact endgame solver shares: its declaration (:class:`EndgameSolver`, what
``Game.solver()`` returns), its answer (:class:`Solution`), and what the compiled searches share
(the table's bounds, its keys, the checks of a call's budget).

A game's solver lives in its folder (``games/<game>/solver.py``); the levels' wrapper and the
analysis board (:mod:`tessera.agents.endgame`) reach it only through ``Game.solver()``.


Each solver (Nibble, Nume, Ikabegamá) runs negamax alpha-beta iteratively, one frame per ply
(numba cannot cache a recursive function), and each keeps its frame bookkeeping inline in its
own loop: moved into shared kernels here it cost 8–23 % of the nodes searched per CPU second
(measured on the same positions, node counts equal), so only what costs nothing is shared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tessera.core.kernels import kernel

if TYPE_CHECKING:
    from tessera.core.game import State

SOLVER_SHARE = 0.5
"""The usual share of a move's remaining time a level gives its game's solver before its search takes over."""


@dataclass(frozen=True)
class Solution:
    """What the solver proved about a position, for the player to move."""

    value: int
    """+1 a forced win, −1 a loss against best play, 0 a draw."""
    best_move: int
    """An integer action of the State API: winning (fastest win when ``plies`` is known), or the longest loss."""
    plies: int | None
    """Steps to the end with best play on both sides (fastest win, longest loss); ``None`` if only the result
    was proved in the time (and for a draw)."""
    nodes: int
    """Nodes searched by this call."""


@dataclass(frozen=True)
class EndgameSolver:
    """How the levels and the analysis board use one game's exact solver (``Game.solver()``)."""

    make: Callable[[int], Any]
    """A new solver with a table of ``2^bits`` slots; its ``solve(state, seconds, *, nodes, exact)`` gives a
    :class:`Solution` or ``None``."""
    within: Callable[[State, int], bool]
    """Whether the solver takes a position, given a reach."""
    reach: int
    """The levels' reach (Nibble: blocks left; Nume: empty cells; Ikabegamá: moves to win)."""
    analysis_reach: int
    """The analysis board's reach (it may think longer; a position out of time gives no verdict)."""
    share: float
    """Share of a move's remaining time the levels give the solver."""
    warm_up: str
    """A small game (one-string form) whose positions load the compiled search once at start."""


EXACT, LOWER, UPPER = 1, 2, 3
"""Bounds stored in a transposition table."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@kernel
def mix64(x: int) -> np.uint64:
    """SplitMix64's finaliser of ``x``: a table key for one item of a position (keys are exclusive-ors of them)."""
    z = np.uint64(x) * _GOLDEN + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def check_budget(seconds: float | None, nodes: int | None) -> None:
    """``ValueError`` unless ``seconds`` is a number >= 0 (or None) and ``nodes`` an integer >= 1 (or None)."""
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0):
        raise ValueError(f"seconds must be a number >= 0, not {seconds!r}")
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1):
        raise ValueError(f"nodes must be an integer >= 1, not {nodes!r}")


def check_table_bits(tt_bits: int) -> int:
    """The table's size ``2^tt_bits``; ``ValueError`` unless ``tt_bits`` is an integer from 10 to 28."""
    if isinstance(tt_bits, bool) or not isinstance(tt_bits, int) or not 10 <= tt_bits <= 28:
        raise ValueError(f"tt_bits must be an integer from 10 to 28, not {tt_bits!r}")
    return 1 << tt_bits


__all__ = [
    "EXACT",
    "LOWER",
    "SOLVER_SHARE",
    "UPPER",
    "EndgameSolver",
    "Solution",
    "check_budget",
    "check_table_bits",
    "mix64",
]
