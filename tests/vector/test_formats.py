"""The vector engine's formats: ``uint8`` or ``float32`` planes, flat or factored actions.

"``tessera.vector.make(spec, batch, seed, *, obs_dtype="uint8" | "float32", actions="flat" | "factored")``,
default uint8 and flat: planes as uint8 (or bool); the full-width bool mask for ``actions="flat"``; for
``actions="factored"`` a move is a short sequence of decisions (Nume: the cell, then the number; Nymbat:
the piece or group, then the destination; Nelaxtam: one troop's order at a time, as now; single-decision
games unchanged), the ``Batch`` gains ``phase`` (0 when the next decision starts a move) and ``mask`` is
the current decision's.  ``tessera.vector.random_legal(mask, rs)`` keeps drawing one legal action per row."
(issue 38)

Each test plays seeded random games side by side in two engines that differ by one format only, and
compares them after every step.
"""

from __future__ import annotations

import numpy as np
import pytest

from tessera.core.game import IllegalMove
from tessera.core.kernels import rng_state
from tessera.core.kits.vector import fractional_planes
from tessera.vector import make, random_legal

SPECS = [
    "nume(size=2)",
    "nume(variant=square,size=3,komi=0)",
    "nibble",
    "ikabegama(distance=2,max_plies=40)",
    "nymbat(reserve=6,first_limit=3,max_turns=40)",
    "nymbat(players=4,reserve=3,first_limit=3,max_turns=60)",
    "nelaxtam(size=8,variant=quiet,max_idle_turns=3)",
]
TWO_DECISIONS = {"nume": ("cell", "number"), "nymbat": ("piece", "destination")}


def test_the_default_formats_are_uint8_planes_and_flat_actions():
    """ "default uint8 and flat": the planes are ``uint8``, the mask is the full-width ``bool`` one and
    every decision is a move (``phase`` always 0)."""
    env = make("nume(size=2)", batch=3, seed=0)
    bt = env.reset()
    assert bt.obs.dtype == np.uint8
    assert bt.mask.dtype == np.bool_ and bt.mask.shape == (3, env.num_flat_actions)
    assert env.factoring is None and bt.phase.tolist() == [0, 0, 0] and bt.decided.tolist() == [-1, -1, -1]


@pytest.mark.parametrize("spec", SPECS)
def test_uint8_planes_times_their_scale_are_the_float32_planes(spec: str):
    """ "planes as uint8": ``obs · obs_scale`` is the ``float32`` engine's planes, exactly on the on/off
    planes (which hold only 0 and 1) and within 1/510 on the fractional ones."""
    small = make(spec, batch=8, seed=5)
    big = make(spec, batch=8, seed=5, obs_dtype="float32")
    frac = fractional_planes(small.planes)
    scale = small.obs_scale[None, :, None, None]
    a, b = small.reset(), big.reset()
    rs = rng_state(9)
    for _ in range(120):
        assert a.obs.dtype == np.uint8 and b.obs.dtype == np.float32
        back = a.obs.astype(np.float32) * scale
        assert np.array_equal(back[:, ~frac], b.obs[:, ~frac])
        assert np.isin(b.obs[:, ~frac], (0.0, 1.0)).all(), "a plane named as on/off holds another value"
        assert np.abs(back[:, frac] - b.obs[:, frac]).max(initial=0.0) <= 1 / 510 + 1e-7
        assert np.array_equal(a.mask, b.mask) and np.array_equal(a.player, b.player)
        acts = random_legal(a.mask, rs)
        a, b = small.step(acts), big.step(acts)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.terminated, b.terminated)


