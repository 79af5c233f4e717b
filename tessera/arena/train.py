"""``tessera train GAME``: learn an evaluation by self-play (Nume: a linear value over compiled features).

Nibble is trained differently (:func:`train_nibble`): its leaf value's first stage is fitted to the
exact endgame solver's results, each further stage to the values of a search over the stages below.

Each *generation*:

1. **Self-play** — ``games`` games between two copies of the current best player.  With
   ``iterations > 0`` (the default) that player is level 5's search with the current best
   evaluation (:class:`~tessera.agents.learned.agent.LearnedMCTSAgent`) at ``iterations``
   simulations a step, after ``opening`` random steps (so that the games differ).  With
   ``iterations=0`` each step is chosen among ``sample`` random candidate steps by the value
   of the position it leads to (one step of look-ahead: cheap, but its positions are not
   those a search meets), a random candidate with probability ``epsilon``.  Every position
   after a step is kept with the game's final result from player 0's side.
2. **Fit** — the *number prior*: the distribution of the final sizes of the groups in the
   last ``window`` generations' games, smoothed (a Gaussian of width 1.5) with a 5 % uniform
   floor — a group's price is its numbers' distance from its size, so a number worth
   writing is a size groups end with; the search draws the numbers of its candidate new
   groups from it.  Then logistic regression of the result on the features over the last ``window``
   generations' positions: ``P(win) = σ(2 w·φ)``, so ``tanh(w·φ)`` is the expected result
   (a draw counts half); Newton steps with a small L2 penalty.
3. **Gate** — ``gate`` games (seats alternated) between the new and the best weights, each
   playing as in self-play; the new weights become the best when they score at least half.

Generation 0's weights reproduce the hand-written evaluation exactly.  The run is seeded,
and resumable: each generation writes ``gen-NNN.json`` (weights, gate result) and
``gen-NNN.npz`` (its positions) to ``out`` and appends the generation's figures to
``history.jsonl``; a second run with the same ``out`` continues
after the last generation written.  ``best.json`` is the best weights so far.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tessera.agents.learned.agent import LearnedMCTSAgent
from tessera.agents.learned.model import (
    LearnedEvaluation,
    Weights,
    features,
    hand_weights,
    kit,
    load_weights,
)
from tessera.core.game import State
from tessera.core.registry import load_game
from tessera.games.nibble.learned import GAME as NIBBLE

TRAINABLE = ("nume", NIBBLE)
"""Games ``tessera train`` can learn an evaluation for (Nibble: :func:`train_nibble`)."""


@dataclass
class TrainConfig:
    """One training run's settings (``tessera train --help`` lists them)."""

    game: str = "nume"
    spec: str = "nume"
    out: Path = Path("training/nume")
    minutes: float = 10.0
    generations: int = 1000
    games: int = 200
    sample: int = 8
    epsilon: float = 0.1
    iterations: int = 100
    opening: int = 4
    window: int = 3
    gate: int = 100
    l2: float = 1e-3
    seed: int = 0
    jobs: int = 1
    """Local processes playing the self-play, gate and curve games (1: this process)."""
    ray: str | None = None
    """A Ray address (``auto``, ``local`` or a cluster's) playing those games instead."""
    curve_games: int = 20
    """Games of each generation's best against generation 0 (level 5's search with the hand-written
    evaluation, at the same simulations) for the learning curve; 0: no curve."""


def _choose(state: State, ev: LearnedEvaluation, cfg: TrainConfig, rng: random.Random) -> int:
    """The self-play step: the best of ``sample`` random candidates by one step of look-ahead."""
    me = state.current_player()
    seen: set[int] = set()
    for _ in range(4 * cfg.sample):
        seen.add(state.random_action(rng))
        if len(seen) >= cfg.sample:
            break
    cands = sorted(seen)
    if len(cands) == 1 or rng.random() < cfg.epsilon:
        return cands[rng.randrange(len(cands))]
    best, best_v = cands[0], -2.0
    for a in cands:
        child = state.clone()
        child.apply_legal(a)
        v = 2.0 * child.returns()[me] if child.is_terminal() else ev.value(child, me)
        if v > best_v:
            best, best_v = a, v
    return best


def group_sizes(state: State) -> list[int]:
    """The sizes of the groups on a Nume board."""
    from tessera.games.nume.kernels import GID, GSIZE

    st: Any = state
    a, n = st._a, state.game.cells  # type: ignore[attr-defined]
    return [int(a[GSIZE * n + c]) for c in range(n) if a[c] >= 0 and a[GID * n + c] == c]


