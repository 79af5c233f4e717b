"""Nymbat's board and seats, shared by its modules: the hexagon and its cell numbering, the layout of
two or four seats (home rows, setup areas, distances), the action numbering and phases (the kernels'),
and the kernels' board array and starting position built from them."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from tessera.core.geometry import bits, hexagon
from tessera.core.kernels import neighbour_table
from tessera.core.render import PLAYER_COLORS
from tessera.games.nymbat import kernels as _k

RED, BLUE = 0, 1
NAMES = ("Red", "Blue")
COLORS = (PLAYER_COLORS["red"], PLAYER_COLORS["blue"])
NAMES4 = ("Red", "Green", "Blue", "Yellow")
"""Seats of the four-player variant in turn order (clockwise)."""

GRID = hexagon(8)
"""The board: a hexagon of side 8, rows ``a``–``o``."""
CELLS: tuple[int, ...] = GRID.cells
"""Cell ids in label order; the compact index of ``CELLS[i]`` is ``i``."""
N = len(CELLS)
if N != _k.N:  # the kernels number cells and actions for this board
    raise ImportError(f"nymbat: the board has {N} cells, the kernels expect {_k.N}")
INDEX = [-1] * GRID.size
for _i, _c in enumerate(CELLS):
    INDEX[_c] = _i
LABEL = [GRID.label(c) for c in CELLS]
FULL = GRID.full
NBR = GRID.neighbor_mask
LAST_ROW = len(GRID.rows) - 1  # 14


class Layout:
    """Where the seats of one player count sit: edges, home rows, setup areas, distances.

    Built once per player count from the core geometry (:meth:`Grid.edge_lines`):
    a player's home row is his edge, his setup area the hexes at most 2 lines
    from it, and his distance is the number of lines parallel to his opponent
    home row (the home row of the player opposite him) between a hex and that row.
    """

    def __init__(self, players: int) -> None:
        edges: tuple[str, ...]
        names: tuple[str, ...]
        setup_text: tuple[str, ...]
        if players == 2:
            edges, names = ("bottom", "top"), NAMES
            colors: tuple[str, ...] = COLORS
            symbols = "RB"
            setup_text = ("rows m, n, o", "rows a, b, c")
        elif players == 4:
            edges, names = ("bottom", "lower-left", "top", "upper-right"), NAMES4
            colors = tuple(PLAYER_COLORS[k] for k in ("red", "green", "blue", "yellow"))
            symbols = "RGBY"
            setup_text = (
                "rows m, n, o",
                "the three lines along the lower-left edge h1–o1",
                "rows a, b, c",
                "the three lines along the upper-right edge a8–h15",
            )
        else:
            raise ValueError(f"nymbat is played by 2 or 4 players, not {players}")
        self.n = players
        """Number of players."""
        self.edges: tuple[str, ...] = edges
        """Each seat's edge (core geometry edge names)."""
        self.names: tuple[str, ...] = names
        self.colors = colors
        self.symbols = symbols
        self.setup_text = setup_text
        self.opposite: tuple[int, ...] = tuple((p + players // 2) % players for p in range(players))
        """The player opposite each player (whose home row he races to)."""
        self.home: tuple[int, ...] = tuple(GRID.edge_mask(e) for e in edges)
        """Home row of each player (bit set)."""
        self.setup: tuple[int, ...] = tuple(GRID.edge_mask(e, 2) for e in edges)
        """Setup area of each player: the hexes at most 2 lines from his edge."""
        self.dist: tuple[list[int], ...] = tuple(GRID.edge_lines(edges[self.opposite[p]]) for p in range(players))
        """Per player and cell: lines between the hex and the player's opponent home row."""
        self.target: tuple[int, ...] = tuple(self.home[self.opposite[p]] for p in range(players))
        """Each player's opponent home row (bit set)."""


LAYOUTS = {2: Layout(2), 4: Layout(4)}
"""The layouts by number of players."""
HOME = LAYOUTS[2].home
"""Two players: home row of each player, Red ``o`` (bottom), Blue ``a`` (top)."""
SETUP = LAYOUTS[2].setup
"""Two players: setup area of each player, his home row and the two rows next to it."""
DIST = LAYOUTS[2].dist
"""Two players: rows between a hex and the opponent's home row, per player."""

# The action numbering is the kernels' (one definition).
MOVE_BASE = 0
PLACE_BASE, REMOVE_BASE, LOSE_BASE, END, PASS, NUM_ACTIONS = (
    _k.PLACE_BASE,
    _k.REMOVE_BASE,
    _k.LOSE_BASE,
    _k.END,
    _k.PASS,
    _k.NUM_ACTIONS,
)
RESIGN = NUM_ACTIONS
"""Not a legal action: the history entry of :meth:`NymbatState.resign` (written ``resign``)."""

START, BRING, MOVE, PENALTY = _k.START, _k.BRING, _k.MOVE, _k.PENALTY
PHASE_NAMES = ("start", "bring", "move", "penalty")


assert _k.N == N and _k.NUM_ACTIONS == NUM_ACTIONS and _k.END == END and _k.FAR == LAST_ROW
_H = _k.H


def _geo(layout: Layout, params: Mapping[str, Any]) -> np.ndarray:
    """The kernels' ``geo`` array for a layout and the game's parameters (layout in the kernels module)."""
    geo = _board_geo(layout.n).copy()
    geo[N, :5] = (layout.n, params["reserve"], params["first_limit"], params["delay_period"], params["max_turns"])
    return geo


@functools.cache
def _board_geo(players: int) -> np.ndarray:
    """The part of :func:`_geo` that depends on the seats only, built once per number of players."""
    layout = LAYOUTS[players]
    geo = np.zeros(_k.GEO_SHAPE, np.int32)
    geo[:N, :6] = neighbour_table(GRID, CELLS)
    for i, c in enumerate(CELLS):
        for p in range(layout.n):
            geo[i, _k.SETUP_COL + p] = layout.setup[p] >> c & 1
            geo[i, _k.DIST_COL + p] = layout.dist[p][c]
            geo[i, _k.TARGET_COL + p] = layout.target[p] >> c & 1
    for p in range(layout.n):
        for row, mask in ((_k.TARGET_ROW + p, layout.target[p]), (_k.SETUP_ROW + p, layout.setup[p])):
            cells = [INDEX[c] for c in bits(mask)]
            geo[row, 0] = len(cells)
            geo[row, 1 : 1 + len(cells)] = cells
    geo.flags.writeable = False
    return geo


def _start(players: int, reserve: int) -> np.ndarray:
    """The kernels' position array of a new game: an empty board, every reserve full, Red to move."""
    s = np.zeros(_k.SIZE, np.int32)
    s[_k.OWNER : _k.OWNER + N] = -1
    s[_H + _k.LAST] = -1
    s[_H + _k.WINNER] = -1
    s[_H + _k.BRK_CELL] = -1
    s[_H + _k.BRK_OWNER] = -1
    s[_H + _k.RES : _H + _k.RES + players] = reserve
    return s
