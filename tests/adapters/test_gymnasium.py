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


def _masked(info: dict, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])


def test_vector_env_same_step_autoreset_gives_final_obs_and_final_info() -> None:
    """Issue 37: make_vec declared same-step autoreset but no final_obs / final_info ever appeared.
    Gymnasium's SAME_STEP: in the step a game ends, info["final_obs"][i] is the learner's observation
    of the finished position (here: the adapters' planes of the replayed game) and info["final_info"]
    its info, each marked by "_final_obs" / "_final_info"; the observation is the next game's."""
    envs = gymnasium.make_vec("tessera/Nume-v0", num_envs=16, size=2)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(30):
        obs, _reward, term, _trunc, info = envs.step(_masked(info, rng))
        if not term.any():
            assert "final_obs" not in info
            continue
        ended += int(term.sum())
        assert info["_final_obs"].tolist() == term.tolist() == info["_final_info"].tolist()
        for i in np.flatnonzero(term):
            final = info["final_obs"][i]
            assert envs.single_observation_space.contains(final)
            assert not np.array_equal(final, obs[i])  # the finished game, not the new one
            assert not info["final_info"]["action_mask"][i].any()  # nothing is legal at the end
            assert info["action_mask"][i].any()  # the new game: the learner is to move
        assert all(info["final_obs"][i] is None for i in np.flatnonzero(~term))
    assert ended > 16


@pytest.mark.parametrize(
    ("gid", "kw"),
    [
        ("tessera/Nibble-v0", {}),
        ("tessera/Ikabegama-v0", {"distance": 3, "seat": 1}),
        ("tessera/Nelaxtam-v0", {"size": 8, "variant": "quiet", "max_idle_turns": 3}),
    ],
)
def test_vector_env_observations_and_final_obs_are_the_adapters_planes_of_the_games_played(
    gid: str, kw: dict[str, object]
) -> None:
    """Every observation, mask and final observation is the adapters' one of the game the env
    replays from its actions (Nibble: its deal too), for the learner's seat."""
    envs = gymnasium.make_vec(gid, num_envs=4, **kw).unwrapped
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(40):
        for i in range(envs.num_envs):
            st = envs.replay(i)
            assert np.array_equal(obs[i], st.observation(envs.seat))
            planes, over = envs._planes(i)  # the fast replay that reads final_obs
            assert np.array_equal(planes, obs[i]) and not over
            assert np.flatnonzero(info["action_mask"][i]).tolist() == st.legal_actions(envs.seat)
        obs, _reward, _term, _, info = envs.step(_masked(info, rng))


def test_vector_env_reward_is_one_games_result_and_a_game_lost_in_the_reset_is_reported() -> None:
    """Issue 37: with seat 1 at Ikabegamá distance 3 the opponent can win at once, and the reward of a
    terminated step mixed two episodes (−2.0 or 0.0: the learner's result plus the next game's, lost
    inside the reset), and a game lost during reset() was never reported.  The reward is the ended
    game's return alone; games that end before the learner moves are counted in info."""
    envs = gymnasium.make_vec("tessera/Ikabegama-v0", num_envs=16, seat=1, distance=3)
    _, info = envs.reset(seed=0)
    unplayed = int(info["unplayed_games"].sum())
    assert info["unplayed_reward"].sum() == -unplayed  # every one of them a loss for seat 1
    rng = np.random.default_rng(0)
    for _ in range(120):
        _obs, reward, term, _, info = envs.step(_masked(info, rng))
        assert set(reward[term].tolist()) <= {-1.0, 1.0, 0.0} and not reward[~term].any()
        assert info["unplayed_games"][~term].sum() == 0  # only a new game can end before the learner moves
        unplayed += int(info["unplayed_games"].sum())
        assert info["action_mask"].any(axis=1).all()
    assert unplayed > 0


@pytest.mark.parametrize("seat", [0, 1])
def test_single_env_reset_never_returns_a_finished_game(seat: int) -> None:
    """Issue 37: gymnasium.make("tessera/Ikabegama-v0", seat=1, distance=3).reset(seed) returned a
    finished game for 7 of 200 seeds (then step gave −1 "illegal_move"); the games the opponent ends
    before the learner's first move are counted in info and another starts."""
    env = gymnasium.make("tessera/Ikabegama-v0", seat=seat, distance=3)
    unplayed = 0
    for seed in range(200):
        _obs, info = env.reset(seed=seed)
        assert info["action_mask"].any(), seed
        unplayed += info["unplayed_games"]
        assert info["unplayed_reward"] == -info["unplayed_games"]
    assert (unplayed > 0) == (seat == 1)


def test_a_seat_that_never_plays_is_a_clear_error() -> None:
    """A variant where the opponent always ends the game before the learner moves (greedy wins at once
    at distance 2 from seat 0) is refused with an error, not an endless reset."""
    with pytest.raises(RuntimeError, match="never plays"):
        gymnasium.make("tessera/Ikabegama-v0", seat=1, distance=2, opponent="greedy").reset(seed=0)
