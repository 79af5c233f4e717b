"""``gymnasium.make_vec("tessera/<Game>-v0", num_envs=B)``: the Gymnasium vector env on the vector engine.

"A Gymnasium vector environment on top: ``gymnasium.make_vec("tessera/<game>", num_envs=B)``."
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import tessera.adapters.gymnasium  # noqa: F401  (registers the ids)
from tessera.core.game import IllegalMove
from tessera.core.kernels import rng_state
from tessera.vector import random_legal
from tessera.vector.gymnasium import TesseraVectorEnv

IDS = [
    ("tessera/Nume-v0", {"size": 3}, (10, 7, 7)),
    ("tessera/Nibble-v0", {}, (31, 9, 9)),
    ("tessera/Ikabegama-v0", {}, (8, 13, 13)),
    ("tessera/Nymbat-v0", {}, (29, 15, 15)),
    ("tessera/Nelaxtam-v0", {"size": 8, "variant": "quiet"}, (19, 8, 8)),
]


@pytest.mark.parametrize(("env_id", "params", "shape"), IDS, ids=[i[0] for i in IDS])
def test_make_vec_gives_the_vector_env_and_the_learner_always_moves(env_id: str, params, shape):
    envs = gymnasium.make_vec(env_id, num_envs=6, seat=1, **params)
    assert isinstance(envs.unwrapped, TesseraVectorEnv)
    obs, info = envs.reset(seed=3)
    assert obs.shape == (6, *shape) and info["action_mask"].shape == (6, envs.single_action_space.n)
    engine = envs.unwrapped.engine
    rs = rng_state(4)
    ended = 0
    for _ in range(150):
        assert (engine._batch.player == 1).all()  # the random opponent has played up to the learner's turn
        assert np.array_equal(obs, engine._batch.obs) and np.array_equal(info["action_mask"], engine._batch.mask)
        obs, reward, terminated, truncated, info = envs.step(random_legal(info["action_mask"], rs))
        assert not truncated.any()
        assert set(reward[~terminated].tolist()) <= {0.0}
        assert set(reward[terminated].tolist()) <= {-1.0, 0.0, 1.0}
        ended += int(terminated.sum())
    if env_id != "tessera/Nymbat-v0":  # Nymbat's random games are longer than 150 of the learner's steps
        assert ended > 0


def test_the_learner_in_seat_1_sees_the_opponents_first_move():
    """Player 0 places first in Nume, so seat 1's first observation has one stone on the board."""
    envs = gymnasium.make_vec("tessera/Nume-v0", num_envs=4, size=3, seat=1)
    obs, _ = envs.reset(seed=0)
    assert (obs[:, 1].sum(axis=(1, 2)) == 1).all() and (obs[:, 0].sum(axis=(1, 2)) == 0).all()


def test_an_illegal_action_is_refused_naming_the_slot():
    envs = gymnasium.make_vec("tessera/Nibble-v0", num_envs=3)
    _, info = envs.reset(seed=0)
    actions = random_legal(info["action_mask"], rng_state(0))
    actions[1] = int(np.flatnonzero(~info["action_mask"][1])[0])
    with pytest.raises(IllegalMove, match="slot 1"):
        envs.step(actions)


def test_only_the_random_opponent_is_offered():
    with pytest.raises(ValueError, match="opponent='random' only"):
        gymnasium.make_vec("tessera/Nume-v0", num_envs=2, opponent="greedy")


@pytest.mark.parametrize(
    ("obs_dtype", "actions"), [("uint8", "factored"), ("float32", "flat"), ("float32", "factored")]
)
def test_make_vec_offers_both_planes_and_both_action_modes(obs_dtype: str, actions: str):
    """ "Gymnasium ``make_vec`` and the adapters offer both action modes": with ``actions="factored"`` an
    action is one decision (Nume: the cell, then the number; ``info["phase"]`` says which) and the games
    still end with the learner's return; ``obs_dtype`` sets the observation space's dtype, the final
    observations' included."""
    envs = gymnasium.make_vec("tessera/Nume-v0", num_envs=4, size=2, seat=1, obs_dtype=obs_dtype, actions=actions)
    engine = envs.unwrapped.engine
    width = engine.num_actions
    assert envs.single_action_space.n == width
    assert (width < engine.num_flat_actions) == (actions == "factored")
    assert envs.single_observation_space.dtype == np.dtype(obs_dtype)
    obs, info = envs.reset(seed=1)
    rs = rng_state(2)
    ended = second = 0
    for _ in range(120):
        assert obs.dtype == np.dtype(obs_dtype) and info["action_mask"].shape == (4, width)
        assert (engine._batch.player == 1).all()
        second += int((info["phase"] == 1).sum())
        obs, reward, terminated, _, info = envs.step(random_legal(info["action_mask"], rs))
        assert set(reward[terminated].tolist()) <= {-1.0, 0.0, 1.0} and not reward[~terminated].any()
        for i in np.flatnonzero(terminated):
            assert info["final_obs"][i].dtype == np.dtype(obs_dtype)
        ended += int(terminated.sum())
    assert ended > 10
    assert (second > 100) == (actions == "factored")
