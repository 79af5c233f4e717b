"""Nymbat's learned evaluation: compiled features, the fit, the weights file and the alpha-beta agent.

Issue 28: "the kernel inference equals the training framework's output on random positions (to
1e-5); a tiny training run end to end that improves over random; weights load from the package
and a missing or corrupt weights file gives a clear error and falls back to level 5".
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tessera
from tessera.agents import make_agent
from tessera.agents.alphabeta import AlphaBetaAgent
from tessera.agents.learned import (
    LearnedAlphaBetaAgent,
    LearnedTurnAgent,
    WeightsError,
    hand_weights,
    load_weights,
)
from tessera.agents.learned.training import self_play_dataset
from tessera.core.kits.fitting import fit_logistic, mse, value_numpy
from tessera.games.nymbat import kernels as k
from tessera.games.nymbat.learned import NYMBAT_FEATURES, NymbatValue, features

TWO = tessera.load_game("nymbat")
FOUR = tessera.load_game("nymbat(players=4)")


def positions(game: tessera.Game, seed: int, count: int) -> list[tessera.State]:
    """``count`` positions (not over) of random games, sampled along the way."""
    rng = random.Random(seed)
    out: list[tessera.State] = []
    while len(out) < count:
        st = game.new_initial_state(seed=rng.randrange(1000))
        while not st.is_terminal() and len(out) < count:
            st.apply_action(st.random_action(rng))
            if not st.is_terminal() and rng.random() < 0.05:
                out.append(st.clone())
    return out


def plain_features(st: tessera.State, player: int) -> np.ndarray:
    """The features computed again in plain numpy from the position array (the reference)."""
    nst: Any = st
    s = np.asarray(nst.s, dtype=np.int64)
    geo = np.asarray(nst.game.geo, dtype=np.int64)
    n = int(geo[k.N, k.G_PLAYERS])
    owner, num = s[k.OWNER : k.OWNER + k.N], s[k.NUM : k.NUM + k.N]

    def side(q: int) -> tuple[np.ndarray, bool]:
        opp = (q + n // 2) % n
        mine = owner == q
        dist = geo[: k.N, k.DIST_COL + q]
        goal = [int(c) for c in geo[k.TARGET_ROW + q, 1 : 1 + geo[k.TARGET_ROW + q, 0]]]
        on = any(owner[c] == q for c in goal)
        threat = on and not any(owner[c] == opp for c in goal)
        figures = np.array(
            [
                s[k.H + k.RES + q] + num[mine].sum(),
                dist[mine].min() if mine.any() else k.FAR,
                num[mine].sum(),
                mine.sum(),
                (num[mine] * (k.FAR - dist[mine])).sum(),
                num[mine & (dist <= 3)].sum(),
                num[mine & (geo[: k.N, k.DIST_COL + opp] == 0)].sum(),
            ],
            dtype=np.float64,
        )
        return figures, threat

    me, my_threat = side(player)
    others = [side(q) for q in range(n) if q != player]
    other = np.mean([f for f, _ in others], axis=0)
    threat = float(my_threat) - float(any(t for _, t in others))
    material, race = me[0] - other[0], other[1] - me[1]
    late = min(1.0, 10.0 * s[k.H + k.TURN] / geo[k.N, k.G_MAX_TURNS])
    return np.array(
        [
            0.04 * material + 0.15 * race + 0.6 * threat,
            material / 20,
            race / k.FAR,
            threat,
            (me[2] - other[2]) / 20,
            (me[3] - other[3]) / 10,
            (me[4] - other[4]) / 100,
            (me[5] - other[5]) / 10,
            (me[6] - other[6]) / 10,
            1.0 if s[k.H + k.TO_MOVE] == player else -1.0 / (n - 1),
            race / k.FAR * late,
        ]
    )


@pytest.mark.parametrize("game", [TWO, FOUR], ids=["two players", "four players"])
def test_the_compiled_features_equal_a_plain_numpy_computation(game: tessera.Game) -> None:
    """Kernel inference equals the training side's computation on random positions (to 1e-5)."""
    for st in positions(game, 1, 40):
        for p in range(game.num_players):
            assert np.allclose(features(st, p), plain_features(st, p), atol=1e-5)


def test_the_compiled_value_equals_the_training_models_output() -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=len(NYMBAT_FEATURES))
    value = NymbatValue(w)
    for st in positions(TWO, 2, 40):
        for p in (0, 1):
            want = float(value_numpy(plain_features(st, p)[None, :], w)[0])
            assert value.value(st, p) == pytest.approx(want, abs=1e-5)


def test_generation_zero_is_the_hand_written_evaluation() -> None:
    """The weights (1, 0, …) reproduce ``state.evaluate`` exactly, for every player."""
    value = NymbatValue(hand_weights("nymbat").w)
    for game in (TWO, FOUR):
        for st in positions(game, 3, 30):
            for p in range(game.num_players):
                assert value.value(st, p) == pytest.approx(st.evaluate(p), abs=1e-12)


def test_with_two_players_the_learned_value_is_zero_sum() -> None:
    """Every feature is antisymmetric, so a value without a bias is zero-sum."""
    value = NymbatValue(load_weights("nymbat").w)
    for st in positions(TWO, 4, 40):
        assert np.allclose(features(st, 0), -features(st, 1))
        assert value.value(st, 0) == pytest.approx(-value.value(st, 1), abs=1e-12)


