"""Rule tests for four-player Nymbat (docs/rules/nymbat.md, "Four players"; issue 16).

Each test is named after the ruling it checks and quotes it.  Coordinates: rows
``a``–``o`` from the top; the neighbours of ``h8`` are ``g7 g8 h7 h9 i7 i8``, of
``g8``: ``f7 f8 g7 g9 h8 h9``.  Red (0) races to row ``a``, Green (1) to the
upper-right edge ``a8 … h15``, Blue (2) to row ``o``, Yellow (3) to the
lower-left edge ``h1 … o1``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

import tessera
from tessera import TERMINAL, IllegalMove
from tessera.core.geometry import hexagon
from tessera.games.nymbat import NymbatState

GAME = tessera.load_game("nymbat", players=4)
GRID = hexagon(8)
RED, GREEN, BLUE, YELLOW = 0, 1, 2, 3


def position(
    pieces: dict[str, tuple[int, int]],
    *,
    to_move: int = RED,
    reserves: tuple[int, ...] = (10, 10, 10, 10),
    delays: tuple[int, ...] = (0, 0, 0, 0),
    first: tuple[bool, ...] = (True, True, True, True),
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


def labels(text: str) -> set[str]:
    return set(text.split())


def placement_hexes(state: NymbatState) -> set[str]:
    return {m.split("=")[0] for m in state.legal_moves() if "=" in m}


def destinations(state: NymbatState, src: str) -> set[str]:
    return {m.split("-")[1] for m in state.legal_moves() if m.startswith(src + "-")}


# -- variant, seats, board ------------------------------------------------------------------


def test_players_4_is_a_variant_and_two_players_stay_the_default() -> None:
    """docs/rules/nymbat.md: 'Four players (players=4; default 2).'"""
    assert tessera.load_game("nymbat") == tessera.load_game("nymbat(players=2)")
    assert str(tessera.load_game("nymbat")) == "nymbat"
    assert tessera.load_game("nymbat(players=4)") == GAME and str(GAME) == "nymbat(players=4)"
    assert GAME.num_players == 4 and tessera.load_game("nymbat").num_players == 2
    assert GAME.player_names == ("Red", "Green", "Blue", "Yellow")
    with pytest.raises(ValueError, match="players"):
        tessera.load_game("nymbat(players=3)")


def test_seats_move_in_clockwise_order_red_green_blue_yellow() -> None:
    """docs/rules/nymbat.md: 'Seats in turn order (clockwise): 0 Red …, 1 Green …, 2 Blue …, 3 Yellow …'"""
    st = GAME.new_initial_state()
    order = []
    for _ in range(8):
        order.append(st.current_player())
        st.play("pass" if st.first_done[st.current_player()] else st.legal_moves()[0])
        while st.current_player() == order[-1]:
            st.play("end")
    assert order == [0, 1, 2, 3, 0, 1, 2, 3]


def test_home_rows_are_the_8_hexes_of_each_players_edge() -> None:
    """docs/rules/nymbat.md: '0 Red on the bottom edge (row o), 1 Green on the lower-left edge (h1 i1 … o1),
    2 Blue on the top edge (row a), 3 Yellow on the upper-right edge (a8 b9 c10 … h15).'"""
    homes = [
        {h["cell"] for h in GAME.new_initial_state().render()["highlights"] if h.get("owner") == p} for p in range(4)
    ]
    assert homes[RED] == {f"o{i}" for i in range(1, 9)}
    assert homes[GREEN] == labels("h1 i1 j1 k1 l1 m1 n1 o1")
    assert homes[BLUE] == {f"a{i}" for i in range(1, 9)}
    assert homes[YELLOW] == labels("a8 b9 c10 d11 e12 f13 g14 h15")


