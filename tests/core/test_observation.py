"""Observation planes are declared beside each game and read off the observer's own view."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import tessera
from tessera.core.game import Game
from tessera.core.observation import NO_DECISIONS, AxialLayout, Decisions, FlatLayout, render_spec
from tessera.games.nelaxtam import HIDDEN


def game_spec_module(name: str) -> str:
    game = tessera.load_game("ikabegama(board=hexhex:5)" if name == "ikabegama" else name)
    return game.observation_spec().encode.__module__


BOUNDED = ["nume", "nymbat", "nymbat(players=4)", "nibble", "nelaxtam", "ikabegama(board=hexhex:7)"]


@pytest.mark.parametrize("name", tessera.list_games())
def test_every_built_in_game_declares_its_own_planes(name: str) -> None:
    """Observation planes are registered beside each game (``tessera/games/<name>/observation.py``)."""
    cls = tessera.core.game_class(name)
    assert cls.observation_spec is not Game.observation_spec
    assert game_spec_module(name) == f"tessera.games.{name}.observation"


@pytest.mark.parametrize("spec", BOUNDED)
def test_planes_have_their_declared_shape_and_names(spec: str) -> None:
    game = tessera.load_game(spec)
    obs = game.observation_spec()
    state = game.new_initial_state(seed=2)
    rng = random.Random(2)
    for _ in range(6):
        if state.is_terminal():
            break
        if state.current_player() < 0:
            state.play_joint([state.random_move(rng, p) for p in range(game.num_players)])
        else:
            state.play(state.random_move(rng))
    for player in range(game.num_players):
        planes = obs.observe(state, player)
        assert planes.shape == obs.shape and planes.dtype == np.float32
        assert len(obs.planes) == obs.shape[0]
        assert np.array_equal(planes, obs.encode(state.view(player), player, NO_DECISIONS))


def test_the_unbounded_ikabegama_plane_has_no_planes() -> None:
    with pytest.raises(ValueError, match="bounded board"):
        tessera.load_game("ikabegama").observation_spec()
    layout = tessera.load_game("ikabegama(board=hexhex:7)").observation_spec().layout
    assert isinstance(layout, AxialLayout) and layout.cells == 127


def test_nelaxtam_planes_show_only_the_observers_own_pending_decisions() -> None:
    """A player's decisions of the turn so far are his alone: they appear in his planes, not in the opponent's."""
    game = tessera.load_game("nelaxtam")
    state = game.new_initial_state()
    obs = game.observation_spec()
    units = state.decision_units(0)
    first = state.decision_choices(0, units[0], [])[0]
    mine = obs.observe(state, 0, Decisions((first,), units[1]))
    before = obs.observe(state, 1)
    assert mine[-3:].any() and not obs.observe(state, 0)[-2:].any()
    assert np.array_equal(obs.observe(state, 1), before)


def test_a_game_without_planes_gets_planes_read_off_its_render() -> None:
    """One plane per player (his pieces), one for pieces of nobody, one that is all 1 when the observer is to move."""
    game = tessera.load_game("nume(size=3)")
    spec = render_spec(game)
    state = game.new_initial_state()
    cells = len(state.render()["board"]["cells"])
    assert isinstance(spec.layout, FlatLayout) and spec.shape == (4, 1, cells)
    state.play("a1=0")
    planes = spec.observe(state, 1)
    assert planes[0].sum() == 1 and planes[1].sum() == 0 and planes[3].all()


def test_a_deep_copy_of_an_adapted_state_is_a_clone_without_any_adapter_imported() -> None:
    """The adapters' state copies itself (no adapter patches another module's class on import)."""
    from tessera.adapters.core import AdaptedState, adapt

    assert "__deepcopy__" in AdaptedState.__dict__
    st = adapt("nume(size=3)").new_initial_state()
    twin = copy.deepcopy(st)
    assert twin.game is st.game and twin.state is not st.state
    twin.apply(twin.legal_actions()[0])
    assert st.history == [] and len(twin.history) == 1


def test_a_sealed_order_in_the_state_never_reaches_the_other_players_planes() -> None:
    """The planes are read off the observer's own view: a sealed Nelaxtam order is hidden there."""
    game = tessera.load_game("nelaxtam")
    state = game.new_initial_state()
    obs = game.observation_spec()
    before = [obs.observe(state, p) for p in (0, 1)]
    state.submit(state.random_move(random.Random(1), 0), 0)  # type: ignore[attr-defined]
    assert state.pending(0) is not None  # type: ignore[attr-defined]
    assert np.array_equal(obs.observe(state, 1), before[1])
    seen: list[object] = []
    spec = obs.__class__(obs.planes, obs.layout, lambda st, p, d: seen.append(st.to_dict()) or before[p])
    spec.observe(state, 1)
    assert seen[0]["pending"] == [HIDDEN, None]  # type: ignore[index]
