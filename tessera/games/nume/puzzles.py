"""Nume's own puzzle themes (docs/puzzles.md), read from a puzzle's line: ``Game.puzzle_themes``."""

from __future__ import annotations

from collections.abc import Sequence

from tessera.core.game import Move, State


def themes(to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
    """``last cells``, and whether the first step opens a ``new group`` or makes a ``join``."""
    return ["last cells", "new group" if "=" in line[0] else "join"]


__all__ = ["themes"]