def test_setup_area_is_the_27_hexes_at_most_2_lines_from_the_edge() -> None:
    """docs/rules/nymbat.md: 'setup area = the hexes at most 2 lines from his edge (27 hexes).'"""
    areas = []
    for p in range(4):
        st = position({}, to_move=p, first=(False,) * 4)
        areas.append(placement_hexes(st))
    assert all(len(a) == 27 for a in areas)
    assert areas[RED] == {GRID.label(c) for c in GRID.cells if GRID.row(c) >= 12}
    assert areas[BLUE] == {GRID.label(c) for c in GRID.cells if GRID.row(c) <= 2}
    assert labels("h1 h2 h3 o1 o2 o3 m1 m3") <= areas[GREEN] and "h4" not in areas[GREEN]
    assert labels("a8 a6 b9 b7 h15 h13") <= areas[YELLOW] and "h12" not in areas[YELLOW]


def test_shared_setup_hexes_near_the_corners_belong_to_both_players() -> None:
    """docs/rules/nymbat.md: 'Near the two shared corners (o1, a8) two home rows and two setup areas overlap
    (9 hexes each corner): an overlapping hex belongs to both players.'"""
    areas = [placement_hexes(position({}, to_move=p, first=(False,) * 4)) for p in range(4)]
    assert areas[RED] & areas[GREEN] == labels("m1 m2 m3 n1 n2 n3 o1 o2 o3")
    assert areas[BLUE] & areas[YELLOW] == labels("a6 a7 a8 b7 b8 b9 c8 c9 c10")
    assert not areas[RED] & areas[YELLOW] and not areas[GREEN] & areas[BLUE]
    # either owner may bring in on a shared hex, and once one did, it is taken for the other
    st = position({}, to_move=GREEN)
    st.play("o1=3")
    st.play("end")
    st.play("pass")  # Blue
    st.play("pass")  # Yellow
    assert st.current_player() == RED
    assert "o1=1" not in st.legal_moves() and "o2=1" in st.legal_moves()
    # the shared corner is drawn with its own tint and titled with both owners
    cells = {c["id"]: c for c in st.render()["board"]["cells"]}
    assert cells["o1"]["title"] == "shared: Red home row and Green home row"
    assert cells["m3"]["title"] == "shared: Red setup area and Green setup area"
    assert cells["m3"]["fill"] not in (cells["m4"]["fill"], cells["l1"]["fill"])


# -- movement and attacks -------------------------------------------------------------------


@pytest.mark.parametrize("opponent", [GREEN, BLUE, YELLOW])
def test_a_piece_never_passes_through_and_may_end_on_each_opponents_piece(opponent: int) -> None:
    """docs/rules/nymbat.md: 'Every other player's piece is an opponent piece: a piece never passes through
    one, and ending on one attacks it.'"""
    ring = ["g7", "g8", "h7", "h9", "i7", "i8"]
    st = position({"h8": (RED, 6), **{h: (opponent, 1) for h in ring}})
    assert destinations(st, "h8") == set(ring)  # attacks on the ring, nothing beyond it
    st.play("h8-g8")
    assert st.to_dict()["pieces"]["g8"] == [RED, 6]
    assert "h8" not in st.to_dict()["pieces"]


def test_a_ring_of_three_different_opponents_blocks_like_one() -> None:
    """docs/rules/nymbat.md: 'Every other player's piece is an opponent piece: a piece never passes through one.'"""
    ring = dict(zip(["g7", "g8", "h7", "h9", "i7", "i8"], [GREEN, BLUE, YELLOW, GREEN, BLUE, YELLOW], strict=True))
    st = position({"h8": (RED, 6), **{h: (o, 1) for h, o in ring.items()}})
    assert destinations(st, "h8") == set(ring)


def test_support_counts_only_the_defenders_own_pieces() -> None:
    """docs/rules/nymbat.md: 'Support counts only the defender's own pieces.'"""
    # Blue 2 on g8 with Blue 3 next to it defends with 5; the Green and Yellow 6s next to it do not help
    others = {"g8": (BLUE, 2), "g7": (BLUE, 3), "f8": (GREEN, 6), "g9": (YELLOW, 6)}
    st = position({"h8": (RED, 6), **others})
    st.play("h8-g8")
    assert st.to_dict()["pieces"].get("g8") == [RED, 6]  # 6 > 2 + 3: the attacker survives
    # with a Blue 4 instead of the 3 the defence is 6 and the attacker dies too
    st = position({"h8": (RED, 6), **others, "g7": (BLUE, 4)})
    st.play("h8-g8")
    assert "g8" not in st.to_dict()["pieces"]


