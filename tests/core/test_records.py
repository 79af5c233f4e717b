"""The one reader and writer of stored moves and records (tessera.core.records)."""

from __future__ import annotations

import doctest
import random

import pytest

import tessera
from tessera.core import records
from tessera.core.game import SIMULTANEOUS
from tessera.core.records import (
    RESIGN,
    parse_text_record,
    play_stored,
    play_turn,
    play_turn_line,
    replay,
    replay_text_record,
    text_record,
    turns_of,
)

SPECS = ["nume(size=3)", "nymbat", "nymbat(players=4)", "nibble", "nelaxtam(size=10)", "ikabegama"]


def _random_game(spec: str, seed: int, steps: int) -> tessera.State:
    rng = random.Random(seed)
    state = tessera.load_game(spec).new_initial_state(seed=seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        cp = state.current_player()
        if cp == SIMULTANEOUS:
            state.play_joint([state.random_move(rng, p) for p in range(state.game.num_players)])
        else:
            state.play(state.random_move(rng))
    return state


def test_records_docstring_examples_run() -> None:
    result = doctest.testmod(records, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("spec", SPECS)
def test_a_game_is_rebuilt_by_replaying_its_stored_moves(spec: str) -> None:
    """'A stored game is its parameters, seed and move list; the position is always rebuilt by replaying the moves.'"""
    state = _random_game(spec, 7, 60)
    again = replay(state.game, 7, state.history())
    assert again.to_dict() == state.to_dict()
    assert again.history() == state.history()


@pytest.mark.parametrize("spec", SPECS)
def test_text_record_round_trips_through_the_reader(spec: str) -> None:
    """Every record replays exactly: the text written for a game reads back to the same position."""
    state = _random_game(spec, 3, 60)
    text = text_record(str(state.game), 3, state.history(), players=["A", "B"], result="Black wins (rules)")
    assert parse_text_record(text)[:2] == (str(state.game), 3)
    assert replay_text_record(text).to_dict() == state.to_dict()


def test_a_joint_move_is_one_turn_of_orders() -> None:
    """'A simultaneous turn (Nelaxtam) is {"player": -2, "orders": [...]}'; its line joins them by ' | '."""
    state = _random_game("nelaxtam(size=10)", 1, 2)
    turns = turns_of(state.history())
    assert [t["player"] for t in turns] == [SIMULTANEOUS, SIMULTANEOUS]
    assert all(len(t["orders"]) == 2 for t in turns)
    body = text_record(str(state.game), 1, state.history()).splitlines()[-1]
    assert body == "2. " + " | ".join(turns[1]["orders"])


def test_consecutive_steps_of_one_player_form_one_turn() -> None:
    """'consecutive moves (steps) of one player form one turn' (a Nibble turn ends with end)."""
    moves = [(0, "a"), (0, "b"), (1, "c"), (0, "d")]
    assert turns_of(moves) == [
        {"player": 0, "moves": ["a", "b"]},
        {"player": 1, "moves": ["c"]},
        {"player": 0, "moves": ["d"]},
    ]


def test_a_resignation_is_a_turn_of_its_own_and_replays() -> None:
    """Four-player Nymbat: a player resigns, on his turn or not; the others play on."""
    state = _random_game("nymbat(players=4)", 5, 10)
    state.resign(2)
    state.play(state.random_move(random.Random(0)))
    moves = state.history()
    assert (2, RESIGN) in moves
    assert {"player": 2, "moves": [RESIGN]} in turns_of(moves)
    text = text_record(str(state.game), 5, moves)
    assert f"{RESIGN} 2" in text
    assert replay_text_record(text).to_dict() == state.to_dict()
    assert replay(state.game, 5, moves).to_dict() == state.to_dict()


def test_resign_in_a_two_player_game_is_not_a_stored_move() -> None:
    """Resigning ends a two-player game (a forfeit): 'resign' is then an ordinary, illegal move string."""
    state = tessera.load_game("nume(size=3)").new_initial_state()
    before = state.to_dict()
    with pytest.raises(tessera.IllegalMove):
        play_stored(state, 0, RESIGN)
    assert state.to_dict() == before


def test_an_illegal_line_names_its_turn_and_the_rule() -> None:
    """'Import checks every move with the rules and refuses the record with the first problem (turn 3: ...)'."""
    state = tessera.load_game("nume(size=3)").new_initial_state()
    play_turn_line(state, "a1=0", 1)
    with pytest.raises(ValueError, match=r"^turn 2: 'a1=0': "):
        play_turn_line(state, "a1=0", 2)
    text = '[Game "nume(size=3)"]\n\n1. a1=0\n2. a1=0\n'
    with pytest.raises(ValueError, match=r"^turn 2: "):
        replay_text_record(text)


def test_a_record_without_its_game_line_is_refused() -> None:
    with pytest.raises(ValueError, match=r"no \[Game"):
        parse_text_record("1. a1=0\n")
    with pytest.raises(ValueError, match=r"\[Seed\] must be a whole number"):
        parse_text_record('[Game "nume"]\n[Seed "x"]\n')


def test_comments_and_numbers_are_skipped_when_reading() -> None:
    """'one line per turn, optionally numbered N.'; 'Lines starting with # are comments.'"""
    spec, seed, lines = parse_text_record('[Game "nume(size=3)"]\n[Seed "4"]\n# a comment\n1. a1=0\nb2\n')
    assert (spec, seed, lines) == ("nume(size=3)", 4, ["a1=0", "b2"])


def test_a_move_with_spaces_is_read_as_the_longest_legal_prefix() -> None:
    """'the importer reads each line as the longest legal moves from the left (a move is at most 8 words)':
    Nume's bid ``komi 1.5 white`` is three words, then the other player's choice of colour."""
    state = tessera.load_game("nume(size=3,komi_bidding=true)").new_initial_state()
    assert play_turn_line(state, "komi 1.5 white", 1) == [(0, "komi 1.5 white")]
    assert play_turn_line(state, "black", 2) == [(1, "black")]
    with pytest.raises(ValueError, match=r"^turn 3: 'komi'"):
        play_turn_line(state, "komi 2.5 white", 3)


def test_a_json_turn_that_names_the_wrong_player_is_refused() -> None:
    state = tessera.load_game("nume(size=3)").new_initial_state()
    with pytest.raises(ValueError, match=r"^turn 1: the record says player 1 moves, but player 0 is to move"):
        play_turn(state, {"player": 1, "moves": ["a1=0"]}, 1)
    assert state.move_number() == 0
    assert play_turn(state, {"player": 0, "moves": ["a1=0"]}, 1) == [(0, "a1=0")]
    with pytest.raises(ValueError, match="must be an object"):
        play_turn(state, ["a1=0"], 2)  # type: ignore[arg-type]
