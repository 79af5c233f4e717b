"""Nume rule tests, named after the rules of seed 001 and docs/rules/nume.md)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import tessera
from tessera import TERMINAL, IllegalMove
from tessera.core.geometry import alternating_hexagon
from tessera.games.nume import NumeGame, NumeState


def nume_game(spec: str = "nume", **params: Any) -> NumeGame:
    game = tessera.load_game(spec, **params)
    assert isinstance(game, NumeGame)
    return game


def new(spec: str = "nume", **params: Any) -> NumeState:
    state = nume_game(spec, **params).new_initial_state()
    return state


def position(d: dict[str, Any], spec: str = "nume", **params: Any) -> NumeState:
    state = nume_game(spec, **params).state_from_dict(d)
    return state


def play(state: NumeState, *moves: str) -> NumeState:
    for m in moves:
        state.play(m)
    return state


def recomputed_scores(state: NumeState) -> list[float]:
    """Each player's score from scratch: flood-fill the groups of the position dict."""
    d = state.to_dict()
    game = state.game
    grid = game.grid
    stones = {grid.cell(lab): (v[0], v[1]) for lab, v in d["stones"].items()}
    price = {"b": 0.0, "w": 0.0}
    seen: set[int] = set()
    for cell, (col, _) in stones.items():
        if cell in seen:
            continue
        group, todo = {cell}, [cell]
        while todo:
            x = todo.pop()
            for y in grid.neighbors[x]:
                if y not in group and y in stones and stones[y][0] == col:
                    group.add(y)
                    todo.append(y)
        seen |= group
        numbers = [stones[x][1] for x in group if stones[x][1] is not None]
        price[col] += max(abs(k - len(group)) for k in numbers)
    if d["komi_to"] is not None:
        price[d["komi_to"][0]] += d["komi"]
    return [price[c[0]] for c in d["colors"]]


# -- board ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", range(2, 13))
def test_hex_board_has_3_size_size_plus_1_cells_in_alternating_rows(size: int) -> None:
    """'a hexagonal grid of hexagons with sides alternating in length between n and n + 2 cells';
    docs/rules/nume.md: 3·size·(size+1) cells, 2·size+1 rows, row a has size+2 hexes, rows grow by one down to
    the size-th row (2·size+1 hexes), then shrink by one to the bottom row of size hexes."""
    game = nume_game(size=size)
    grid = game.grid
    assert game.cells == len(grid) == 3 * size * (size + 1)
    lengths = [len(row) for row in grid.rows]
    assert len(lengths) == 2 * size + 1
    assert lengths[0] == size + 2 and lengths[size - 1] == 2 * size + 1 and lengths[-1] == size
    assert lengths == [size + 2 + r for r in range(size)] + [2 * size - r for r in range(size + 1)]
    assert (
        grid.label(grid.rows[0][0]) == "a1"
        and grid.label(grid.rows[size - 1][-1]) == f"{'abcdefghijklm'[size - 1]}{2 * size + 1}"
    )


@pytest.mark.parametrize("size", [2, 3, 5, 12])
def test_hex_board_sides_alternate_between_size_and_size_plus_2(size: int) -> None:
    """The six sides of the board (counted in hexes, corners shared) alternate n+2, n, n+2, n, n+2, n;
    the centre of the board is a vertex, not a cell."""
    grid = alternating_hexagon(size)
    coords = {xy for c in grid.cells if (xy := grid.coords[c]) is not None}
    # a side is a maximal run of edge hexes along one axial direction; count the hexes on the six
    # boundary lines q = const, r = const, q + r = const at their extremes
    qs = [q for q, _ in coords]
    rs = [r for _, r in coords]
    ss = [q + r for q, r in coords]
    sides = [
        sum(1 for _, r in coords if r == min(rs)),  # top
        sum(1 for q, _ in coords if q == max(qs)),  # upper right
        sum(1 for q, r in coords if q + r == max(ss)),  # lower right
        sum(1 for _, r in coords if r == max(rs)),  # bottom
        sum(1 for q, _ in coords if q == min(qs)),  # lower left
        sum(1 for q, r in coords if q + r == min(ss)),  # upper left
    ]
    assert sides == [size + 2, size, size + 2, size, size + 2, size]
    xs = [grid.center(c) for c in grid.cells]
    cx = sum(x for x, _ in xs) / len(xs)
    cy = sum(y for _, y in xs) / len(xs)
    assert min(math.dist((cx, cy), p) for p in xs) == pytest.approx(1.0)  # a vertex: one circumradius away


