"""Seat-independent render sharing (issue 42): a render is the part every viewer sees alike plus
the seat's own fields (``State.render_shared`` / ``State.render_seat``, docs/render.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import tessera
from tessera.core.game import SIMULTANEOUS, State

SPECS = {name: [name] for name in tessera.list_games()}
SPECS["nume"] = ["nume", "nume(variant=hex)"]
SPECS["nymbat"] = ["nymbat", "nymbat(players=4)"]


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def positions(spec: str, seeds: int = 2, plies: int = 24) -> list[State]:
    """Positions of random games from the start (a sample of every phase a short game reaches)."""
    game = tessera.load_game(spec)
    out = []
    for seed in range(seeds):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        for _ in range(plies):
            out.append(state.clone())
            if state.is_terminal():
                break
            if state.current_player() == SIMULTANEOUS:
                state.play_joint([state.random_move(rng, p) for p in range(game.num_players)])
            else:
                state.play(rng.choice(state.legal_moves()))
    return out


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_render_is_its_shared_part_with_the_seats_part_over_it(name: str) -> None:
    """``{**s.render_shared(), **s.render_seat(p)}`` equals ``s.render(p)`` for a spectator and
    each seat (the shared part from the spectator's view), the shared part holds none of the
    seat's fields, and ``actions=False`` leaves the action list empty."""
    for spec in SPECS[name]:
        for state in positions(spec):
            shared = state.view(None).render_shared()
            assert not set(shared) & set(state.render_seat_fields)
            for seat in (None, *range(state.game.num_players)):
                seen = state.view(seat)
                whole = {**shared, **seen.render_seat(seat)}
                assert _same(whole, seen.render(seat)), f"{spec} move {state.move_number()} seat {seat}"
                assert seen.render_seat(seat, actions=False)["actions"] == []


def _nelaxtam_two_orders() -> tuple[State, str, str]:
    state = tessera.load_game("nelaxtam(size=10,troops=2,by_sea=1)").new_initial_state(seed=5)
    rng = random.Random(3)
    state.play_joint([state.random_move(rng, 0), state.random_move(rng, 1)])  # the invasion
    orders = [state.random_move(rng, p) for p in (0, 1)]
    while orders[0] == orders[1]:
        orders[1] = state.random_move(rng, 1)
    return state, orders[0], orders[1]


def test_the_shared_part_of_a_turn_with_sealed_orders_carries_no_order() -> None:
    """Hidden information: "Nelaxtam's sealed orders must never reach another seat".  The shared
    part is drawn from the spectator's view, so no sealed order is in it; each seat's part carries
    only its own order, and the two together are what that seat's whole render shows."""
    state, black, white = _nelaxtam_two_orders()
    for sealed in ({0: black}, {1: white}, {0: black, 1: white}):
        shared = state.view(None, sealed).render_shared()
        text = json.dumps(shared)
        assert black not in text and white not in text and '"pending"' not in text
        for seat, mine, theirs in ((0, black, white), (1, white, black)):
            seen = state.view(seat, sealed)
            part = seen.render_seat(seat)
            assert theirs not in json.dumps(part)
            assert part["order"]["pending"] == (mine if seat in sealed else None)
            assert _same({**shared, **part}, seen.render(seat))
