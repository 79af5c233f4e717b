"""Nibble's learned leaf value: positions labelled by the exact solver, the compiled leaf, the agent.

Issue 28: "the kernel inference equals the training framework's output on random positions
(to 1e-5)"; "a tiny training run end to end that improves over random"; "a missing or
corrupt weights file gives a clear error and falls back to level 5".
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tessera
from tessera.agents import make_agent
from tessera.agents.learned import LearnedMCTSAgent, Weights, WeightsError, hand_weights, load_weights
from tessera.agents.learned.training import mcts_guide, sample_position
from tessera.core.kernels import I64, rng_state
from tessera.games.nibble import learned as nb
from tessera.games.nibble.kernels import ON_BOARD, OVER, TAKING, scratch
from tessera.games.nibble.solver import NibbleSolver


def between_turns(st: tessera.State) -> bool:
    """No turn is under way (the leaf finishes a turn under way before it scores a position)."""
    k = st.game.geo.shape[0] - 1  # type: ignore[attr-defined]
    return bool(st.s[k + 2 * st.game.colors + TAKING] < 0)  # type: ignore[attr-defined]


def random_positions(seed: int, count: int) -> list[tessera.State]:
    """``count`` positions of random Nibble games (not over, between turns), square and hex boards."""
    rng = random.Random(seed)
    out: list[tessera.State] = []
    specs = ["nibble", "nibble(colors=13,board=hex)"]
    while len(out) < count:
        st = tessera.load_game(specs[len(out) % 2]).new_initial_state(seed=rng.randrange(1000))
        while not st.is_terminal() and len(out) < count:
            st.apply_action(st.random_action(rng))
            if not st.is_terminal() and between_turns(st) and rng.random() < 0.1:
                out.append(st.clone())
    return out


def test_the_compiled_leaf_equals_the_training_models_output() -> None:
    """At a position of no more blocks than ``reach`` the compiled leaf is ``tanh(w·φ)``: equal to numpy's
    ``tanh(X @ w)`` (the model the fit trains) to 1e-5 on random positions."""
    w = np.random.default_rng(3).normal(size=len(nb.NIBBLE_FEATURES))
    states = random_positions(1, 60)
    x = np.array([nb.features(st) for st in states])
    want = nb.value_numpy(x, w)
    got = np.array([nb.NibbleLeaf(w, reach=200).value(st) for st in states])
    assert np.max(np.abs(got - want)) < 1e-5


def test_the_leaf_plays_randomly_down_to_reach_and_leaves_the_state_alone() -> None:
    st: Any = tessera.load_game("nibble").new_initial_state(seed=4)
    before = st.s.copy()
    work = st.s.copy()
    ws = scratch(st.game.geo)
    nb.random_to(work, st._deal, st.game.geo, ws, rng_state(9), I64(18))
    k = st.game.geo.shape[0] - 1
    h = k + 2 * st.game.colors
    assert work[h + OVER] == 1 or (work[h + ON_BOARD] <= 18 and work[h + TAKING] < 0)
    leaf = nb.NibbleLeaf(np.ones(len(nb.NIBBLE_FEATURES)), seed=2)
    values = [leaf.value(st) for _ in range(200)]
    assert all(-1.0 <= v <= 1.0 for v in values) and len(set(values)) > 10
    assert np.array_equal(st.s, before)


def test_training_positions_carry_the_solvers_result_for_player_0() -> None:
    """Each sampled position has at most 18 blocks; its label is the exact result, seen by player 0."""
    rng = random.Random(5)
    game = tessera.load_game("nibble")
    solver = NibbleSolver(18)
    for _ in range(4):
        st = sample_position(game, rng, 18, guided=4, iterations=20)
        if st is None:
            continue
        assert len(st.to_dict()["cells"]) <= 18 and not st.is_terminal()
        assert st.legal_moves(), "a usable position"
        out = solver.solve(st, None, exact=False)
        assert out is not None and out.value in (-1, 1)
    x, y, info = nb.solved_dataset(game, 6, random.Random(6), mcts_guide(20), guided=4)
    assert x.shape == (6, len(nb.NIBBLE_FEATURES)) and set(np.unique(y)) <= {-1.0, 1.0}
    assert info["positions"] == 6 and 0 <= info["rollout_mse"] <= 4


def test_a_tiny_training_run_improves_over_random_weights() -> None:
    """Fit on 60 solver-labelled positions: on 40 others its squared error is below that of random weights
    and below 1 (the error of always saying 'even')."""
    game = tessera.load_game("nibble")
    x, y, _ = nb.solved_dataset(game, 60, random.Random(7), mcts_guide(20), guided=10)
    xt, yt, _ = nb.solved_dataset(game, 40, random.Random(8), mcts_guide(20), guided=10)
    w = nb.fit_logistic(x, y)
    rand = np.random.default_rng(0).normal(size=len(w))
    assert nb.mse(xt, yt, w) < min(1.0, nb.mse(xt, yt, rand))
    assert nb.mse(x, y, w) < nb.mse(x, y, np.zeros(len(w)))


def test_nibble_weights_save_and_load(tmp_path: Path) -> None:
    w = Weights("nibble", np.arange(len(nb.NIBBLE_FEATURES), dtype=float) / 10, {"note": "test"})
    back = load_weights("nibble", w.save(tmp_path / "n.json"))
    assert back.game == "nibble" and np.allclose(back.w, w.w)
    assert len(hand_weights("nibble").w) == len(nb.NIBBLE_FEATURES)
    with pytest.raises(WeightsError, match="weights for nume, not nibble"):
        load_weights("nibble", hand_weights("nume").save(tmp_path / "nume.json"))


@pytest.mark.parametrize("content, message", [(None, "cannot be read"), ("[1, 2", "not valid JSON")])
def test_a_missing_or_corrupt_nibble_weights_file_falls_back_to_level_5s_search(
    tmp_path: Path, content: str | None, message: str
) -> None:
    """The agent says why and searches as level 5 does (random games to the end at the leaves)."""
    path = tmp_path / "w.json"
    if content is not None:
        path.write_text(content)
    agent = make_agent(f"learned(game=nibble,weights={path},seed=1)")
    assert isinstance(agent, LearnedMCTSAgent)
    assert agent.fallback is not None and message in agent.fallback and "level 5" in agent.fallback
    assert agent.leaf is None and agent.rollout_cutoff == -1
    st = tessera.load_game("nibble").new_initial_state(seed=1)
    assert agent.choose_move(st, iterations=50) in st.legal_moves()


def test_the_learned_nibble_agent_plays_legal_steps_to_the_end(tmp_path: Path) -> None:
    path = Weights("nibble", np.ones(len(nb.NIBBLE_FEATURES))).save(tmp_path / "w.json")
    agent = LearnedMCTSAgent("nibble", path, seed=3)
    assert agent.fallback is None and agent.leaf is not None and agent.sample == 1
    st = tessera.load_game("nibble").new_initial_state(seed=2)
    rng = random.Random(1)
    while not st.is_terminal():
        if st.current_player() == 0:
            move = agent.choose_move(st, iterations=30)
            assert move in st.legal_moves()
            st.play(move)
        else:
            st.apply_action(st.random_action(rng))
    assert st.returns()[0] in (-1.0, 0.0, 1.0)


def test_staged_weights_round_trip_and_bad_stages_are_refused(tmp_path: Path) -> None:
    """A stage above the first (random steps down to 36 blocks, then its own weights) is kept in the file;
    a stage whose reach is not above the first stage's, or with the wrong number of weights, is refused."""
    nf = len(nb.NIBBLE_FEATURES)
    w = Weights("nibble", np.ones(nf), reach=18, stages=[(36, np.full(nf, 0.5))])
    back = load_weights("nibble", w.save(tmp_path / "s.json"))
    assert back.reach == 18 and len(back.stages) == 1 and back.stages[0][0] == 36
    assert np.allclose(back.stages[0][1], 0.5)
    agent = LearnedMCTSAgent("nibble", tmp_path / "s.json", seed=1)
    assert agent.leaf is not None and list(agent.leaf.reaches) == [36, 18]
    st = tessera.load_game("nibble").new_initial_state(seed=3)
    assert agent.choose_move(st, iterations=40) in st.legal_moves()
    for stages in ([(18, np.ones(nf))], [(40, np.ones(nf - 1))]):
        bad = Weights("nibble", np.ones(nf), reach=18, stages=stages).save(tmp_path / "bad.json")
        with pytest.raises(WeightsError, match="stages"):
            load_weights("nibble", bad)


