"""Nymbat's own puzzle themes (docs/puzzles.md), read from a puzzle's line: ``Game.puzzle_themes``."""

from __future__ import annotations

from collections.abc import Sequence

from tessera.core.game import Move, State


def themes(to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
    """What the first step takes: ``breakthrough`` (two or more enemy pieces), ``attack`` (one) or
    ``position``; ``home row`` when the line wins there."""
    before = sum(1 for owner, _ in states[0].to_dict()["pieces"].values() if owner != to_move)
    after = sum(1 for owner, _ in states[1].to_dict()["pieces"].values() if owner != to_move)
    lost = before - after
    out = ["breakthrough"] if lost >= 2 else ["attack"] if lost == 1 else ["position"]
    if states[-1].is_terminal() and states[-1].winner() == to_move:
        out.append("home row")
    return out


__all__ = ["themes"]