def test_square_variant_is_size_by_size_points_with_orthogonal_adjacency() -> None:
    """'Square: Played on the intersections of a square grid ... "adjacent" means only
    "orthogonally adjacent".'"""
    game = nume_game(variant="square", size=5)
    grid = game.grid
    assert game.cells == 25
    assert sorted(grid.label(n) for n in grid.neighbors[grid.cell("c3")]) == ["b3", "c2", "c4", "d3"]
    assert sorted(grid.label(n) for n in grid.neighbors[grid.cell("a1")]) == ["a2", "b1"]


def test_sizes_default_to_5_hex_and_9_square_and_are_checked() -> None:
    """docs/rules/nume.md: size default 5 (2–12) for hex, 9 (3–19) for the square variant."""
    assert tessera.load_game("nume").params["size"] == 5
    assert tessera.load_game("nume(variant=square)").params["size"] == 9
    assert nume_game(variant="square", size=19).cells == 361
    with pytest.raises(ValueError, match="size=13"):
        tessera.load_game("nume", size=13)
    with pytest.raises(ValueError, match=r"size=2.*square"):
        tessera.load_game("nume", variant="square", size=2)
    with pytest.raises(ValueError, match="komi"):
        tessera.load_game("nume", komi=0.3)
    with pytest.raises(ValueError, match="komi_bidding"):
        tessera.load_game("nume", komi=2.5, komi_bidding=True)


def test_game_string_keeps_the_square_size() -> None:
    """The size default depends on the variant, so the one-string form keeps a non-default size."""
    game = tessera.load_game("nume(variant=square,size=5)")
    assert str(game) == "nume(size=5,variant=square)"
    assert tessera.load_game(str(game)) == game
    assert str(tessera.load_game("nume(variant=square)")) == "nume(variant=square)"
    assert str(tessera.load_game("nume(komi=3,komi_to=white)")) == "nume(komi=3,komi_to=white)"


# -- golden counts -----------------------------------------------------------------------------

FIRST_MOVES = {
    2: 342,
    3: 1332,
    4: 3660,
    5: 8190,
    6: 16002,
    7: 28392,
    8: 46872,
    9: 73170,
    10: 109230,
    11: 157212,
    12: 219492,
}


@pytest.mark.parametrize("size", range(2, 13))
def test_golden_number_of_first_moves_hex(size: int) -> None:
    """The first stone starts a group on any cell with any number 0…cells: cells·(cells+1) moves."""
    state = new(size=size)
    assert len(state.legal_actions()) == FIRST_MOVES[size]
    if size <= 6:
        moves = state.legal_moves()
        assert len(moves) == FIRST_MOVES[size] and len(set(moves)) == len(moves)


@pytest.mark.parametrize(("size", "count"), [(3, 90), (5, 650), (9, 6642), (19, 130682)])
def test_golden_number_of_first_moves_square(size: int, count: int) -> None:
    """Square variant: size² points, each with numbers 0…size²."""
    assert len(new(variant="square", size=size).legal_actions()) == count


def test_golden_counts_after_two_stones() -> None:
    """Size 2 (18 cells): after a1=3, White has 17·19 moves; after e2=0, Black has the 3 joining
    stones next to a1 (a2, b1, b2) plus 13 empty cells with 19 numbers each."""
    state = new(size=2)
    state.play("a1=3")
    assert len(state.legal_moves()) == 323
    state.play("e2=0")
    moves = state.legal_moves()
    assert len(moves) == 250
    assert [m for m in moves if "=" not in m] == ["a2", "b1", "b2"]


# -- placement ---------------------------------------------------------------------------------


def test_new_group_stone_carries_a_number_from_0_to_cells() -> None:
    """'If this stone creates a new group, write a whole number on it'; docs/rules/nume.md: 0 ≤ k ≤ cells,
    and omitting the number on a stone that starts a group is illegal."""
    state = new(size=3)
    before = state.to_dict()
    with pytest.raises(IllegalMove, match="starts a new group must carry a number from 0 to 36"):
        state.play("c4")
    with pytest.raises(IllegalMove, match="whole number from 0 to 36"):
        state.play("c4=37")
    with pytest.raises(IllegalMove, match="whole number"):
        state.play("c4=-1")
    assert state.to_dict() == before and state.history() == []
    state.play("c4=36")
    state.play("a1=0")
    assert state.to_dict()["stones"] == {"c4": ["b", 36], "a1": ["w", 0]}


