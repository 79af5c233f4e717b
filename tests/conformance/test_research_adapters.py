"""Research conventions, checked by the ecosystem's own tools, over every registered game.

For every game of ``list_games()`` (on a small variant) and the example plugin game
(``examples/tessera-nim``, loaded from the source tree through a stand-in for its entry point):
PettingZoo's ``api_test`` (and ``parallel_api_test`` for simultaneous games), Gymnasium's
``check_env``, the vector env's same-step autoreset against Gymnasium's own ``SyncVectorEnv``
over the single env, ``pyspiel.random_sim_test``, every player id at every node type (chance,
decision, simultaneous, terminal), and a zero-sum declaration only where the returns sum to 0.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tessera
from tessera.core import registry
from tessera.core.registry import game_class, load_game

pyspiel = pytest.importorskip("pyspiel")
gymnasium = pytest.importorskip("gymnasium")
pettingzoo_test = pytest.importorskip("pettingzoo.test")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

import tessera.adapters.gymnasium  # noqa: E402  (registers the ids)
from tessera.adapters import openspiel as ad_openspiel  # noqa: E402
from tessera.adapters.core import CHANCE, adapt  # noqa: E402
from tessera.adapters.gymnasium import TesseraEnv  # noqa: E402
from tessera.adapters.pettingzoo import env as aec_env  # noqa: E402
from tessera.adapters.pettingzoo import parallel_env  # noqa: E402

NIM_SOURCE = Path(__file__).resolve().parents[2] / "examples" / "tessera-nim"
NIM = "nim(stones=7)"

SMALL_PARAMS: dict[str, dict[str, Any]] = {
    "nume": {"size": 2},
    "ikabegama": {"distance": 3, "max_plies": 40},
    "nymbat": {"max_turns": 12},
    "nelaxtam": {"size": 8, "variant": "quiet", "max_idle_turns": 3},
}
"""Smaller boards or limits for the games whose defaults make these checks slow; any other game
(one added later) is checked with its defaults."""


def _small(name: str) -> list[str]:
    """The game's small variant, and one per player count it offers (``players`` choices)."""
    params = SMALL_PARAMS.get(name, {})
    counts = next((p.choices for p in game_class(name).info.params if p.name == "players" and p.choices), None)
    variants = [dict(params)] + [dict(params, players=n) for n in (counts or ())[1:]]
    return [str(tessera.load_game(name, **v)) for v in variants]


