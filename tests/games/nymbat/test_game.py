"""Rule tests for Nymbat (seed 000; docs/rules/nymbat.md), built from position dicts.

Coordinates used below (pointy-top hexes, rows a–o from the top): the neighbours
of ``h8`` are ``g7 g8 h7 h9 i7 i8``; of ``g7``: ``f6 f7 g6 g8 h7 h8``; of ``h5``:
``g4 g5 h4 h6 i4 i5``.  Red (0) plays towards row ``a``, Blue (1) towards row ``o``.
"""

from __future__ import annotations

import itertools
import json
import random
from typing import Any, TypeVar

import pytest

import tessera
from tessera import TERMINAL, IllegalMove, State
from tessera.games.nymbat import END, GRID, LOSE_BASE, NUM_ACTIONS, PASS, PLACE_BASE, REMOVE_BASE, NymbatState

GAME = tessera.load_game("nymbat")


def position(
    pieces: dict[str, tuple[int, int]],
    *,
    to_move: int = 0,
    reserves: tuple[int, int] = (10, 10),
    delays: tuple[int, int] = (0, 0),
    first: tuple[bool, bool] = (True, True),
    game: tessera.Game = GAME,
    **extra: Any,
) -> NymbatState:
    d: dict[str, Any] = {
        "to_move": to_move,
        "pieces": {h: list(v) for h, v in pieces.items()},
        "reserves": list(reserves),
        "delays": list(delays),
        "first_turn_done": list(first),
    }
    d.update(extra)
    st = game.state_from_dict(d)
    assert isinstance(st, NymbatState)
    return st


S = TypeVar("S", bound=State)


def play(state: S, *moves: str) -> S:
    for m in moves:
        state.play(m)
    return state


def pieces(state: State) -> dict[str, list[int]]:
    return dict(state.to_dict()["pieces"])


# -- board and set-up -----------------------------------------------------------------------


def test_board_is_a_hexagon_of_side_8_with_rows_a_to_o() -> None:
    """docs/rules/nymbat.md: 'A regular hexagon of side 8 (169 hexes, 15 rows a–o).'"""
    assert len(GRID) == 169 and len(GRID.rows) == 15
    assert [len(r) for r in GRID.rows] == [8, 9, 10, 11, 12, 13, 14, 15, 14, 13, 12, 11, 10, 9, 8]
    for h, ns in (("h8", "g7 g8 h7 h9 i7 i8"), ("g7", "f6 f7 g6 g8 h7 h8"), ("h5", "g4 g5 h4 h6 i4 i5")):
        assert sorted(GRID.label(c) for c in GRID.neighbors[GRID.cell(h)]) == ns.split()


def test_initial_position_dict_is_the_rulebook_form() -> None:
    """docs/rules/nymbat.md position dict: to_move, pieces, reserves, delays, first_turn_done."""
    st = GAME.new_initial_state()
    assert st.to_dict() == {
        "to_move": 0,
        "pieces": {},
        "reserves": [60, 60],
        "delays": [0, 0],
        "first_turn_done": [False, False],
    }
    example = {
        "to_move": 0,
        "pieces": {"h5": [0, 3]},
        "reserves": [60, 60],
        "delays": [0, 0],
        "first_turn_done": [False, False],
    }
    assert GAME.state_from_dict(example).to_dict() == example


def test_first_turn_brings_in_on_the_setup_area_golden_count() -> None:
    """'On each player's first turn he must bring in reserves': 27 setup hexes × numbers 1–6."""
    st = GAME.new_initial_state()
    moves = st.legal_moves()
    assert len(moves) == 162
    assert {m.split("=")[0][0] for m in moves} == {"m", "n", "o"}
    st.play("o1=5")
    assert len(st.legal_moves()) == 26 * 6 + 1 and "end" in st.legal_moves()
    st.play("end")
    assert st.current_player() == 1
    assert {m.split("=")[0][0] for m in st.legal_moves()} == {"a", "b", "c"}
    assert len(st.legal_moves()) == 162


def test_first_turn_must_bring_in_at_most_first_limit() -> None:
    """'On his first turn the total of the numbers on the pieces he places may not exceed 30.'"""
    st = GAME.new_initial_state()
    play(st, "o1=6", "o2=6", "o3=6", "o4=6", "o5=4")
    assert st.to_dict()["in_turn"] == {"phase": "bring", "placed": 28}
    assert sorted({m.split("=")[1] for m in st.legal_moves() if "=" in m}) == ["1", "2"]
    with pytest.raises(IllegalMove, match="at most 30"):
        st.play("o6=3")
    st.play("o6=2")
    # 30 reached: ``end`` would be the only step, so the turn ended by itself.
    assert st.current_player() == 1 and st.to_dict()["reserves"] == [30, 60]
    assert st.to_dict()["first_turn_done"] == [True, False]


def test_first_turn_cannot_pass_or_move() -> None:
    """'The first turn of each player must be this' (bringing in reserves)."""
    st = GAME.new_initial_state()
    assert "pass" not in st.legal_moves()
    with pytest.raises(IllegalMove, match="first turn"):
        st.play("pass")
    st = position({"n5": (0, 3), "b2": (1, 2)}, first=(False, True))
    assert all("=" in m for m in st.legal_moves())
    with pytest.raises(IllegalMove, match="first turn"):
        st.play("n5-m5")