def test_joining_stone_carries_no_number() -> None:
    """docs/rules/nume.md: writing a number on a stone that joins a group is illegal (the state is unchanged)."""
    state = play(new(size=3), "a1=3", "g1=1")
    before = state.to_dict()
    with pytest.raises(IllegalMove, match=r"joins a Black group .*carries no number; play a2"):
        state.play("a2=4")
    assert state.to_dict() == before
    state.play("a2")
    assert state.to_dict()["stones"]["a2"] == ["b", None]


def test_a_stone_only_joins_its_own_colour() -> None:
    """'A group is a stone along with all other like-colored stones one could reach from it':
    a stone next to enemy stones only starts a new group (and needs a number)."""
    state = play(new(size=3), "a1=3")
    with pytest.raises(IllegalMove, match="must carry a number"):
        state.play("a2")
    state.play("a2=1")
    assert state.price_of("a2") == 0 and state.price_of("a1") == 2


def test_place_on_an_empty_cell_only() -> None:
    """'place a stone of your color on an empty cell'."""
    state = play(new(size=3), "a1=3")
    with pytest.raises(IllegalMove, match="a1 is not empty"):
        state.play("a1=2")
    with pytest.raises(IllegalMove, match="not a cell"):
        state.play("z9=2")


# -- price and score ---------------------------------------------------------------------------


def test_price_of_a_group_of_5_with_numbers_3_and_6_is_2() -> None:
    """'The price of a group is the highest number obtainable by selecting ... a stone that has a
    number written on it and computing the absolute value of the difference between that number and
    the size of that group': size 5, numbers 3 and 6 → max(2, 1) = 2."""
    state = play(new(size=3), "a1=3", "g1=1", "a3=6", "g3=1", "a2", "e1=1", "a4", "e5=1", "a5")
    group = next(g for g in state.groups() if "a1" in g["cells"])
    assert group == {
        "color": "black",
        "cells": ["a1", "a2", "a3", "a4", "a5"],
        "size": 5,
        "numbers": [3, 6],
        "price": 2,
    }
    assert state.price_of("a4") == 2


def test_merge_joins_groups_and_keeps_every_number() -> None:
    """A stone touching two groups of its colour joins them into one group, whose price looks at
    every numbered stone: a1=3 (price 2) and a3=6 (price 5) merge through a2 into size 3, price 3."""
    state = play(new(size=3, komi=0), "a1=3", "g1=1", "a3=6", "g3=1")
    assert state.price_of("a1") == 2 and state.price_of("a3") == 5 and state.scores() == [7.0, 0.0]
    state.play("a2")
    assert state.price_of("a1") == state.price_of("a3") == 3
    assert state.scores() == [3.0, 0.0]
    assert len([g for g in state.groups() if g["color"] == "black"]) == 1


def test_merge_of_three_groups() -> None:
    """One stone can merge three groups at once (hex cell with three friendly neighbour groups)."""
    # b3 touches a2, a3, b2, b4, c3, c4 on the size-3 board; a2, b4 and c3 are pairwise apart
    state = play(new(size=3, komi=0), "a2=1", "g1=1", "b4=2", "g3=1", "c3=7", "e1=1", "b3")
    group = next(g for g in state.groups() if "b3" in g["cells"])
    assert group["size"] == 4 and group["numbers"] == [1, 2, 7] and group["price"] == 3
    assert state.scores() == [3.0, 0.0]


def test_score_is_sum_of_prices_plus_komi_and_lower_score_wins() -> None:
    """'Your score is the sum of the prices of all your groups on the board, plus a komi when
    applicable'; 'The player with the lower score in the final position wins.'"""
    # square 3×3: Black a1=3 a2 a3 (price 0) and c1=1 (price 0 before c2); White b1=4 b2 b3 c3 (price 0)
    d = {
        "stones": {
            "a1": ["b", 3], "a2": ["b", None], "a3": ["b", None], "c1": ["b", 1],
            "b1": ["w", 4], "b2": ["w", None], "b3": ["w", None], "c3": ["w", None],
        },
        "to_move": 0,
    }  # fmt: skip
    state = position(d, "nume(variant=square,size=3)")
    assert state.scores() == [0.5, 0.0]
    assert state.legal_moves() == ["c2"]  # c2 touches c1: it joins, no number
    state.play("c2")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.scores() == [1.5, 0.0]  # c1-c2 has size 2, number 1: price 1, plus komi 0.5
    assert state.returns() == [-1.0, 1.0] and state.winner() == 1


