"""Nibble rule tests, named after the rules of seed 004 and docs/rules/nibble.md).

Positions are built with ``state_from_dict``; blocks not on the board are given to the
players (``taken``) so that every colour still counts ``colors`` blocks in all.  A slow
reference implementation written from the rule text (coordinates, explicit sides,
breadth-first connectivity) checks the engine's legal moves along seeded playouts.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest

import tessera
from tessera import TERMINAL, IllegalMove
from tessera.games.nibble import NibbleGame, NibbleState

SQUARE = ["nibble", "nibble(colors=13)"]
ALL = ["nibble", "nibble(colors=13)", "nibble(colors=13,board=hex)"]


# -- helpers -------------------------------------------------------------------------------


def game(spec: str = "nibble") -> NibbleGame:
    g = tessera.load_game(spec)
    assert isinstance(g, NibbleGame)
    return g


def sq(label: str, n: int = 9) -> int:
    """The proper colouring (x + 2y) mod n of a square label: no two neighbours alike."""
    return (ord(label[0]) - ord("a") + 2 * (int(label[1:]) - 1)) % n


def hx(g: NibbleGame, q: int, r: int) -> str:
    """The label of the hex at axial (q, r) of the hexagon board."""
    for c in g.grid.cells:
        if g.grid.coords[c] == (q, r):
            return g.grid.label(c)
    raise KeyError((q, r))


def hex_colour(g: NibbleGame, label: str) -> int:
    q, r = g.grid.coords[g.grid.cell(label)]  # type: ignore[misc]
    return (q + 4 * r) % 13


def position(
    cells: dict[str, int],
    *,
    spec: str = "nibble",
    to_move: int = 0,
    mine: dict[int, int] | None = None,
    table: list[int] | None = None,
    taking: int | None = None,
) -> NibbleState:
    """A position with ``cells`` on the board; player 0 holds ``mine``, player 1 the rest
    (by default the missing blocks are split 4/5, 6/7: no instant win)."""
    g = game(spec)
    n = g.colors
    on = Counter(cells.values())
    p0 = [0] * n
    for c in range(n):
        rest = n - on[c]
        p0[c] = (mine or {}).get(c, rest // 2)
    p1 = [n - on[c] - p0[c] for c in range(n)]
    d: dict[str, Any] = {"to_move": to_move, "cells": cells, "taken": [p0, p1]}
    if table is not None:
        d["table"] = table
    if taking is not None:
        d["taking"] = taking
    st = g.state_from_dict(d)
    assert isinstance(st, NibbleState)
    return st


def square_cells(labels: Iterable[str], n: int = 9) -> dict[str, int]:
    return {lab: sq(lab, n) for lab in labels}


# -- a reference implementation from the rule text ------------------------------------------

SQUARE_SIDES = ((1, 0), (0, 1), (-1, 0), (0, -1))  # E, N, W, S: consecutive sides share a corner
HEX_SIDES = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # E, NE, NW, W, SW, SE


def reference_legal(state: NibbleState) -> list[str]:
    """Legal moves from the rules alone: sides, corners and connectivity by coordinates."""
    g = state.game
    d = state.to_dict()
    coord: dict[str, tuple[int, int]] = {}
    for lab in d["cells"]:
        xy = g.grid.coords[g.grid.cell(lab)]
        assert xy is not None
        coord[lab] = xy
    occupied = {xy: lab for lab, xy in coord.items()}
    hexes = d["board"] == "hex"
    sides = HEX_SIDES if hexes else SQUARE_SIDES
    run = 3 if hexes else 2
    k = len(sides)

    def connected(cells: set[tuple[int, int]]) -> bool:
        if not cells:
            return True
        start = next(iter(cells))
        seen = {start}
        todo = [start]
        while todo:
            a, b = todo.pop()
            for da, db in sides:
                nb = (a + da, b + db)
                if nb in cells and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        return len(seen) == len(cells)

    out = []
    for lab, (a, b) in coord.items():
        if "taking" in d and d["cells"][lab] != d["taking"]:
            continue
        exposed = [(a + da, b + db) not in occupied for da, db in sides]
        on_corner = any(all(exposed[(i + j) % k] for j in range(run)) for i in range(k))
        if on_corner and connected(set(occupied) - {(a, b)}):
            out.append(lab)
    if "taking" in d:
        out.append("end")
    return sorted(out)


# -- the deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ALL)
def test_deal_has_no_same_coloured_neighbours(spec: str) -> None:
    """'81 blocks are placed on the board such that no two of the same color are orthogonally
    adjacent'; 'colors' blocks of each colour (hex: no two adjacent)."""
    g = game(spec)
    for seed in range(60):
        st = g.new_initial_state(seed=seed)
        d = st.to_dict()
        assert len(d["cells"]) == len(g.grid) == g.colors**2
        assert Counter(d["cells"].values()) == {c: g.colors for c in range(g.colors)}
        for lab, colour in d["cells"].items():
            c = g.grid.cell(lab)
            for nb in g.grid.neighbors[c]:
                assert d["cells"][g.grid.label(nb)] != colour, (seed, lab)


