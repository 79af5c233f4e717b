"""Nume's render gives each stone its group's size and price as data (docs/render.md `group`), so
that the client shows them on the board without reading the English tooltip."""

from __future__ import annotations

import random

import tessera


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
