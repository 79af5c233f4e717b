"""PettingZoo: AEC env of every game and Nelaxtam's parallel env pass PettingZoo's own API and seed tests."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from tessera.adapters.pettingzoo import env, parallel_env

AEC = [
    "nume(size=3)",
    "ikabegama(distance=4,max_plies=60)",
    "nibble",
    "nymbat(max_turns=30)",
    "nymbat(players=4,max_turns=12)",
    "nelaxtam(size=8,variant=quiet,max_idle_turns=3)",
    "nelaxtam(size=10,troops=3,by_sea=1,max_idle_turns=3)",
]
PARALLEL = ["nelaxtam(size=8,variant=quiet,max_idle_turns=3)", "nelaxtam(size=10,troops=3,by_sea=1,max_idle_turns=3)"]

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("spec", AEC)
def test_aec_env_passes_pettingzoo_api_test(spec: str) -> None:
    """pettingzoo.test.api_test: the AEC contract, with dict observations {observation, action_mask}."""
    api_test(env(spec), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("spec", AEC)
def test_aec_env_passes_pettingzoo_seed_test(spec: str) -> None:
    """pettingzoo.test.seed_test: the same seed gives the same game (Nibble: the same deal)."""
    seed_test(lambda: env(spec), num_cycles=60)


@pytest.mark.parametrize("spec", PARALLEL)
def test_parallel_env_passes_pettingzoo_parallel_tests(spec: str) -> None:
    """pettingzoo.test.parallel_api_test and parallel_seed_test on the simultaneous game."""
    parallel_api_test(parallel_env(spec), num_cycles=200)
    parallel_seed_test(lambda: parallel_env(spec), num_cycles=60)


def test_aec_mask_matches_the_legal_moves_all_game_long() -> None:
    """Observations are {observation, action_mask}; the mask holds exactly the legal moves of the agent to act."""
    e = env("nume(size=3)")
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    final = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _info = e.last()
        if term or trunc:
            final[agent] = reward
            e.step(None)
            continue
        st = e.state_.state
        legal = sorted(e.state_.action_to_string(int(a)) for a in np.flatnonzero(obs["action_mask"]))
        assert legal == st.legal_moves()
        assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(final.values()) == [-1.0, 1.0]


def test_aec_illegal_action_loses_the_game() -> None:
    """PettingZoo's classic convention: an illegal action ends the game, the offender gets -1."""
    e = env("nume(size=2)")
    e.reset(seed=0)
    obs, *_ = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(bad)
    assert e.rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(e.terminations.values())
    assert "illegal" in e.infos["player_0"]["illegal_move"]


@pytest.mark.parametrize("spec", ["nume(size=2)", "nymbat(players=4,max_turns=12)"])
def test_illegal_action_scores_as_terminate_illegal_wrapper_offender_minus_one_others_zero(spec: str) -> None:
    """Issue 37: the docs cite TerminateIllegalWrapper, which gives the others 0 (tessera gave them +1,
    four-player Nymbat's rewards summing to +2); the same game wrapped by PettingZoo's own wrapper,
    on the env's legal moves, scores the same illegal move the same way."""
    from pettingzoo.utils.wrappers import TerminateIllegalWrapper

    ours, theirs = env(spec), TerminateIllegalWrapper(env(spec), illegal_reward=-1)
    for e in (ours, theirs):
        e.reset(seed=3)
        obs, *_ = e.last()
        e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert ours.rewards == theirs.rewards
    assert sorted(ours.rewards.values())[0] == -1.0 and set(ours.rewards.values()) == {-1.0, 0.0}
    assert all(ours.terminations.values())


def test_parallel_illegal_decision_scores_offender_minus_one_others_zero() -> None:
    """The parallel env follows the same convention as the AEC env."""
    p = parallel_env("nelaxtam(size=8,variant=quiet,max_idle_turns=3)")
    obs, _ = p.reset(seed=0)
    bad = int(np.flatnonzero(obs["player_0"]["action_mask"] == 0)[0])
    good = int(np.flatnonzero(obs["player_1"]["action_mask"])[0])
    _, rewards, terms, _, infos = p.step({"player_0": bad, "player_1": good})
    assert rewards == {"player_0": -1.0, "player_1": 0.0}
    assert all(terms.values()) and "illegal" in infos["player_1"]["illegal_move"]


def test_parallel_env_decides_both_orders_at_once_troop_by_troop() -> None:
    """docs/rules/nelaxtam.md: both orders are given at once; every legal order can be given round by round."""
    pe = parallel_env("nelaxtam(size=10,troops=3,by_sea=3)")
    obs, _ = pe.reset(seed=0)
    st = pe.state_.state
    orders = [st.random_actions(random.Random(p), p) for p in (0, 1)]
    for k in range(3):
        for p in (0, 1):
            assert obs[f"player_{p}"]["action_mask"][orders[p][k]] == 1
        obs, _, terms, _, infos = pe.step({f"player_{p}": orders[p][k] for p in (0, 1)})
        assert infos == {"player_0": {}, "player_1": {}} and not any(terms.values())
    assert pe.state_.state.to_dict()["phase"] == "battle"
    assert pe.state_.state.to_dict()["troops"][0] == {
        str(k + 1): st.action_to_string(a)[2:] for k, a in enumerate(orders[0])
    }


def test_parallel_env_hides_a_pending_decision_from_the_other_player() -> None:
    """Two rounds differing only in Black's choice look the same to White (and differ for Black)."""
    views = []
    for pick in (0, -1):
        pe = parallel_env("nelaxtam(size=10,troops=3,by_sea=1)")
        obs, _ = pe.reset(seed=0)
        black = np.flatnonzero(obs["player_0"]["action_mask"])
        white = np.flatnonzero(obs["player_1"]["action_mask"])
        obs, *_ = pe.step({"player_0": int(black[pick]), "player_1": int(white[0])})
        views.append(obs)
    assert np.array_equal(views[0]["player_1"]["observation"], views[1]["player_1"]["observation"])
    assert np.array_equal(views[0]["player_1"]["action_mask"], views[1]["player_1"]["action_mask"])
    assert not np.array_equal(views[0]["player_0"]["observation"], views[1]["player_0"]["observation"])
