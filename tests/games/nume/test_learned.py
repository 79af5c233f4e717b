"""The evaluation learned by self-play (Nume): its weights file, its agent, and training that learns.

Issue 28: "weights load from the package and a missing or corrupt weights file gives a clear
error and falls back to level 5"; "a tiny training run end to end that improves over random".
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import tessera
from tessera.agents import make_agent
from tessera.agents.learned import (
    LearnedEvaluation,
    LearnedMCTSAgent,
    WeightsError,
    features,
    hand_weights,
    load_weights,
)
from tessera.arena.train import TrainConfig, fit, log_loss, play_game, self_play, train
from tessera.games.nume.learned import NUME_FEATURES


def positions(spec: str, seed: int, count: int) -> list[tessera.State]:
    """``count`` positions of random games of ``spec`` (not over)."""
    rng = random.Random(seed)
    game = tessera.load_game(spec)
    out: list[tessera.State] = []
    while len(out) < count:
        st = game.new_initial_state()
        while not st.is_terminal() and len(out) < count:
            st.apply_action(st.random_action(rng))
            if not st.is_terminal() and rng.random() < 0.2:
                out.append(st.clone())
    return out


def test_generation_zero_is_the_hand_written_evaluation() -> None:
    """Generation 0's weights reproduce ``state.evaluate`` exactly, for both players."""
    ev = LearnedEvaluation(hand_weights())
    for st in positions("nume", 1, 60):
        for p in (0, 1):
            assert ev.value(st, p) == pytest.approx(st.evaluate(p), abs=1e-12)


def test_the_learned_value_is_zero_sum_and_in_range() -> None:
    """The features are antisymmetric, so the value for one player is minus the other's, within [-1, 1]."""
    ev = LearnedEvaluation(load_weights("nume"))
    for st in positions("nume(size=3)", 2, 60) + positions("nume(variant=square,size=5)", 3, 40):
        v0, v1 = ev.value(st, 0), ev.value(st, 1)
        assert -1 <= v0 <= 1 and v0 == pytest.approx(-v1, abs=1e-12)
        phi0, phi1 = features(st, 0), features(st, 1)
        assert phi0 is not None and phi1 is not None and np.allclose(phi0, -phi1)


