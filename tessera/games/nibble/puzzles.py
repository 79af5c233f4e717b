"""Nibble's own puzzle themes (docs/puzzles.md), read from a puzzle's line: ``Game.puzzle_themes``."""

from __future__ import annotations

from collections.abc import Sequence

from tessera.core.game import Move, State


def themes(to_move: int, line: Sequence[Move], states: Sequence[State]) -> list[str]:
    """``tempo`` when the win needs ending the turn early (the opponent must move); how the last step
    wins: ``majority``, ``take the last colour`` or ``three colours``."""
    out: list[str] = []
    mine = [i for i, s in enumerate(states[:-1]) if s.current_player() == to_move]
    if any(line[i] == "end" for i in mine):
        out.append("tempo")
    last = states[-1]
    if last.is_terminal() and last.winner() == to_move:
        before = states[-2].to_dict()["cells"]
        after = last.to_dict()["cells"]
        taken = [before[c] for c in before if c not in after]
        if not after:
            out.append("majority")
        elif taken and all(v != taken[-1] for v in after.values()):
            out.append("take the last colour")
        else:
            out.append("three colours")
    return out


__all__ = ["themes"]
