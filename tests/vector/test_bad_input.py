"""Bad input to ``step`` is refused before any game changes, with an error that names the slot.

"Bad input (an illegal action in one slot, wrong shape/dtype) is refused with a clear error
naming the slot, leaving every game unchanged."
"""

from __future__ import annotations

import numpy as np
import pytest

from tessera.core.game import IllegalMove
from tessera.core.kernels import rng_state
from tessera.vector import VectorGame, make, random_legal

SPECS = ["nume(size=3)", "nibble", "ikabegama", "nymbat", "nymbat(players=4)", "nelaxtam"]


def _snapshot(env: VectorGame) -> list[np.ndarray]:
    arrays = [np.array(x, copy=True) for x in env._buffers()]
    for name in ("boards", "colour", "positions", "deal_of", "queues", "states", "pendings"):
        if hasattr(env, name):
            arrays.append(np.array(getattr(env, name), copy=True))
    arrays.append(env.rs.copy())
    return arrays


def _advanced(spec: str) -> tuple[VectorGame, np.ndarray]:
    env = make(spec, batch=6, seed=2)
    bt = env.reset()
    rs = rng_state(9)
    for _ in range(7):
        bt = env.step(random_legal(bt.mask, rs))
    return env, random_legal(bt.mask, rs)


def _unchanged(env: VectorGame, before: list[np.ndarray]) -> None:
    after = _snapshot(env)
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


@pytest.mark.parametrize("spec", SPECS)
def test_an_illegal_action_in_one_slot_is_refused_naming_the_slot_and_no_game_changes(spec: str):
    env, actions = _advanced(spec)
    illegal = np.flatnonzero(~env._mask[4])[0]
    actions[4] = illegal
    before = _snapshot(env)
    with pytest.raises(IllegalMove, match=r"slot 4: action \d+ .*is not legal in that game now"):
        env.step(actions)
    _unchanged(env, before)
    actions[4] = np.flatnonzero(env._mask[4])[0]
    env.step(actions)  # the same batch with a legal action goes on


@pytest.mark.parametrize("bad", [-1, 10**6])
def test_an_action_outside_the_numbering_is_refused_naming_the_slot(bad: int):
    env, actions = _advanced("nume(size=3)")
    actions[2] = bad
    before = _snapshot(env)
    with pytest.raises(IllegalMove, match=rf"slot 2: action {bad} is not an action of nume"):
        env.step(actions)
    _unchanged(env, before)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(5, np.int64), r"shape \(6,\) — one per game — not \(5,\)"),
        (np.zeros((6, 1), np.int64), r"shape \(6,\) — one per game — not \(6, 1\)"),
        (np.zeros(6, np.float64), "must be integers .* not dtype float64"),
        (np.zeros(6, np.bool_), "must be integers .* not dtype bool"),
        ({"slot": 0}, "must be an integer array of shape \\(6,\\), not dict"),
        ([0.5] * 6, "must be integers .* not dtype float64"),
    ],
    ids=["short", "2-d", "float", "bool", "dict", "float-list"],
)
def test_wrong_shape_or_dtype_is_refused_and_no_game_changes(actions, message: str):
    env, _ = _advanced("nibble")
    before = _snapshot(env)
    with pytest.raises(ValueError, match=message):
        env.step(actions)
    _unchanged(env, before)


def test_step_before_reset_is_refused():
    env = make("nume(size=2)", batch=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))


def test_the_batch_is_read_only():
    env = make("nume(size=2)", batch=2)
    bt = env.reset()
    with pytest.raises(ValueError, match="read-only"):
        bt.mask[0, 0] = True


@pytest.mark.parametrize(
    ("spec", "kwargs", "message"),
    [
        ("nume(size=2)", {"batch": 0}, "batch must be a positive integer"),
        ("nume(size=2)", {"batch": 2, "seed": "x"}, "seed must be an integer"),
        ("nume(size=2,komi_bidding=true)", {"batch": 2}, "komi_bidding=true is not supported"),
        ("nume(size=2)", {"batch": 2, "window": 5}, "window applies to games on an unbounded board"),
    ],
)
def test_make_refuses_what_it_cannot_play(spec: str, kwargs, message: str):
    with pytest.raises(ValueError, match=message):
        make(spec, **kwargs)


def test_random_legal_refuses_arrays_its_kernel_cannot_index() -> None:
    """Compiled code checks its arguments at the boundary: the draw's kernel reads the random state and
    writes ``out`` unchecked, so a short ``out``, a random state that is not ``rng_state``'s, or a
    mask that is not 2-D bool is a ValueError, never a write past an array's end."""
    mask = np.ones((4, 5), np.bool_)
    rs = rng_state(1)
    for args, message in [
        ((mask, rs, np.empty(2, np.int64)), "out must be"),
        ((mask, rs, np.empty(4, np.int32)), "out must be"),
        ((mask, np.zeros(0, np.uint64)), "rs must be"),
        ((mask, np.zeros(1, np.int64)), "rs must be"),
        ((np.ones(5, np.bool_), rs), "mask must be"),
        ((mask.astype(np.float64), rs), "mask must be"),
    ]:
        with pytest.raises(ValueError, match=message):
            random_legal(*args)  # type: ignore[arg-type]
    assert random_legal(mask, rs).shape == (4,)
