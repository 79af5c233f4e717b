"""Nymbat's notation: a step's action number written out and read back (``h5-g7``, ``n5=3``, ``xg6``,
``lose h5``, ``end``, ``pass``, ``resign``); a malformed step is an ``IllegalMove`` naming the problem."""

from __future__ import annotations

import re

from tessera.core.game import Action, IllegalMove, no_such_action
from tessera.core.texts import Text
from tessera.games.nymbat.board import (
    END,
    GRID,
    INDEX,
    LABEL,
    LOSE_BASE,
    NUM_ACTIONS,
    PASS,
    PLACE_BASE,
    REMOVE_BASE,
    RESIGN,
    N,
)

_CELL = r"([a-o](?:1[0-5]|[1-9]))"
_MOVE_RE = re.compile(rf"{_CELL}-{_CELL}")
_PLACE_RE = re.compile(rf"{_CELL}=(\d+)")
_REMOVE_RE = re.compile(rf"x{_CELL}")
_LOSE_RE = re.compile(rf"lose {_CELL}")
_SYNTAX = "steps are 'n5=3' (bring in), 'h5-g7' (move), 'xg6' (breakthrough), 'lose h5', 'end' or 'pass'"


def step_text(action: Action) -> str:
    """The notation of ``action`` (``IllegalMove`` if Nymbat has no such action)."""
    if action == RESIGN:
        return "resign"
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalMove(no_such_action(action, "nymbat"))
    if action < PLACE_BASE:
        return f"{LABEL[action // N]}-{LABEL[action % N]}"
    if action < REMOVE_BASE:
        i, k = divmod(action - PLACE_BASE, 6)
        return f"{LABEL[i]}={k + 1}"
    if action < LOSE_BASE:
        return "x" + LABEL[action - REMOVE_BASE]
    if action < END:
        return "lose " + LABEL[action - LOSE_BASE]
    return "end" if action == END else "pass"


def parse_step(move: str) -> Action:
    """The action of a step written ``move``; ``IllegalMove`` says what is malformed."""
    text = move.strip().lower()
    if text == "end":
        return END
    if text == "pass":
        return PASS
    if text == "resign":
        return RESIGN
    if m := _MOVE_RE.fullmatch(text):
        return _index(m.group(1), move) * N + _index(m.group(2), move)
    if m := _PLACE_RE.fullmatch(text):
        digits = m.group(2)
        if len(digits) > 3:  # a huge number is refused without converting it (int() stops at 4,300 digits)
            raise IllegalMove(
                Text(
                    "refusal.nymbat.number_long",
                    f"{digits[:8]}…: a piece's number is a whole number from 1 to 6",
                    digits=digits[:8],
                )
            )
        k = int(digits)
        if not 1 <= k <= 6:
            raise IllegalMove(
                Text(
                    "refusal.nymbat.number",
                    f"{move!r}: a piece's number is a whole number from 1 to 6, not {k}",
                    move=repr(move),
                    n=k,
                )
            )
        return PLACE_BASE + _index(m.group(1), move) * 6 + k - 1
    if m := _REMOVE_RE.fullmatch(text):
        return REMOVE_BASE + _index(m.group(1), move)
    if m := _LOSE_RE.fullmatch(text):
        return LOSE_BASE + _index(m.group(1), move)
    raise IllegalMove(Text("refusal.nymbat.syntax", f"{move!r} is not a Nymbat step: {_SYNTAX}", move=repr(move)))


def _index(label: str, move: str) -> int:
    if not GRID.has_label(label):
        raise IllegalMove(
            Text(
                "refusal.nymbat.no_hex",
                f"{move!r}: {label!r} is not a hex of the board (rows a–o, side 8)",
                move=repr(move),
                hex=repr(label),
            )
        )
    return INDEX[GRID.cell(label)]


# -- position dicts ----------------------------------------------------------------------
