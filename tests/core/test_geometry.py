"""Geometry (docs/rules/README.md): labels, neighbours, distances, bit sets."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tessera.core.geometry import (
    alternating_hexagon,
    bits,
    diagonal_flood,
    diagonal_neighbors,
    hex_distance,
    hexagon,
    square,
)
from tessera.core.hexplane import PlaneWindow, format_axial, hex_round, parse_axial


@pytest.mark.parametrize("size", range(2, 13))
def test_alternating_hexagon_has_3_size_size_plus_1_cells(size: int) -> None:
    """Nume: 3·size·(size+1) cells in 2·size+1 rows; row a has size+2 hexes, rows grow by one
    down to the size-th row (2·size+1 hexes), then shrink by one to a bottom row of size hexes."""
    g = alternating_hexagon(size)
    assert len(g) == 3 * size * (size + 1)
    lengths = [len(r) for r in g.rows]
    assert lengths == list(range(size + 2, 2 * size + 2)) + list(range(2 * size, size - 1, -1))
    assert lengths[size - 1] == 2 * size + 1


def test_alternating_hexagon_sides_alternate_size_and_size_plus_2() -> None:
    """'a hexagonal grid of hexagons with sides alternating in length between n and n + 2 cells'."""
    g = alternating_hexagon(5)
    corners = [c for c in g.cells if len(g.neighbors[c]) == 3]
    assert len(corners) == 6
    # walking the rim: side lengths in hexes between consecutive corners, inclusive
    assert sorted(g.distance(a, b) + 1 for a in corners for b in corners if a < b and _on_one_side(g, a, b)) == [
        5, 5, 5, 7, 7, 7
    ]  # fmt: skip


def _on_one_side(g, a, b):  # type: ignore[no-untyped-def]
    qa, ra = g.coords[a]
    qb, rb = g.coords[b]
    straight = qa == qb or ra == rb or qa + ra == qb + rb
    if not straight:
        return False
    # every hex on the segment is a rim cell
    n = g.distance(a, b)
    for i in range(n + 1):
        q = qa + (qb - qa) * i // n
        r = ra + (rb - ra) * i // n
        c = next((c for c in g.cells if g.coords[c] == (q, r)), None)
        if c is None or not g.edge >> c & 1:
            return False
    return True


def test_alternating_hexagon_size_5_rows_and_labels() -> None:
    """Rows lettered from the top, hexes numbered from the left; row e is the widest at size 5."""
    g = alternating_hexagon(5)
    assert len(g) == 90 and [len(r) for r in g.rows][4] == 11
    assert g.label(g.rows[0][0]) == "a1" and g.label(g.rows[0][-1]) == "a7"
    assert g.label(g.rows[4][-1]) == "e11" and g.label(g.rows[-1][-1]) == "k5"
    assert sorted(g.label(n) for n in g.neighbors[g.cell("a1")]) == ["a2", "b1", "b2"]


def test_regular_hexagon_side_8_has_169_cells_in_rows_a_to_o() -> None:
    """Nymbat / Nibble-hex: a regular hexagon of side 8 (169 hexes, 15 rows a–o)."""
    g = hexagon(8)
    assert len(g) == 169 and len(g.rows) == 15
    assert [len(r) for r in g.rows] == [8, 9, 10, 11, 12, 13, 14, 15, 14, 13, 12, 11, 10, 9, 8]
    assert g.label(g.cells[0]) == "a1" and g.label(g.cells[-1]) == "o8"
    h8 = g.cell("h8")
    assert len(g.neighbors[h8]) == 6 and g.distance(h8, g.cell("a1")) == 7
    assert g.distance(g.cell("a1"), g.cell("o8")) == 14
    assert bin(g.edge).count("1") == 42


def test_square_board_uses_chess_labels() -> None:
    """Square boards: files a, b, … from the left, ranks 1, 2, … from the bottom; a1 bottom-left."""
    g = square(9)
    a1, i9, e5 = g.cell("a1"), g.cell("i9"), g.cell("e5")
    assert g.center(a1) == (0.0, 8.0) and g.center(i9) == (8.0, 0.0)
    assert sorted(g.label(n) for n in g.neighbors[e5]) == ["d5", "e4", "e6", "f5"]
    assert sorted(g.label(n) for n in g.neighbors[a1]) == ["a2", "b1"]
    assert sorted(g.label(n) for n in diagonal_neighbors(g, e5)) == ["d4", "d6", "f4", "f6"]
    assert sorted(g.label(n) for n in diagonal_neighbors(g, g.cell("i1"))) == ["h2"]
    with pytest.raises(ValueError, match="j1"):
        g.cell("j1")


@pytest.mark.parametrize("grid", [hexagon(4), alternating_hexagon(3), square(7), square(5, 3)], ids=repr)
def test_shift_growth_equals_neighbour_lists(grid) -> None:  # type: ignore[no-untyped-def]
    """Bit-set growth by shifts never wraps around a row: it equals the neighbour lists."""
    for c in grid.cells:
        assert grid.grow(1 << c) == (1 << c) | grid.neighbor_mask[c]
        for n in grid.neighbors[c]:
            assert c in grid.neighbors[n]


@given(st.randoms(use_true_random=False), st.sampled_from(["hex", "alt", "square"]))
def test_components_partition_a_set_into_connected_groups(rnd: random.Random, kind: str) -> None:
    grid = {"hex": hexagon(5), "alt": alternating_hexagon(4), "square": square(8)}[kind]
    m = sum(1 << c for c in grid.cells if rnd.random() < 0.45)
    comps = grid.components(m)
    assert sum(comps) == m and all(a & b == 0 for a in comps for b in comps if a is not b)
    for comp in comps:
        assert grid.is_connected(comp)
        assert grid.grow(comp) & m == comp  # maximal


def test_diagonal_flood_follows_diagonals_only() -> None:
    g = square(4)
    m = g.mask([g.cell("a1"), g.cell("b2"), g.cell("c3"), g.cell("c1"), g.cell("a2")])
    got = {g.label(c) for c in bits(diagonal_flood(g, 1 << g.cell("a1"), m))}
    assert got == {"a1", "b2", "c3", "c1"}


def test_hex_distance_and_axial_notation() -> None:
    """Axial q,r written without spaces; neighbours at distance 1, the twelve-ring at 2."""
    assert parse_axial("3,-1") == (3, -1) and format_axial(-2, 5) == "-2,5"
    for bad in ("3", "a,b", "1,2,3", ""):
        with pytest.raises(ValueError):
            parse_axial(bad)
    assert hex_distance(0, 0, 2, -1) == 2 and hex_distance(0, 0, 3, -3) == 3
    assert hex_round(2.0, 1.5) in {(2, 1), (2, 2), (1, 2)}


def test_plane_window_offsets_match_axial_neighbours() -> None:
    w = PlaneWindow(5)
    h = w.id(1, -2)
    assert sorted(w.axial(h + o) for o in w.neighbor_offsets) == sorted(
        [(2, -2), (0, -2), (1, -1), (1, -3), (2, -3), (0, -1)]
    )
    assert all(w.distance(h, h + o) == 2 for o in w.ring2_offsets)
    assert not w.inside(w.id(5, 0) + 1) and w.inside(w.id(-5, 5))
    with pytest.raises(ValueError, match="outside"):
        w.id(6, 0)