def test_breakthrough_against_a_third_players_group_removes_only_the_defenders_pieces() -> None:
    """docs/rules/nymbat.md: 'a breakthrough splits the defender's group and removes only the defender's pieces.'"""
    # Green's line g7 g8 g9 is split by Blue's attack on g8; Red's and Yellow's pieces next to g8 stay
    pieces = {
        "h9": (BLUE, 6),
        "g7": (GREEN, 1),
        "g8": (GREEN, 1),
        "g9": (GREEN, 1),
        "f7": (RED, 1),
        "f8": (YELLOW, 1),
    }
    st = position(pieces, to_move=BLUE)
    st.play("h9-g8")
    assert st.to_dict()["in_turn"]["breakthrough"] == {"hex": "g8", "budget": 6, "defender": GREEN}
    removals = {m for m in st.legal_moves() if m.startswith("x")}
    assert removals == {"xg7", "xg9"}
    assert "breakthrough removes only Green's pieces" in (st.why_illegal("xf7") or "")
    st.play("xg7")
    st.play("xg9")
    assert set(st.to_dict()["pieces"]) == {"g8", "f7", "f8"}


def test_no_breakthrough_when_only_another_players_group_would_be_split() -> None:
    """docs/rules/nymbat.md: 'a breakthrough splits the defender's group': Green's pieces on either side of a
    lone Blue defender are not the defender's group."""
    pieces = {"h9": (RED, 6), "g8": (BLUE, 1), "g7": (GREEN, 1), "g9": (GREEN, 1)}
    st = position(pieces)
    st.play("h9-g8")
    assert st.current_player() == GREEN  # no removal step: the turn ended by itself
    assert set(st.to_dict()["pieces"]) == {"g8", "g7", "g9"}


# -- retreat and delay ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "start", "advance", "delay", "retreat"),
    [
        # Green races to the upper-right edge: lines of equal q; h5 -> g5/h6 advance, g4/i5 keep the line
        (GREEN, "h5", "h6", "g4", "i4"),
        # Yellow races to the lower-left edge: the mirror of Green
        (YELLOW, "h9", "h8", "i9", "g9"),
        # Blue races to row o: rows
        (BLUE, "h9", "i9", "h10", "g9"),
    ],
)
def test_retreat_and_delay_are_measured_toward_the_opposite_players_row(
    player: int, start: str, advance: str, delay: str, retreat: str
) -> None:
    """docs/rules/nymbat.md: 'Distances for retreat and delay count lines parallel to the opponent home row.'"""
    far = {"e5": (RED, 1)}
    for dest, delays, reserve in ((advance, 0, 10), (delay, 1, 10), (retreat, 0, 9)):
        st = position({start: (player, 1), **far}, to_move=player)
        st.play(f"{start}-{dest}")
        assert st.current_player() == (player + 1) % 4, dest
        assert (st.delays[player], st.reserves[player]) == (delays, reserve), dest


def test_every_7th_delay_still_costs_one_with_four_players() -> None:
    """docs/rules/nymbat.md: 'A pass is a delay … every 7th delay (cumulative) costs 1' — per player."""
    st = position({"h8": (GREEN, 1)}, to_move=GREEN, delays=(0, 6, 0, 0))
    st.play("pass")
    assert st.reserves == [10, 9, 10, 10] and st.delays == [0, 7, 0, 0]


# -- winning ----------------------------------------------------------------------------------


def test_win_needs_a_piece_on_the_opposite_players_home_row_while_he_has_none_there() -> None:
    """docs/rules/nymbat.md: 'at the start of his turn, a player who has a piece on his opponent home row while
    the player opposite him has none there wins; the game ends.'"""
    # a Yellow piece on row a (the shared corner) does not stop Red: only Blue's pieces count
    st = position({"a3": (RED, 1), "a8": (YELLOW, 2), "h8": (BLUE, 1)})
    assert st.is_terminal() and st.winner() == RED
    # Blue on his own home row stops it
    st = position({"a3": (RED, 1), "a5": (BLUE, 2)})
    assert not st.is_terminal()
    # Red on Green's home row is not Red's target
    st = position({"j1": (RED, 1), "h8": (GREEN, 1)})
    assert not st.is_terminal()
    # Green wins on Yellow's edge, Yellow on Green's
    assert position({"d11": (GREEN, 1)}, to_move=GREEN).winner() == GREEN
    assert position({"k1": (YELLOW, 1)}, to_move=YELLOW).winner() == YELLOW
    # only at the start of the player's own turn
    assert not position({"d11": (GREEN, 1)}, to_move=BLUE).is_terminal()