@pytest.mark.parametrize("spec", ALL)
def test_deal_is_deterministic_from_the_seed(spec: str) -> None:
    """docs/python-api.md: 'the same seed always gives the same board'; different seeds give different deals."""
    g = game(spec)
    assert g.new_initial_state(seed=5).to_dict() == game(spec).new_initial_state(seed=5).to_dict()
    deals = {json.dumps(g.new_initial_state(seed=s).to_dict()["cells"], sort_keys=True) for s in range(20)}
    assert len(deals) == 20
    tables = {tuple(g.new_initial_state(seed=s).to_dict()["table"]) for s in range(20)}
    assert len(tables) > 15


def test_unseeded_deal_remembers_its_seed() -> None:
    """A state dealt without a seed records the seed it drew, so the deal can be replayed."""
    st = game().new_initial_state()
    d = st.to_dict()
    assert isinstance(d["seed"], int)
    assert game().new_initial_state(seed=d["seed"]).to_dict() == d
    assert game().state_from_dict(d).to_dict() == d


def test_colour_table_is_dealt_or_in_order() -> None:
    """'Colour table. An ordered row of the colours, dealt at random from the seed
    (shuffle_table=True, default; False gives 0, 1, …).'"""
    for seed in range(10):
        shuffled = game().new_initial_state(seed=seed).to_dict()
        plain = game("nibble(shuffle_table=false)").new_initial_state(seed=seed).to_dict()
        assert sorted(shuffled["table"]) == list(range(9))
        assert plain["table"] == list(range(9))
        assert plain["cells"] == shuffled["cells"], "the table is dealt after the board"
    assert len({tuple(game().new_initial_state(seed=s).to_dict()["table"]) for s in range(10)}) > 1


def test_parameters_are_checked() -> None:
    """'board="hex" (13 colours only)'; colours are 9 or 13 (the hex board alone takes 13: issue 15)."""
    with pytest.raises(ValueError, match="colors=13"):
        tessera.load_game("nibble(board=hex,colors=9)")
    assert tessera.load_game("nibble(board=hex)").params["colors"] == 13
    with pytest.raises(ValueError, match="colors"):
        tessera.load_game("nibble", colors=10)
    with pytest.raises(ValueError, match="board"):
        tessera.load_game("nibble", board="triangle")
    g = tessera.load_game("nibble(colors=13,board=hex)")
    assert g.params == {"colors": 13, "board": "hex", "shuffle_table": True}
    assert len(g.new_initial_state(seed=0).to_dict()["cells"]) == 169


def test_first_moves_are_the_board_corners() -> None:
    """On the full board only the corner blocks have exposed sides sharing a corner."""
    assert game().new_initial_state(seed=1).legal_moves() == ["a1", "a9", "i1", "i9"]
    assert game("nibble(colors=13)").new_initial_state(seed=1).legal_moves() == ["a1", "a13", "m1", "m13"]
    assert game("nibble(colors=13,board=hex)").new_initial_state(seed=1).legal_moves() == [
        "a1",
        "a8",
        "h1",
        "h15",
        "o1",
        "o8",
    ]


# -- taking: the corner rule ---------------------------------------------------------------------


def test_corner_rule_on_square() -> None:
    """'Blocks may only be taken if they have at least 2 adjacent sides exposed (i.e. they are on
    a corner)'; a side facing the board's edge is exposed; two opposite exposed sides are not a corner."""
    st = position(square_cells(["a1", "b1", "c1", "a2", "b2", "c2"]))
    assert st.legal_moves() == ["a1", "a2", "c1", "c2"]
    before = st.to_dict()
    for lab in ("b1", "b2"):  # exposed only below (edge) or above: no corner
        assert "corner" in (st.why_illegal(lab) or "")
        with pytest.raises(IllegalMove, match="corner"):
            st.play(lab)
    assert st.to_dict() == before and st.history() == []
    # in a ring round a hole, b1 is exposed above (the hole) and below (the edge): opposite sides
    ring = position(square_cells(["a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3"]))
    assert "corner" in (ring.why_illegal("b1") or "")