def test_bring_in_is_limited_by_the_reserve_and_reduces_it() -> None:
    """'After his first turn he may place any total if it does not exceed his current reserve number.'"""
    st = position({"b2": (1, 2), "h8": (0, 1)}, reserves=(4, 10))
    placements = [m for m in st.legal_moves() if "=" in m]
    assert len(placements) == 27 * 4
    with pytest.raises(IllegalMove, match="reserve"):
        st.play("n5=5")
    st.play("n5=3")
    assert st.to_dict()["reserves"] == [1, 10]
    assert "h8-g8" not in st.legal_moves(), "a turn that brings in cannot also move"
    st.play("n6=1")
    assert st.current_player() == 1 and st.to_dict()["reserves"] == [0, 10]


def test_bring_in_only_on_empty_setup_hexes() -> None:
    """'The player places ... pieces on unoccupied hexes in his setup area.'"""
    st = position({"n5": (0, 3), "b2": (1, 2)})
    with pytest.raises(IllegalMove, match="not empty"):
        st.play("n5=1")
    with pytest.raises(IllegalMove, match="setup area"):
        st.play("l5=1")
    with pytest.raises(IllegalMove, match="setup area"):
        st.play("c5=1")


def test_end_finishes_a_bring_in_and_the_turn_ends_by_itself_when_the_setup_area_is_full() -> None:
    """docs/rules/nymbat.md: 'A turn ends by itself when end would be its only legal step.'"""
    full = {GRID.label(c): (0, 1) for c in GRID.cells if GRID.row(c) in (12, 13, 14)}
    del full["m1"]
    st = position({**full, "b2": (1, 2)})
    st.play("m1=2")
    assert st.current_player() == 1
    assert st.history() == [(0, "m1=2")]


# -- moving a group -------------------------------------------------------------------------


def test_lone_six_in_the_centre_golden_count() -> None:
    """'Each piece may move any number of hexes up to the lowest number in the group.'

    A lone 6 on h8 (the centre) reaches the 126 other hexes within 6; plus 27×6
    placements and pass.
    """
    st = position({"h8": (0, 6), "a1": (1, 1)})
    moves = st.legal_moves()
    assert len([m for m in moves if "-" in m]) == 126
    assert len(moves) == 126 + 162 + 1


def test_group_speed_is_the_lowest_number_even_after_that_piece_moved() -> None:
    """'Both the selection of pieces and the distance they can move are determined by the group
    as it was at the start of the turn. Moving a piece during a turn does not change this.'"""
    st = position({"h5": (0, 1), "h6": (0, 5), "a1": (1, 1)})
    assert not st.is_legal("h6-h9"), "speed of the group is 1, not 5"
    st.play("h5-g5")
    assert st.to_dict()["in_turn"]["speed"] == 1
    assert st.is_legal("h6-h7")
    with pytest.raises(IllegalMove, match="speed 1"):
        st.play("h6-h8")
    assert st.legal_moves() == ["end", "h6-g6", "h6-h5", "h6-h7", "h6-i5", "h6-i6"]


def test_group_is_the_group_at_the_start_of_the_turn() -> None:
    """'Moving a piece during a turn does not change this' (selection of pieces)."""
    st = position({"h4": (0, 3), "h5": (0, 3), "h8": (0, 3), "a1": (1, 1)})
    st.play("h5-h7")  # now adjacent to h8, but h8 was another group
    assert st.current_player() == 0
    assert [m for m in st.legal_moves() if m.startswith("h8")] == []
    assert [m for m in st.legal_moves() if m.startswith("h4")]
    with pytest.raises(IllegalMove, match="group chosen"):
        st.play("h8-h9")


def test_each_piece_moves_once_per_turn() -> None:
    """'He must end the movement of a piece before he can move another.'"""
    st = position({"h5": (0, 2), "h6": (0, 2), "a1": (1, 1)})
    st.play("h5-g5")
    with pytest.raises(IllegalMove, match="moves at most once"):
        st.play("g5-f5")
    st.play("h6-g6")
    assert st.current_player() == 1, "no piece left to move: the turn ended by itself"


def test_paths_go_through_own_pieces_but_never_through_opponents() -> None:
    """'A player's own pieces do not block movement'; docs/rules/nymbat.md: '... but never pass through one.'"""
    st = position({"h5": (0, 3), "h7": (0, 1), "a1": (1, 1)})
    assert st.is_legal("h5-h8"), "through the own 1 on h7 (another group)"
    with pytest.raises(IllegalMove, match="another own piece"):
        st.play("h5-h7")
    st = position({"h5": (0, 3), "h7": (1, 1), "a1": (1, 1)})
    assert not st.is_legal("h5-h8"), "the only 3-step path runs through Blue's h7"
    with pytest.raises(IllegalMove, match="never through an opponent"):
        st.play("h5-h8")
    assert st.is_legal("h5-h7"), "but the piece may end its move on it (an attack)"


def test_a_moving_piece_must_leave_its_hex() -> None:
    """A move step goes somewhere: 'h5-h5' is not a step."""
    st = position({"h5": (0, 3), "a1": (1, 1)})
    with pytest.raises(IllegalMove, match="leave its hex"):
        st.play("h5-h5")


