"""The vector engine plays the same games as the adapters and the State API, step for step.

"``reset()`` and ``step(actions)`` (an int array, one adapter action per game; games that end
are reset automatically and say so) both return a batch with the fields ``obs`` (the same
planes as the adapters), ``mask`` (the legal actions), ``player`` (who is to move),
``rewards`` (of that step), ``terminated`` and ``truncated``."

Each test runs ``B`` games side by side in the vector engine and the same games as
:class:`~tessera.adapters.core.AdaptedState` objects (a tessera ``State`` inside), feeds both
the same random legal actions, and compares the player to move, the legal actions, the
rewards and the ends at every step over thousands of games, and the observation planes at
every step of the first games.
"""

from __future__ import annotations

import numpy as np
import pytest

from tessera.adapters.core import AdaptedState
from tessera.core.kernels import rng_state
from tessera.vector import VectorGame, make, random_legal

# (spec, batch, games compared on dynamics, games whose every observation is compared)
CASES = [
    ("nume(size=2)", 64, 3000, 150),
    ("nume(size=3,komi=2,komi_to=white)", 32, 1000, 60),
    ("nume(variant=square,size=3,komi=0)", 32, 1000, 60),
    ("nibble", 64, 1000, 40),
    ("nibble(colors=13,board=hex)", 16, 100, 8),
    ("ikabegama(distance=2,max_plies=40)", 64, 3000, 150),
    ("ikabegama", 16, 60, 16),
    ("nymbat(reserve=6,first_limit=3,max_turns=40)", 64, 1000, 40),
    ("nymbat(players=4,reserve=3,first_limit=3,max_turns=60)", 64, 1000, 40),
    ("nelaxtam(size=8,variant=quiet,max_idle_turns=3)", 64, 400, 20),
    ("nelaxtam(size=10,troops=3,by_sea=2,max_idle_turns=2)", 32, 200, 16),
    ("nelaxtam(max_idle_turns=5)", 8, 24, 8),
]


def _fresh(env: VectorGame, b: int) -> AdaptedState:
    ad = env.adapted
    if ad.dealt:
        return ad.new_initial_state(int(env.deal_of[b]))  # type: ignore[attr-defined]
    return ad.new_initial_state()


def _play(spec: str, batch: int, games: int, observed: int, seed: int) -> dict[str, int]:
    """Play until ``games`` games have ended; compare everything (observations: in the first
    ``observed`` games of the slots, i.e. until that many have ended)."""
    env = make(spec, batch=batch, seed=seed, obs_dtype="float32")  # the adapters' values (uint8: test_formats)
    bt = env.reset()
    states = [_fresh(env, b) for b in range(batch)]
    rs = rng_state(seed + 1)
    ended = steps = observations = decisive = 0
    decided = [0] * env.num_players
    while ended < games:
        watch = ended < observed
        for b in range(batch):
            st = states[b]
            cp = st.current_player()
            assert bt.player[b] == cp, f"{spec}: game {b}, step {steps}: player {bt.player[b]} != {cp}"
            legal = np.flatnonzero(bt.mask[b]).tolist()
            assert legal == st.legal_actions(), f"{spec}: game {b}, step {steps}: the masks differ"
            if watch:
                expected = st.observation(cp)
                if not np.array_equal(bt.obs[b], expected):
                    where = np.argwhere(bt.obs[b] != expected)[0].tolist()
                    raise AssertionError(
                        f"{spec}: game {b}, step {steps}: plane {env.planes[where[0]]!r} at {where[1:]}: "
                        f"{bt.obs[b][tuple(where)]} != {expected[tuple(where)]}"
                    )
                observations += 1
            decided[cp] += 1
        actions = random_legal(bt.mask, rs)
        bt = env.step(actions)
        steps += 1
        assert not bt.truncated.any()
        for b in range(batch):
            st = states[b]
            st.apply(int(actions[b]))
            if st.is_terminal():
                assert bt.terminated[b], f"{spec}: game {b} ended in the State API but not in the vector engine"
                expected = np.asarray(st.returns(), np.float32)  # rewards are float32: -1/3 rounded
                assert np.array_equal(bt.rewards[b], expected), f"{spec}: game {b}: rewards != returns"
                states[b] = _fresh(env, b)
                ended += 1
                decisive += any(st.returns())
            else:
                assert not bt.terminated[b], f"{spec}: game {b} ended in the vector engine only"
                assert not bt.rewards[b].any(), f"{spec}: game {b}: a reward before the end"
    return {
        "ended": ended,
        "decisive": decisive,
        "steps": steps,
        "observations": observations,
        "players_moved": sum(d > 0 for d in decided),
    }


@pytest.mark.parametrize(("spec", "batch", "games", "observed"), CASES, ids=[c[0] for c in CASES])
def test_the_vector_engine_plays_the_state_api_games_step_for_step(spec: str, batch: int, games: int, observed: int):
    seen = _play(spec, batch, games, observed, seed=7)
    assert seen["ended"] >= games
    assert seen["decisive"] > 0  # some games were won, so rewards were compared
    assert seen["observations"] > 0
    n = make(spec, batch=1).num_players
    assert seen["players_moved"] == n  # every seat was observed deciding


def test_nibble_deals_each_new_game_from_the_adapters_deals():
    """The adapters: "With no fixed deal the initial state is a chance node whose ``deals`` outcomes
    (uniform) are the seeds ``0 … deals−1``"; a new game is one of those deals, and ``deal=K`` fixes it."""
    env = make("nibble", batch=256, seed=3, deals=5)
    env.reset()
    assert set(env.deal_of.tolist()) == {0, 1, 2, 3, 4}  # type: ignore[attr-defined]
    fixed = make("nibble", batch=4, seed=3, deal=17)
    bt = fixed.reset()
    st = fixed.adapted.new_initial_state()
    assert np.array_equal(bt.obs[2], st.observation(0))
    assert fixed.deal_of.tolist() == [17, 17, 17, 17]  # type: ignore[attr-defined]


def test_same_seed_same_games():
    """The engine is deterministic: the same seed and actions give the same batches."""
    out = []
    for _ in range(2):
        env = make("nibble", batch=8, seed=11)
        bt = env.reset()
        rs = rng_state(5)
        for _ in range(60):
            bt = env.step(random_legal(bt.mask, rs))
        out.append((bt.obs.copy(), env.deal_of.copy()))  # type: ignore[attr-defined]
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])


def test_random_legal_draws_only_legal_actions_uniformly():
    mask = np.zeros((3, 29), np.bool_)
    mask[0, [2, 5, 28]] = True
    mask[1, 7] = True
    rs = rng_state(0)
    draws = np.array([random_legal(mask, rs) for _ in range(3000)])
    assert set(draws[:, 0].tolist()) == {2, 5, 28}
    assert (draws[:, 1] == 7).all() and (draws[:, 2] == -1).all()
    counts = np.bincount(draws[:, 0], minlength=29)[[2, 5, 28]]
    assert counts.min() > 850  # 1000 expected each