def test_corner_rule_on_hex_needs_three_consecutive_sides() -> None:
    """Hexagonal variant: 'you may only take pieces if they have at least three adjacent sides
    exposed, not two' — three consecutive sides around the hexagon."""
    g = game("nibble(colors=13,board=hex)")
    blob = {hx(g, 7 + dq, 7 + dr) for dq in range(-2, 3) for dr in range(-2, 3) if abs(dq + dr) <= 2}
    assert len(blob) == 19
    spec = "nibble(colors=13,board=hex)"
    st = position({lab: hex_colour(g, lab) for lab in blob}, spec=spec)
    corners = sorted(hx(g, 7 + 2 * dq, 7 + 2 * dr) for dq, dr in HEX_SIDES)
    assert st.legal_moves() == corners
    # an edge hex of the small hexagon has exactly two consecutive sides exposed
    assert "three consecutive" in (st.why_illegal(hx(g, 9, 6)) or "")
    # three exposed sides that alternate (E, NW, SW) are not a corner
    holes = {hx(g, 8, 7), hx(g, 7, 6), hx(g, 6, 8)}
    st2 = position({lab: hex_colour(g, lab) for lab in blob - holes}, spec=spec)
    centre = hx(g, 7, 7)
    assert centre not in st2.legal_moves()
    assert "corner" in (st2.why_illegal(centre) or "")
    # with the three holes side by side (E, NE, NW) the centre is on a corner
    holes = {hx(g, 8, 7), hx(g, 8, 6), hx(g, 7, 6)}
    st3 = position({lab: hex_colour(g, lab) for lab in blob - holes}, spec=spec)
    assert centre in st3.legal_moves()


# -- taking: the no-split rule -------------------------------------------------------------------


def test_split_refused() -> None:
    """'A block may not be taken if it would divide the remaining blocks into two separate groups
    (counting orthogonal connections only)'."""
    st = position(square_cells(["a1", "b1", "b2"]))  # b1 is on a corner but joins a1 and b2
    assert st.legal_moves() == ["a1", "b2"]
    before = st.to_dict()
    with pytest.raises(IllegalMove, match="split"):
        st.play("b1")
    assert st.to_dict() == before
    # diagonal contact does not connect: in the staircase a1 b1 b2 c2 neither b1 nor b2 may go
    st = position(square_cells(["a1", "b1", "b2", "c2"]))
    assert st.legal_moves() == ["a1", "c2"]
    assert "split" in (st.why_illegal("b1") or "") and "split" in (st.why_illegal("b2") or "")


def test_split_is_checked_around_the_whole_board() -> None:
    """Connection counts through the whole board: a corner of a ring may go (the ring holds the rest
    together), the same block of a U may not."""
    ring = ["a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3"]
    assert position(square_cells(ring)).legal_moves() == ["a1", "a3", "c1", "c3"]
    u_shape = [lab for lab in ring if lab != "c3"]
    st = position(square_cells(u_shape))
    assert st.legal_moves() == ["b3", "c2"]
    for lab in ("a1", "c1", "a3"):
        assert "split" in (st.why_illegal(lab) or "")


def test_split_refused_on_hex() -> None:
    """Hex: 'the blocks left on the board stay one connected group'."""
    g = game("nibble(colors=13,board=hex)")
    cells = [hx(g, 7, 7), hx(g, 8, 7), hx(g, 9, 6)]  # a bent chain: the middle hex joins the ends
    st = position({lab: hex_colour(g, lab) for lab in cells}, spec="nibble(colors=13,board=hex)")
    assert st.legal_moves() == sorted([cells[0], cells[2]])
    assert "split" in (st.why_illegal(cells[1]) or "")


# -- turns ----------------------------------------------------------------------------------------


def two_zeros() -> NibbleState:
    """A 2×3 rectangle with colour 0 on a1 and c2 (opposite corners)."""
    cells = {"a1": 0, "b1": 1, "c1": 2, "a2": 3, "b2": 4, "c2": 0}
    return position(cells)


def test_second_block_of_the_same_colour_in_a_turn() -> None:
    """'you may take as many blocks as you like on a turn, as long as they are all the same color';
    steps 'c1', then optionally more blocks of that colour, then 'end'."""
    st = two_zeros()
    st.play("a1")
    assert st.current_player() == 0
    assert st.legal_moves() == ["c2", "end"]
    assert st.to_dict()["taking"] == 0
    st.play("c2")
    assert st.current_player() == 1, "no more colour-0 blocks: the turn ended by itself"
    assert st.to_dict()["taken"][0][0] == 3 + 2
    assert "taking" not in st.to_dict()


