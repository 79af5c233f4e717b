"""What an exact endgame solver proves about a position (every game's solver answers with it)."""

from __future__ import annotations

from dataclasses import dataclass


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


__all__ = ["Solution"]
