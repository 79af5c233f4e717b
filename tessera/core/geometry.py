r"""Finite boards, written once: hexagons, alternating hexagons and square grids.

A :class:`Grid` numbers its cells by their place in a padded rectangle, so that
a neighbour is a fixed offset and a set of cells is a Python ``int`` bit set
(bit ``c`` for cell ``c``).  Growing a set by one step is a handful of shifts,
which makes flood fills and connectivity checks cheap enough for search.

Hex boards use axial coordinates ``(q, r)`` with pointy-top hexes in
horizontal rows ``r`` (docs/rules/README.md)::

        (q, r-1)  (q+1, r-1)
    (q-1, r)  (q, r)  (q+1, r)
        (q-1, r+1) (q, r+1)

Cell id of ``(q, r)`` is ``(r - r0) * stride + (q - q0)``; columns ``0`` and
``stride - 1`` are never cells, so the six offsets ``±1, ±stride,
±(stride - 1)`` never wrap onto a real cell.  Rows are lettered from the top
(``a``), hexes numbered from the left (``1``).

Square boards use ``(x, y)`` with ``y = 0`` the bottom rank; cell id is
``y * stride + x`` with one padding column; labels are chess-like (``a1`` is
bottom-left).  Orthogonal offsets ``±1, ±stride``; diagonals ``±(stride ± 1)``.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import cast

Cell = int
"""A cell id of a :class:`Grid`."""

Mask = int
"""A set of cells as a bit set (bit ``c`` is cell ``c``)."""

ROW_LETTERS = string.ascii_lowercase


def bits(mask: Mask) -> Iterator[Cell]:
    """The cells of a bit set, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def popcount(mask: Mask) -> int:
    """Number of cells in a bit set."""
    return mask.bit_count()


def hex_distance(q1: int, r1: int, q2: int, r2: int) -> int:
    """Steps between two hexes in axial coordinates."""
    dq, dr = q1 - q2, r1 - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


HEX_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
"""Axial offsets of the six neighbours, counter-clockwise from east."""

HEX_RING2: tuple[tuple[int, int], ...] = (
    (2, 0), (2, -1), (2, -2), (1, -2), (0, -2), (-1, -1),
    (-2, 0), (-2, 1), (-2, 2), (-1, 2), (0, 2), (1, 1),
)  # fmt: skip
"""Axial offsets of the twelve hexes at distance exactly 2, counter-clockwise from east."""


HEXAGON_EDGES: tuple[str, ...] = ("top", "upper-right", "lower-right", "bottom", "lower-left", "upper-left")
"""The six edges of a hexagon-shaped hex board (pointy-top hexes), clockwise from the top."""

_EDGE_COORD: dict[str, tuple[Callable[[int, int], int], bool]] = {
    "top": (lambda q, r: r, False),
    "bottom": (lambda q, r: r, True),
    "lower-left": (lambda q, r: q, False),
    "upper-right": (lambda q, r: q, True),
    "upper-left": (lambda q, r: q + r, False),
    "lower-right": (lambda q, r: q + r, True),
}
"""Each edge: the axial quantity constant along it, and whether the edge is where it is largest."""


def hex_center(q: float, r: float) -> tuple[float, float]:
    """Centre of a pointy-top hex of circumradius 1 (x right, y down)."""
    return (math.sqrt(3) * (q + r / 2), 1.5 * r)


