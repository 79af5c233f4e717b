"""Nibble's names shared by its modules: the players, the colours of the blocks, the winning counts."""

from __future__ import annotations

NAMES = ("First", "Second")
PLAYER_COLORS = ("#1d1d1f", "#f4f1ea")

PALETTE: tuple[tuple[str, str], ...] = (
    ("red", "#e6194b"),
    ("green", "#3cb44b"),
    ("yellow", "#ffe119"),
    ("blue", "#4363d8"),
    ("orange", "#f58231"),
    ("purple", "#911eb4"),
    ("cyan", "#42d4f4"),
    ("magenta", "#f032e6"),
    ("brown", "#9a6324"),
    ("lime", "#bfef45"),
    ("pink", "#fabed4"),
    ("teal", "#469990"),
    ("navy", "#000075"),
)
"""Name and fill of each colour, by colour number (the first 9 in the 9-colour game)."""

SYMBOLS = "0123456789abc"
"""One-character terminal symbol of each colour (its number, then a, b, c)."""

EMPTY_FILL = "#ece6d8"

INSTANT_TRIPLE = {9: 7, 13: 10}
"""Blocks of each of three table-adjacent colours that win at once."""

MAJORITY = {9: 5, 13: 7}
"""Blocks that make a majority of one colour, and majorities that win."""

SWAPS_PER_CELL = 20
"""Random swap attempts per cell when dealing."""