def test_end_is_not_a_first_step_and_pass_is_a_whole_turn() -> None:
    """docs/rules/nymbat.md: 'end finishes the turn (at least one piece must have moved)'; 'Pass: pass.'"""
    st = position({"h5": (0, 2), "h6": (0, 2), "a1": (1, 1)})
    with pytest.raises(IllegalMove, match="end"):
        st.play("end")
    st.play("h5-g5")
    with pytest.raises(IllegalMove, match="whole turn"):
        st.play("pass")
    with pytest.raises(IllegalMove, match="cannot also bring in"):
        st.play("n5=1")


# -- attack and breakthrough ----------------------------------------------------------------


def test_defender_supported_by_two_threes_totals_eight() -> None:
    """Seed: 'Blue player moves and can either remove the red 1 and keep his piece or remove
    the red 2 and also lose his piece. The two red 3s are supporting the red 2 for a total of 8.'"""
    base = {"h8": (0, 2), "h9": (0, 3), "g8": (0, 3), "k5": (0, 1), "h4": (1, 6), "o1": (0, 1)}
    st = position(base, to_move=1)
    st.play("h4-h8")
    after = pieces(st)
    assert "h8" not in after and "h4" not in after, "6 <= 2+3+3: both pieces are removed"
    assert st.current_player() == 0
    st = position(base, to_move=1)
    st.play("h4-k5")
    after = pieces(st)
    assert after["k5"] == [1, 6] and "h4" not in after, "6 > 1: the attacker stays on k5"


def test_attacker_equal_to_the_defence_is_removed() -> None:
    """'The moving player's piece is also removed if the number on his piece is equal to or lower ...'"""
    st = position({"h8": (0, 2), "h9": (0, 3), "h5": (1, 5), "o1": (0, 1)}, to_move=1)
    st.play("h5-h8")
    assert "h5" not in pieces(st) and "h8" not in pieces(st)
    st = position({"h8": (0, 2), "h9": (0, 2), "h5": (1, 5), "o1": (0, 1)}, to_move=1)
    st.play("h5-h8")
    assert pieces(st)["h8"] == [1, 5]


def test_an_attack_ends_the_pieces_move() -> None:
    """'If a player moves a piece into a hex containing an opponent's piece then he must end its movement there.'"""
    st = position({"h5": (0, 3), "h6": (1, 1), "a1": (1, 1)})
    assert st.is_legal("h5-h7"), "h7 is reachable around h6"
    st.play("h5-h6")
    assert pieces(st)["h6"] == [0, 3]
    assert st.current_player() == 1


# The seed's breakthrough picture, restated: a red 5 on h8 holds three red 2s
# that do not touch each other (h9, g7, i7); another red 2 on h10 hangs off h9;
# red 1s on f7 and g6 hang off g7.  Blue's group of two 3s (g9, g10) attacks.
BREAK = {
    "h8": (0, 5),
    "h9": (0, 2),
    "g7": (0, 2),
    "i7": (0, 2),
    "h10": (0, 2),
    "f7": (0, 1),
    "g6": (0, 1),
    "g9": (1, 3),
    "g10": (1, 3),
    "o1": (0, 1),
}


def test_breakthrough_may_remove_one_two_but_not_two_with_a_three() -> None:
    """Seed: 'Blue player moves, first removes a red 2 and then the red 5, resulting in breakthrough
    and so blue can remove one other red 2 piece of his choice. He cannot remove both remaining red
    2s because their total is 4 which is greater than 3. Blue loses both his pieces.'"""
    st = position(BREAK, to_move=1)
    st.play("g10-h10")  # 3 <= 2 + 2 (h9): both removed; no split, no breakthrough
    assert "h10" not in pieces(st) and "g10" not in pieces(st)
    assert not [m for m in st.legal_moves() if m.startswith("x")]
    st.play("g9-h8")  # 3 <= 5 + 2 + 2 + 2: both removed; the red group splits
    assert "h8" not in pieces(st) and "g9" not in pieces(st)
    assert st.current_player() == 1
    assert st.legal_moves() == ["end", "xg7", "xh9", "xi7"]
    assert st.to_dict()["in_turn"]["breakthrough"] == {"hex": "h8", "budget": 3}
    st.play("xh9")
    # 1 left: no other 2 may go, so the turn ended by itself.
    assert st.current_player() == 0
    left = pieces(st)
    assert "h9" not in left and left["g7"] == [0, 2] and left["i7"] == [0, 2]


def test_breakthrough_removals_never_chain() -> None:
    """'The removal of additional pieces in this way does not cause a breakthrough again.'"""
    st = position(BREAK, to_move=1)
    play(st, "g10-h10", "g9-h8", "xg7")  # g7's removal splits f7 from g6
    assert st.current_player() == 0
    left = pieces(st)
    assert left["f7"] == [0, 1] and left["g6"] == [0, 1], "no new breakthrough around g7"


def test_breakthrough_only_when_the_group_splits() -> None:
    """'If the removal of an opponent's piece causes a contiguous group ... to be split ...'"""
    st = position({"h8": (0, 1), "h9": (0, 1), "g9": (1, 6), "g11": (1, 6), "o1": (0, 1)}, to_move=1)
    st.play("g9-h8")  # removing h8 leaves h9 alone: no split
    assert pieces(st)["h8"] == [1, 6]
    assert not [m for m in st.legal_moves() if m.startswith("x")]