def number_prior(sizes: np.ndarray, cells: int, sigma: float = 1.5, floor: float = 0.05) -> np.ndarray:
    """The smoothed distribution over ``0 … cells`` of final group ``sizes`` (see the module docstring)."""
    k = np.arange(cells + 1, dtype=np.float64)
    hist = np.bincount(np.clip(sizes.astype(np.int64), 0, cells), minlength=cells + 1).astype(np.float64)
    kernel = np.exp(-0.5 * ((k[:, None] - k[None, :]) / sigma) ** 2)
    smooth = kernel @ hist
    smooth = smooth / smooth.sum() if smooth.sum() > 0 else np.full(cells + 1, 1.0 / (cells + 1))
    out: np.ndarray = (1.0 - floor) * smooth + floor / (cells + 1)
    return out


def play_game(
    cfg: TrainConfig,
    evs: tuple[LearnedEvaluation, LearnedEvaluation],
    rng: random.Random,
    keep: bool,
    sizes: list[int] | None = None,
) -> tuple[float, list[np.ndarray]]:
    """One self-play game, ``evs[p]`` choosing for player ``p``: player 0's result and (if ``keep``) the
    feature vectors of every position after a step, seen by player 0; the final group sizes are
    added to ``sizes`` when given."""
    state = load_game(cfg.spec).new_initial_state(seed=rng.randrange(2**31))
    kept: list[np.ndarray] = []
    searchers = None
    if cfg.iterations > 0:
        searchers = [LearnedMCTSAgent(cfg.game, ev.weights, seed=rng.randrange(2**31)) for ev in evs]
    steps = 0
    while not state.is_terminal():
        p = state.current_player()
        if searchers is None:
            action = _choose(state, evs[p], cfg, rng)
        elif steps < cfg.opening:
            action = state.random_action(rng)
        else:
            action = searchers[p].choose(state, iterations=cfg.iterations, rng=rng)
        state.apply_legal(action)
        steps += 1
        if keep and not state.is_terminal():
            phi = features(state, 0)
            if phi is not None:
                kept.append(phi)
    if sizes is not None:
        sizes += group_sizes(state)
    return float(state.returns()[0]), kept


GameOut = tuple[float, list[np.ndarray], list[int]]
"""One game's player-0 result, kept feature vectors and final group sizes."""


def _play_games(
    cfg: TrainConfig, pair: tuple[Weights, Weights], seeds: list[int], seats: list[int], keep: bool
) -> list[GameOut]:
    """Games of ``pair[0]`` (in seat ``seats[i]``) against ``pair[1]``, game ``i`` from ``seeds[i]``."""
    evs = (LearnedEvaluation(pair[0]), LearnedEvaluation(pair[1]))
    out: list[GameOut] = []
    for seed, seat in zip(seeds, seats, strict=True):
        sizes: list[int] = []
        z, kept = play_game(cfg, evs if seat == 0 else (evs[1], evs[0]), random.Random(seed), keep, sizes)
        out.append((z, kept, sizes))
    return out