def test_tessera_train_nibble_fits_stage_by_stage_and_continues(tmp_path: Path) -> None:
    """A tiny run (two stages of 25 positions): the first stage's fit beats random weights on its own
    positions, the weights file has both stages, and a second run keeps what is written."""
    from tessera.arena.stages import train_stages

    lines: list[str] = []
    w = train_stages("nibble", tmp_path, positions=25, stages=(14, 30), iterations=40, seed=2, report=lines.append)
    assert [line.split(":")[0] for line in lines] == ["stage 1 (reach 14)", "stage 2 (reach 30)"]
    assert w.reach == 14 and [r for r, _ in w.stages] == [30]
    data = np.load(tmp_path / "stage-1.npz")
    rand = np.random.default_rng(1).normal(size=len(w.w))
    assert nb.mse(data["x"], data["y"], w.w) < nb.mse(data["x"], data["y"], rand)
    assert load_weights("nibble", tmp_path / "best.json").stages[0][0] == 30
    again: list[str] = []
    train_stages("nibble", tmp_path, positions=25, stages=(14, 30), seed=2, report=again.append)
    assert all("kept from" in line for line in again)
    with pytest.raises(ValueError, match="increasing"):
        train_stages("nibble", tmp_path, stages=(30, 14))


@pytest.mark.parametrize("spec", ["nibble", "nibble(colors=13,board=hex)"])
def test_guided_random_steps_play_legal_games_to_the_end(spec: str) -> None:
    """The guided steps (a turn's first block the best of 3 legal ones by the learned value) keep the
    rules: every game ends with each block taken once, held by the player who took it."""
    game: Any = tessera.load_game(spec)
    w = np.random.default_rng(0).normal(size=len(nb.NIBBLE_FEATURES))
    k = game.geo.shape[0] - 1
    n = game.colors
    h = k + 2 * n
    for seed in range(6):
        st: Any = game.new_initial_state(seed=seed)
        s = st.s.copy()
        before = int(s[h + ON_BOARD])
        steps = nb.guided_rollout(s, st._deal, game.geo, scratch(game.geo), rng_state(seed), I64(-1), w, I64(3))
        assert steps > 0 and s[h + OVER] == 1
        assert int(s[k : k + 2 * n].sum()) == before - int(s[h + ON_BOARD])
        assert int(np.count_nonzero(s[:k] >= 0)) == int(s[h + ON_BOARD])
    leaf = nb.NibbleLeaf(w, seed=1, guide=3)
    st = game.new_initial_state(seed=9)
    assert all(-1.0 <= leaf.value(st) <= 1.0 for _ in range(50))