def test_block_of_another_colour_refused_mid_turn() -> None:
    """'as long as they are all the same color': a block of another colour is refused mid-turn."""
    st = two_zeros()
    st.play("a1")
    assert st.is_legal("c2") and not st.is_legal("c1")
    before = st.to_dict()
    with pytest.raises(IllegalMove, match="one colour"):
        st.play("c1")
    assert st.to_dict() == before


def test_leaving_blocks_of_the_colour_behind() -> None:
    """'You are not required to take all of the available blocks of that color': 'end' passes the turn."""
    st = two_zeros()
    st.play("a1")
    st.play("end")
    assert st.current_player() == 1
    assert st.to_dict()["cells"]["c2"] == 0
    assert "end" not in st.legal_moves()


def test_turn_ends_by_itself_when_end_is_the_only_step() -> None:
    """'The turn ends by itself when end is its only legal step.'"""
    st = position(square_cells(["a1", "b1", "c1", "a2", "b2", "c2"]))  # all colours distinct
    st.play("a1")
    assert st.current_player() == 1 and "end" not in st.legal_moves()


def test_each_block_is_checked_against_the_board_as_it_then_stands() -> None:
    """'each checked against the board as it then stands': in a ring both colour-0 corners may be
    taken, but once one is gone the other holds the rest together, so the turn ends."""
    ring = {"a1": 0, "b1": 1, "c1": 2, "a2": 3, "c2": 4, "a3": 5, "b3": 6, "c3": 0}
    st = position(ring)
    assert {"a1", "c3"} <= set(st.legal_moves())
    st.play("a1")
    assert st.current_player() == 1
    assert "split" in (st.why_illegal("c3") or "")


def test_passing_is_not_allowed() -> None:
    """'You must always take at least one block on your turn (You may not pass)'."""
    st = game().new_initial_state(seed=3)
    with pytest.raises(IllegalMove, match="at least one block"):
        st.play("end")
    with pytest.raises(IllegalMove):
        st.play("pass")


def test_there_is_always_a_legal_block() -> None:
    """Ruling (module docstring): the board stays connected and non-empty, so a player to move
    always has a block to take — checked along many random games on every board."""
    for spec in ALL:
        g = game(spec)
        for seed in range(6):
            st = g.new_initial_state(seed=seed)
            rng = random.Random(seed)
            while not st.is_terminal():
                actions = st.legal_actions()
                assert any(a != g.end_action for a in actions)
                assert g.grid.is_connected(st.occ)
                st.apply_action(rng.choice(actions))


# -- winning -----------------------------------------------------------------------------------


def test_all_blocks_of_one_colour_win_at_once() -> None:
    """'A player wins the game immediately if they ... Collect all 9 blocks of one color'."""
    cells = {"a1": 0, "b1": 1, "c1": 2, "a2": 3, "b2": 4, "c2": 5}
    st = position(cells, mine={0: 8})
    assert not st.is_terminal()
    st.play("a1")
    assert st.is_terminal() and st.winner() == 0 and st.returns() == [1.0, -1.0]
    assert len(st.to_dict()["cells"]) == 5, "the game stops with blocks left on the board"
    assert st.current_player() == TERMINAL and st.legal_moves() == []


def test_instant_win_is_checked_after_every_step() -> None:
    """Instant wins are 'checked after every step': the win stops the turn in the middle."""
    cells = {"a1": 0, "b1": 1, "c1": 2, "a2": 3, "b2": 4, "c2": 0}
    st = position(cells, mine={0: 7}, to_move=0)  # player 0 holds 7 of colour 0, takes a1 then c2
    st.play("a1")
    assert not st.is_terminal() and st.legal_moves() == ["c2", "end"]
    st.play("c2")
    assert st.is_terminal() and st.winner() == 0


def test_three_adjacent_table_colours_win_at_once() -> None:
    """'Collect at least 7 blocks of three colors that are adjacent on the color table'."""
    table = [4, 2, 7, 0, 1, 3, 5, 6, 8]
    cells = {"a1": 7, "b1": 1, "c1": 2, "a2": 3, "b2": 4, "c2": 5}
    st = position(cells, mine={4: 7, 2: 7, 7: 6}, table=table)
    assert not st.is_terminal()
    st.play("a1")
    assert st.is_terminal() and st.winner() == 0


