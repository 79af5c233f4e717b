"""Nelaxtam's names shared by its modules: the players, their colours, the phases, the token kinds."""

from __future__ import annotations

import re

from tessera.core.render import PLAYER_COLORS

BLACK, WHITE = 0, 1
NAMES = ("Black", "White")
COLORS = (PLAYER_COLORS["black"], PLAYER_COLORS["white"])
TERRITORY_FILL = ("#6e6a64", "#e4dccb")
"""Cell fill of Black and White territory."""
SEA_FILL = "#9cc3dd"
"""Cell fill of a removed square."""
HIDDEN = "?"
"""A sealed order whose content this view may not see."""

INVASION, BATTLE, OVER = "invasion", "battle", "over"
PHASES = (INVASION, BATTLE, OVER)
"""Phase names by the kernels' phase number."""

HOLD, MOVE, DESTROY, PLACE = 0, 1, 2, 3
"""Token kinds."""

TOKEN_RE = re.compile(r"(\d+)([=>x@])(.*)")
"""An order token: troop number, operator, square."""