def test_any_other_step_closes_the_breakthrough() -> None:
    """docs/rules/nymbat.md: 'Any other step closes the breakthrough.'"""
    b = dict(BREAK)
    b["g11"] = (1, 3)  # two more blue 3s in the group
    b["g12"] = (1, 3)
    st = position(b, to_move=1)
    play(st, "g10-h10", "g9-h8")
    assert "xh9" in st.legal_moves()
    st.play("g11-f11")
    assert st.current_player() == 1, "g12 may still move"
    assert not [m for m in st.legal_moves() if m.startswith("x")]
    with pytest.raises(IllegalMove, match="breakthrough"):
        st.play("xh9")


def test_breakthrough_removal_must_be_adjacent_and_within_the_attackers_number() -> None:
    """'... remove any or all opponent's pieces adjacent to that piece ... may not be greater than the number
    of the last piece the moving player moved.'"""
    st = position(BREAK, to_move=1)
    play(st, "g10-h10", "g9-h8")
    with pytest.raises(IllegalMove, match="adjacent"):
        st.play("xf7")
    st.play("xi7")
    assert st.current_player() == 0


# -- retreat and delay ----------------------------------------------------------------------


def test_retreat_costs_one_reserve() -> None:
    """'A player must reduce his reserve number by one if he retreats.'"""
    st = play(position({"h5": (0, 1), "a1": (1, 1)}), "h5-i5")
    d = st.to_dict()
    assert d["reserves"] == [9, 10] and d["delays"] == [0, 0] and d["to_move"] == 1


def test_group_retreat_counts_only_the_closest_piece() -> None:
    """Seed: 'Although one piece has moved backwards, his most forward piece has stayed on the same row,
    so it still counts as a delay.'"""
    st = play(position({"h5": (0, 2), "h6": (0, 2), "a1": (1, 1)}), "h5-i5", "end")
    d = st.to_dict()
    assert d["reserves"] == [10, 10] and d["delays"] == [1, 0]


def test_advancing_is_neither_retreat_nor_delay() -> None:
    """'A turn is a delay if none of his groups moved effectively closer ...'"""
    st = play(position({"h5": (0, 1), "a1": (1, 1)}), "h5-g5")
    assert st.to_dict()["delays"] == [0, 0] and st.to_dict()["reserves"] == [10, 10]


def test_every_seventh_delay_costs_one() -> None:
    """'... or every seven turns he delays (even if non-consecutive).'  A pass is also a delay."""
    st = position({"h5": (0, 1), "a1": (1, 1)}, delays=(5, 0))
    st.play("h5-h6")  # sideways: the 6th delay, free
    assert st.to_dict()["delays"] == [6, 0] and st.to_dict()["reserves"] == [10, 10]
    play(st, "a1-a2", "pass")  # Blue's sideways move is his 1st delay; Red's pass his 7th
    d = st.to_dict()
    assert d["delays"] == [7, 1] and d["reserves"] == [9, 10]


def test_delay_period_is_a_parameter() -> None:
    """docs/rules/nymbat.md: 'every 7th delay (cumulative, parameter delay_period) costs 1.'"""
    g = tessera.load_game("nymbat", delay_period=2)
    st = position({"h5": (0, 1), "a1": (1, 1)}, delays=(1, 0), game=g)
    st.play("pass")
    assert st.to_dict()["reserves"] == [9, 10]


def test_capture_is_neither_retreat_nor_delay() -> None:
    """'If the player removes an opponent's piece on his turn then it is neither a delay nor a retreat.'"""
    st = play(position({"h5": (0, 3), "i5": (1, 1), "a1": (1, 1)}, delays=(6, 0)), "h5-i5")
    d = st.to_dict()
    assert d["reserves"] == [10, 10] and d["delays"] == [6, 0]


def test_bringing_in_is_neither_retreat_nor_delay() -> None:
    """docs/rules/nymbat.md: 'bringing in reserves is neither.'"""
    st = play(position({"h5": (0, 3), "a1": (1, 1)}, delays=(6, 0)), "n5=1", "end")
    assert st.to_dict()["delays"] == [6, 0] and st.to_dict()["reserves"] == [9, 10]


def test_penalty_at_reserve_zero_removes_one_own_piece() -> None:
    """'If his reserve number is zero, then he must instead remove one of his pieces from the board.'"""
    st = play(position({"h5": (0, 1), "o1": (0, 2), "a1": (1, 1)}, reserves=(0, 10)), "h5-i5")
    assert st.current_player() == 0
    assert st.legal_moves() == ["lose i5", "lose o1"]
    assert st.to_dict()["in_turn"] == {"phase": "penalty"}
    again = GAME.state_from_dict(json.loads(json.dumps(st.to_dict())))
    assert again.legal_moves() == st.legal_moves()
    with pytest.raises(IllegalMove, match="penalty"):
        st.play("end")
    st.play("lose o1")
    assert st.current_player() == 1 and pieces(st) == {"i5": [0, 1], "a1": [1, 1]}


def test_penalty_without_pieces_and_reserve_is_not_paid() -> None:
    """'... remove one of his pieces from the board (if there still is one there).'"""
    st = position({"a1": (1, 1)}, reserves=(0, 10), delays=(6, 0))
    assert st.legal_moves() == ["pass"]
    st.play("pass")
    assert st.current_player() == 1 and st.to_dict()["delays"] == [7, 0]


# -- pass and winning -----------------------------------------------------------------------


