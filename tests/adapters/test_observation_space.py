"""Every observation lies in its declared space, for every value of every parameter.

The spaces are ``Box(0, 1)`` (docs/research.md); the parameters are drawn by hypothesis from each
game's own declaration (``GameInfo.params``: choices, ranges), so the extremes are tried —
Nume's komi up to its maximum, komi bids, the longest and shortest limits.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import tessera
from tessera.adapters.core import AdaptedState, adapt
from tessera.core.game import Param
from tessera.core.registry import game_class

gymnasium = pytest.importorskip("gymnasium")

GAMES = tessera.list_games()
STEPS = 150
"""Decisions played per drawn game (and its last position, if it ends before)."""
BIGGEST = {"size": 12, "distance": 16, "troops": 6, "reserve": 80, "first_limit": 80}
"""Upper bounds kept below the declared ones where a larger board only costs time (the planes
scale with the board; the quantities that divide are drawn over their whole range)."""


def _param(p: Param) -> st.SearchStrategy[Any]:
    if p.choices is not None:
        return st.sampled_from(p.choices)
    if p.kind is bool:
        return st.booleans()
    if p.kind is str:
        return st.just(p.default or "")
    lo = p.min if p.min is not None else 0
    hi = p.max if p.max is not None else lo + 100
    hi = min(hi, BIGGEST.get(p.name, hi))
    step = p.step or (1 if p.kind is int else 0.5)
    first, last = -(-lo // step), hi // step
    return st.integers(int(first), int(last)).map(lambda k: p.kind(k * step))


def _params(name: str) -> st.SearchStrategy[dict[str, Any]]:
    info = game_class(name).info
    return st.fixed_dictionaries({p.name: _param(p) for p in info.params})


def _load(name: str, params: dict[str, Any]) -> Any:
    try:
        return adapt(tessera.load_game(name, **params))
    except ValueError:
        assume(False)  # a combination the game refuses (its ParamRules): not a game


def _check(state: AdaptedState, space: Any) -> None:
    for p in range(state.game.num_players):
        obs = state.observation(p)
        assert space.contains(obs), f"{state.game.game}: player {p}'s planes out of the space: " + ", ".join(
            f"{state.game.obs.planes[i]} in [{obs[i].min():g}, {obs[i].max():g}]"
            for i in range(obs.shape[0])
            if obs[i].min() < 0 or obs[i].max() > 1
        )


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_observation_lies_in_the_declared_box_for_every_parameter(name: str, data: st.DataObject) -> None:
    params = data.draw(_params(name), label="params")
    game = _load(name, params)
    seed = data.draw(st.integers(0, 2**16), label="seed")
    space = gymnasium.spaces.Box(0.0, 1.0, game.observation_shape, np.float32)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(STEPS):
        _check(state, space)
        if state.is_terminal():
            return
        state.apply(rng.choice(state.legal_actions()))
    _check(state, space)


@pytest.mark.parametrize(
    ("spec", "bid"),
    [("nume(size=3,komi=40)", None), ("nume(size=2,komi=10000)", None), ("nume(size=3,komi_bidding=true)", "max")],
)
def test_nume_komi_planes_stay_in_the_box_whatever_the_komi(spec: str, bid: str | None) -> None:
    """Issue 37: komi ÷ cells left the declared Box(0, 1) (size 3, komi 40: 1.11)."""
    game = adapt(spec)
    space = gymnasium.spaces.Box(0.0, 1.0, game.observation_shape, np.float32)
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        _check(state, space)
        legal = state.legal_actions()
        state.apply(max(legal) if bid == "max" else rng.choice(legal))
    _check(state, space)
