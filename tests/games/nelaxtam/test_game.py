"""Rule tests for Nelaxtam (seed ``003``; docs/rules/nelaxtam.md), named after the rules they check.

The seed's diagrams are restated as positions: rows from the top (rank 12) down,
``x``/``o`` territory, ``.`` removed, a digit an O (White) troop, a capital
letter an X (Black) troop (``A`` = troop 1 … ``E`` = troop 5).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

import tessera
from tessera import SIMULTANEOUS, TERMINAL, IllegalMove
from tessera.games.nelaxtam import NelaxtamGame, NelaxtamState

FILES = "abcdefghijklmnopqrst"


def diagram(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """Board rows and troops of a seed diagram (troop squares hold their owner's territory)."""
    rows = [r.split() for r in text.strip().splitlines()]
    n = len(rows)
    board, troops = [], [{}, {}]  # type: ignore[var-annotated]
    for i, row in enumerate(rows):
        y = n - 1 - i
        out = ""
        for x, ch in enumerate(row):
            label = f"{FILES[x]}{y + 1}"
            colour = "o" if (x + y) % 2 == 0 else "x"
            if ch in "xo.":
                out += ch
            elif ch.isdigit():
                troops[1][ch] = label
                out += colour
            else:
                troops[0][str(ord(ch) - ord("A") + 1)] = label
                out += colour
        board.append(out)
    return board, troops


def nx(spec: str) -> NelaxtamGame:
    """A Nelaxtam game from its one-string form."""
    game = tessera.load_game(spec)
    assert isinstance(game, NelaxtamGame)
    return game


def position(game: NelaxtamGame, text: str, phase: str = "battle", turn: int = 5) -> NelaxtamState:
    board, troops = diagram(text)
    st = game.state_from_dict({"size": len(board), "phase": phase, "turn": turn, "board": board, "troops": troops})
    assert isinstance(st, NelaxtamState)
    return st


def board_of(text: str) -> list[str]:
    return diagram(text)[0]


G12 = nx("nelaxtam")

DIAGRAM_1 = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

# Diagram 3/4, with a Black troop far away (a12) so that Black controls his territory.
DIAGRAM_4 = """
A o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x 1 x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_4_AFTER = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o . o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_5 = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o . o x o x o x o x o
o x . x o x . x . E o x
x o x . . o x o x o x o
o x 1 x . x o x o x o x
x o x o . 4 x o x o . .
o x o A o x o x o . . x
x o x o . o x o . 2 x o
o x o x o . o x . x o x
x o x o x o B o . o x o
o x o x o x o x . x o x
"""

# Diagram 6 with a second troop of each side far away (B on l1, 2 on a1), which hold.
DIAGRAM_6 = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o A o x o x o x
x o x o x 1 x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
2 x o x o x o x o x o B
"""

DIAGRAM_6_AFTER = """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o . o x o x o x
x o x o x . x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""

DIAGRAM_7 = """
x . x . . o . o . . x .
. A . . o . o . o . . E
x . . o . o . o . o . .
. x . . o . o . . . o .
x . . . . . . . . 4 . o
. x . x . x . . . . . .
. . x . x . x . B . x .
. . . . . x . x . x . x
. o . . . . . . . . x .
o . 1 . o . o . . . . x
. o . o . o . o . o . .
o . o . o . o . 2 . o .
"""


# -- board and set-up ------------------------------------------------------------------------


def test_board_is_a_checkerboard_with_a1_white() -> None:
    """Diagram 1 / docs/rules/nelaxtam.md: "a1 and every square whose file+rank sum is even is White (o);
    the others are Black (x)"."""
    st = G12.new_initial_state()
    assert st.to_dict()["board"] == board_of(DIAGRAM_1)
    assert st.to_dict()["phase"] == "invasion" and st.scores() == [72, 72]
    small = nx("nelaxtam(size=8,variant=quiet)").new_initial_state().to_dict()["board"]
    assert small[-1] == "oxoxoxox" and small[0] == "xoxoxoxo"


def test_turns_are_simultaneous_and_player_0_is_black() -> None:
    """docs/rules/nelaxtam.md:
    "Player 0 is Black, player 1 White. Turns are simultaneous: current_player() is SIMULTANEOUS"."""
    st = G12.new_initial_state()
    assert st.current_player() == SIMULTANEOUS
    assert G12.info.player_names == ("Black", "White") and G12.info.dynamics == "simultaneous"
    with pytest.raises(IllegalMove, match="play_joint"):
        st.play("1@a2")


def test_parameters_are_checked() -> None:
    """docs/rules/nelaxtam.md: size even 8–20, default 12; variant wild needs >= 10; by_sea at most troops."""
    assert G12.params == {"size": 12, "variant": "wild", "troops": 5, "by_sea": 3, "max_idle_turns": 30}
    for bad in ("nelaxtam(size=9)", "nelaxtam(size=6)", "nelaxtam(size=22)", "nelaxtam(variant=loud)"):
        with pytest.raises(ValueError):
            nx(bad)
    with pytest.raises(ValueError, match="wild"):
        nx("nelaxtam(size=8,variant=wild)")
    with pytest.raises(ValueError, match="by_sea"):
        nx("nelaxtam(troops=2,by_sea=3)")
    assert nx("nelaxtam(size=10,variant=wild)").params["variant"] == "wild"


# -- the invasion ---------------------------------------------------------------------------

WHITE_INVASION = "1@a9 2@e1 3@i1 4@f6 5@h8"  # diagram 2: 1, 2, 3 by sea
BLACK_INVASION = "1@a8 2@f1 3@l7 4@h7 5@c10"  # diagram 2 with D on h7 (the seed draws it on white g7)


def test_invasion_places_every_troop_on_friendly_territory() -> None:
    """Diagram 2: "Friendly troops can only be placed on friendly territory", 3 by sea on edge squares."""
    st = G12.new_initial_state()
    assert st.is_legal(BLACK_INVASION, 0) and st.is_legal(WHITE_INVASION, 1)
    st.play_joint([BLACK_INVASION, WHITE_INVASION])
    assert st.to_dict()["troops"] == [
        {"1": "a8", "2": "f1", "3": "l7", "4": "h7", "5": "c10"},
        {"1": "a9", "2": "e1", "3": "i1", "4": "f6", "5": "h8"},
    ]
    assert st.to_dict()["phase"] == "battle" and st.scores() == [72, 72]
    assert st.history() == [(SIMULTANEOUS, f"{BLACK_INVASION} | {WHITE_INVASION}")]


def test_invasion_on_opponent_territory_is_illegal() -> None:
    """Diagram 2 draws Black's D on g7, a White square: "Friendly troops can only be placed on friendly territory"."""
    st = G12.new_initial_state()
    reason = st.why_illegal("1@a8 2@f1 3@l7 4@g7 5@c10", 0)
    assert reason is not None and "g7" in reason and "White territory" in reason


def test_too_few_troops_by_sea_is_illegal() -> None:
    """Seed: "a troop which reached the island by sea must be placed on ... the edge"; by_sea=3 needs 3 on edges."""
    st = G12.new_initial_state()
    reason = st.why_illegal("1@a8 2@f1 3@k8 4@h7 5@c10", 0)
    assert reason is not None and "3 come by sea" in reason
    relaxed = nx("nelaxtam(by_sea=2)").new_initial_state()
    assert relaxed.is_legal("1@a8 2@f1 3@k8 4@h7 5@c10", 0)
    assert nx("nelaxtam(by_sea=0)").new_initial_state().is_legal("1@b9 2@c8 3@d9 4@e8 5@f9", 0)


@pytest.mark.parametrize(
    ("order", "words"),
    [
        ("1@a8 2@f1 3@l7 4@h7", "troop 5 is missing"),
        ("1@a8 3@l7 4@h7 5@c10", "troop 2 is missing"),
        ("2@f1 1@a8 3@l7 4@h7 5@c10", "increasing troop number"),
        ("1@a8 2@a8 3@l7 4@h7 5@c10", "both placed on a8"),
        ("1@a8 1@f1 3@l7 4@h7 5@c10", "placed twice"),
        ("1= 2@f1 3@l7 4@h7 5@c10", "invasion places every troop"),
        ("1@a8 2@f1 3@l7 4@h7 6@c10", "no troop 6"),
        ("1@a8 2@f1 3@l7 4@h7 5@z10", "not a square"),
        ("", "empty"),
    ],
)
def test_illegal_invasion_orders_say_why(order: str, words: str) -> None:
    """docs/rules/nelaxtam.md:
    "1@a3 2@b12 … places each troop on a distinct friendly square" — every troop, in increasing number."""
    st = G12.new_initial_state()
    before = st.to_dict()
    reason = st.why_illegal(order, 0)
    assert reason is not None and words in reason, reason
    with pytest.raises(IllegalMove, match="Black's order"):
        st.play_joint([order, WHITE_INVASION])
    assert st.to_dict() == before and st.history() == []


def test_orders_are_normalised() -> None:
    """docs/rules/nelaxtam.md:
    moves are lower-case, steps separated by single spaces; equal orders are equal strings."""
    st = G12.new_initial_state()
    st.play_joint(["  1@A8  2@f1 3@L7\t4@h7 5@c10 ", WHITE_INVASION.upper()])
    assert st.history()[0][1] == f"{BLACK_INVASION} | {WHITE_INVASION}"
    assert st.normalize("1= 2=   3= 4= 5=", 1) == "1= 2= 3= 4= 5="


# -- battle orders ---------------------------------------------------------------------------


def test_moves_go_diagonally_onto_friendly_territory() -> None:
    """Diagram 3: "1 might move to one of the 4 capitalized Os" — a move is diagonal onto friendly territory."""
    st = position(G12, DIAGRAM_4)
    options = st.troop_options(1)[1]
    assert sorted(t for t in options if ">" in t) == ["1>e3", "1>e5", "1>g3", "1>g5"]


def test_destruction_targets_orthogonal_opponent_pieces() -> None:
    """Diagram 4: "1 might destroy one of the 4 capitalized Xs" — orthogonally adjacent opponent territory."""
    st = position(G12, DIAGRAM_4)
    options = st.troop_options(1)[1]
    assert sorted(t for t in options if "x" in t) == ["1xe4", "1xf3", "1xf5", "1xg4"]
    assert "1=" in options and len(options) == 9


def test_destruction_removes_the_piece() -> None:
    """Diagram 4: "the result of the action ... Imagine that he destroyed the piece on the bottom"."""
    st = position(G12, DIAGRAM_4)
    st.play_joint(["1=", "1xf3"])
    assert st.to_dict()["board"] == board_of(DIAGRAM_4_AFTER)
    assert st.scores() == [71, 72] and st.to_dict()["idle"] == 0


@pytest.mark.parametrize(
    ("order", "words"),
    [
        ("1>f5", "moves are diagonal"),
        ("1>f6", "not adjacent"),
        ("1xe5", "own territory"),
        ("1xf7", "not orthogonally adjacent"),
        ("1@f4", "only in the invasion"),
        ("1= 1=", "two tokens"),
        ("2=", "no longer on the board"),
        ("1>e5 junk", "not an order token"),
    ],
)
def test_illegal_battle_orders_say_why(order: str, words: str) -> None:
    """docs/rules/nelaxtam.md: "3>d5 move to a diagonally adjacent friendly territory piece;
    3xd6 destroy an orthogonally adjacent opponent territory piece"."""
    st = position(G12, DIAGRAM_4)
    before = st.to_dict()
    reason = st.why_illegal(order, 1)
    assert reason is not None and words in reason, reason
    with pytest.raises(IllegalMove, match="White's order"):
        st.play_joint(["1=", order])
    assert st.to_dict() == before


def test_move_onto_a_removed_square_is_illegal() -> None:
    """Diagram 5: "1 can not move NE (north east) because that cell is empty, ... it has already been destroyed"."""
    board, troops = diagram(DIAGRAM_5)
    board = _drop_uncontrolled_black(board)
    st = G12.state_from_dict({"phase": "battle", "turn": 20, "board": board, "troops": troops})
    reason = st.why_illegal("1>d8 2= 4=", 1)
    assert reason is not None and "d8" in reason and "removed" in reason
    assert st.is_legal("1>b8 2= 4=", 1)


def _drop_uncontrolled_black(board: list[str]) -> list[str]:
    """Diagram 5 minus the bottom-right X pieces (l5 k4 j3 l3 k2 j1 l1) that the seed says may be removed."""
    rows = [list(r) for r in board]
    for sq in ("l5", "k4", "j3", "l3", "k2", "j1", "l1"):
        x, y = FILES.index(sq[0]), int(sq[1:]) - 1
        assert rows[12 - 1 - y][x] == "x"
        rows[12 - 1 - y][x] = "."
    return ["".join(r) for r in rows]


def test_an_order_lists_every_living_troop_in_increasing_number() -> None:
    """docs/rules/nelaxtam.md: "an order lists every living troop in increasing number with one action"."""
    board, troops = diagram(DIAGRAM_5)
    st = G12.state_from_dict(
        {"phase": "battle", "turn": 20, "board": _drop_uncontrolled_black(board), "troops": troops}
    )
    assert st.living(0) == [1, 2, 5] and st.living(1) == [1, 2, 4]  # "Each player lost 2 troops"
    assert "troop 4 has no token" in (st.why_illegal("1= 2=", 1) or "")
    assert "increasing troop number" in (st.why_illegal("2= 1= 4=", 1) or "")
    assert "no longer on the board" in (st.why_illegal("1= 2= 3= 4=", 1) or "")
    assert st.is_legal("1= 2= 4=", 1) and st.is_legal("1= 2= 5=", 0)


def test_two_troops_ending_on_one_square_is_illegal_but_swaps_and_chains_are_fine() -> None:
    """docs/rules/nelaxtam.md ruling: "a player's order is illegal if two of his troops would end on the same square
    (swaps and chains are fine)"."""
    board = board_of(DIAGRAM_1)
    troops = [{"1": "a12"}, {"1": "d4", "2": "e5", "3": "f6"}]
    st = G12.state_from_dict({"phase": "battle", "turn": 2, "board": board, "troops": troops})
    assert "would both end on e5" in (st.why_illegal("1>e5 2= 3=", 1) or "")
    assert "would both end on e5" in (st.why_illegal("1>e5 2xe6 3=", 1) or "")
    assert st.is_legal("1>e3 2>d4 3>e5", 1)  # each steps into the square the next one leaves
    assert st.is_legal("1>e5 2>d4 3=", 1)  # swap
    assert st.is_legal("1>e5 2>f6 3>g7", 1)  # chain
    st.play_joint(["1=", "1>e5 2>f6 3>g7"])
    assert st.troop_cells(1) == {1: "e5", 2: "f6", 3: "g7"}


def test_moves_happen_before_destructions() -> None:
    """Seed: "players execute the actions in the following order: The movements. The destructions." —
    a troop that moves off a destroyed square survives, one that moves onto it dies."""
    board = board_of(DIAGRAM_1)
    st = G12.state_from_dict(
        {"phase": "battle", "turn": 2, "board": board, "troops": [{"1": "e6", "2": "a12"}, {"1": "e5", "2": "a1"}]}
    )
    st.play_joint(["1xe5 2=", "1>f6 2="])  # White's 1 leaves e5 before it is destroyed
    assert st.troop_cells(1) == {1: "f6", 2: "a1"} and st.to_dict()["board"][12 - 5][4] == "."
    st2 = G12.state_from_dict(
        {"phase": "battle", "turn": 2, "board": board, "troops": [{"1": "e6", "2": "a12"}, {"1": "d4", "2": "a1"}]}
    )
    st2.play_joint(["1xe5 2=", "1>e5 2="])  # White's 1 steps onto e5 as it is destroyed
    assert st2.troop_cells(1) == {2: "a1"} and st2.troop_cells(0) == {1: "e6", 2: "a12"}


def test_double_destruction_both_troops_act_before_dying() -> None:
    """Diagram 6: "Imagine that 1 destroys North and A destroys South" — both pieces go, and so do both troops."""
    st = position(G12, DIAGRAM_6)
    st.play_joint(["1xf6 2=", "1xf7 2="])
    assert st.to_dict()["board"] == board_of(DIAGRAM_6_AFTER)
    assert st.troop_cells(0) == {2: "l1"} and st.troop_cells(1) == {2: "a1"}
    assert st.is_legal("2=", 0) and not st.is_legal("1= 2=", 0)


def test_uncontrolled_groups_are_removed() -> None:
    """Diagram 5: "The X's pieces on the bottom right might be removed from the board since X will never be able to
    control them" — docs/rules/nelaxtam.md: "every group of territory with no troop of its owner on it is removed"."""
    board, troops = diagram(DIAGRAM_5)
    with pytest.raises(ValueError, match="not controlled"):
        G12.state_from_dict({"phase": "battle", "turn": 20, "board": board, "troops": troops})
    # One turn earlier: j5 still stood and joined the bottom-right pieces to Black's main group.
    rows = [list(r) for r in board]
    assert rows[12 - 5][9] == "."
    rows[12 - 5][9] = "x"
    before = G12.state_from_dict({"phase": "battle", "turn": 19, "board": ["".join(r) for r in rows], "troops": troops})
    assert before.scores() == [64, 63]
    before.play_joint(["1= 2= 5=", "1= 2xj5 4="])
    assert before.to_dict()["board"] == _drop_uncontrolled_black(board)
    assert before.scores() == [56, 63]


def test_a_player_without_troops_loses_all_his_territory() -> None:
    """Seed: "If a player loses all his troops, also loses all his territory"."""
    board = board_of(DIAGRAM_1)
    st = G12.state_from_dict({"phase": "battle", "turn": 2, "board": board, "troops": [{"1": "f7"}, {"1": "f6"}]})
    st.play_joint(["1xf6", "1>e5"])  # White's last troop survives by moving away
    assert st.scores() == [72, 71] and not st.is_terminal() and st.troop_cells(1) == {1: "e5"}
    st2 = G12.state_from_dict({"phase": "battle", "turn": 2, "board": board, "troops": [{"1": "f7"}, {"1": "f6"}]})
    st2.play_joint(["1xf6", "1="])
    assert st2.scores() == [72, 0] and st2.is_terminal() and st2.winner() == 0
    assert st2.current_player() == TERMINAL and st2.returns() == [1.0, -1.0]


# -- the end --------------------------------------------------------------------------------


def test_final_count_of_diagram_7() -> None:
    """Diagram 7: "X has 22 points and O has 30. Therefore O won" — the game is over when nobody can destroy again."""
    st = position(G12, DIAGRAM_7, phase="over", turn=60)
    assert st.is_terminal() and st.scores() == [22, 30]
    assert st.winner() == 1 and st.returns() == [-1.0, 1.0]
    with pytest.raises(ValueError, match="does not match"):
        position(G12, DIAGRAM_7, phase="battle", turn=60)


def test_game_ends_when_nobody_can_ever_destroy_again() -> None:
    """docs/rules/nelaxtam.md ruling: "the game ends when no troop of either side can ever destroy again"."""
    g = nx("nelaxtam(size=8,variant=quiet)")
    board = ["........", "........", "........", "........", "........", "..ox....", ".o..x...", "o......."]
    st = g.state_from_dict({"phase": "battle", "turn": 9, "board": board, "troops": [{"1": "e2"}, {"1": "c3"}]})
    assert not st.is_terminal() and st.can_destroy()
    st.play_joint(["1=", "1xd3"])  # Black's e2 no longer touches any White piece
    assert st.is_terminal() and st.current_player() == TERMINAL
    assert st.scores() == [1, 3] and st.winner() == 1 and st.returns() == [-1.0, 1.0]


def test_idle_safeguard_ends_the_game_as_a_draw() -> None:
    """docs/rules/nelaxtam.md:
    "safeguard max_idle_turns ends it after that many consecutive turns without a destruction" (a draw)."""
    g = nx("nelaxtam(max_idle_turns=3)")
    st = g.state_from_dict(position(G12, DIAGRAM_4).to_dict())
    st.play_joint(["1=", "1xf3"])
    for i in range(3):
        assert not st.is_terminal() and st.to_dict()["idle"] == i
        st.play_joint(["1=", "1="])
    assert st.is_terminal() and st.to_dict()["idle"] == 3
    assert st.scores() == [71, 72] and st.winner() is None and st.returns() == [0.0, 0.0]


# -- quiet variant --------------------------------------------------------------------------


def test_quiet_variant_allows_one_token_per_turn() -> None:
    """Seed: "The 'quiet variant' only permits to use a troop per turn";
    docs/rules/nelaxtam.md: "a single token; the others do nothing"."""
    g = nx("nelaxtam(size=8,variant=quiet)")
    st = g.new_initial_state()
    assert st.legal_moves(0) == []  # invasion orders are not listed
    st.play_joint(["1@a2 2@a4 3@h1 4@d5 5@e6", "1@a1 2@a3 3@h8 4@c5 5@f4"])
    assert "one token per turn" in (st.why_illegal("1= 2=", 0) or "")
    assert st.normalize("4=", 0) == "1="  # every "nobody acts" is the same order
    moves = st.legal_moves(0)
    assert moves == sorted(moves) and moves.count("1=") == 1 and not any(m.endswith("=") and m != "1=" for m in moves)
    assert all(st.is_legal(m, 0) for m in moves)
    assert "4>e6" not in moves and "would both end on e6" in (st.why_illegal("4>e6", 0) or "")
    assert len(moves) == len(st.legal_actions(0))
    st.play_joint(["4xd4", "3="])
    assert st.history()[-1] == (SIMULTANEOUS, "4xd4 | 1=")
    assert st.to_dict()["board"][8 - 4][3] == "."


def test_normal_battle_orders_are_not_enumerated() -> None:
    """docs/rules/nelaxtam.md: "legal_moves(player) lists them only in battle turns of the quiet variant"."""
    st = position(G12, DIAGRAM_4)
    assert st.legal_moves(0) == [] and st.legal_moves(1) == [] and st.legal_moves() == []
    assert st.troop_options(0) == {1: ["1=", "1>b11", "1xa11", "1xb12"]}


# -- integer actions ------------------------------------------------------------------------


def test_integer_actions_factor_an_order_per_troop() -> None:
    """Engine notes: one action per token, ``(k−1)·(1 + 3·size²) + local``; apply_actions equals play_joint."""
    g = nx("nelaxtam(size=10)")
    assert g.num_distinct_actions() == 5 * (1 + 3 * 100)
    st = g.new_initial_state()
    for a in range(g.num_distinct_actions()):
        assert st.string_to_action(st.action_to_string(a)) == a
    rng = random.Random(3)
    for _ in range(6):
        if st.is_terminal():
            break
        acts = [st.random_actions(rng, p) for p in (0, 1)]
        for p in (0, 1):
            assert st.order_reason(acts[p], p) is None
            per_troop = st.troop_actions(p)
            assert all(a in per_troop[g.decode(a)[0] + 1] for a in acts[p])
            assert set(st.legal_actions(p)) == {a for v in per_troop.values() for a in v}
        by_int, by_str = st.clone(), st.clone()
        by_int.apply_actions(acts)
        by_str.play_joint([st.actions_to_order(acts[0]), st.actions_to_order(acts[1])])
        assert by_int.to_dict() == by_str.to_dict() and by_int.history() == by_str.history()
        st = by_int
    with pytest.raises(IllegalMove):
        st.apply_actions([[10**9], [0]])


def test_random_orders_are_legal() -> None:
    """Conformance relies on random_move(rng, p) building a legal full order at every turn."""
    for spec in ("nelaxtam(size=10)", "nelaxtam(size=8,variant=quiet)", "nelaxtam(size=12,by_sea=5)"):
        st = nx(spec).new_initial_state()
        rng = random.Random(spec)
        while not st.is_terminal():
            orders = [st.random_move(rng, p) for p in (0, 1)]
            assert all(st.why_illegal(o, p) is None for p, o in enumerate(orders)), orders
            st.play_joint(orders)


# -- secret orders and views ----------------------------------------------------------------


def test_sealed_orders_stay_secret_until_both_are_in() -> None:
    """STYLE.md / docs/render.md: "A view for one player never contains the other player's pending order"."""
    st = G12.new_initial_state()
    assert st.submit(WHITE_INVASION, 1) is False
    assert st.pending(1) == WHITE_INVASION and st.pending(0) is None and st.move_number() == 0
    black_view = json.dumps(st.render(0))
    assert "i1" in black_view  # the board is shown…
    assert WHITE_INVASION not in black_view and '"3@i1"' not in black_view  # …but not White's order
    assert st.render(0)["order"]["opponent_submitted"] is True and st.render(0)["order"]["pending"] is None
    assert st.render(1)["order"]["pending"] == WHITE_INVASION and st.render(1)["order"]["submitted"] is True
    assert "@" not in json.dumps(st.render(None))
    v = st.view(0)
    assert v.pending(1) == "?" and "@" not in json.dumps(v.to_dict()) and "@" not in str(v)
    with pytest.raises(IllegalMove, match="view"):
        v.submit(BLACK_INVASION, 0)
    with pytest.raises(IllegalMove, match="already sealed"):
        st.submit("1@a9 2@e1 3@i1 4@f6 5@h10", 1)
    assert st.submit(WHITE_INVASION, 1) is False  # the same order again changes nothing
    with pytest.raises(IllegalMove, match="White territory"):
        st.submit("1@a9 2@f1 3@l7 4@h7 5@c10", 0)
    assert st.submit(BLACK_INVASION, 0) is True
    assert st.history() == [(SIMULTANEOUS, f"{BLACK_INVASION} | {WHITE_INVASION}")]
    assert st.pending(0) is None and st.pending(1) is None


def test_withdraw_and_dict_round_trip_of_sealed_orders() -> None:
    """A sealed order can be withdrawn before the turn resolves; to_dict keeps it (the server's cache)."""
    st = G12.new_initial_state()
    st.submit(BLACK_INVASION, 0)
    again = G12.state_from_dict(json.loads(json.dumps(st.to_dict())))
    assert again.pending(0) == BLACK_INVASION and again.to_dict() == st.to_dict()
    st.withdraw(0)
    assert st.pending(0) is None and "pending" not in st.to_dict()
    with pytest.raises(IllegalMove):
        st.withdraw(0)


def test_render_order_section_lists_each_troops_choices() -> None:
    """docs/render.md: ``order`` has units with choices (hold/move/destroy tokens with paths), ``single`` for quiet."""
    st = position(G12, DIAGRAM_4)
    order = st.render(1)["order"]
    assert order["separator"] == " " and order["single"] is False and order["player"] == 1
    (unit,) = order["units"]
    assert unit["cell"] == "f4" and unit["default"] == "1="
    tokens = {c["token"]: c["path"] for c in unit["choices"]}
    assert tokens["1="] == [] and tokens["1>e5"] == ["e5"] and tokens["1xf3"] == ["f3"]
    assert st.render(None)["order"] is None and st.render(1)["actions"] == []
    inv = G12.new_initial_state().render(0)["order"]
    assert len(inv["units"]) == 5 and inv["units"][0]["cell"] is None and len(inv["units"][0]["choices"]) == 72


# -- positions ------------------------------------------------------------------------------


def test_position_dict_is_strict() -> None:
    """docs/python-api.md: "inconsistent input raises ValueError naming the problem"."""
    good = position(G12, DIAGRAM_4).to_dict()
    assert G12.state_from_dict(good).to_dict() == good
    bad_troop = dict(good, troops=[{"1": "b12"}, {"1": "f4"}])
    with pytest.raises(ValueError, match="not Black territory"):
        G12.state_from_dict(bad_troop)
    with pytest.raises(ValueError, match="size"):
        G12.state_from_dict(dict(good, size=10))
    wrong_colour = list(good["board"])
    wrong_colour[0] = "o" + wrong_colour[0][1:]
    with pytest.raises(ValueError, match="a12"):
        G12.state_from_dict(dict(good, board=wrong_colour))
    with pytest.raises(ValueError, match="unknown key"):
        G12.state_from_dict(dict(good, colour="x"))


def test_evaluation_is_bounded_and_favours_the_side_ahead() -> None:
    """Evaluation: territory and troop share lead, in [-1, 1]; exact when the game is over."""
    st = position(G12, DIAGRAM_4)
    st.play_joint(["1=", "1xf3"])
    assert st.evaluate(1) > 0 > st.evaluate(0) and -1 <= st.evaluate(0) <= 1
    over = position(G12, DIAGRAM_7, phase="over", turn=60)
    assert over.evaluate(1) == 1.0 and over.evaluate(0) == -1.0


def test_two_troops_may_destroy_the_same_square() -> None:
    """Ruling (module docstring): only ending on one square is illegal; two destructions of one piece are allowed."""
    board = board_of(DIAGRAM_1)
    st = G12.state_from_dict(
        {"phase": "battle", "turn": 2, "board": board, "troops": [{"1": "a12"}, {"1": "d4", "2": "f4"}]}
    )
    assert st.is_legal("1xe4 2xe4", 1)
    st.play_joint(["1=", "1xe4 2xe4"])
    assert st.scores() == [71, 72] and st.to_dict()["board"][12 - 4][4] == "."


def test_golden_option_counts() -> None:
    """Golden counts: per-troop options after diagram 2's invasion, and quiet full orders after a fixed invasion."""
    st = G12.new_initial_state()
    assert {k: len(v) for k, v in st.troop_options(0).items()} == dict.fromkeys(range(1, 6), 72)
    st.play_joint([BLACK_INVASION, WHITE_INVASION])
    # edge troops: hold, 2 moves, 3 destructions; inner troops: hold, 4 moves, 4 destructions
    for p in (0, 1):
        assert {k: len(v) for k, v in st.troop_options(p).items()} == {1: 6, 2: 6, 3: 6, 4: 9, 5: 9}
        assert len(st.legal_actions(p)) == 36
    quiet = nx("nelaxtam(size=8,variant=quiet)").new_initial_state()
    quiet.play_joint(["1@a2 2@a4 3@h1 4@d5 5@e6", "1@a1 2@a3 3@h8 4@c5 5@f4"])
    assert len(quiet.legal_moves(0)) == 28 and len(quiet.legal_moves(1)) == 28


# -- orders and resolution against a second reading of the rules ---------------------------

FOUR = ((1, 0), (-1, 0), (0, 1), (0, -1))
Square = tuple[int, int]


class _Reference:
    """docs/rules/nelaxtam.md's Nelaxtam, written again over ``(file, rank)`` pairs and position dicts."""

    def __init__(self, game: tessera.Game) -> None:
        self.n = game.params["size"]
        self.troops = game.params["troops"]
        self.by_sea = game.params["by_sea"]
        self.quiet = game.params["variant"] == "quiet"

    def square(self, label: str) -> Square | None:
        m = re.fullmatch(r"([a-t])([1-9][0-9]?)", label)
        if m is None or FILES.index(m.group(1)) >= self.n or int(m.group(2)) > self.n:
            return None
        return FILES.index(m.group(1)), int(m.group(2)) - 1

    def token(self, tok: str) -> tuple[int, str, Square | None] | None:
        m = re.fullmatch(r"([0-9]+)([=>x@])(.*)", tok)
        if m is None or (m.group(2) == "=") != (m.group(3) == ""):
            return None
        c = self.square(m.group(3))
        if m.group(2) != "=" and c is None:
            return None
        return int(m.group(1)), m.group(2), c

    def parse(self, d: dict[str, Any]) -> tuple[dict[Square, int], list[dict[int, Square | None]]]:
        terr = {}
        for i, row in enumerate(d["board"]):
            for x, ch in enumerate(row):
                if ch != ".":
                    terr[(x, self.n - 1 - i)] = 0 if ch == "x" else 1
        return terr, [{int(k): self.square(v) for k, v in d["troops"][p].items()} for p in (0, 1)]

    def legal(self, d: dict[str, Any], order: str, p: int) -> bool:
        terr, troops = self.parse(d)
        toks = [self.token(t) for t in order.split()]
        if not toks or None in toks:
            return False
        ks = [t[0] for t in toks if t]
        if d["phase"] == "invasion":
            cells = [t[2] for t in toks if t and t[1] == "@" and t[2] and (sum(t[2]) % 2 == 0) == (p == 1)]
            edge = [c for c in cells if min(c) == 0 or max(c) == self.n - 1]
            return ks == list(range(1, self.troops + 1)) and len(set(cells)) == len(toks) and len(edge) >= self.by_sea
        mine = troops[p]
        if (len(toks) != 1 if self.quiet else ks != sorted(mine)) or not set(ks) <= set(mine):
            return False
        ends = dict(mine) if self.quiet else {}
        for k, op, c in (t for t in toks if t):
            here = mine[k]
            assert here is not None
            (x, y), (cx, cy) = here, c or here
            if op == "@":
                return False
            if op == ">" and not (abs(cx - x) == abs(cy - y) == 1 and terr.get((cx, cy)) == p):
                return False
            if op == "x" and not (abs(cx - x) + abs(cy - y) == 1 and terr.get((cx, cy)) == 1 - p):
                return False
            ends[k] = c if op == ">" else here
        return len(set(ends.values())) == len(ends)

    def resolve(self, d: dict[str, Any], orders: list[str]) -> tuple[dict[Square, int], list[dict[int, Any]]]:
        terr, troops = self.parse(d)
        hit: list[set[Any]] = [set(), set()]
        for p in (0, 1):
            for k, op, c in (t for t in map(self.token, orders[p].split()) if t):
                if op == ">":
                    troops[p][k] = c  # the moves first ...
                elif op == "x":
                    hit[p].add(c)  # ... then the destructions
        for p in (0, 1):
            for c in hit[p]:
                del terr[c]
            troops[1 - p] = {k: c for k, c in troops[1 - p].items() if c not in hit[p]}
        for q in (0, 1):  # keep only the diagonal groups holding a troop of their owner
            keep: set[Any] = set(troops[q].values())
            todo = list(keep)
            while todo:
                x, y = todo.pop()
                for c in ((x + 1, y + 1), (x + 1, y - 1), (x - 1, y + 1), (x - 1, y - 1)):
                    if terr.get(c) == q and c not in keep:
                        keep.add(c)
                        todo.append(c)
            terr = {c: o for c, o in terr.items() if o != q or c in keep}
        return terr, troops

    @staticmethod
    def can_destroy(terr: dict[Square, int]) -> bool:
        return any(terr.get((x + dx, y + dy)) == 1 - o for (x, y), o in terr.items() for dx, dy in FOUR)


def _random_order(d: dict[str, Any], ref: _Reference, p: int, rng: random.Random) -> str:
    """A random order, legal or not: near misses (orthogonal moves, diagonal destructions, own squares)."""
    n = ref.n
    if d["phase"] == "invasion":
        toks = []
        for k in range(1, ref.troops + 1):  # mostly friendly squares, about half on the edge
            x, y = rng.randrange(n), rng.choice([0, n - 1]) if rng.random() < 0.3 else rng.randrange(n)
            x, y = (y, x) if rng.random() < 0.5 else (x, y)
            if ((x + y) % 2 == 0) != (p == 1) and rng.random() < 0.9:
                x = x + 1 if x + 1 < n else x - 1
            toks.append(f"{k}@{FILES[x]}{y + 1}")
    else:
        mine = {int(k): ref.square(v) for k, v in d["troops"][p].items()}
        toks = []
        for k in [rng.choice(sorted(mine))] if ref.quiet else sorted(mine):
            here = mine[k]
            assert here is not None
            dx, dy = rng.choice([(1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (0, -1), (0, 1), (-1, 0)])
            target = f"{FILES[min(max(here[0] + dx, 0), n - 1)]}{min(max(here[1] + dy, 0), n - 1) + 1}"
            op = rng.choice("=>>xx")
            toks.append(f"{k}=" if op == "=" else f"{k}{op}{target}")
    if rng.random() < 0.1 and len(toks) > 1:
        toks.pop(rng.randrange(len(toks)))
    return " ".join(toks)


@pytest.mark.parametrize("spec", ["nelaxtam", "nelaxtam(size=8,variant=quiet)", "nelaxtam(size=10,troops=3,by_sea=1)"])
def test_orders_and_resolution_match_a_second_reading_of_the_rules(spec: str) -> None:
    """Which orders are legal (the invasion on friendly squares with by_sea troops on the edge; diagonal moves
    onto own territory, orthogonal destructions of opponent territory; never two troops on one square), and what
    a turn does ("First all moves, then all destructions"; "A troop on a destroyed square dies"; "every group of
    territory with no troop of its owner on it is removed"; the end "when no troop of either side can ever
    destroy again"), checked against a second, plain implementation of docs/rules/nelaxtam.md along random games."""
    game = nx(spec)
    ref = _Reference(game)
    rng = random.Random(6)
    verdicts = set()
    for _ in range(4):
        st = game.new_initial_state()
        while not st.is_terminal():
            d = st.to_dict()
            for p in (0, 1):
                for _ in range(8):
                    order = _random_order(d, ref, p, rng)
                    verdicts.add(st.is_legal(order, p))
                    assert st.is_legal(order, p) == ref.legal(d, order, p), (d, p, order, st.why_illegal(order, p))
            orders = [st.random_move(rng, 0), st.random_move(rng, 1)]
            want = ref.resolve(d, orders) if d["phase"] == "battle" else None
            st.play_joint(orders)
            if want is not None:
                assert ref.parse(st.to_dict()) == want, (d, orders)
                idle_out = st.to_dict()["idle"] >= game.params["max_idle_turns"]
                assert st.is_terminal() == (not ref.can_destroy(want[0]) or idle_out)
    assert verdicts == {True, False}


def test_calls_naming_a_player_refuse_anything_but_0_and_1() -> None:
    """API: bad input gets a clear error naming it — player numbers are 0 (Black) and 1 (White), and -1 must not
    quietly mean White (a Python negative index), nor True mean player 1."""
    st = G12.new_initial_state()
    rng = random.Random(0)
    calls: list[Callable[[Any], object]] = [
        lambda p: st.random_move(rng, p),
        lambda p: st.random_actions(rng, p),
        st.pending,
        st.view,
        st.withdraw,
    ]
    for bad in (2, -1, True):
        for call in calls:
            with pytest.raises(IllegalMove, match=f"there is no player {bad!r}"):
                call(bad)
    assert st.view(None).pending(0) is None and st.view(0).pending(1) is None


def test_random_quiet_orders_draw_every_legal_token_about_equally() -> None:
    """Engine notes / random_actions: in a quiet battle turn the random order is one of the legal tokens
    (the full orders), each about equally often."""
    st = nx("nelaxtam(size=8,variant=quiet)").new_initial_state()
    rng = random.Random(3)
    for _ in range(3):
        st.apply_actions([st.random_actions(rng, p) for p in (0, 1)])
    assert not st.is_terminal()
    legal = st.legal_actions(0)
    seen = Counter(a for _ in range(200 * len(legal)) for a in st.random_actions(rng, 0))
    assert set(seen) == set(legal)
    assert all(140 <= seen[a] <= 260 for a in legal), seen


def test_rollouts_play_the_rules_from_any_turn() -> None:
    """State.rollouts plays random legal turns to the end in one kernel call: from every position of a
    random game the rollouts end the game (no cut-off), Black's total is minus White's, and a cut-off of 0
    scores the position itself with evaluate."""
    for spec in ("nelaxtam(size=10)", "nelaxtam(size=8,variant=quiet)"):
        st = nx(spec).new_initial_state()
        rng = random.Random(spec)
        while not st.is_terminal():
            res = st.rollouts(4, rng.getrandbits(63))
            assert res.n == 4 and res.plies >= 4 and res.totals[0] == -res.totals[1]
            assert all(v in (-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0) for v in res.totals)  # ±1/0 each
            assert st.rollouts(2, 5, 0).totals[0] == pytest.approx(2 * st.evaluate(0))
            st.apply_actions([st.random_actions(rng, p) for p in (0, 1)])
