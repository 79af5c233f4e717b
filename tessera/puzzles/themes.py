"""Themes of a puzzle: what its line is about (docs/puzzles.md lists them).

Every puzzle gets a length theme (``one-move``: one step of the player; ``short``: two;
``long``: three or more) and ``ends-game`` when its line plays to the end of the game; each game
adds its own from the line (``Game.puzzle_themes``, in the game's folder).
"""

from __future__ import annotations

from tessera.core.game import State
from tessera.puzzles.model import Puzzle


def _states(puzzle: Puzzle) -> list[State]:
    """The position before each step of the line, then the last one."""
    state = puzzle.state()
    out = [state.clone()]
    for move in puzzle.line:
        state.play(move)
        out.append(state.clone())
    return out


def themes_of(puzzle: Puzzle) -> list[str]:
    """The themes of ``puzzle`` (its line is played to read them)."""
    states = _states(puzzle)
    steps = len(puzzle.refutations)
    out = ["one-move" if steps == 1 else "short" if steps == 2 else "long"]
    if states[-1].is_terminal():
        out.append("ends-game")
    out.extend(states[0].game.puzzle_themes(puzzle.to_move, puzzle.line, states))
    return out


__all__ = ["themes_of"]