@pytest.mark.parametrize("spec", SPECS)
def test_a_factored_sequence_of_decisions_plays_exactly_the_flat_move(spec: str):
    """ "for ``actions="factored"`` a move is a short sequence of decisions … ``mask`` is the current
    decision's": each random flat move is played in a flat engine and, decision by decision, in a factored
    one; the masks are exactly the legal decisions (the heads of the legal moves at phase 0, the tails
    legal after the chosen head at phase 1) and after every completed move both engines hold the same
    game (planes, player, flat mask, rewards, ends)."""
    flat = make(spec, batch=16, seed=3)
    fact = make(spec, batch=16, seed=3, actions="factored")
    f = fact.factoring
    game = spec.split("(")[0]
    if game in TWO_DECISIONS:
        assert f is not None and f.names == TWO_DECISIONS[game]
        assert fact.num_actions < flat.num_actions
    else:
        assert f is None and fact.num_actions == flat.num_actions
    a, b = flat.reset(), fact.reset()
    rs = rng_state(4)
    pending = np.full(16, -1, np.int64)
    seen_second = 0
    moves = 0
    for _ in range(300):
        # the current decision's mask, derived here from the flat engine's legal actions
        legal = [np.flatnonzero(a.mask[i]) for i in range(16)]
        for i in range(16):
            if f is None:
                want = set(legal[i].tolist())
            elif b.phase[i] == 0:
                want = {int(f.head[x]) for x in legal[i]}
            else:
                want = {int(f.tail[x]) for x in legal[i] if f.head[x] == b.decided[i]}
            assert set(np.flatnonzero(b.mask[i]).tolist()) == want, f"slot {i}, phase {b.phase[i]}"
        draws = random_legal(a.mask, rs)
        decisions = np.empty(16, np.int64)
        for i in range(16):
            if pending[i] < 0:
                pending[i] = draws[i]
            x = int(pending[i])
            if f is None:
                decisions[i] = x
            elif b.phase[i] == 0:
                decisions[i] = f.head[x]
            else:
                decisions[i] = f.tail[x]
                seen_second += 1
        b = fact.step(decisions)
        done = fact.last_moves >= 0
        assert np.array_equal(fact.last_moves[done], pending[done])
        step = np.where(done, pending, -1)
        pending[done] = -1
        moves += int(done.sum())
        if done.any():
            flat._step_some(step)
            assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.terminated, b.terminated)
        else:  # only first decisions: nothing was played
            assert not b.rewards.any() and not b.terminated.any()
        assert np.array_equal(a.obs, b.obs) and np.array_equal(a.player, b.player)
        assert np.array_equal(flat._mask, fact._mask)
        assert np.array_equal(b.phase == 0, b.decided < 0)
    assert moves > 1000
    if f is not None:
        assert seen_second > 500


def test_an_illegal_factored_decision_is_refused_and_no_game_changes():
    """ "Bad input gets a clear error, never corrupts state": a second decision that the first one does
    not allow is an ``IllegalMove`` naming the slot and both decisions; nothing changes."""
    env = make("nume(size=2)", batch=2, seed=0, actions="factored")
    bt = env.reset()
    cell = int(np.flatnonzero(bt.mask[0])[0])
    bt = env.step(np.array([cell, cell]))
    assert bt.phase.tolist() == [1, 1] and bt.decided.tolist() == [cell, cell]
    wrong = int(np.flatnonzero(~bt.mask[1])[0])
    before = [np.array(x, copy=True) for x in bt]
    with pytest.raises(IllegalMove, match=r"slot 1: decision .* after cell"):
        env.step(np.array([int(np.flatnonzero(bt.mask[0])[0]), wrong]))
    assert all(np.array_equal(x, y) for x, y in zip(before, env._batch, strict=True))


@pytest.mark.parametrize(("option", "value"), [("obs_dtype", "float16"), ("actions", "tree")])
def test_an_unknown_format_is_refused(option: str, value: str):
    """ "obs_dtype="uint8"|"float32", actions="flat"|"factored"": any other value is a ``ValueError`` naming
    the choices."""
    with pytest.raises(ValueError, match=option):
        make("nume(size=2)", batch=1, **{option: value})
