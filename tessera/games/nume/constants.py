"""Nume's names shared by its modules: the colours and their words, the phases, the komi's bounds, the
board sizes."""

from __future__ import annotations

from tessera.core.render import PLAYER_COLORS

BLACK, WHITE = 0, 1
"""Colours (not players: with komi bidding a player may take either)."""
COLOUR_NAMES = ("Black", "White")
COLOUR_WORDS = ("black", "white")
COLOUR_LETTERS = ("b", "w")
COLOURS = (PLAYER_COLORS["black"], PLAYER_COLORS["white"])
NO_COLOUR = ("#8a8a8a", "#c9c9c9")
"""Player colours shown before the colours are chosen (komi bidding)."""

FIRST_MOVE_EDGE = 0.5
"""Points Black's first move is assumed to be worth (the seed suggests a half-point komi for Black)."""

KOMI_MAX = 10_000.0
"""The largest komi accepted (far above any board's score; every multiple of 0.5 up to it is exact)."""

BID, CHOOSE, PLAY = 0, 1, 2
"""Phases: player 0 bids komi, player 1 chooses a colour, then stones are placed."""

HEX_SIZES = (2, 12)
SQUARE_SIZES = (3, 19)


def _fmt_komi(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(float(v))