def test_whole_number_komi_can_tie_and_a_tie_is_a_draw() -> None:
    """docs/rules/nume.md: komi is any multiple of 0.5; 'with a whole number a tie is possible and is a draw'."""
    d = {
        "stones": {
            "a1": ["b", 3], "a2": ["b", None], "a3": ["b", None], "c1": ["b", 1],
            "b1": ["w", 4], "b2": ["w", None], "b3": ["w", None], "c3": ["w", None],
        },
    }  # fmt: skip
    state = position(d, "nume(variant=square,size=3,komi=1,komi_to=white)")
    state.play("c2")
    assert state.scores() == [1.0, 1.0]
    assert state.returns() == [0.0, 0.0] and state.winner() is None
    result = state.render()["result"]
    assert result["reason"] == "score" and result["text"].endswith(": a draw")


def test_half_point_komi_for_black_is_the_default() -> None:
    """'A half-point komi for Black is suggested as a default value.'"""
    state = new()
    assert state.game.params["komi"] == 0.5 and state.game.params["komi_to"] == "black"
    assert state.scores() == [0.5, 0.0]


def test_game_ends_when_the_board_is_full() -> None:
    """'The game ends when the board is full.'"""
    state = new(size=2)
    rng = random.Random(3)
    for _ in range(17):
        state.apply_action(state.random_action(rng))
        assert not state.is_terminal()
    state.apply_action(state.random_action(rng))
    assert state.is_terminal() and state.legal_moves() == [] and len(state.to_dict()["stones"]) == 18
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0])  # half-point komi: no ties


@pytest.mark.parametrize("spec", ["nume(size=2)", "nume(size=4)", "nume(variant=square,size=4)", "nume(size=3,komi=2)"])
def test_incremental_prices_equal_prices_recomputed_from_scratch(spec: str) -> None:
    """The engine's group bookkeeping (merges included) gives the prices of the rulebook's
    definition, recomputed by flood fill after every ply of random games."""
    game = nume_game(spec)
    for seed in range(6):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            a = state.random_action(rng) if rng.random() < 0.5 else rng.choice(state.legal_actions())
            state.apply_action(a)
            assert state.scores() == recomputed_scores(state)
        r = state.returns()
        s = state.scores()
        assert s is not None
        assert r == ([1.0, -1.0] if s[0] < s[1] else [-1.0, 1.0] if s[1] < s[0] else [0.0, 0.0])


# -- komi bidding ------------------------------------------------------------------------------


def test_komi_bidding_flow() -> None:
    """'Before the game starts, the first player chooses the value of komi and which side will
    receive it, and then the second player chooses sides'; docs/rules/nume.md: player 0 plays 'komi 3.5 white',
    player 1 plays 'black' or 'white'; Black then places first."""
    state = new("nume(size=3,komi_bidding=true)")
    moves = state.legal_moves()
    assert len(moves) == 2 * 37 and "komi 0.5 black" in moves and "komi 36.5 white" in moves
    assert state.current_player() == 0 and state.scores() is None
    with pytest.raises(IllegalMove, match="komi bidding comes first"):
        state.play("a1=3")
    with pytest.raises(IllegalMove, match=r"n\+0.5"):
        state.play("komi 3 white")
    with pytest.raises(IllegalMove, match=r"n\+0.5"):
        state.play("komi 37.5 white")
    state.play("komi 3.5 white")
    assert state.current_player() == 1 and state.legal_moves() == ["black", "white"]
    with pytest.raises(IllegalMove, match="already been bid"):
        state.play("komi 1.5 black")
    state.play("black")
    assert state.colors() == ["white", "black"]
    assert state.current_player() == 1  # Black places first, and player 1 took Black
    assert state.scores() == [3.5, 0.0]  # player 0 is White and receives the komi
    state.play("a1=3")
    assert state.current_player() == 0 and state.to_dict()["stones"] == {"a1": ["b", 3]}
    assert state.history() == [(0, "komi 3.5 white"), (1, "black"), (1, "a1=3")]
    with pytest.raises(IllegalMove, match="already been chosen"):
        state.play("white")