def test_forced_pass_without_pieces_and_reserve() -> None:
    """'A player must pass if he has no piece on the board and cannot bring in any new piece.'"""
    st = position({"a1": (1, 1)}, reserves=(0, 5))
    assert st.legal_moves() == ["pass"]


def test_pass_is_always_a_choice_after_the_first_turn() -> None:
    """'He may also choose to pass.'"""
    st = position({"h5": (0, 3), "a1": (1, 1)})
    assert "pass" in st.legal_moves()
    st.play("pass")
    assert st.current_player() == 1 and st.to_dict()["delays"] == [1, 0]


def test_win_at_the_start_of_a_turn_on_the_opponents_home_row() -> None:
    """'A player wins the game if at the start of his turn he has a piece on his opponent's home row and no
    opponent's piece is there.'"""
    st = position({"a4": (0, 1), "h8": (1, 3)}, to_move=0)
    assert st.is_terminal() and st.winner() == 0 and st.current_player() == TERMINAL
    st = position({"a4": (0, 1), "h8": (1, 3)}, to_move=1)
    assert not st.is_terminal(), "Blue still gets a turn to answer"
    st.play("pass")
    assert st.is_terminal() and st.winner() == 0 and st.returns() == [1.0, -1.0]
    st = position({"a4": (0, 1), "a1": (1, 3)}, to_move=0)
    assert not st.is_terminal(), "Blue still holds a hex of row a"


def test_reaching_the_home_row_wins_only_at_the_start_of_the_next_own_turn() -> None:
    """Moving onto the home row does not win at once; the opponent may still remove the piece."""
    st = position({"b4": (0, 1), "h8": (1, 3), "a8": (1, 6)}, to_move=0, reserves=(10, 0))
    st.play("b4-a4")
    assert not st.is_terminal() and st.current_player() == 1
    st.play("a8-a4")  # Blue removes it
    assert st.current_player() == 0 and not st.is_terminal()


def test_empty_board_with_zero_reserves_the_player_who_moved_last_wins() -> None:
    """'If all the pieces on the board have been removed and both players have a reserve of zero, then the
    player who moved last wins.'"""
    st = position({"h5": (0, 1), "h6": (1, 1)}, reserves=(0, 0))
    st.play("h5-h6")  # 1 <= 1: both removed
    assert st.is_terminal() and st.winner() == 0
    st = position({}, reserves=(0, 0), to_move=0, last_mover=1, turn=9)
    assert st.is_terminal() and st.winner() == 1


def test_max_turns_safeguard_is_a_draw() -> None:
    """docs/rules/nymbat.md: 'Safeguard max_turns (default 600).'"""
    g = tessera.load_game("nymbat", max_turns=10)
    st = position({"h5": (0, 1), "a1": (1, 1)}, turn=9, game=g)
    st.play("pass")
    assert st.is_terminal() and st.winner() is None and st.returns() == [0.0, 0.0]


# -- notation, integer actions, positions, rendering ----------------------------------------


def test_integer_actions_encoding() -> None:
    """Engine notes: from·169+to, 28561+i·6+(k−1), 29575+i, 29744+i, end, pass."""
    st = GAME.new_initial_state()
    assert GAME.num_distinct_actions() == NUM_ACTIONS == 29915
    assert st.string_to_action("a1-a2") == 1
    assert st.string_to_action("a2-a1") == 169
    assert st.string_to_action("a1=1") == PLACE_BASE == 28561
    assert st.string_to_action("o8=6") == PLACE_BASE + 168 * 6 + 5
    assert st.string_to_action("xa1") == REMOVE_BASE == 29575
    assert st.string_to_action("lose o8") == LOSE_BASE + 168 == 29912
    assert (st.string_to_action("end"), st.string_to_action("pass")) == (END, PASS) == (29913, 29914)
    for a in (0, 1, 5000, PLACE_BASE + 7, REMOVE_BASE + 3, LOSE_BASE + 9, END, PASS):
        assert st.string_to_action(st.action_to_string(a)) == a


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ("n5=7", "1 to 6"),
        ("n5=0", "1 to 6"),
        ("a9-a8", "not a hex"),
        ("p1=3", "not a Nymbat step"),
        ("h5 g7", "not a Nymbat step"),
        ("lose", "not a Nymbat step"),
    ],
)
def test_malformed_steps_say_why(move: str, reason: str) -> None:
    """Bad input always gets a clear error saying what was wrong."""
    st = GAME.new_initial_state()
    with pytest.raises(IllegalMove, match=reason):
        st.play(move)
    assert st.to_dict() == GAME.new_initial_state().to_dict()


def test_position_dict_round_trips_in_the_middle_of_a_turn() -> None:
    """docs/python-api.md: to_dict / state_from_dict round-trip exactly, also during a turn."""
    st = position(BREAK, to_move=1, turn=41, last_mover=0)
    play(st, "g10-h10", "g9-h8")
    d = st.to_dict()
    assert d["turn"] == 41 and d["last_mover"] == 0
    assert d["in_turn"] == {
        "phase": "move",
        "speed": 3,
        "unmoved": [],
        "group": [],
        "start_distance": 8,
        "captured": True,
        "breakthrough": {"hex": "h8", "budget": 3},
    }
    again = GAME.state_from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d and again.legal_moves() == st.legal_moves()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"pieces": {"h5": [0, 7]}}, "1–6"),
        ({"pieces": {"z9": [0, 1]}}, "not a hex"),
        ({"to_move": 2}, "to_move"),
        ({"reserves": [1]}, "reserves"),
        ({"colour": 1}, "unknown key"),
        ({"in_turn": {"phase": "fly"}}, "phase"),
        ({"in_turn": {"phase": "penalty"}}, "penalty"),
        ({"turn": 601}, "turn"),
    ],
)
def test_inconsistent_position_dicts_are_refused(change: dict[str, Any], reason: str) -> None:
    """docs/python-api.md: 'inconsistent input raises ValueError naming the problem'."""
    d = {"to_move": 0, "pieces": {"h5": [0, 3]}, "reserves": [5, 5], "delays": [0, 0]}
    d.update(change)
    with pytest.raises(ValueError, match=reason):
        GAME.state_from_dict(d)


