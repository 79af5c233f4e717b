"""Nume's render gives each stone its group's size and price as data (docs/render.md `group`), so
that the client shows them on the board without reading the English tooltip."""

from __future__ import annotations

import json
import random

import pytest

import tessera
from tessera.games.nume import render as nume_render


def test_each_stone_carries_its_groups_size_and_price() -> None:
    """ "Nume shows each group's size and price on the board": every stone's `group` is
    {size, price} of the group it belongs to, the same figures as State.groups()."""
    state = tessera.load_game("nume", size=2).new_initial_state()
    for m in ["a1=3", "e1=1", "a2", "a4=2", "b1"]:
        state.play(m)
    by_cell = {p["cell"]: p["group"] for p in state.render()["pieces"]}
    assert by_cell == {
        "a1": {"size": 3, "price": 0},
        "a2": {"size": 3, "price": 0},
        "b1": {"size": 3, "price": 0},
        "a4": {"size": 1, "price": 1},
        "e1": {"size": 1, "price": 0},
    }


def test_group_fields_match_the_games_groups_on_random_play() -> None:
    """The `group` of every stone is the size and price the game itself counts for that stone's group."""
    rng = random.Random(3)
    state = tessera.load_game("nume", size=3).new_initial_state()
    while not state.is_terminal():
        state.play(rng.choice(state.legal_moves()))
        if state.current_player() < 0:
            break
        want = {c: {"size": g["size"], "price": g["price"]} for g in state.groups() for c in g["cells"]}
        assert {p["cell"]: p["group"] for p in state.render()["pieces"]} == want


def test_a_render_is_the_same_whatever_the_board_kept_from_earlier_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    """The render keeps each board's group and stone entries between renders (a move changes one or
    two groups): a position drawn by a game object that has drawn many others — its kept entries
    cleared every few groups, as on a long-running server — equals the same position drawn by a
    game object that has drawn nothing."""
    monkeypatch.setattr(nume_render, "GROUPS_KEPT", 7)
    monkeypatch.setattr(nume_render, "STONES_KEPT", 11)
    for spec in ("nume(size=3)", "nume(variant=square,size=5)"):
        shared = tessera.load_game(spec)
        for seed in range(3):
            state, rng, moves = shared.new_initial_state(seed=seed), random.Random(seed), []
            while not state.is_terminal():
                moves.append(state.random_move(rng))
                state.play(moves[-1])
                fresh = tessera.load_game(spec).new_initial_state(seed=seed)
                for move in moves:
                    fresh.play(move)
                for seat in (None, 0, 1):
                    assert json.dumps(state.render(seat)) == json.dumps(fresh.render(seat)), (spec, seed, moves)
