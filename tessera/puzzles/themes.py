"""Themes of a puzzle: what its line is about (docs/puzzles.md lists them).

Every puzzle gets a length theme (``one-move``: one step of the player; ``short``: two;
``long``: three or more) and ``ends-game`` when its line plays to the end of the game; each game
adds its own from the line (:data:`GAME_THEMES`).
"""

from __future__ import annotations

from collections.abc import Callable

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


def _nibble(puzzle: Puzzle, states: list[State]) -> list[str]:
    out: list[str] = []
    mine = [i for i, s in enumerate(states[:-1]) if s.current_player() == puzzle.to_move]
    if any(puzzle.line[i] == "end" for i in mine):
        out.append("tempo")  # the win needs ending the turn early: the opponent must move
    last = states[-1]
    if last.is_terminal() and last.winner() == puzzle.to_move:
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


def _nume(puzzle: Puzzle, states: list[State]) -> list[str]:
    first = puzzle.line[0]
    return ["last cells", "new group" if "=" in first else "join"]


def _ikabegama(puzzle: Puzzle, states: list[State]) -> list[str]:
    out = ["race"]
    last = states[-1]
    if last.is_terminal() and last.winner() == puzzle.to_move:
        out.append("nest")
    return out


def _nymbat(puzzle: Puzzle, states: list[State]) -> list[str]:
    me = puzzle.to_move
    before = sum(1 for owner, _ in states[0].to_dict()["pieces"].values() if owner != me)
    after = sum(1 for owner, _ in states[1].to_dict()["pieces"].values() if owner != me)
    lost = before - after
    out = ["breakthrough"] if lost >= 2 else ["attack"] if lost == 1 else ["position"]
    if states[-1].is_terminal() and states[-1].winner() == me:
        out.append("home row")
    return out


GAME_THEMES: dict[str, Callable[[Puzzle, list[State]], list[str]]] = {
    "nibble": _nibble,
    "nume": _nume,
    "ikabegama": _ikabegama,
    "nymbat": _nymbat,
}
"""Each game's own themes, read from the line."""


def themes_of(puzzle: Puzzle) -> list[str]:
    """The themes of ``puzzle`` (its line is played to read them)."""
    states = _states(puzzle)
    steps = len(puzzle.refutations)
    out = ["one-move" if steps == 1 else "short" if steps == 2 else "long"]
    if states[-1].is_terminal():
        out.append("ends-game")
    own = GAME_THEMES.get(puzzle.game)
    if own is not None:
        out.extend(own(puzzle, states))
    return out


__all__ = ["GAME_THEMES", "themes_of"]