def test_render_offers_clickable_steps() -> None:
    """docs/render.md: placements as templates with choices, moves with paths, buttons for end/pass."""
    st = GAME.new_initial_state()
    desc = st.render()
    assert len(desc["actions"]) == 27
    assert {"template": "n5={n}", "path": ["n5"], "choices": [1, 2, 3, 4, 5, 6]} in desc["actions"]
    fills = {c["id"]: c.get("fill") for c in desc["board"]["cells"]}
    assert fills["o1"] and fills["m1"] and fills["a1"] and fills["c1"] and fills["h8"] is None
    assert {h["cell"] for h in desc["highlights"] if h["kind"] == "home"} == {
        GRID.label(c) for c in GRID.cells if GRID.row(c) in (0, 14)
    }
    st = position({"h5": (0, 2), "h6": (0, 2), "a1": (1, 1)}, reserves=(3, 10))
    desc = st.render()
    assert {"move": "h5-g5", "path": ["h5", "g5"]} in desc["actions"]
    pass_button = {"move": "pass", "path": [], "label": "Pass", "label_key": "action.pass", "label_args": {}}
    assert pass_button in desc["actions"]
    assert {"template": "n5={n}", "path": ["n5"], "choices": [1, 2, 3]} in desc["actions"]
    assert {"label": "Reserve", "values": [3, 10], "label_key": "panel.reserve", "label_args": {}} in desc["panel"]
    assert {p["cell"]: p["text"] for p in desc["pieces"]} == {"h5": "2", "h6": "2", "a1": "1"}
    st.play("h5-g5")
    desc = st.render()
    end_button = {"move": "end", "path": [], "label": "End turn", "label_key": "action.end_turn", "label_args": {}}
    assert end_button in desc["actions"]
    st = position(BREAK, to_move=1)
    play(st, "g10-h10", "g9-h8")
    assert {"move": "xh9", "path": ["h9"]} in st.render()["actions"]
    st = play(position({"h5": (0, 1), "o1": (0, 2), "a1": (1, 1)}, reserves=(0, 10)), "h5-i5")
    assert {"move": "lose o1", "path": ["o1"]} in st.render()["actions"]
    assert "R2" in str(st)


def test_evaluate_is_bounded_and_prefers_material() -> None:
    """Evaluation: tanh of material, race and home-threat leads."""
    st = position({"h5": (0, 6), "a1": (1, 1)})
    assert 0 < st.evaluate(0) < 1 and -1 < st.evaluate(1) < 0
    rng = random.Random(2)
    game = tessera.load_game("nymbat(reserve=12,first_limit=8)").new_initial_state()
    while not game.is_terminal():
        assert -1 <= game.evaluate(0) <= 1
        game.apply_action(game.random_action(rng))
    assert game.evaluate(0) == game.returns()[0]


def test_random_games_keep_the_step_lists_small() -> None:
    """Turns are steps: no step list enumerates whole turns (every list stays a few hundred at most)."""
    rng = random.Random(4)
    st = GAME.new_initial_state()
    biggest = 0
    for _ in range(600):
        if st.is_terminal():
            break
        biggest = max(biggest, len(st.legal_actions()))
        st.apply_action(st.random_action(rng))
    assert 0 < biggest < 2000


def _naive_destinations(pieces_: dict[str, list[int]], src: str, speed: int, player: int) -> set[str]:
    """Breadth-first search written from the rule text, over labels."""
    seen = {src: 0}
    frontier = [src]
    out: set[str] = set()
    while frontier:
        nxt = []
        for h in frontier:
            d = seen[h]
            if d == speed:
                continue
            for c in GRID.neighbors[GRID.cell(h)]:
                n = GRID.label(c)
                owner = pieces_[n][0] if n in pieces_ else None
                if owner == 1 - player:
                    out.add(n)  # an attack: the last step of the path
                elif n not in seen:
                    seen[n] = d + 1
                    nxt.append(n)
        frontier = nxt
    out |= {h for h in seen if h not in pieces_}
    return out


