"""Gymnasium: tessera/<Game>-v0 for every two-player game, one seat against a tessera agent, masks in info."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import tessera.adapters.gymnasium as tg  # noqa: E402

CASES = [
    ("tessera/Nume-v0", {"size": 3, "opponent": "greedy"}),
    ("tessera/Ikabegama-v0", {"distance": 4, "max_plies": 60}),
    ("tessera/Nibble-v0", {"opponent": "greedy"}),
    ("tessera/Nymbat-v0", {"max_turns": 30}),
    ("tessera/Nelaxtam-v0", {"size": 8, "variant": "quiet", "max_idle_turns": 3, "seat": 1}),
    ("tessera/Nelaxtam-v0", {"size": 10, "troops": 3, "by_sea": 1, "max_idle_turns": 3, "seat": "random"}),
]

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_every_game_is_registered() -> None:
    """Issue 17: import tessera.adapters.gymnasium registers tessera/Nume-v0 etc."""
    for name in ("Nume", "Ikabegama", "Nibble", "Nymbat", "Nelaxtam"):
        assert f"tessera/{name}-v0" in gymnasium.registry


@pytest.mark.parametrize(("gid", "kwargs"), CASES)
def test_env_passes_gymnasium_check_env(gid: str, kwargs: dict) -> None:
    """gymnasium.utils.env_checker.check_env: spaces, reset/step signatures, seeding determinism."""
    check_env(gymnasium.make(gid, **kwargs).unwrapped, skip_render_check=True)


@pytest.mark.parametrize(("gid", "kwargs"), CASES)
def test_masked_random_play_reaches_the_end_with_a_game_result(gid: str, kwargs: dict) -> None:
    """Playing only actions of info['action_mask'] never breaks a rule; the final reward is the game's return."""
    env = gymnasium.make(gid, **kwargs)
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    done = False
    while not done:
        assert obs.shape == env.observation_space.shape
        obs, reward, done, _trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert "illegal_move" not in info
    st = env.unwrapped.state_
    assert reward == st.returns()[env.unwrapped.seat]


def test_illegal_action_ends_the_episode_with_minus_one() -> None:
    """An action outside the mask is a loss (-1) and the episode ends."""
    env = gymnasium.make("tessera/Nume-v0", size=2)
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(bad)
    assert (reward, done) == (-1.0, True) and "illegal_move" in info


def test_same_seed_same_episode_against_a_seeded_opponent() -> None:
    """reset(seed=...) seeds the deal and the opponent: a replayed episode is identical."""
    runs = []
    for _ in range(2):
        env = gymnasium.make("tessera/Nibble-v0", opponent="greedy(noise=0.5)")
        obs, info = env.reset(seed=11)
        trace = [obs.copy()]
        for _ in range(10):
            obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            trace.append(obs.copy())
            if done:
                break
        runs.append(trace)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
    assert tg.ENV_IDS["nibble"] == "tessera/Nibble-v0"
