"""What the server must know of a game, asked of the game through the protocol (never by its name):
whether a draw can happen, each player's view of hidden information, and resignation."""

from __future__ import annotations

import json
import random

import pytest

import tessera
from tessera.core.game import SIMULTANEOUS


@pytest.mark.parametrize(
    ("spec", "no_draw"),
    [
        ("nibble", "Nibble has no draws"),
        ("nibble(colors=13)", "Nibble has no draws"),
        ("nume", "cannot end in a draw"),
        ("nume(komi_bidding=true)", "cannot end in a draw"),
        ("nume(komi=2)", None),
        ("ikabegama", None),
        ("nelaxtam", None),
        ("nymbat", None),
        ("nymbat(players=4)", None),
    ],
)
def test_a_game_says_whether_it_can_end_in_a_draw(spec: str, no_draw: str | None) -> None:
    """Nibble has no tie; Nume ties only with a whole-number komi (never with komi bidding, whose komi
    ends in .5); Ikabegamá, Nelaxtam and Nymbat draw (equal counts or a safeguard)."""
    reason = tessera.load_game(spec).why_no_draw()
    if no_draw is None:
        assert reason is None
    else:
        assert reason is not None and no_draw in reason


@pytest.mark.parametrize("name", tessera.list_games())
def test_a_view_is_an_independent_copy(name: str) -> None:
    """The view is a copy: an agent may search from it without touching the game."""
    state = tessera.load_game(name).new_initial_state(seed=1)
    for player in (None, 0):
        view = state.view(player)
        assert view is not state and view.to_dict() == state.to_dict()
        if view.current_player() >= 0:
            view.play(view.random_move(random.Random(0)))
            assert view.to_dict() != state.to_dict()


@pytest.mark.parametrize("name", [n for n in tessera.list_games() if n != "nelaxtam"])
def test_a_game_without_secrets_refuses_sealed_orders(name: str) -> None:
    state = tessera.load_game(name).new_initial_state(seed=1)
    with pytest.raises(ValueError, match="has no sealed orders"):
        state.view(0, {0: "x"})


def _nelaxtam_with_two_orders() -> tuple[tessera.State, str, str]:
    state = tessera.load_game("nelaxtam").new_initial_state()
    rng = random.Random(3)
    state.play_joint([state.random_move(rng, 0), state.random_move(rng, 1)])  # the invasion
    assert state.current_player() == SIMULTANEOUS
    orders = [state.random_move(rng, p) for p in (0, 1)]
    while orders[0] == orders[1]:
        orders[1] = state.random_move(rng, 1)
    return state, orders[0], orders[1]


def test_a_sealed_order_reaches_only_its_player() -> None:
    """Nelaxtam: a player's sealed order is his secret until both are sealed; the view is the one place
    that hides it, and nothing read off the view (render, position, text) shows the other's order."""
    state, black, white = _nelaxtam_with_two_orders()
    sealed = {0: black, 1: white}
    for viewer, mine, theirs in ((0, black, white), (1, white, black)):
        view = state.view(viewer, sealed)
        assert view.pending(viewer) == mine and view.pending(1 - viewer) == "?"
        render = view.render(viewer)
        order = render["order"]
        assert order["submitted"] is True and order["pending"] == mine and order["opponent_submitted"] is True
        seen = json.dumps(render) + json.dumps(view.to_dict()) + str(view)
        assert theirs not in seen
    spectator = state.view(None, sealed)
    assert spectator.pending(0) == spectator.pending(1) == "?"
    seen = json.dumps(spectator.render(None)) + json.dumps(spectator.to_dict())
    assert black not in seen and white not in seen
    assert state.pending(0) is None and state.pending(1) is None  # the state itself is untouched


def test_a_view_with_one_sealed_order_tells_the_other_only_that_it_is_sealed() -> None:
    state, black, _ = _nelaxtam_with_two_orders()
    view = state.view(1, {0: black})
    order = view.render(1)["order"]
    assert order["submitted"] is False and order["pending"] is None and order["opponent_submitted"] is True
    assert black not in json.dumps(view.render(1))
    mine = state.view(0, {0: black}).render(0)["order"]
    assert mine["submitted"] is True and mine["pending"] == black and mine["opponent_submitted"] is False


def test_a_sealed_order_that_breaks_the_rules_is_refused_by_the_view() -> None:
    state, _, _ = _nelaxtam_with_two_orders()
    with pytest.raises(tessera.IllegalMove):
        state.view(0, {0: "9>a1"})


@pytest.mark.parametrize(
    ("spec", "plays_on"),
    [("nymbat(players=4)", True), ("nymbat", False), ("nume", False), ("nibble", False), ("nelaxtam", False)],
)
def test_only_four_player_nymbat_plays_on_after_a_resignation(spec: str, plays_on: bool) -> None:
    """Nymbat with four players: a player may resign and the others play on; elsewhere a resignation
    ends the game and is scored as a forfeit by whoever runs it."""
    state = tessera.load_game(spec).new_initial_state(seed=0)
    assert state.resign_plays_on() is plays_on
    if plays_on:
        state.resign(1)
        assert state.history()[-1] == (1, "resign") and not state.is_terminal()
    elif spec != "nymbat":
        before = state.to_dict()
        with pytest.raises(tessera.IllegalMove, match="a resignation ends this game"):
            state.resign(0)
        assert state.to_dict() == before and state.history() == []