def test_no_win_for_three_non_adjacent_table_colours() -> None:
    """Only colours standing next to each other on the table count; 'the ends do not wrap'."""
    table = [4, 2, 7, 0, 1, 3, 5, 6, 8]
    cells = {"a1": 0, "b1": 1, "c1": 2, "a2": 3, "b2": 4, "c2": 5}
    gap = position(cells, mine={4: 7, 2: 7, 0: 6}, table=table)  # table positions 0, 1, 3
    gap.play("a1")
    assert not gap.is_terminal()
    cells = {"a1": 4, "b1": 1, "c1": 2, "a2": 3, "b2": 0, "c2": 5}
    wrap = position(cells, mine={6: 7, 8: 7, 4: 6}, table=table)  # positions 7, 8 and 0
    wrap.play("a1")
    assert not wrap.is_terminal()
    plain = position(cells, mine={6: 7, 8: 7, 4: 6}, table=[6, 8, 4, 0, 1, 2, 3, 5, 7])
    plain.play("a1")
    assert plain.is_terminal() and plain.winner() == 0


def test_thirteen_colours_need_ten_of_three_adjacent() -> None:
    """13-colour variant: 'Collect at least 10 blocks of three colors that are adjacent on the
    color table'; 7 are not enough there."""
    spec = "nibble(colors=13)"
    table = list(range(13))
    cells = {lab: sq(lab, 13) for lab in ["a1", "b1", "c1", "a2", "b2", "c2"]}  # colours 0..4, a1 is 0
    seven = position(cells, spec=spec, mine={0: 6, 1: 7, 2: 7}, table=table)
    seven.play("a1")
    assert not seven.is_terminal()
    ten = position(cells, spec=spec, mine={0: 9, 1: 10, 2: 10}, table=table)
    ten.play("a1")
    assert ten.is_terminal() and ten.winner() == 0


def test_thirteen_colours_need_all_thirteen_of_one() -> None:
    """13-colour variant: 'Collect all 13 blocks of one color'."""
    spec = "nibble(colors=13)"
    cells = {lab: sq(lab, 13) for lab in ["a1", "b1", "c1", "a2", "b2", "c2"]}
    st = position(cells, spec=spec, mine={0: 12})
    st.play("a1")
    assert st.is_terminal() and st.winner() == 0


def test_majority_of_majorities_at_the_end() -> None:
    """'the winner is the player with the majority of majorities (5 or more pieces in each of 5 or
    more colors)' — decided when the board is empty, whoever took the last block."""
    # Player 0 takes the last block (colour 0) and then holds 5+ in colours 0-3 only.
    mine = {0: 4, 1: 5, 2: 5, 3: 5, 4: 4, 5: 4, 6: 4, 7: 4, 8: 4}
    st = position({"e5": 0}, mine=mine)
    assert st.scores() == [3.0, 5.0]
    st.play("e5")
    assert st.is_terminal() and st.scores() == [4.0, 5.0]
    assert st.winner() == 1 and st.returns() == [-1.0, 1.0]
    mine = {0: 4, 1: 5, 2: 5, 3: 5, 4: 5, 5: 4, 6: 4, 7: 4, 8: 4}
    st = position({"e5": 0}, mine=mine)
    st.play("e5")
    assert st.scores() == [5.0, 4.0] and st.winner() == 0


def test_majority_of_majorities_with_thirteen_colours() -> None:
    """13 colours: 'the majority of majorities (7 or more pieces in each of 7 or more colors)'."""
    mine = {c: (7 if c < 6 else 6) for c in range(13)}
    mine[0] = 6
    st = position({"g7": 0}, spec="nibble(colors=13)", mine=mine)  # player 0 ends with 6 majorities
    st.play("g7")
    assert st.scores() == [6.0, 7.0] and st.winner() == 1


# -- positions, notation, integer actions ------------------------------------------------------------


def test_position_dict_format() -> None:
    """docs/rules/nibble.md: {"colors","board","to_move","cells","taken","table"} plus the colour being taken."""
    st = game().new_initial_state(seed=4)
    d = st.to_dict()
    assert set(d) == {"colors", "board", "to_move", "cells", "taken", "table", "seed"}
    assert d["colors"] == 9 and d["board"] == "square" and d["to_move"] == 0
    assert d["taken"] == [[0] * 9, [0] * 9]
    first = st.legal_moves()[0]
    colour = d["cells"][first]
    st.play(first)
    d = st.to_dict()
    if st.current_player() == 0:
        assert d["taking"] == colour
    again = game().state_from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d and again.legal_moves() == st.legal_moves()