def test_reachability_matches_a_breadth_first_search_of_the_rule() -> None:
    """'Each piece may move any number of hexes up to the lowest number in the group ... own pieces do not
    block movement, but they may not end movement together in the same hex'; never through an opponent."""
    rng = random.Random(9)
    checked = 0
    for seed in range(6):
        st = GAME.new_initial_state()
        rng.seed(seed)
        while not st.is_terminal() and checked < 400:
            d = st.to_dict()
            p = d["to_move"]
            it = d.get("in_turn")
            if d["first_turn_done"][p] and (it is None or it["phase"] == "move"):
                if it is None:
                    own = {h for h, v in d["pieces"].items() if v[0] == p}
                    srcs = {}
                    for h in own:  # group speed: flood over own pieces
                        group, todo = {h}, [h]
                        while todo:
                            x = todo.pop()
                            for c in GRID.neighbors[GRID.cell(x)]:
                                n = GRID.label(c)
                                if n in own and n not in group:
                                    group.add(n)
                                    todo.append(n)
                        srcs[h] = min(d["pieces"][g][1] for g in group)
                else:
                    srcs = {h: it["speed"] for h in it["unmoved"]}
                want = {f"{s}-{t}" for s, sp in srcs.items() for t in _naive_destinations(d["pieces"], s, sp, p)}
                got = {m for m in st.legal_moves() if "-" in m}
                assert got == want, d
                checked += 1
            st.apply_action(st.random_action(rng))
    assert checked >= 100


# -- the whole turn against a second reading of the rules ------------------------------------


def _nbrs(h: str) -> list[str]:
    return [GRID.label(c) for c in GRID.neighbors[GRID.cell(h)]]


def _component(h: str, cells: set[str]) -> set[str]:
    group, todo = {h}, [h]
    while todo:
        for n in _nbrs(todo.pop()):
            if n in cells and n not in group:
                group.add(n)
                todo.append(n)
    return group


class _Reference:
    """docs/rules/nymbat.md's Nymbat turn, written again over labels and position dicts (no bit sets, no caches)."""

    def __init__(self, game: tessera.Game) -> None:
        self.first_limit = game.params["first_limit"]
        self.period = game.params["delay_period"]
        self.max_turns = game.params["max_turns"]

    @staticmethod
    def owned(d: dict[str, Any], p: int) -> set[str]:
        return {h for h, (o, _) in d["pieces"].items() if o == p}

    @staticmethod
    def dist(p: int, h: str) -> int:
        row = ord(h[0]) - ord("a")
        return row if p == 0 else 14 - row

    def placements(self, d: dict[str, Any]) -> list[str]:
        p = d["to_move"]
        k = d["reserves"][p]
        if not d["first_turn_done"][p]:
            it = d.get("in_turn") or {}
            k = min(k, self.first_limit - it.get("placed", 0))
        setup = "mno" if p == 0 else "abc"
        hexes = [GRID.label(c) for c in GRID.cells if GRID.label(c)[0] in setup]
        return [f"{h}={n}" for h in hexes if h not in d["pieces"] for n in range(1, min(k, 6) + 1)]

    def removable(self, d: dict[str, Any]) -> list[str]:
        b = (d.get("in_turn") or {}).get("breakthrough")
        if not b:
            return []
        opp = self.owned(d, 1 - d["to_move"])
        return [n for n in _nbrs(b["hex"]) if n in opp and d["pieces"][n][1] <= b["budget"]]

    def legal(self, d: dict[str, Any]) -> list[str]:
        p = d["to_move"]
        it = d.get("in_turn")
        if it is None:
            out = self.placements(d)
            if not d["first_turn_done"][p]:
                return sorted(out) or ["pass"]
            own = self.owned(d, p)
            for h in own:
                speed = min(d["pieces"][g][1] for g in _component(h, own))
                out += [f"{h}-{t}" for t in _naive_destinations(d["pieces"], h, speed, p)]
            return sorted([*out, "pass"])
        if it["phase"] == "penalty":
            return sorted(f"lose {h}" for h in self.owned(d, p))
        if it["phase"] == "bring":
            return sorted([*self.placements(d), "end"])
        out = [f"x{h}" for h in self.removable(d)]
        for h in it["unmoved"]:
            out += [f"{h}-{t}" for t in _naive_destinations(d["pieces"], h, it["speed"], p)]
        return sorted([*out, "end"])

    def next_turn(self, d: dict[str, Any]) -> None:
        p = d["to_move"]
        d.pop("in_turn", None)
        d["first_turn_done"][p] = True
        d["last_mover"] = p
        d["to_move"] = 1 - p
        d["turn"] = d.get("turn", 0) + 1

    def finish(self, d: dict[str, Any], kind: str) -> None:
        p = d["to_move"]
        it = d.pop("in_turn", None) or {}
        cost, delay = 0, kind == "pass"
        if kind == "move" and not it["captured"]:
            end = min(self.dist(p, h) for h in it["group"])
            cost = int(end > it["start_distance"])
            delay = end == it["start_distance"]
        if delay:
            d["delays"][p] += 1
            cost |= d["delays"][p] % self.period == 0
        if cost and d["reserves"][p]:
            d["reserves"][p] -= 1
        elif cost and self.owned(d, p):
            d["in_turn"] = {"phase": "penalty"}
            return
        self.next_turn(d)

    def play(self, d: dict[str, Any], m: str) -> dict[str, Any]:
        d = json.loads(json.dumps(d))
        p, pieces_ = d["to_move"], d["pieces"]
        if m == "pass":
            self.finish(d, "pass")
            return d
        if m == "end":
            self.finish(d, d["in_turn"]["phase"])
            return d
        if m.startswith("lose "):
            del pieces_[m[5:]]
            self.next_turn(d)
            return d
        if "=" in m:
            h, n = m.split("=")
            pieces_[h] = [p, int(n)]
            d["reserves"][p] -= int(n)
            d.setdefault("in_turn", {"phase": "bring", "placed": 0})["placed"] += int(n)
            if self.legal(d) == ["end"]:
                self.finish(d, "bring")
            return d
        if m.startswith("x"):
            it = d["in_turn"]
            it["breakthrough"]["budget"] -= pieces_.pop(m[1:])[1]
        else:
            src, dst = m.split("-")
            if "in_turn" not in d:
                g = sorted(_component(src, self.owned(d, p)))
                speed = min(pieces_[h][1] for h in g)
                start = min(self.dist(p, h) for h in g)
                d["in_turn"] = {"phase": "move", "speed": speed, "unmoved": g, "group": list(g)}
                d["in_turn"].update(start_distance=start, captured=False)
            it = d["in_turn"]
            it.pop("breakthrough", None)
            it["unmoved"].remove(src)
            it["group"].remove(src)
            n = pieces_.pop(src)[1]
            if dst in pieces_:
                opp = self.owned(d, 1 - p)
                defence = pieces_[dst][1] + sum(pieces_[h][1] for h in _nbrs(dst) if h in opp)
                rest = _component(dst, opp) - {dst}
                del pieces_[dst]
                it["captured"] = True
                if n > defence:
                    pieces_[dst] = [p, n]
                    it["group"].append(dst)
                if rest and _component(min(rest), rest) != rest:
                    it["breakthrough"] = {"hex": dst, "budget": n}
            else:
                pieces_[dst] = [p, n]
                it["group"].append(dst)
        if not self.removable(d):
            d["in_turn"].pop("breakthrough", None)
        if self.legal(d) == ["end"]:
            self.finish(d, "move")
        return d

    def over(self, d: dict[str, Any]) -> tuple[bool, int | None]:
        if "in_turn" in d:
            return False, None
        p = d["to_move"]
        home = {h for h in d["pieces"] if h[0] == ("a" if p == 0 else "o")}
        if home & self.owned(d, p) and not home & self.owned(d, 1 - p):
            return True, p
        if not d["pieces"] and d["reserves"] == [0, 0]:
            return True, d.get("last_mover")
        return (d.get("turn", 0) >= self.max_turns), None