class Grid:
    """A finite board: cells, labels, neighbours, distances and bit sets."""

    kind: str
    """``"hex"`` or ``"square"``."""

    def __init__(
        self,
        kind: str,
        coords: list[tuple[int, int]],
        labels: list[str],
        stride: int,
        origin: tuple[int, int],
        shape: str,
    ) -> None:
        self.kind = kind
        self.shape = shape
        """A short description, e.g. ``hexagon:8`` or ``square:9``."""
        self.stride = stride
        q0, r0 = origin
        self._origin = origin
        ids = [(b - r0) * stride + (a - q0) for a, b in coords]
        self.cells: tuple[Cell, ...] = tuple(ids)
        """Every cell id, in label order (row by row)."""
        self.size = max(ids) + stride + 2
        """Length of per-cell tables (cell ids are below this)."""
        self.coords: list[tuple[int, int] | None] = [None] * self.size
        """``(q, r)`` (hex) or ``(x, y)`` (square) of each cell id, None off board."""
        self._labels: list[str] = [""] * self.size
        self._index: dict[str, Cell] = {}
        for c, xy, lab in zip(ids, coords, labels, strict=True):
            self.coords[c] = xy
            self._labels[c] = lab
            self._index[lab] = c
        self.full: Mask = sum(1 << c for c in ids)
        """Bit set of every cell."""
        if kind == "hex":
            self.offsets: tuple[int, ...] = (1, -stride + 1, -stride, -1, stride - 1, stride)
        else:
            self.offsets = (1, stride, -1, -stride)
        self.neighbors: list[tuple[Cell, ...]] = [()] * self.size
        """Adjacent cells of each cell (hex: in direction order E, NE, NW, W, SW, SE)."""
        self.neighbor_mask: list[Mask] = [0] * self.size
        """Bit set of the adjacent cells of each cell."""
        full = self.full
        for c in ids:
            ns = tuple(c + o for o in self.offsets if 0 <= c + o < self.size and full >> (c + o) & 1)
            self.neighbors[c] = ns
            self.neighbor_mask[c] = sum(1 << n for n in ns)
        self._pos_shifts = tuple(o for o in self.offsets if o > 0)

    # -- labels ----------------------------------------------------------------------
    def label(self, cell: Cell) -> str:
        """The label of ``cell`` (``"d3"``)."""
        return self._labels[cell]

    def cell(self, label: str) -> Cell:
        """The cell called ``label``; ``ValueError`` names the board if there is none."""
        c = self._index.get(label.strip().lower())
        if c is None:
            raise ValueError(f"{label!r} is not a cell of the {self.shape} board")
        return c

    def has_label(self, label: str) -> bool:
        """Whether ``label`` names a cell."""
        return label in self._index

    def labels(self) -> list[str]:
        """Every label in cell order."""
        return [self._labels[c] for c in self.cells]

    def __len__(self) -> int:
        return len(self.cells)

    def __repr__(self) -> str:
        return f"<Grid {self.shape}: {len(self.cells)} cells>"

    def __contains__(self, cell: object) -> bool:
        return isinstance(cell, int) and 0 <= cell < self.size and bool(self.full >> cell & 1)

    # -- geometry --------------------------------------------------------------------
    def distance(self, a: Cell, b: Cell) -> int:
        """Steps between two cells (hex distance, or Manhattan distance on squares)."""
        qa, ra = cast("tuple[int, int]", self.coords[a])
        qb, rb = cast("tuple[int, int]", self.coords[b])
        if self.kind == "hex":
            return hex_distance(qa, ra, qb, rb)
        return abs(qa - qb) + abs(ra - rb)

    def row(self, cell: Cell) -> int:
        """Row index from the top (hex) or rank index from the bottom (square)."""
        return self.coords[cell][1]  # type: ignore[index]

    def center(self, cell: Cell) -> tuple[float, float]:
        """Drawing position of a cell (x right, y down; hex circumradius 1, square side 1)."""
        a, b = self.coords[cell]  # type: ignore[misc]
        if self.kind == "hex":
            return hex_center(a, b)
        return (float(a), float(self._max_y - b))

    @cached_property
    def _max_y(self) -> int:
        return max(xy[1] for xy in self.coords if xy is not None)

    @cached_property
    def edge(self) -> Mask:
        """Cells with fewer neighbours than an inner cell (the board's rim)."""
        k = len(self.offsets)
        return sum(1 << c for c in self.cells if len(self.neighbors[c]) < k)

    @cached_property
    def rows(self) -> list[list[Cell]]:
        """Cells grouped by row (hex: from the top; square: rank 1 first)."""
        out: dict[int, list[Cell]] = {}
        for c in self.cells:
            out.setdefault(self.row(c), []).append(c)
        return [out[k] for k in sorted(out)]

    def row_mask(self, index: int) -> Mask:
        """Bit set of row ``index`` in :attr:`rows` order."""
        return sum(1 << c for c in self.rows[index])

    # -- edges of a hexagon ----------------------------------------------------------
    def edge_lines(self, edge: str) -> list[int]:
        """Per cell id: how many lines parallel to ``edge`` lie between the cell and that edge.

        ``edge`` is one of :data:`HEXAGON_EDGES` (hex boards).  A cell on the
        edge counts 0; off-board entries are 0.  Rows are the lines parallel to
        the top and bottom edges; the lines parallel to the other edges are the
        hexes of equal ``q`` (upper-right, lower-left) or equal ``q + r``
        (upper-left, lower-right).  This is the distance used to measure a
        race toward an edge (a step changes it by at most one).
        """
        if self.kind != "hex":
            raise ValueError("edge_lines needs a hex board")
        if edge not in _EDGE_COORD:
            raise ValueError(f"unknown hexagon edge {edge!r}; expected one of {', '.join(HEXAGON_EDGES)}")
        coord, high = _EDGE_COORD[edge]
        values = {c: coord(*self.coords[c]) for c in self.cells}  # type: ignore[misc]
        extreme = max(values.values()) if high else min(values.values())
        out = [0] * self.size
        for c, v in values.items():
            out[c] = abs(extreme - v)
        return out

    def edge_mask(self, edge: str, depth: int = 0) -> Mask:
        """The cells at most ``depth`` lines from ``edge`` (``depth=0``: the edge itself)."""
        lines = self.edge_lines(edge)
        return sum(1 << c for c in self.cells if lines[c] <= depth)

    # -- bit sets --------------------------------------------------------------------
    def mask(self, cells: object) -> Mask:
        """Bit set of an iterable of cells."""
        m = 0
        for c in cells:  # type: ignore[attr-defined]
            m |= 1 << c
        return m

    def grow(self, m: Mask) -> Mask:
        """``m`` plus every cell adjacent to it."""
        g = m
        for s in self._pos_shifts:
            g |= (m << s) | (m >> s)
        return g & self.full

    def flood(self, seed: Mask, allowed: Mask, until: Mask = 0) -> Mask:
        """The cells of ``allowed`` connected to ``seed`` through ``allowed``.

        With ``until``, the fill stops as soon as it holds all of ``until`` and
        returns what it has reached so far (a cheap "are these connected?").
        """
        cur = seed & allowed
        shifts = self._pos_shifts
        while True:
            g = cur
            for s in shifts:
                g |= (cur << s) | (cur >> s)
            g &= allowed
            if g == cur or (until and g & until == until):
                return g
            cur = g

    def components(self, m: Mask) -> list[Mask]:
        """The connected components of a bit set, each as a bit set."""
        out = []
        while m:
            comp = self.flood(m & -m, m)
            out.append(comp)
            m &= ~comp
        return out

    def is_connected(self, m: Mask) -> bool:
        """Whether a bit set is one connected group (the empty set counts as connected)."""
        return m == 0 or self.flood(m & -m, m) == m

    def cells_of(self, m: Mask) -> list[Cell]:
        """The cells of a bit set."""
        return list(bits(m))