def run_games(
    cfg: TrainConfig, pair: tuple[Weights, Weights], seeds: list[int], seats: list[int], keep: bool
) -> list[GameOut]:
    """:func:`_play_games` here, in ``cfg.jobs`` processes or on Ray (``cfg.ray``): the same games and
    results in the same order whichever runs them (every game is seeded by its own seed)."""
    n = len(seeds)
    if (cfg.ray is None and cfg.jobs <= 1) or n <= 1:
        return _play_games(cfg, pair, seeds, seats, keep)
    workers = max(cfg.jobs, 1) if cfg.ray is None else max(cfg.jobs, 4)
    size = max(1, -(-n // (4 * workers)))
    chunks = [(seeds[i : i + size], seats[i : i + size]) for i in range(0, n, size)]
    if cfg.ray is not None:
        from tessera.arena.runner import ray_session

        ray = ray_session(cfg.ray)
        remote = ray.remote(_play_games)
        parts = ray.get([remote.remote(cfg, pair, a, b, keep) for a, b in chunks])
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=cfg.jobs, mp_context=mp.get_context("fork")) as pool:
            parts = list(pool.map(_play_games, *zip(*[(cfg, pair, a, b, keep) for a, b in chunks], strict=True)))
    return [g for part in parts for g in part]


def self_play(cfg: TrainConfig, ev: LearnedEvaluation, rng: random.Random) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``cfg.games`` self-play games: positions ``X`` (features for player 0), results ``z`` (player 0)
    and the final group sizes."""
    seeds = [rng.randrange(2**31) for _ in range(cfg.games)]
    xs: list[np.ndarray] = []
    zs: list[float] = []
    sizes: list[int] = []
    for z, kept, sz in run_games(cfg, (ev.weights, ev.weights), seeds, [0] * len(seeds), True):
        xs += kept
        zs += [z] * len(kept)
        sizes += sz
    n = len(kit(cfg.game).features)
    return (np.array(xs).reshape(-1, n), np.array(zs, dtype=np.float64), np.array(sizes, dtype=np.int64))


def log_loss(w: np.ndarray, x: np.ndarray, z: np.ndarray) -> float:
    """Mean logistic loss of ``P(win) = σ(2 w·φ)`` against the results (+1 win, 0 draw as ½, −1 loss)."""
    s = 2.0 * (x @ w)
    y = (z + 1.0) / 2.0
    return float(np.mean(np.logaddexp(0.0, s) - y * s))


def fit(x: np.ndarray, z: np.ndarray, w0: np.ndarray, l2: float = 1e-3, steps: int = 30) -> np.ndarray:
    """Weights minimising :func:`log_loss` plus ``l2·|w|²/2`` (damped Newton steps from ``w0``)."""
    w = w0.astype(np.float64).copy()
    if len(z) == 0:
        return w
    y = (z + 1.0) / 2.0
    m = len(z)
    for _ in range(steps):
        s = 2.0 * (x @ w)
        p = 1.0 / (1.0 + np.exp(-s))
        g = 2.0 * x.T @ (p - y) / m + l2 * w
        h = 4.0 * (x.T * (p * (1.0 - p))) @ x / m + l2 * np.eye(len(w))
        step = np.linalg.solve(h, g)
        t = 1.0
        base = log_loss(w, x, z) + 0.5 * l2 * float(w @ w)
        while t > 1e-4:
            cand = w - t * step
            if log_loss(cand, x, z) + 0.5 * l2 * float(cand @ cand) <= base:
                break
            t /= 2
        w = w - t * step
        if float(np.max(np.abs(t * step))) < 1e-7:
            break
    return w


def match_score(cfg: TrainConfig, a: Weights, b: Weights, games: int, rng: random.Random) -> float:
    """Score of ``a`` against ``b`` over ``games`` games of the self-play players, seats alternated (draw ½)."""
    seeds = [rng.randrange(2**31) for _ in range(games)]
    seats = [i % 2 for i in range(games)]
    score = 0.0
    for (z, _, _), seat in zip(run_games(cfg, (a, b), seeds, seats, False), seats, strict=True):
        r = z if seat == 0 else -z
        score += 1.0 if r > 0 else 0.5 if r == 0 else 0.0
    return score / max(1, games)


def gate(cfg: TrainConfig, new: LearnedEvaluation, best: LearnedEvaluation, rng: random.Random) -> float:
    """Score of ``new`` against ``best`` over ``cfg.gate`` self-play-policy games, seats alternated (draw ½)."""
    return match_score(cfg, new.weights, best.weights, cfg.gate, rng)


def elo_of(score: float, games: int) -> tuple[float, float, float]:
    """The Elo difference a score implies, with the ends of its Wilson 95 % interval (a score of 0 or 1
    is moved half a game inwards, so the figures stay finite).

    >>> [round(x) for x in elo_of(0.75, 40)]
    [191, 69, 313]
    """
    from tessera.arena.stats import wilson_interval

    def elo(s: float) -> float:
        s = min(max(s, 0.5 / games), 1 - 0.5 / games)
        return 400.0 * math.log10(s / (1.0 - s))

    lo, hi = wilson_interval(score * games, games)
    return elo(score), elo(lo), elo(hi)


def learning_curve(cfg: TrainConfig, best: Weights, gen: int, rng: random.Random) -> dict[str, object]:
    """Generation ``gen``'s best against generation 0 (the hand-written evaluation): a point of the curve,
    appended to ``curve.jsonl``, and the curve drawn again (``curve.json``, ``curve.png``)."""
    score = match_score(cfg, best, hand_weights(cfg.game), cfg.curve_games, rng)
    elo, lo, hi = elo_of(score, cfg.curve_games)
    point: dict[str, object] = {
        "generation": gen,
        "games": cfg.curve_games,
        "score": round(score, 4),
        "elo": round(elo, 1),
        "elo_lo": round(lo, 1),
        "elo_hi": round(hi, 1),
    }
    with open(cfg.out / "curve.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(point) + "\n")
    points = [json.loads(line) for line in (cfg.out / "curve.jsonl").read_text(encoding="utf-8").splitlines() if line]
    from tessera.arena.plots import write_plots

    write_plots(
        {
            "curve": {
                "kind": "intervals",
                "title": f"{cfg.spec}: each generation's best against the hand-written evaluation",
                "xlabel": "generation",
                "ylabel": f"Elo (level 5's search at {cfg.iterations} simulations, hand evaluation = 0)",
                "reference": 0,
                "series": [
                    {
                        "label": f"{cfg.curve_games} games a point, 95 % interval",
                        "x": [p["generation"] for p in points],
                        "y": [p["elo"] for p in points],
                        "lo": [p["elo_lo"] for p in points],
                        "hi": [p["elo_hi"] for p in points],
                    }
                ],
            }
        },
        cfg.out,
    )
    return point


def _spent(cfg: TrainConfig) -> float:
    """What ``cfg.minutes`` counts: the CPU time of this process and of its finished worker processes
    (``--jobs``); with Ray, whose workers run elsewhere, the wall-clock time."""
    if cfg.ray is not None:
        return time.time()
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def _last_generation(out: Path) -> int:
    gens = sorted(int(p.stem[4:]) for p in out.glob("gen-*.json") if p.stem[4:].isdigit())
    return gens[-1] if gens else 0


def train(cfg: TrainConfig, report: Callable[[str], None] = print) -> Weights:
    """Run (or continue) the self-play training described in the module docstring; returns the best weights.

    Stops after ``cfg.generations`` generations in all or when this call has used ``cfg.minutes`` of
    CPU time (checked between generations)."""
    if cfg.game not in TRAINABLE:
        raise ValueError(f"tessera train: no learned evaluation for {cfg.game!r} (only {', '.join(TRAINABLE)})")
    cfg.out.mkdir(parents=True, exist_ok=True)
    last = _last_generation(cfg.out)
    if last > 0 and (cfg.out / "best.json").exists():
        best = load_weights(cfg.game, cfg.out / "best.json")
        report(f"continuing after generation {last} in {cfg.out}")
    else:
        best = hand_weights(cfg.game)
        best.training = {"generation": 0, "note": "the hand-written evaluation", "spec": cfg.spec}
        best.save(cfg.out / "best.json")
    cpu0 = _spent(cfg)
    gen = last + 1
    while gen <= cfg.generations and (_spent(cfg) - cpu0) < cfg.minutes * 60:
        rng = random.Random(cfg.seed * 1_000_003 + gen)
        t0 = time.process_time()
        report(
            f"generation {gen}: {cfg.games} self-play games, {cfg.gate} gate games"
            + (f", {cfg.curve_games} curve games" if cfg.curve_games else "")
            + ("" if cfg.jobs <= 1 and cfg.ray is None else f" ({'Ray' if cfg.ray else f'{cfg.jobs} processes'})")
        )
        x, z, sz = self_play(cfg, LearnedEvaluation(best), rng)
        np.savez_compressed(cfg.out / f"gen-{gen:03d}.npz", x=x, z=z, sizes=sz)
        xs, zs, szs = [x], [z], [sz]
        for k in range(max(1, gen - cfg.window + 1), gen):
            f = cfg.out / f"gen-{k:03d}.npz"
            if f.exists():
                with np.load(f) as d:
                    xs.append(d["x"])
                    zs.append(d["z"])
                    if "sizes" in d:
                        szs.append(d["sizes"])
        xa, za = np.concatenate(xs), np.concatenate(zs)
        before = log_loss(best.w, xa, za)
        w = fit(xa, za, best.w, cfg.l2)
        after = log_loss(w, xa, za)
        cand = Weights(cfg.game, w)
        cells: int = getattr(load_game(cfg.spec), "cells")  # noqa: B009  (Nume's board size)
        cand.number_prior = number_prior(np.concatenate(szs), cells)
        score = gate(cfg, LearnedEvaluation(cand), LearnedEvaluation(best), rng)
        accepted = score >= 0.5
        info: dict[str, object] = {
            "generation": gen,
            "spec": cfg.spec,
            "positions": len(za),
            "loss_before": round(before, 5),
            "loss_after": round(after, 5),
            "gate_score": round(score, 4),
            "gate_games": cfg.gate,
            "accepted": accepted,
            "cpu_seconds": round(time.process_time() - t0, 1),
        }
        cand.training = info
        cand.save(cfg.out / f"gen-{gen:03d}.json")
        if accepted:
            best = Weights(cfg.game, w, {**info, "seed": cfg.seed, "games_per_generation": cfg.games})
            best.number_prior = cand.number_prior
            best.save(cfg.out / "best.json")
        with open(cfg.out / "history.jsonl", "a", encoding="utf-8") as hist:
            hist.write(json.dumps(info) + "\n")
        report(
            f"generation {gen}: {len(za)} positions, loss {before:.4f} -> {after:.4f}, "
            f"gate {score:.0%} of {cfg.gate} -> {'accepted' if accepted else 'kept the best'} "
            f"({info['cpu_seconds']} s CPU)"
        )
        if cfg.curve_games > 0:
            point = learning_curve(cfg, best, gen, rng)
            report(
                f"  curve: the best scores {point['score']:.0%} against the hand evaluation over "
                f"{cfg.curve_games} games, {point['elo']:+.0f} Elo [{point['elo_lo']:+.0f}, {point['elo_hi']:+.0f}]"
            )
        gen += 1
    return best


def train_nibble(
    out: Path,
    positions: int = 1500,
    stages: tuple[int, ...] = (18, 36),
    iterations: int = 300,
    seed: int = 0,
    report: Callable[[str], None] = print,
) -> Weights:
    """Nibble's staged leaf value (:mod:`tessera.games.nibble.learned`), one stage after the other.

    Stage 1: ``positions`` positions of ``stages[0]`` blocks as the search's leaves meet them, labelled
    by the exact endgame solver; each further stage: positions of its number of blocks labelled by UCT
    at ``iterations`` simulations whose leaves use the stages below.  Each stage is fitted on four
    fifths of its positions and reports its squared error on the rest, next to the hand evaluation's
    and one random game's.  ``out`` gets ``stage-N.json`` (the weights up to stage N), ``stage-N.npz``
    (its positions), ``history.jsonl`` and ``best.json``; a stage already written is kept, so a second
    run continues.
    """
    from tessera.agents.learned.training import mcts_guide, search_dataset
    from tessera.core.kits.fitting import fit_logistic, mse
    from tessera.games.nibble.learned import NibbleLeaf, solved_dataset

    if not stages or list(stages) != sorted(set(stages)) or stages[0] < 1:
        raise ValueError(f"train nibble: stages must be increasing numbers of blocks, not {stages!r}")
    if positions < 5:
        raise ValueError(f"train nibble: at least 5 positions a stage, not {positions!r}")
    game = load_game("nibble")
    out.mkdir(parents=True, exist_ok=True)
    weights: Weights | None = None
    for i, reach in enumerate(stages):
        path = out / f"stage-{i + 1}.json"
        if path.exists():
            weights = load_weights("nibble", path)
            report(f"stage {i + 1} (reach {reach}): kept from {path}")
            continue
        rng = random.Random(seed * 1000 + i)
        t0 = time.process_time()
        if weights is None:
            x, y, info = solved_dataset(game, positions, rng, mcts_guide(50), reach)
        else:
            leaf = NibbleLeaf(weights.w, weights.reach or stages[0], rng.randrange(2**62), weights.stages)
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
            weights = Weights("nibble", w, {}, reach=reach)
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


def register(subparsers: object) -> None:
    """``tessera train GAME [--minutes M] [--games N] [--seed S] [--out DIR] …`` (a small hook in the CLI)."""
    p = subparsers.add_parser(  # type: ignore[attr-defined]
        "train",
        help="learn an evaluation (Nume: by self-play; Nibble: from exact endgame results)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("game", help=f"game spec ({', '.join(TRAINABLE)}, e.g. 'nume' or 'nume(size=4)')")
    p.add_argument("--out", default=None, help="directory for checkpoints (default training/<game>)")
    p.add_argument("--minutes", type=float, default=None, help="CPU minutes of this run (default 10)")
    p.add_argument("--hours", type=float, default=None, help="CPU hours of this run (instead of --minutes)")
    p.add_argument("--jobs", type=int, default=1, help="local processes playing the games (default 1)")
    p.add_argument("--ray", default=None, metavar="ADDRESS", help="play the games on Ray: auto, local or an address")
    p.add_argument(
        "--curve-games",
        type=int,
        default=20,
        help="games of each generation's best against the hand evaluation for the learning curve (0: none)",
    )
    p.add_argument("--generations", type=int, default=1000, help="stop after this many generations in all")
    p.add_argument("--games", type=int, default=200, help="self-play games per generation (default 200)")
    p.add_argument("--gate", type=int, default=100, help="gate games per generation (default 100)")
    p.add_argument("--sample", type=int, default=8, help="candidate steps per move (default 8)")
    p.add_argument("--epsilon", type=float, default=0.1, help="share of random candidate steps (default 0.1)")
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="simulations per step of the self-play search (default 100; 0: one-step look-ahead among --sample); "
        "Nibble: of the search that labels the stages above the first (default 300)",
    )
    p.add_argument("--positions", type=int, default=1500, help="Nibble: labelled positions a stage (default 1500)")
    p.add_argument("--stages", default="18,36", help="Nibble: blocks left at each stage, increasing (default 18,36)")
    p.add_argument("--opening", type=int, default=4, help="random steps opening each game (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_run)


def _run(args: object) -> int:
    a: object = args
    spec = str(a.game)  # type: ignore[attr-defined]
    game = load_game(spec).name
    if game not in TRAINABLE:
        print(f"tessera train: no learned evaluation for {game!r} (only {', '.join(TRAINABLE)})")
        return 2
    iterations = a.iterations  # type: ignore[attr-defined]
    if game == NIBBLE:  # exact labels and stages, not self-play generations
        try:
            stages = tuple(int(t) for t in str(a.stages).split(","))  # type: ignore[attr-defined]
            w = train_nibble(
                Path(a.out or f"training/{game}"),  # type: ignore[attr-defined]
                positions=a.positions,  # type: ignore[attr-defined]
                stages=stages,
                iterations=300 if iterations is None else iterations,
                seed=a.seed,  # type: ignore[attr-defined]
            )
        except ValueError as e:
            print(f"tessera train: {e}")
            return 2
        except OSError as e:
            print(f"tessera train: cannot write to {a.out}: {e.strerror or e}")  # type: ignore[attr-defined]
            return 2
        reaches = [w.reach, *[r for r, _ in w.stages]]
        print(f"weights: {Path(a.out or f'training/{game}') / 'best.json'} (stages at {reaches} blocks)")  # type: ignore[attr-defined]
        return 0
    minutes, hours = a.minutes, a.hours  # type: ignore[attr-defined]
    if minutes is not None and hours is not None:
        print("tessera train: give --minutes or --hours, not both")
        return 2
    jobs, curve = a.jobs, a.curve_games  # type: ignore[attr-defined]
    if jobs < 1 or curve < 0 or (hours is not None and hours <= 0) or (minutes is not None and minutes <= 0):
        print("tessera train: --jobs must be at least 1, --curve-games at least 0, --minutes/--hours above 0")
        return 2
    cfg = TrainConfig(
        game=game,
        spec=spec,
        out=Path(a.out or f"training/{game}"),  # type: ignore[attr-defined]
        minutes=60.0 * hours if hours is not None else 10.0 if minutes is None else minutes,
        jobs=jobs,
        ray=a.ray,  # type: ignore[attr-defined]
        curve_games=curve,
        generations=a.generations,  # type: ignore[attr-defined]
        games=a.games,  # type: ignore[attr-defined]
        gate=a.gate,  # type: ignore[attr-defined]
        sample=a.sample,  # type: ignore[attr-defined]
        epsilon=a.epsilon,  # type: ignore[attr-defined]
        iterations=100 if iterations is None else iterations,
        opening=a.opening,  # type: ignore[attr-defined]
        seed=a.seed,  # type: ignore[attr-defined]
    )
    best = train(cfg)
    print(f"best weights: {cfg.out / 'best.json'} ({best.training.get('generation', 0)})")
    return 0


__all__ = [
    "TRAINABLE",
    "TrainConfig",
    "elo_of",
    "fit",
    "gate",
    "group_sizes",
    "learning_curve",
    "log_loss",
    "match_score",
    "number_prior",
    "play_game",
    "register",
    "run_games",
    "self_play",
    "train",
    "train_nibble",
]