def test_inconsistent_positions_are_refused() -> None:
    """state_from_dict: 'inconsistent input raises ValueError naming the problem'."""
    g = game()
    good = position(square_cells(["a1", "b1", "c1"])).to_dict()

    def bad(match: str, **change: Any) -> None:
        d = json.loads(json.dumps(good))
        d.update(change)
        with pytest.raises(ValueError, match=match):
            g.state_from_dict(d)

    bad("unknown key", extra=1)
    bad("colors", colors=13)
    bad("to_move", to_move=2)
    bad("not a cell", cells={"z9": 0, "a1": 0})
    bad("colour 2 has", cells={"a1": 0, "b1": 1})
    bad("adjacent", cells={"a1": 0, "b1": 0, "c1": 2}, taken=[[4, 4, 3] + [4] * 6, [3, 5, 5] + [5] * 6])
    bad("connected", cells={"a1": 0, "c1": 2, "b1": 1, "e5": 4})
    bad("table", table=[0, 1, 2])
    bad("turn would have ended", taking=7)
    bad("taking must be a colour", taking=9)
    bad("taken", taken=[[0] * 9])
    with pytest.raises(ValueError, match="shuffle_table"):
        game("nibble(shuffle_table=false)").state_from_dict({**good, "table": [1, 0, 2, 3, 4, 5, 6, 7, 8]})


def test_integer_actions_are_cell_indices_and_end() -> None:
    """Engine notes: action i takes the block on the i-th cell in label order; action `cells` is end."""
    g = game()
    st = g.new_initial_state(seed=0)
    assert g.num_distinct_actions() == 82
    assert st.action_to_string(0) == "a1" and st.action_to_string(8) == "i1" and st.action_to_string(80) == "i9"
    assert st.action_to_string(81) == "end" and st.string_to_action(" END ") == 81
    assert st.string_to_action("B2") == 10
    with pytest.raises(IllegalMove, match="not a move"):
        st.string_to_action("j1")
    h = game("nibble(colors=13,board=hex)")
    assert h.num_distinct_actions() == 170
    assert h.new_initial_state(seed=0).action_to_string(0) == "a1"


# -- golden counts and the reference ----------------------------------------------------------------


@pytest.mark.parametrize("spec", ALL)
def test_legal_moves_match_the_rule_text(spec: str) -> None:
    """Along seeded random games, the engine's legal moves equal a slow implementation written
    from the rule text (sides by coordinates, connectivity by breadth-first search)."""
    g = game(spec)
    for seed in range(3):
        st = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not st.is_terminal():
            assert st.legal_moves() == reference_legal(st)
            st.play(rng.choice(st.legal_moves()))


GOLDEN: dict[str, tuple[list[int], int, int]] = {
    # spec: (legal-move counts at the first 24 steps of seed 0's random game, their total over the game, steps)
    "nibble": ([4, 5, 2, 7, 7, 2, 7, 7, 3, 2, 9, 2, 9, 2, 9, 9, 3, 2, 9, 2, 8, 2, 8, 3], 476, 87),
    "nibble(colors=13)": ([4, 5, 2, 6, 2, 6, 7, 3, 2, 8, 7, 2, 7, 8, 8, 9, 9, 2, 10, 11, 5, 4, 3, 12], 1461, 196),
    "nibble(colors=13,board=hex)": (
        [6, 2, 7, 8, 2, 10, 2, 11, 2, 11, 3, 12, 12, 2, 12, 12, 2, 13, 13, 3, 2, 14, 3, 2],
        1406,
        191,
    ),
}


def golden_run(spec: str, seed: int) -> tuple[list[int], int, int]:
    st = game(spec).new_initial_state(seed=seed)
    rng = random.Random(seed)
    counts = []
    while not st.is_terminal():
        moves = st.legal_moves()
        counts.append(len(moves))
        st.play(rng.choice(moves))
    return counts[:24], sum(counts), len(counts)


@pytest.mark.parametrize("spec", ALL)
def test_golden_legal_move_counts(spec: str) -> None:
    """Perft-style pinned counts: the deal of seed 0 and its seeded random game (same seed, same
    board, same moves)."""
    assert golden_run(spec, 0) == GOLDEN[spec]


# -- render and evaluation -------------------------------------------------------------------------