def test_seat_is_not_colour_returns_follow_the_people() -> None:
    """docs/rules/nume.md: 'Player indices stay attached to the people; returns() follows them.'"""
    for seed in range(4):
        rng = random.Random(seed)
        state = play(new("nume(size=2,komi_bidding=true)"), "komi 2.5 black", "black")
        assert state.colors() == ["white", "black"]
        while not state.is_terminal():
            state.apply_action(state.random_action(rng))
        black, white = state.colour_scores()
        assert state.scores() == [white, black] == recomputed_scores(state)  # Black's includes the komi
        winner_colour = "black" if black < white else "white"
        assert state.winner() == state.colors().index(winner_colour)  # type: ignore[union-attr]
        assert state.returns()[state.winner()] == 1.0  # type: ignore[index]


def test_without_bidding_the_komi_strings_are_refused() -> None:
    """Komi bids exist only with komi_bidding=true."""
    state = new(size=2)
    with pytest.raises(IllegalMove, match="no komi bidding"):
        state.play("komi 0.5 black")
    with pytest.raises(IllegalMove, match="no komi bidding"):
        state.play("white")


# -- notation and actions ----------------------------------------------------------------------


def test_integer_action_encoding() -> None:
    """Engine notes: cell·K (join), cell·K+1+k (new group k), then bids, then colour choices;
    K = cells + 2 (size 2: 18 cells, K = 20)."""
    state = new(size=2)
    assert state.game.num_distinct_actions() == 18 * 20 + 2 * 19 + 2
    expect = {0: "a1", 1: "a1=0", 19: "a1=18", 20: "a2", 360: "komi 0.5 black", 397: "komi 18.5 white", 398: "black"}
    for a, s in expect.items():
        assert state.action_to_string(a) == s and state.string_to_action(s) == a
    assert state.string_to_action(" A1 = 07 ") == 8 and state.action_to_string(8) == "a1=7"
    with pytest.raises(IllegalMove):
        state.action_to_string(400)


def test_random_action_samples_legal_moves_of_both_kinds() -> None:
    """random_action draws a legal move: an empty cell, then a number 0…cells for a new group."""
    state = play(new(size=3), "a1=3", "g1=1", "a3=6", "g3=1")
    rng = random.Random(1)
    seen_join, numbers = set(), set()
    for _ in range(3000):
        a = state.random_action(rng)
        move = state.action_to_string(a)
        assert state.is_legal(move), move
        if "=" in move:
            numbers.add(int(move.split("=")[1]))
        else:
            seen_join.add(move)
    assert seen_join == {"a2", "a4", "b1", "b2", "b3", "b4"}
    assert numbers == set(range(37))
    with pytest.raises(IllegalMove):
        state.random_action(rng, player=1)


# -- positions ---------------------------------------------------------------------------------


def test_position_dict_of_the_rulebook() -> None:
    """docs/rules/nume.md's example position loads and round-trips: d3=5 and d4 form a Black group of 2."""
    d = {
        "size": 5,
        "variant": "hex",
        "to_move": 0,
        "stones": {"d3": ["b", 5], "d4": ["b", None]},
        "komi": 0.5,
        "komi_to": "black",
        "colors": ["black", "white"],
    }
    state = position(d)
    assert state.to_dict() == d
    assert state.price_of("d4") == 3 and state.scores() == [3.5, 0.0]


@pytest.mark.parametrize(
    ("stones", "message"),
    [
        ({"d3": ["b", None]}, "has no numbered stone"),
        ({"d3": ["b", 5], "d4": ["b", 2]}, "touch"),
        ({"d3": ["b", 91]}, "number 91"),
        ({"z3": ["b", 1]}, "not a cell"),
        ({"d3": ["x", 1]}, "'b' or 'w'"),
    ],
)
def test_impossible_positions_are_refused(stones: dict[str, Any], message: str) -> None:
    """Every group starts with a numbered stone, and numbered stones of a colour never touch."""
    with pytest.raises(ValueError, match=message):
        position({"stones": stones})


def test_position_to_move_must_be_a_player_index() -> None:
    """docs/python-api.md: "inconsistent input raises `ValueError` naming the problem" — `to_move` is a player
    index (0 or 1, or -4 once the board is full), not a float or a bool (1.0 used to crash with a
    TypeError)."""
    for bad in (1.0, True, "1"):
        with pytest.raises(ValueError, match="to_move"):
            position({"stones": {}, "to_move": bad}, size=2)