def test_the_package_weights_load_and_are_not_the_hand_evaluation() -> None:
    w = load_weights("nume")
    assert w.game == "nume" and len(w.w) == len(NUME_FEATURES) and np.all(np.isfinite(w.w))
    assert not np.allclose(w.w, hand_weights().w), "the shipped weights were learned"


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot be read"),
        ("{not json", "not valid JSON"),
        ('{"format": "other"}', "not a tessera weights file"),
        ('{"format": "tessera-weights", "game": "nume", "features": ["x"], "weights": [1]}', "features"),
    ],
)
def test_a_missing_or_corrupt_weights_file_is_a_clear_error_and_the_agent_falls_back_to_level_5(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "w.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(WeightsError, match=message):
        load_weights("nume", path)
    agent = LearnedMCTSAgent("nume", path, seed=1)
    assert agent.fallback is not None and message in agent.fallback and "level 5" in agent.fallback
    st = tessera.load_game("nume(size=2)").new_initial_state()
    assert agent.choose_move(st, iterations=30) in st.legal_moves()


def test_weights_with_a_wrong_count_or_non_numbers_are_refused(tmp_path: Path) -> None:
    good = load_weights("nume").as_dict()
    n = len(good["weights"])
    for bad in ([1.0], ["a"] * n, [True] * n, [float("nan")] * n):
        path = tmp_path / "w.json"
        path.write_text(json.dumps({**good, "weights": bad}))
        with pytest.raises(WeightsError, match="finite numbers"):
            load_weights("nume", path)


@pytest.mark.parametrize(
    "spec", ["nume", "nume(size=2)", "nume(size=3)", "nume(variant=square,size=5)", "nume(komi_bidding=true,size=2)"]
)
def test_the_learned_agent_plays_legal_moves_in_every_nume_variant(spec: str) -> None:
    """Hex and square boards of any size, and komi bidding (whose bid steps use the hand evaluation)."""
    agent = make_agent("learned(game=nume,seed=3)")
    assert isinstance(agent, LearnedMCTSAgent) and agent.fallback is None
    st = tessera.load_game(spec).new_initial_state()
    rng = random.Random(0)
    for _ in range(6):
        if st.is_terminal():
            break
        move = agent.choose_move(st, iterations=40)
        assert move in st.legal_moves()
        st.play(move)
        if not st.is_terminal():
            st.apply_action(st.random_action(rng))


def test_fitting_moves_the_weights_towards_the_outcomes() -> None:
    """Positions whose one feature predicts the winner: the fit gives that feature a positive weight
    and lowers the loss; with the outcomes reversed the weight turns negative."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 3))
    z = np.where(x[:, 1] + 0.3 * rng.normal(size=2000) > 0, 1.0, -1.0)
    w0 = np.zeros(3)
    w = fit(x, z, w0)
    assert w[1] > 1.0 and abs(w[0]) < 0.3 and abs(w[2]) < 0.3
    assert log_loss(w, x, z) < log_loss(w0, x, z) - 0.3
    assert fit(x, -z, w0)[1] < -1.0


def test_a_tiny_training_run_learns_from_its_games_and_writes_resumable_checkpoints(tmp_path: Path) -> None:
    """Two generations of 12 games on a small board: each generation's fit lowers the loss of the
    weights it started from on its own games, the checkpoints are valid weights files, and a second
    call continues after the last generation."""
    cfg = TrainConfig(
        game="nume", spec="nume(size=2)", out=tmp_path, games=12, gate=4, generations=2, seed=5, curve_games=0
    )
    lines: list[str] = []
    best = train(cfg, lines.append)
    done = [line for line in lines if "positions, loss" in line]
    assert len(done) == 2 and done[0].startswith("generation 1:")
    for gen in (1, 2):
        info = json.loads((tmp_path / f"gen-{gen:03d}.json").read_text())["training"]
        assert info["loss_after"] < info["loss_before"] or gen > 1
        assert info["positions"] > 0
    assert not np.allclose(best.w, hand_weights().w), "the weights moved"
    load_weights("nume", tmp_path / "best.json")
    cfg.generations = 3
    more: list[str] = []
    train(cfg, more.append)
    assert more[0].startswith("continuing after generation 2") and more[1].startswith("generation 3:")


def test_self_play_records_positions_with_the_final_result() -> None:
    cfg = TrainConfig(game="nume", spec="nume(size=2)", games=3, seed=1)
    x, z, sizes = self_play(cfg, LearnedEvaluation(hand_weights()), random.Random(1))
    assert x.shape[1] == len(NUME_FEATURES) and len(x) == len(z) > 0 and set(np.unique(z)) <= {-1.0, 0.0, 1.0}
    assert sizes.sum() == 3 * 18, "the final groups of each game cover its 18 cells"
    r, kept = play_game(cfg, (LearnedEvaluation(hand_weights()),) * 2, random.Random(2), False)
    assert r in (-1.0, 0.0, 1.0) and kept == []


def test_candidate_numbers_follow_the_learned_number_prior(tmp_path: Path) -> None:
    """With a prior all on number 3 (a board of 18 cells), every candidate new group carries 3, the
    agent's steps are legal; on a board of another size the prior is not used."""
    weights = hand_weights()
    prior = np.zeros(19)
    prior[3] = 1.0
    weights.number_prior = prior
    path = weights.save(tmp_path / "w.json")
    agent = LearnedMCTSAgent("nume", path, seed=2)
    st = tessera.load_game("nume(size=2)").new_initial_state()
    rng = random.Random(4)
    drawn = {st.action_to_string(agent._draw(st, rng)) for _ in range(200)}
    assert drawn and all(m.endswith("=3") for m in drawn), drawn
    for _ in range(6):
        move = agent.choose_move(st, iterations=40)
        assert move in st.legal_moves()
        st.play(move)
    other = tessera.load_game("nume(size=3)").new_initial_state()
    numbers = {other.action_to_string(agent._draw(other, rng)).split("=")[-1] for _ in range(200)}
    assert len(numbers) > 5, "another board size: numbers drawn uniformly"


def test_the_compiled_value_equals_the_training_models_output() -> None:
    """Issue 28: "the kernel inference equals the training framework's output on random positions (to 1e-5)":
    the search's compiled ``tanh(w·φ)`` against numpy's ``tanh(X @ w)``, the model the fit trains."""
    weights = load_weights("nume")
    ev = LearnedEvaluation(weights)
    states = positions("nume", 7, 80)
    x = np.array([features(st, st.current_player()) for st in states])
    want = np.tanh(x @ weights.w)
    got = np.array([ev.value(st, st.current_player()) for st in states])
    assert np.max(np.abs(got - want)) < 1e-5