def _canonical(d: dict[str, Any]) -> dict[str, Any]:
    d = json.loads(json.dumps(d))
    d["pieces"] = dict(sorted(d["pieces"].items()))
    it = d.get("in_turn")
    if it and it["phase"] == "move":
        it["unmoved"], it["group"] = sorted(it["unmoved"]), sorted(it["group"])
    return d


def test_every_step_matches_a_second_reading_of_the_rules() -> None:
    """The whole turn — bring in, group moves at the start-of-turn speed, attacks, breakthrough removals,
    retreat and delay costs, 'lose' at reserve 0, the start-of-turn and empty-board wins, max_turns — checked
    step by step against a second, plain implementation of docs/rules/nymbat.md on crowded random positions;
    the kernel lists a piece's moves with its "destinations ascending"."""
    rng = random.Random(11)
    ref = _Reference(GAME)
    cells = [GRID.label(c) for c in GRID.cells]
    kinds: set[str] = set()
    for _ in range(120):
        pieces_ = {h: [rng.randrange(2), rng.choice([1, 1, 2, 2, 3, 4, 5, 6])] for h in rng.sample(cells, 40)}
        d = {
            "to_move": rng.randrange(2),
            "pieces": pieces_,
            "reserves": [rng.choice([0, 1, 5]), rng.choice([0, 1, 5])],
            "delays": [rng.randrange(7), rng.randrange(7)],
            "first_turn_done": [rng.random() < 0.9, True],
            "turn": rng.choice([0, 590]),
        }
        try:
            st = GAME.state_from_dict(d)
        except ValueError:
            continue
        for _ in range(30):
            d = st.to_dict()
            assert ref.over(d) == (st.is_terminal(), st.winner()), d
            if st.is_terminal():
                kinds.add("over")
                break
            legal = st.legal_moves()
            assert legal == ref.legal(d), d
            # the kernel's order: a piece's destinations ascending (groups and pieces in their order)
            moves = [divmod(a, len(GRID.cells)) for a in st.legal_actions() if a < PLACE_BASE]
            assert all(b[1] > a[1] for a, b in itertools.pairwise(moves) if a[0] == b[0]), d
            xs = [m for m in legal if m[0] == "x"]
            m = rng.choice(xs) if xs else st.random_move(rng) if rng.random() < 0.7 else rng.choice(legal)
            kinds.add("x" if m[0] == "x" else m.split()[0] if m[0] in "lpe" else "=" if "=" in m else "-")
            want = ref.play(d, m)
            st.play(m)
            assert _canonical(st.to_dict()) == _canonical(want), (d, m)
    assert kinds >= {"x", "lose", "pass", "end", "=", "-", "over"}


def test_random_action_refuses_a_player_not_to_move_and_a_finished_game() -> None:
    """API: bad input gets a clear error (IllegalMove), like play: a player not to move, a game that is over."""
    st = position({"h5": (0, 3), "a1": (1, 1)}, to_move=0)
    with pytest.raises(IllegalMove, match="player 0's turn, not player 1's"):
        st.random_action(random.Random(0), 1)
    assert st.random_action(random.Random(0), 0) in st.legal_actions()
    over = position({"a4": (0, 1), "h8": (1, 3)}, to_move=0)
    with pytest.raises(IllegalMove, match="game is over"):
        over.random_action(random.Random(0))
