"""``tessera train`` for a game whose learned value scores the leaves of a search stage by stage
(:attr:`tessera.core.kits.learned.LearnedKit.training` ``== "stages"``; Nibble).

The first stage's value is fitted to the game's exact labels (:attr:`LearnedKit.exact`: positions of
``stages[0]`` blocks left as the search's leaves meet them, labelled by its endgame solver), each further
stage's to the values of UCT at ``iterations`` simulations whose leaves use the stages below
(:func:`tessera.agents.learned.training.search_dataset`, the game's :attr:`LearnedKit.leaf`).  Each stage
is fitted on four fifths of its positions and reports its squared error on the rest, next to the hand
evaluation's (the first feature, as :func:`~tessera.agents.learned.model.hand_weights` has it) and one
random game's.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tessera.agents.learned.model import Weights, kit, load_weights
from tessera.agents.learned.training import mcts_guide, search_dataset
from tessera.core.kits.fitting import fit_logistic, mse
from tessera.core.registry import load_game

GUIDE_ITERATIONS = 50
"""UCT's simulations a guided step when the first stage's positions are sampled."""


def train_stages(
    spec: str,
    out: Path,
    positions: int = 1500,
    stages: tuple[int, ...] = (18, 36),
    iterations: int = 300,
    seed: int = 0,
    report: Callable[[str], None] = print,
) -> Weights:
    """The staged leaf value of ``spec``'s game (module docstring), one stage after the other.

    ``stages``: the number left (Nibble: blocks) at each stage's positions, increasing.  ``out`` gets
    ``stage-N.json`` (the weights up to stage N), ``stage-N.npz`` (its positions ``x``, ``y``),
    ``history.jsonl`` and ``best.json``; a stage already written is kept, so a second run continues.
    ValueError for stages that do not increase, fewer than 5 positions a stage, or a game not trained
    by stages."""
    game = load_game(spec)
    declared = kit(game.name)
    if declared.training != "stages" or declared.exact is None or declared.leaf is None:
        raise ValueError(f"train {game.name}: its learned value is not trained stage by stage")
    if not stages or list(stages) != sorted(set(stages)) or stages[0] < 1:
        raise ValueError(f"train {game.name}: stages must be increasing numbers, not {stages!r}")
    if positions < 5:
        raise ValueError(f"train {game.name}: at least 5 positions a stage, not {positions!r}")
    out.mkdir(parents=True, exist_ok=True)
    weights: Weights | None = None
    for i, reach in enumerate(stages):
        path = out / f"stage-{i + 1}.json"
        if path.exists():
            weights = load_weights(game.name, path)
            report(f"stage {i + 1} (reach {reach}): kept from {path}")
            continue
        rng = random.Random(seed * 1000 + i)
        t0 = time.process_time()
        if weights is None:
            x, y, info = declared.exact(game, positions, rng, mcts_guide(GUIDE_ITERATIONS), reach)
        else:
            leaf = declared.leaf(weights.w, weights.reach or stages[0], weights.stages, rng.randrange(2**62), 1)
            x, y, info = search_dataset(game, positions, rng, leaf, reach, iterations)
        n_test = max(1, len(y) // 5)
        w = fit_logistic(x[n_test:], y[n_test:])
        test = mse(x[:n_test], y[:n_test], w)
        hand = float(np.mean((x[:n_test, 0] - y[:n_test]) ** 2))
        cpu = time.process_time() - t0
        figures = {
            "stage": i + 1,
            "reach": reach,
            "labels": "exact solver" if weights is None else f"UCT at {iterations} simulations",
            "positions": len(y),
            "held_out_mse": round(test, 5),
            "hand_mse": round(hand, 5),
            "random_game_mse": round(float(info["rollout_mse"]), 5),
            "cpu_seconds": round(cpu, 1),
            "seed": seed,
        }
        if weights is None:
            weights = Weights(game.name, w, {}, reach=reach)
        else:
            weights.stages.append((reach, w))
        weights.training[f"stage {i + 1}"] = figures
        np.savez_compressed(out / f"stage-{i + 1}.npz", x=x, y=y)
        weights.save(path)
        with (out / "history.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(figures) + "\n")
        report(
            f"stage {i + 1} (reach {reach}): {len(y)} positions, held-out squared error {test:.3f} "
            f"(hand evaluation {hand:.3f}, one random game {info['rollout_mse']:.3f}), {cpu:.1f} s CPU"
        )
    assert weights is not None
    weights.save(out / "best.json")
    return weights


__all__ = ["GUIDE_ITERATIONS", "train_stages"]