def test_a_tiny_fit_on_self_play_beats_random_weights_on_held_out_positions() -> None:
    """Fitted on the positions of some self-play games, judged on the positions of other games."""
    x, y, gid, info = self_play_dataset(TWO, 60, random.Random(5), spec="greedy(noise=0.1)", per_game=10)
    assert info["games"] == 60 and len(x) == len(y) == len(gid) and set(np.unique(y)) <= {-1.0, 0.0, 1.0}
    train, test = gid < 40, gid >= 40
    w = fit_logistic(x[train], y[train])
    fitted = mse(x[test], y[test], w)
    rng = np.random.default_rng(6)
    for _ in range(5):
        assert fitted < mse(x[test], y[test], rng.normal(size=len(w)))
    assert fitted < mse(x[test], y[test], np.zeros(len(w))), "better than always saying 'even'"


def test_the_package_weights_load() -> None:
    w = load_weights("nymbat")
    assert w.game == "nymbat" and len(w.w) == len(NYMBAT_FEATURES) and np.all(np.isfinite(w.w))
    assert not np.allclose(w.w, hand_weights("nymbat").w), "the shipped weights were learned"
    agent = make_agent("learned(game=nymbat,seed=1)")
    assert isinstance(agent, LearnedAlphaBetaAgent) and agent.fallback is None


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot be read"),
        ("{not json", "not valid JSON"),
        ('{"format": "other"}', "not a tessera weights file"),
        ('{"format": "tessera-weights", "game": "nymbat", "features": ["x"], "weights": [1]}', "features"),
    ],
)
def test_a_missing_or_corrupt_weights_file_is_a_clear_error_and_the_agent_plays_as_level_5(
    tmp_path: Path, content: str | None, message: str
) -> None:
    """The fallback is level 5's search exactly: the same move as ``alphabeta`` with the same seed and depth."""
    path = tmp_path / "w.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(WeightsError, match=message):
        load_weights("nymbat", path)
    agent = make_agent(f"learned(game=nymbat,weights={path},seed=7)")
    assert isinstance(agent, LearnedAlphaBetaAgent)
    assert agent.fallback is not None and message in agent.fallback and "level 5" in agent.fallback
    for st in positions(TWO, 8, 3):
        fresh = make_agent(f"learned(game=nymbat,weights={path},seed=7)")
        assert fresh.choose(st, iterations=2) == AlphaBetaAgent(seed=7).choose(st, iterations=2)


def test_the_learned_search_uses_its_value_and_plays_legal_moves() -> None:
    """With the shipped weights the leaves are scored by the learned value (and the moves stay legal)."""
    agent = make_agent("learned(game=nymbat,seed=3)")
    assert isinstance(agent, LearnedAlphaBetaAgent) and agent.value is not None
    st = positions(TWO, 9, 1)[0]
    assert agent._static(st, 0, 1) == pytest.approx(agent.value.value(st, 0))
    for _ in range(4):
        if st.is_terminal():
            break
        a = agent.choose(st, iterations=2)
        assert a in st.legal_actions()
        st.apply_action(a)


def test_options_of_the_other_search_are_refused() -> None:
    with pytest.raises(ValueError, match="no option 'c'"):
        make_agent("learned(game=nymbat,c=0.7)")
    with pytest.raises(ValueError, match="no option 'max_depth'"):
        make_agent("learned(game=nume,max_depth=3)")


def test_with_four_players_the_search_is_level_5s_paranoid_alpha_beta() -> None:
    """The learned value is for two players: with four the agent searches exactly as ``alphabeta``."""
    for st in positions(FOUR, 10, 2):
        agent = make_agent("learned(game=nymbat,seed=2)")
        assert isinstance(agent, LearnedAlphaBetaAgent) and agent.value is not None
        assert agent.choose(st, iterations=2) == AlphaBetaAgent(seed=2).choose(st, iterations=2)
        assert math.isfinite(agent.value.value(st, 3))


def test_the_learned_whole_turn_search_scores_its_rollouts_with_the_learned_value(tmp_path: Path) -> None:
    """``search=turns``: four-player Nymbat's ``turns`` with the learned value at the end of each rollout;
    without usable weights it is ``turns`` exactly (the same step with the same seed and limit)."""
    small = tessera.load_game("nymbat(players=4,reserve=12,first_limit=8,max_turns=120)")
    st = positions(small, 12, 1)[0]
    agent = make_agent("learned(game=nymbat,search=turns,limit=6,seed=4)")
    assert isinstance(agent, LearnedTurnAgent) and agent.value is not None and agent.fallback is None
    me = st.current_player()
    rollout = agent._rollout(st, me, random.Random(0))
    assert -1 <= rollout <= 1
    assert agent.choose(st) in st.legal_actions()
    missing = make_agent(f"learned(game=nymbat,search=turns,limit=6,weights={tmp_path / 'none.json'},seed=4)")
    assert isinstance(missing, LearnedTurnAgent) and missing.value is None and "cannot be read" in str(missing.fallback)
    assert missing.choose(st) == make_agent("turns(limit=6,seed=4)").choose(st)
    with pytest.raises(ValueError, match="no option 'max_depth'"):
        make_agent("learned(game=nymbat,search=turns,max_depth=2)")
    with pytest.raises(ValueError, match="search must be"):
        make_agent("learned(game=nume,search=turns)")
