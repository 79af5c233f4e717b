"""``tessera train GAME``: train a game's learned evaluation, the way its kit says
(:attr:`tessera.core.kits.learned.LearnedKit.training`).

A game trained stage by stage (Nibble's leaf value) goes to :func:`tessera.arena.stages.train_stages`.
A game trained by *self-play generations* (Nume: a linear value over compiled features) runs here.

Each *generation*:

1. **Self-play** — ``games`` games between two copies of the current best player.  With
   ``iterations > 0`` (the default) that player is level 5's search with the current best
   evaluation (:class:`~tessera.agents.learned.agent.LearnedMCTSAgent`) at ``iterations``
   simulations a step, after ``opening`` random steps (so that the games differ).  With
   ``iterations=0`` each step is chosen among ``sample`` random candidate steps by the value
   of the position it leads to (one step of look-ahead: cheap, but its positions are not
   those a search meets), a random candidate with probability ``epsilon``.  Every position
   after a step is kept with the game's final result from player 0's side.
2. **Fit** — the game's learned prior where it has one (``LearnedKit.finals`` of the last
   ``window`` generations' games, fitted by ``LearnedKit.prior``; Nume: the number prior of its
   candidate new groups, from the final group sizes).  Then logistic regression of the result on
   the features over the last ``window``
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
from tessera.arena.stages import train_stages
from tessera.core.game import State
from tessera.core.registry import game_class, list_games, load_game


def trainable() -> list[str]:
    """The games ``tessera train`` trains (their learned kit says how: ``LearnedKit.training``), sorted."""
    out = []
    for name in list_games():
        declared = game_class(name).learned()
        if declared is not None and declared.training is not None:
            out.append(name)
    return out


@dataclass
class TrainConfig:
    """One run of self-play generations (``tessera train --help`` lists the settings): ``game`` the game's
    name, ``spec`` the game string the games are played with, ``out`` the checkpoints' directory."""

    game: str
    spec: str
    out: Path = Path("training")
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
    finals = kit(cfg.game).finals
    if sizes is not None and finals is not None:
        sizes += finals(state)
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
    declared = kit(cfg.game)
    if declared.training != "generations":
        raise ValueError(f"tessera train: {cfg.game!r} is not trained by self-play generations")
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
        if declared.prior is not None:  # the game's learned prior, fitted to its games' finals (Nume's numbers)
            cand.number_prior = declared.prior(np.concatenate(szs), load_game(cfg.spec))
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


def register(subparsers: object) -> None:
    """``tessera train GAME [--minutes M] [--games N] [--seed S] [--out DIR] …`` (a small hook in the CLI)."""
    p = subparsers.add_parser(  # type: ignore[attr-defined]
        "train",
        help="train a learned evaluation (by self-play generations, or stage by stage from exact results)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("game", help=f"game spec ({', '.join(trainable())}; e.g. a board size in parentheses)")
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
        "stages: of the search that labels the stages above the first (default 300)",
    )
    p.add_argument("--positions", type=int, default=1500, help="stages: labelled positions a stage (default 1500)")
    p.add_argument(
        "--stages", default="18,36", help="stages: what is left (Nibble: blocks) at each stage, increasing (18,36)"
    )
    p.add_argument("--opening", type=int, default=4, help="random steps opening each game (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_run)


def _run(args: object) -> int:
    a: object = args
    spec = str(a.game)  # type: ignore[attr-defined]
    game = load_game(spec).name
    declared = game_class(game).learned()
    if declared is None or declared.training is None:
        print(f"tessera train: no learned evaluation for {game!r} (only {', '.join(trainable())})")
        return 2
    iterations = a.iterations  # type: ignore[attr-defined]
    if declared.training == "stages":  # exact labels and stages, not self-play generations
        try:
            stages = tuple(int(t) for t in str(a.stages).split(","))  # type: ignore[attr-defined]
            w = train_stages(
                spec,
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
    "TrainConfig",
    "elo_of",
    "fit",
    "gate",
    "learning_curve",
    "log_loss",
    "match_score",
    "play_game",
    "register",
    "run_games",
    "self_play",
    "train",
    "train_stages",
    "trainable",
]