SPECS = [spec for name in tessera.list_games() for spec in _small(name)] + [NIM]
TWO_PLAYER = [s for s in SPECS if s == NIM or tessera.load_game(s).num_players == 2]
SIMULTANEOUS = [s for s in SPECS if s != NIM and game_class(s.split("(")[0]).info.dynamics == "simultaneous"]

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(autouse=True)
def example_plugin(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the example plugin game loadable from the source tree, as its entry point would once
    installed (tests/core/test_plugin_games.py installs it for real)."""
    spec = request.node.callspec.params.get("spec", "") if hasattr(request.node, "callspec") else ""
    if not str(spec).startswith("nim"):
        yield
        return
    monkeypatch.syspath_prepend(str(NIM_SOURCE))
    original = registry.plugin_games
    entry = metadata.EntryPoint(name="nim", value="tessera_nim:NimGame", group=registry.ENTRY_POINT_GROUP)

    def with_nim() -> dict[str, metadata.EntryPoint]:
        return {**original(), "nim": entry}

    monkeypatch.setattr(registry, "plugin_games", with_nim)
    ad_openspiel.register_new_games()
    yield


def _gym_id(spec: str) -> str:
    return f"tessera/{spec.split('(')[0].capitalize()}-v0"


def _gym_kwargs(spec: str) -> dict[str, Any]:
    game = tessera.load_game(spec)
    return dict(game.params)


# -- PettingZoo ---------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_pettingzoo_api_test(spec: str) -> None:
    """pettingzoo.test.api_test on the AEC env of every game."""
    pettingzoo_test.api_test(aec_env(spec), num_cycles=60)


@pytest.mark.parametrize("spec", SIMULTANEOUS)
def test_pettingzoo_parallel_api_test(spec: str) -> None:
    """pettingzoo.test.parallel_api_test on the parallel env of every simultaneous game."""
    pettingzoo_test.parallel_api_test(parallel_env(spec), num_cycles=60)


# -- Gymnasium ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", TWO_PLAYER)
def test_gymnasium_check_env(spec: str) -> None:
    """gymnasium.utils.env_checker.check_env on the single env of every two-player game."""
    check_env(TesseraEnv(game=spec), skip_render_check=True)


def _check_same_step_autoreset(envs: Any, steps: int, seed: int) -> int:
    """Gymnasium's same-step autoreset as its documentation and ``SyncVectorEnv`` define it; the
    number of episodes that ended.  Run on Gymnasium's own vector env first, then on ours."""
    single = envs.single_observation_space
    obs, info = envs.reset(seed=seed)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        assert envs.observation_space.contains(obs.astype(np.float32))
        masks = np.asarray(info["action_mask"]).astype(bool)
        assert masks.any(axis=1).all(), "a learner with nothing to do was handed an observation"
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, reward, term, trunc, info = envs.step(actions)
        done = term | trunc
        assert not reward[~done].any(), "a reward outside a game's end (terminal rewards only)"
        assert set(reward[done].tolist()) <= {-1.0, 0.0, 1.0}, "one game's return, never two mixed"
        if not done.any():
            assert "final_obs" not in info and "final_info" not in info
            continue
        ended += int(done.sum())
        assert info["_final_obs"].tolist() == done.tolist() == info["_final_info"].tolist()
        for i in range(envs.num_envs):
            if done[i]:
                assert single.contains(np.asarray(info["final_obs"][i], dtype=np.float32))
                assert not np.asarray(info["final_info"]["action_mask"][i]).any()
                assert info["final_info"]["_action_mask"][i]
            else:
                assert info["final_obs"][i] is None
    return ended


@pytest.mark.parametrize("spec", [s for s in TWO_PLAYER if s != NIM and load_game(s).vector_engine() is not None])
def test_vector_env_autoreset_follows_sync_vector_env(spec: str) -> None:
    """``gymnasium.make_vec`` on the vector engine and Gymnasium's ``SyncVectorEnv`` over
    ``gymnasium.make`` of the same id pass the same same-step checks, for both seats."""
    gid, kwargs = _gym_id(spec), _gym_kwargs(spec)
    for seat in (0, 1):
        theirs = SyncVectorEnv(
            [lambda seat=seat: gymnasium.make(gid, seat=seat, **kwargs) for _ in range(4)],
            autoreset_mode=AutoresetMode.SAME_STEP,
        )
        ours = gymnasium.make_vec(gid, num_envs=4, seat=seat, **kwargs)
        assert _check_same_step_autoreset(theirs, 60, seed=seat) > 0
        assert _check_same_step_autoreset(ours, 60, seed=seat) > 0


@pytest.mark.parametrize("spec", [NIM])
def test_sync_vector_env_over_a_game_without_vector_kernels(spec: str) -> None:
    """A game without vector kernels (the example plugin game) is vectorised by Gymnasium's own
    ``SyncVectorEnv`` over the single env, which meets the same checks."""
    theirs = SyncVectorEnv([lambda: TesseraEnv(game=spec) for _ in range(4)], autoreset_mode=AutoresetMode.SAME_STEP)
    assert _check_same_step_autoreset(theirs, 40, seed=0) > 0


# -- OpenSpiel ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_openspiel_random_sim_test(spec: str) -> None:
    """pyspiel.random_sim_test (with serialisation) on every game."""
    game = pyspiel.load_game(ad_openspiel.PREFIX + spec)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("spec", SPECS)
def test_zero_sum_is_declared_only_where_the_returns_sum_to_zero(spec: str) -> None:
    """OpenSpiel's GameType utility: ZERO_SUM only if every game's returns sum to 0 (random games)."""
    game = pyspiel.load_game(ad_openspiel.PREFIX + spec)
    rng = random.Random(0)
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        total = sum(state.returns())
        if game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM:
            assert total == pytest.approx(0.0), state.returns()
        assert game.min_utility() <= min(state.returns()) <= max(state.returns()) <= game.max_utility()


def _answers_every_player(game: Any, state: Any) -> str:
    """Every player id against one OpenSpiel node, as OpenSpiel's C++ games answer; the node's kind."""
    cp = state.current_player()
    n = game.num_players()
    for p in range(-5, n + 3):
        legal = state.legal_actions(p)
        mask = state.legal_actions_mask(p)
        width = game.max_chance_outcomes() if p == pyspiel.PlayerId.CHANCE else game.num_distinct_actions()
        assert len(mask) == width
        assert [a for a, m in enumerate(mask) if m] == legal
        assert legal == ([] if state.is_terminal() or p != cp else state.legal_actions())
        if 0 <= p < n:
            assert len(state.observation_tensor(p)) == int(np.prod(game.observation_tensor_shape()))
            assert isinstance(state.observation_string(p), str)
            assert isinstance(state.information_state_string(p), str)
        else:
            for method in (state.observation_tensor, state.observation_string, state.information_state_string):
                with pytest.raises(pyspiel.SpielError):
                    method(p)
    if state.is_terminal():
        return "terminal"
    return "chance" if cp == pyspiel.PlayerId.CHANCE else "decision"


@pytest.mark.parametrize("spec", SPECS)
def test_every_player_id_at_every_node_type(spec: str) -> None:
    """OpenSpiel (chance, decision, terminal nodes), the adapters' state (every id against its
    observation) and, for a simultaneous game, the parallel env's simultaneous rounds: every
    player id is answered or refused with a clear exception, never a crash."""
    game = pyspiel.load_game(ad_openspiel.PREFIX + spec)
    state = game.new_initial_state()
    rng = random.Random(1)
    kinds = {_answers_every_player(game, state)}
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        kinds.add(_answers_every_player(game, state))
    assert {"decision", "terminal"} <= kinds
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        assert "chance" in kinds

    ad = adapt(spec)
    st = ad.new_initial_state()
    n = ad.num_players
    while True:
        for p in range(-3, n + 2):
            if 0 <= p < n:
                assert st.observation(p).shape == ad.observation_shape
            else:
                for method in (st.observation, st.observation_string, st.information_state_string):
                    with pytest.raises(ValueError, match="player must be"):
                        method(p)
            expected = st.legal_actions() if p == st.current_player() and not st.is_terminal() else []
            if st.current_player() == CHANCE and p != CHANCE:
                expected = []
            assert st.legal_actions(p) == expected
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))

    if spec in SIMULTANEOUS:
        par = parallel_env(spec)
        obs, _ = par.reset(seed=0)
        while par.agents:
            for agent in par.possible_agents:
                assert par.observation_space(agent).contains(obs[agent])
                assert obs[agent]["action_mask"].any()  # deciding, or waiting (action 0)
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents}
            obs, *_ = par.step(actions)
