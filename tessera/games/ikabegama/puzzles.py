"""Ikabegamá's own puzzle themes (docs/puzzles.md), read from a puzzle's line: ``Game.puzzle_themes``."""

from __future__ import annotations

from collections.abc import Sequence

from tessera.core.game import Move, State


def themes(to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
    """``race``, and ``nest`` when the line ends on the enemy nest."""
    out = ["race"]
    last = states[-1]
    if last.is_terminal() and last.winner() == to_move:
        out.append("nest")
    return out


__all__ = ["themes"]