def test_returns_are_plus_one_for_the_winner_and_minus_a_third_for_each_other_player() -> None:
    """docs/rules/nymbat.md: 'Returns: winner +1, each other player −1/3.'"""
    st = position({"k1": (YELLOW, 1)}, to_move=YELLOW)
    assert st.returns() == [-1 / 3, -1 / 3, -1 / 3, 1.0]
    assert sum(st.returns()) == pytest.approx(0.0)


def test_the_safeguard_counts_every_players_turn_and_is_a_draw() -> None:
    """docs/rules/nymbat.md: 'the safeguard (max_turns counts every player's turn) ends in a draw, all 0.'"""
    game = tessera.load_game("nymbat(players=4,max_turns=6)")
    st = position({"h8": (RED, 1), "h2": (GREEN, 1), "b4": (BLUE, 1), "c9": (YELLOW, 1)}, game=game)
    for _ in range(5):
        st.play("pass")
    assert not st.is_terminal()
    st.play("pass")
    assert st.current_player() == TERMINAL and st.winner() is None and st.returns() == [0.0] * 4


def test_empty_board_and_every_reserve_zero_the_player_who_moved_last_wins() -> None:
    """docs/rules/nymbat.md: 'If the board is empty and every reserve is 0, the player who moved last wins.'"""
    st = position({"h8": (RED, 1), "g8": (BLUE, 1)}, reserves=(0, 0, 0, 0))
    st.play("h8-g8")  # 1 against 1: both pieces go
    assert st.to_dict()["pieces"] == {}
    assert st.is_terminal() and st.winner() == RED
    # not while someone still has a reserve
    st = position({"h8": (RED, 1), "g8": (BLUE, 1)}, reserves=(0, 0, 0, 1))
    st.play("h8-g8")
    assert not st.is_terminal()


def test_a_player_with_no_piece_and_reserve_0_can_only_pass() -> None:
    """docs/rules/nymbat.md: 'A player with no piece and reserve 0 can only pass.'"""
    st = position({"h8": (RED, 1), "b4": (BLUE, 1)}, to_move=GREEN, reserves=(3, 0, 3, 3))
    assert st.legal_moves() == ["pass"]
    st.play("pass")
    assert st.current_player() == BLUE


# -- resigning -------------------------------------------------------------------------------


def test_a_resigned_players_pieces_leave_the_board_and_he_passes_from_then_on() -> None:
    """Issue 16: 'a resigned player's pieces leave the board, he passes from then on, and the
    game goes on among the others.'"""
    st = position({"h8": (RED, 1), "h2": (GREEN, 2), "i2": (GREEN, 3), "b4": (BLUE, 1), "c9": (YELLOW, 1)})
    st.resign(GREEN)
    assert set(st.to_dict()["pieces"]) == {"h8", "b4", "c9"}
    assert st.to_dict()["resigned"] == [False, True, False, False] and st.reserves[GREEN] == 0
    assert not st.is_terminal() and st.current_player() == RED
    turn = st.turn
    st.play("pass")
    assert st.current_player() == BLUE  # Green's turn was a pass, played by the state
    assert st.turn == turn + 2
    assert st.history()[0] == (GREEN, "resign")
    again = GAME.state_from_dict(st.to_dict())
    assert again.to_dict() == st.to_dict() and again.current_player() == BLUE


def test_the_last_player_left_wins() -> None:
    """Issue 16: 'the last one left wins.'"""
    st = position({"h8": (RED, 1), "h2": (GREEN, 2), "b4": (BLUE, 1), "c9": (YELLOW, 1)})
    st.resign(RED)
    assert st.current_player() == GREEN  # the resigning player was to move: the next one moves
    st.resign(YELLOW)
    assert not st.is_terminal()
    st.resign(GREEN)
    assert st.is_terminal() and st.winner() == BLUE
    assert st.returns() == [-1 / 3, -1 / 3, 1.0, -1 / 3]