def test_position_komi_must_match_the_game() -> None:
    """Without bidding the komi is the game's parameter; with bidding it is a bid n+0.5."""
    with pytest.raises(ValueError, match="differs"):
        position({"stones": {}, "komi": 1.5, "komi_to": "black"})
    bid = position({"stones": {}, "komi": 2.5, "komi_to": "white", "colors": None}, "nume(size=2,komi_bidding=true)")
    assert bid.current_player() == 1 and bid.legal_moves() == ["black", "white"]
    with pytest.raises(ValueError, match=r"n\+0.5"):
        position({"stones": {}, "komi": 2, "komi_to": "white", "colors": None}, "nume(size=2,komi_bidding=true)")


# -- render and evaluation ---------------------------------------------------------------------


def test_render_shows_numbers_group_titles_and_click_actions() -> None:
    """docs/render.md: numbers on the stones, group size and price as hover text; a joining stone is
    {"move": "d3", "path": ["d3"]}, a new group a template with number [0, cells]; no cell×number list."""
    state = play(new(size=3), "a1=3", "g1=1", "a3=6", "g3=1", "a2")
    desc = state.render()
    by_cell = {p["cell"]: p for p in desc["pieces"]}
    assert by_cell["a1"]["text"] == "3" and by_cell["a2"]["text"] == "" and by_cell["a2"]["owner"] == 0
    assert by_cell["a2"]["title"] == "Black group of 3, numbers 3, 6, price 3"
    actions = desc["actions"]
    assert len(actions) == 36 - 5  # one per empty cell
    assert {"template": "b1={n}", "path": ["b1"], "number": [0, 36]} in actions
    for a in actions:
        if "move" in a:
            assert a["path"] == [a["move"]] and state.is_legal(a["move"])
        else:
            assert state.is_legal(a["template"].replace("{n}", "0"))
            assert state.is_legal(a["template"].replace("{n}", "36"))
    assert {"move": "f1", "path": ["f1"]} in actions  # White's joining stone next to g1
    assert desc["scores"] == [3.5, 0.0] and desc["last_move"] == ["a2"]
    assert state.render(player=0)["actions"] == []  # not Black's turn
    assert "B3" in str(state)


def test_render_komi_bids_are_buttons_a_generic_client_can_submit() -> None:
    """docs/render.md: "`actions` lists what the viewer may do now, each one a single legal move";
    `label` is the "button text when `path` is empty (`Pass`, `End turn`, `komi …`)", and a
    `template` is filled in "after the path is clicked" — a bid has no cell to click, so each
    bid is its own button (the client shows a long group as a drop-down); choosing is two buttons."""
    state = new("nume(size=2,komi_bidding=true)")
    acts = state.render()["actions"]
    assert all("template" not in a and a["path"] == [] and a["group"] == "komi" for a in acts)
    assert sorted(a["move"] for a in acts) == state.legal_moves()  # 0.5 … 18.5, to black or white
    assert len(acts) == 2 * 19
    white = {"key": "names.white", "args": {}, "text": "White"}
    assert {
        "move": "komi 3.5 white",
        "path": [],
        "label": "Komi 3.5 to White",
        "label_key": "action.komi",
        "label_args": {"komi": "3.5", "name": white},
        "group": "komi",
    } in acts
    assert state.render(player=1)["actions"] == []  # only the bidder sees them
    state.play("komi 1.5 black")
    acts = state.render()["actions"]
    assert [a["move"] for a in acts] == ["black", "white"] and all(a["path"] == [] for a in acts)
    assert state.render()["status"] == "Player 1 to choose a colour"


def test_evaluate_prefers_the_lower_estimated_score() -> None:
    """Evaluation: tanh of the estimated score lead (lower is better), in [-1, 1]."""
    state = play(new(size=3), "a1=30", "g1=1")  # Black's lone 30 on the edge is hopeless
    assert -1.0 <= state.evaluate(0) < 0.0 < state.evaluate(1) <= 1.0
    rng = random.Random(2)
    while not state.is_terminal():
        assert -1.0 <= state.evaluate(0) <= 1.0
        state.apply_action(state.random_action(rng))
    assert state.evaluate(0) == state.returns()[0]