def test_render_shows_blocks_table_and_end_button() -> None:
    """docs/render.md: blocks as coloured pieces with no owner, the table with both players'
    counts, and Nibble's end as {"move": "end", "path": [], "label": "End turn"}."""
    st = two_zeros()
    st.play("a1")
    desc = st.render()
    json.dumps(desc)
    assert all(p["shape"] == "block" and p["owner"] is None and p["color"].startswith("#") for p in desc["pieces"])
    assert len({p["color"] for p in desc["pieces"]}) == 5  # c2 and five colours: 0, 1, 2, 3, 4
    end = {"move": "end", "path": [], "label": "End turn", "label_key": "action.end_turn", "label_args": {}}
    assert end in desc["actions"]
    assert {"move": "c2", "path": ["c2"]} in desc["actions"]
    assert [row["color"] for row in desc["table"]] == st.to_dict()["table"]
    zero = next(row for row in desc["table"] if row["color"] == 0)
    assert zero["counts"] == [4, 4]
    assert desc["panel"][0]["values"] == desc["table"][0]["counts"]
    assert desc["last_move"] == ["a1"]
    assert "a1" not in {p["cell"] for p in desc["pieces"]}
    assert st.render(player=1)["actions"] == []
    text = str(st)
    assert "Nibble" in text and "1" in text


def test_palette_has_distinct_colours() -> None:
    """Blocks are drawn in clearly different colours, 13 of them."""
    from tessera.games.nibble import PALETTE

    assert len({fill for _, fill in PALETTE}) == len(PALETTE) == 13


def test_evaluation_is_bounded_and_follows_the_majority_race() -> None:
    """evaluate(player) is in [-1, 1], exact when the game is over, and favours the player holding
    more majorities."""
    mine = {0: 4, 1: 5, 2: 5, 3: 5, 4: 4, 5: 4, 6: 4, 7: 4, 8: 4}  # 3 majorities against 5
    st = position({"e5": 0}, mine=mine)
    assert st.evaluate(0) < 0 < st.evaluate(1)
    assert st.evaluate(0) == pytest.approx(-st.evaluate(1))
    st.play("e5")
    assert st.evaluate(0) == -1.0 and st.evaluate(1) == 1.0
    for spec in ALL:
        s = game(spec).new_initial_state(seed=2)
        rng = random.Random(2)
        while not s.is_terminal():
            for p in (0, 1):
                assert -1.0 <= s.evaluate(p) <= 1.0
            s.play(rng.choice(s.legal_moves()))


def test_random_action_is_a_uniform_legal_block() -> None:
    """The fast sampler returns only legal actions and every legal one about equally often."""
    for spec in ALL:
        st = game(spec).new_initial_state(seed=9)
        rng = random.Random(9)
        for _ in range(20):
            st.apply_action(st.random_action(rng))
        if st.is_terminal():
            continue
        legal = st.legal_actions()
        seen = Counter(st.random_action(rng) for _ in range(200 * len(legal)))
        assert set(seen) == set(legal)
        assert all(100 <= seen[a] <= 300 for a in legal), seen


@pytest.mark.parametrize("spec", ALL)
def test_any_connected_board_has_a_legal_block_and_matches_the_rule_text(spec: str) -> None:
    """Ruling (module docstring): every connected, non-empty board has a block that may be taken.
    Checked on random shapes with holes (the largest group of a random set of cells), where the
    engine's legal moves must also equal the reference implementation's."""
    g = game(spec)
    grid = g.grid
    rng = random.Random(spec)
    for _ in range(60):
        density = rng.uniform(0.35, 0.95)
        subset = grid.mask(c for c in grid.cells if rng.random() < density)
        if not subset:
            continue
        shape = max(grid.components(subset), key=lambda m: m.bit_count())
        labels = [grid.label(c) for c in grid.cells if shape >> c & 1]
        if g.grid.kind == "square":
            cells = {lab: sq(lab, g.colors) for lab in labels}
        else:
            cells = {lab: hex_colour(g, lab) for lab in labels}
        st = position(cells, spec=spec)
        moves = st.legal_moves()
        assert moves, labels
        assert moves == reference_legal(st)


def test_more_inconsistent_positions_are_refused() -> None:
    """A turn in progress needs a block of its colour already taken; only one player can have won."""
    g = game()
    cells = {"a1": 0, "b1": 1, "c1": 2, "a2": 3, "b2": 4, "c2": 0}
    d = position(cells).to_dict()
    with pytest.raises(ValueError, match="holds no block"):
        g.state_from_dict({**d, "taken": [[0, 4, 4, 4, 4, 4, 4, 4, 4], [7, 4, 4, 4, 4, 5, 5, 5, 5]], "taking": 0})
    both = {**d, "cells": {"a1": 2, "b1": 3}, "taken": [[9, 0, 4, 4, 4, 4, 4, 4, 4], [0, 9, 4, 4, 5, 5, 5, 5, 5]]}
    with pytest.raises(ValueError, match="both players"):
        g.state_from_dict(both)
    won = g.state_from_dict(
        {
            **both,
            "taken": [[9, 0, 4, 4, 4, 4, 4, 4, 4], [0, 8, 4, 4, 5, 5, 5, 5, 5]],
            "cells": {"a1": 2, "b1": 3, "c1": 1},
        }
    )
    assert won.is_terminal() and won.winner() == 0