# -- constructors -------------------------------------------------------------------


def _hex_grid(rows: list[tuple[int, int]], shape: str) -> Grid:
    """A hex grid from ``(q_first, length)`` per row ``r = 0, 1, …`` (top row first)."""
    if len(rows) > len(ROW_LETTERS):
        raise ValueError(f"a hex board has at most {len(ROW_LETTERS)} rows")
    coords, labels = [], []
    for r, (q_first, length) in enumerate(rows):
        for i in range(length):
            coords.append((q_first + i, r))
            labels.append(f"{ROW_LETTERS[r]}{i + 1}")
    q_min = min(q for q, _ in coords)
    q_max = max(q for q, _ in coords)
    stride = q_max - q_min + 3
    return Grid("hex", coords, labels, stride, (q_min - 1, 0), shape)


def hexagon(side: int) -> Grid:
    """A regular hexagon of ``side`` hexes per edge (``3·side·(side−1)+1`` cells).

    Rows ``a``… from the top; side 8 gives 169 cells in rows ``a``–``o``.
    """
    if side < 1:
        raise ValueError("a hexagon needs side >= 1")
    n = side - 1
    rows = []
    for r in range(2 * n + 1):
        q_first = max(0, n - r)
        q_last = min(2 * n, 3 * n - r)
        rows.append((q_first, q_last - q_first + 1))
    return _hex_grid(rows, f"hexagon:{side}")


def alternating_hexagon(size: int) -> Grid:
    """Nume's hexagon, sides alternating ``size`` and ``size + 2`` (``3·size·(size+1)`` cells).

    Row ``a`` has ``size + 2`` hexes; rows grow by one down to the widest
    (``2·size + 1`` hexes, the ``size``-th row), then shrink by one to the bottom
    row of ``size`` hexes; ``2·size + 1`` rows in all.
    """
    if size < 1:
        raise ValueError("an alternating hexagon needs size >= 1")
    rows = []
    right = 2 * size + 1  # q of the right end of the upper rows (fixed)
    for r in range(2 * size + 1):
        if r < size:  # growing rows: left end moves left
            length = size + 2 + r
            rows.append((right - length + 1, length))
        else:  # shrinking rows: left end fixed
            q_first = right - 2 * size
            length = 3 * size - r
            rows.append((q_first, length))
    return _hex_grid(rows, f"alternating-hexagon:{size}")


def square(width: int, height: int | None = None) -> Grid:
    """A ``width × height`` square board, chess labels (``a1`` bottom-left)."""
    height = width if height is None else height
    if not (1 <= width <= 26 and height >= 1):
        raise ValueError("a square board needs 1–26 files and at least one rank")
    coords, labels = [], []
    for y in range(height):
        for x in range(width):
            coords.append((x, y))
            labels.append(f"{ROW_LETTERS[x]}{y + 1}")
    return Grid("square", coords, labels, width + 1, (0, 0), f"square:{width}x{height}")


def diagonal_neighbors(grid: Grid, cell: Cell) -> tuple[Cell, ...]:
    """The diagonally adjacent squares of a square board's cell."""
    s = grid.stride
    return tuple(c for c in (cell + s + 1, cell + s - 1, cell - s + 1, cell - s - 1) if c in grid)


def diagonal_flood(grid: Grid, seed: Mask, allowed: Mask) -> Mask:
    """Cells of ``allowed`` connected to ``seed`` by diagonal steps (square boards)."""
    s = grid.stride
    shifts = (s + 1, s - 1)
    cur = seed & allowed
    while True:
        g = cur
        for k in shifts:
            g |= (cur << k) | (cur >> k)
        g &= allowed
        if g == cur:
            return cur
        cur = g