@pytest.mark.parametrize("spec", ["nume(size=3)", "nume(variant=square,size=5)"])
def test_text_diagram_shows_every_cell_once(spec: str) -> None:
    """str(state): one token per cell (``.`` empty, ``B5``/``W`` stones), rows labelled."""
    state = new(spec)
    rng = random.Random(4)
    for _ in range(9):
        state.apply_action(state.random_action(rng))
    lines = str(state).splitlines()
    board_lines = lines[1 : 1 + len(state.game.grid.rows)]
    tokens = [t.rstrip("*") for line in board_lines for t in line.split()[1:]]
    assert len(tokens) == state.game.cells
    assert sorted(t for t in tokens if t != ".") == sorted(
        ("B" if v[0] == "b" else "W") + ("" if v[1] is None else str(v[1])) for v in state.to_dict()["stones"].values()
    )


def test_evaluate_after_a_komi_bid_favours_the_chooser_unless_the_bid_is_level() -> None:
    """Evaluation: player 1 takes the colour a bid favours; a half-point komi to Black is level."""
    for bid, level in (("komi 0.5 black", True), ("komi 9.5 white", False), ("komi 5.5 black", False)):
        state = play(new("nume(size=2,komi_bidding=true)"), bid)
        assert state.evaluate(0) == -state.evaluate(1)
        assert (state.evaluate(1) == 0.0) is level and state.evaluate(1) >= 0.0


def test_every_integer_action_round_trips_through_its_string() -> None:
    """Notation has a parser and a writer that round-trip, over the whole action space."""
    for spec in ("nume(size=2)", "nume(variant=square,size=3)"):
        state = new(spec)
        for a in range(state.game.num_distinct_actions()):
            assert state.string_to_action(state.action_to_string(a)) == a


def test_illegal_integer_actions_leave_the_state_unchanged() -> None:
    """apply_action checks like play: a refused action changes nothing."""
    state = play(new(size=3), "a1=3", "g1=1")
    before, hist = state.to_dict(), state.history()
    game = state.game
    a2 = game.label_index["a2"]
    g2 = game.label_index["g2"]
    for bad in (a2 * game.K + 5, g2 * game.K, game.label_index["a1"] * game.K, game.place_actions, -1, 10**9):
        with pytest.raises(IllegalMove):
            state.apply_action(bad)
        assert state.to_dict() == before and state.history() == hist
    state.apply_action(a2 * game.K)
    assert state.to_dict()["stones"]["a2"] == ["b", None]


def test_random_action_is_uniform_over_empty_cells_then_numbers() -> None:
    """Engine notes: random_action draws an empty cell uniformly, then a number 0…cells uniformly."""
    state = play(new(size=2), "a1=3", "e2=0")
    game = state.game
    rng = random.Random(7)
    cells: dict[int, int] = {}
    numbers: dict[int, int] = {}
    draws = 32000
    for _ in range(draws):
        c, k = divmod(state.random_action(rng), game.K)
        cells[c] = cells.get(c, 0) + 1
        if k:
            numbers[k - 1] = numbers.get(k - 1, 0) + 1
    assert len(cells) == 16 and all(abs(n - draws / 16) < 0.1 * draws / 16 for n in cells.values())
    new_groups = sum(numbers.values())
    assert len(numbers) == 19 and all(abs(n - new_groups / 19) < 0.15 * new_groups / 19 for n in numbers.values())


@pytest.mark.parametrize("seed", range(3))
def test_rollouts_score_the_full_board_for_the_seats_not_the_colours(seed: int) -> None:
    """'The game ends when the board is full ... the lower score wins'; with komi bidding 'player
    indices stay attached to the people'.  Player 1 takes Black here, so player 0 is White.  From
    the last empty cell, rollouts to the end average the results of the uniformly drawn numbers
    (one result if the stone joins a group), for player 0."""
    rng = random.Random(seed)
    s = tessera.load_game("nume(size=2,komi_bidding=true)").new_initial_state()
    s.play("komi 2.5 white")
    s.play("black")
    assert s.colors() == ["white", "black"]
    while len(s.to_dict()["stones"]) < s.game.cells - 1:
        s.apply_action(s.random_action(rng))
    outcomes = []
    for a in s.legal_actions():
        t = s.clone()
        t.apply_action(a)
        assert t.is_terminal()
        outcomes.append(t.returns()[0])
    res = s.rollouts(20000, seed)
    assert res.plies == 20000
    assert abs(res.totals[0] / res.n - sum(outcomes) / len(outcomes)) < 0.03
    assert res.totals[1] == -res.totals[0]