def test_position_numbers_must_be_whole_numbers() -> None:
    """docs/python-api.md: "a `State` from a position dictionary (docs/rules/nibble.md); inconsistent input raises
    `ValueError` naming the problem" — a player index or a table entry written as a float or a
    bool is refused up front (it used to be accepted and fail later with a TypeError mid-game)."""
    g = game()
    d = g.new_initial_state(seed=1).to_dict()
    for key, bad in (("to_move", 1.0), ("to_move", True), ("table", [float(c) for c in d["table"]])):
        with pytest.raises(ValueError, match=key):
            g.state_from_dict({**d, key: bad})


# -- the compiled kernels ----------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ALL)
def test_deal_draws_equal_python_random(spec: str) -> None:
    """Engine notes: the deal kernel reproduces ``random.Random(seed)``: the colours permuted by
    ``rng.shuffle``, the swap draws ``int(rng.random() × cells²)``, the table shuffled afterwards —
    the same board and table as those calls of Python's generator give, for small, large and
    negative seeds."""
    from tessera.games.nibble import kernels as K
    from tessera.games.nibble.game import SWAPS_PER_CELL

    g = game(spec)
    k = len(g.cells)
    for seed in (0, 1, 7, 2**31 + 5, 2**32, 2**64 + 7, -12345, 10**30):
        rng = random.Random(seed)
        perm = list(range(g.colors))
        rng.shuffle(perm)
        col = np.array([perm[b] for b in g.base], np.int32)
        draws = np.array([int(rng.random() * k * k) for _ in range(SWAPS_PER_CELL * k)], np.int64)
        K.deal_swaps(col, g._nbr, g.colors, draws)
        table = list(range(g.colors))
        if g.params["shuffle_table"]:
            rng.shuffle(table)
        board, dealt_table = g.deal(seed)
        assert list(board.values()) == col.tolist()
        assert dealt_table == table


def kernel_step(st: NibbleState, seed: int) -> np.ndarray:
    """One step of the compiled random playout from ``st``; the position array after it."""
    from tessera.games.nibble import kernels as K

    s = st.s.copy()
    g = st.game
    assert K.rollout(s, st._deal, g.geo, K.scratch(g.geo), np.array([seed], np.uint64), 1) == 1
    return s


def header_end(st: NibbleState) -> int:
    from tessera.games.nibble import kernels as K

    return st._h + K.LEGAL  # the board, the counts and the turn header


@pytest.mark.parametrize("spec", ALL)
def test_random_playout_steps_are_legal_steps(spec: str) -> None:
    """The compiled random playout plays the rules: along seeded games, each of its steps gives the
    position that one of the legal actions gives through the checked API."""
    g = game(spec)
    rng = random.Random(spec)
    for seed in range(2):
        st = g.new_initial_state(seed=seed)
        while not st.is_terminal():
            after = kernel_step(st, rng.getrandbits(63))
            end = header_end(st)
            matches = []
            for a in st.legal_actions():
                c = st.clone()
                c.apply_action(a)
                if np.array_equal(c.s[:end], after[:end]):
                    matches.append(a)
            assert len(matches) == 1, (st.to_dict(), matches)
            st.apply_action(st.random_action(rng))


def test_random_playout_draws_every_legal_block_about_equally() -> None:
    """The playout's sampler at the start of a turn (corner blocks in random order, the first that
    does not split the board) is uniform over the legal blocks."""
    for spec in ALL:
        st = game(spec).new_initial_state(seed=4)
        rng = random.Random(4)
        for _ in range(30):
            st.apply_action(st.random_action(rng))
        while st.taking is not None:  # a turn's first step
            st.apply_action(st.random_action(rng))
        legal = st.legal_actions()
        seen: Counter[int] = Counter()
        for seed in range(200 * len(legal)):
            after = kernel_step(st, seed)
            (taken,) = [a for a in legal if after[a] < 0 <= st.s[a]]
            seen[taken] += 1
        assert set(seen) == set(legal)
        assert all(140 <= seen[a] <= 260 for a in legal), seen