def test_resigning_twice_or_after_the_end_is_refused_and_changes_nothing() -> None:
    """A bad resign raises IllegalMove and leaves the state exactly as it was."""
    st = position({"h8": (RED, 1), "b4": (BLUE, 1)})
    st.resign(BLUE)
    before = st.to_dict()
    for bad in (BLUE, 4, -1, True):
        with pytest.raises(IllegalMove):
            st.resign(bad)
    assert st.to_dict() == before
    with pytest.raises(IllegalMove, match="not a step"):
        st.play("resign")


def test_a_breakthrough_against_a_player_who_resigns_closes() -> None:
    """Issue 16: the resigned player's pieces leave the board, so nothing of his is left to remove."""
    pieces = {"h9": (BLUE, 6), "h8": (BLUE, 1), "g7": (GREEN, 1), "g8": (GREEN, 1), "g9": (GREEN, 1)}
    st = position(pieces, to_move=BLUE)
    st.play("h9-g8")
    assert "breakthrough" in st.to_dict()["in_turn"]
    st.resign(GREEN)
    d = st.to_dict()
    assert d["to_move"] == BLUE and "breakthrough" not in d.get("in_turn", {})
    assert set(d["pieces"]) == {"g8", "h8"}


# -- position dict and random play ----------------------------------------------------------


def test_position_dict_has_4_long_lists() -> None:
    """docs/rules/nymbat.md: 'Position dict as for two players, with 4-long lists.'"""
    assert GAME.new_initial_state().to_dict() == {
        "to_move": 0,
        "pieces": {},
        "reserves": [60, 60, 60, 60],
        "delays": [0, 0, 0, 0],
        "first_turn_done": [False, False, False, False],
    }
    with pytest.raises(ValueError, match="4 whole numbers"):
        position({}, reserves=(10, 10))
    with pytest.raises(ValueError, match="owner"):
        position({"h8": (4, 1)})


def test_random_four_player_games_end_with_a_winner_or_a_draw() -> None:
    """Random playouts of the variant end; returns are +1 and −1/3s, or all 0."""
    outcomes = set()
    for seed in range(6):
        st = GAME.new_initial_state()
        rng = random.Random(seed)
        while not st.is_terminal():
            st.apply_action(st.random_action(rng))
        r = st.returns()
        assert r == [0.0] * 4 or sorted(r) == [-1 / 3] * 3 + [1.0]
        outcomes.add(st.winner())
    assert len(outcomes) > 1


@settings(max_examples=40, deadline=None)
@given(seed=st_.integers(0, 10**6), resign_at=st_.lists(st_.integers(0, 400), max_size=3))
def test_random_games_with_resignations_keep_the_position_consistent(seed: int, resign_at: list[int]) -> None:
    """Property: random four-player games with players resigning at random moments never put two
    pieces on a hex, never let a resigned player move or keep pieces, replay from their history,
    and round-trip through the position dict."""
    game = tessera.load_game("nymbat(players=4,reserve=16,first_limit=10,max_turns=200)")
    state = game.new_initial_state()
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        if steps in resign_at:
            alive = [p for p in range(4) if not state.resigned[p]]
            state.resign(rng.choice(alive))
            if state.is_terminal():
                break
        cp = state.current_player()
        assert not state.resigned[cp]
        state.apply_action(state.random_action(rng))
        steps += 1
        own = state.own
        assert all(own[a] & own[b] == 0 for a in range(4) for b in range(a + 1, 4))
        assert all(own[p] == 0 and state.reserves[p] == 0 for p in range(4) if state.resigned[p])
        assert min(state.reserves) >= 0
    d = state.to_dict()
    assert game.state_from_dict(d).to_dict() == d
    again = game.new_initial_state()
    for player, move in state.history():
        if move == "resign":
            again.resign(player)
        else:
            again.play(move)
    assert again.to_dict() == d and again.returns() == state.returns()
    if sum(state.resigned) == 3:
        assert state.winner() == state.resigned.index(False)
