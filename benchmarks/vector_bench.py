"""The vector engine against pgx on the CPU and against per-step loops: steps per CPU second.

Equal work everywhere: every step chooses one uniformly random legal action per game from the
mask, inside the timed loop, and produces the observations and masks of the next step.

* ``tessera.vector`` at B = 1, 64, 1,024, 4,096: ``random_legal(batch.mask)`` then
  ``env.step(actions)`` (observations, masks, rewards, automatic resets), for Nume (size 5),
  Nibble (9 colours), Ikabegamá (the adapters' window), Nymbat (2 and 4 players) and Nelaxtam.
* pgx (JAX on the CPU, ``JAX_PLATFORMS=cpu``), ``hex`` (11×11) and ``othello``: a jitted
  ``lax.scan`` of 8 steps per call of ``vmap(auto_reset(env.step, env.init))`` with the action
  drawn by ``pgx.experimental.act_randomly`` from ``state.legal_action_mask`` (the scan keeps
  Python's dispatch out of the way; the states carry ``observation`` and the mask); in a worker of
  another interpreter with ``--pgx-python PGXENV/bin/python`` (``vector_runners.py``: pgx and JAX
  in a scratch venv, no dependency of tessera).
* Per-step loops in Python, one game: OpenSpiel's ``hex`` 11 through pyspiel (C++), with
  ``observation_tensor()`` and ``legal_actions_mask()`` each step; tessera's PettingZoo AEC env
  (``last()`` gives the planes and the mask); and the bare State API loop
  ``s.apply_action(rng.choice(s.legal_actions()))`` of tessera and of OpenSpiel (no
  observations: the per-step API's baseline; Nelaxtam: one turn of two random full orders,
  ``random_actions``, per step).

Each entry runs for ``--seconds`` of CPU time per round; the rounds interleave every entry and
the median over rounds is reported.  CPU time is the process's (``time.process_time``: every
thread, JAX's included).

Run: ``nice -n 10 python benchmarks/vector_bench.py --rounds 3 --out studies/benchmarks/vector/results.json``
then ``python benchmarks/vector_bench.py --plot studies/benchmarks/vector/results.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vector_runners import Timed, pgx_runners, tessera_vector, timed  # the runners shared with vector_targets.py

GAMES = {
    "nume": "nume",
    "nibble": "nibble",
    "ikabegama": "ikabegama",
    "nymbat": "nymbat",
    "nymbat4": "nymbat(players=4)",
    "nelaxtam": "nelaxtam",
}
BATCHES = (1, 64, 1024, 4096)
PGX_GAMES = ("hex", "othello")
TARGET_GAMES = ("nume", "nibble", "ikabegama", "nymbat")

Runner = Callable[[float], float]
"""Runs for about the given CPU seconds; returns steps per CPU second."""


def _timed(chunk: Callable[[], int], seconds: float) -> float:
    return timed(lambda: (chunk(),), seconds)[0]


def _first(run: Timed) -> Runner:
    """A shared runner's main rate (steps per CPU second)."""
    return lambda seconds: run(seconds)[0]


def openspiel_loop(observe: bool) -> Runner:
    import pyspiel

    game = pyspiel.load_game("hex", {"board_size": 11})
    rng = random.Random(0)
    state = {"s": game.new_initial_state()}

    def chunk() -> int:
        s = state["s"]
        for _ in range(200):
            if s.is_terminal():
                s = game.new_initial_state()
            if observe:
                s.observation_tensor()
                s.legal_actions_mask()
            s.apply_action(rng.choice(s.legal_actions()))
        state["s"] = s
        return 200

    chunk()
    return lambda seconds: _timed(chunk, seconds)


def tessera_state_loop(spec: str) -> Runner:
    from tessera.adapters.core import adapt

    ad = adapt(spec)  # the adapters' game: Ikabegamá on its window, like the vector engine
    rng = random.Random(0)
    deal = [0]

    def fresh() -> Any:
        deal[0] += 1
        return ad.game.new_initial_state(seed=deal[0] % 1000) if ad.dealt else ad.game.new_initial_state()

    state = {"s": fresh()}
    sim = ad.simultaneous

    def chunk() -> int:
        s = state["s"]
        for _ in range(200):
            if s.is_terminal():
                s = fresh()
            if sim:
                s.apply_actions([s.random_actions(rng, p) for p in range(ad.num_players)])  # one turn
            else:
                s.apply_action(rng.choice(s.legal_actions()))
        state["s"] = s
        return 200

    chunk()
    return lambda seconds: _timed(chunk, seconds)


def pettingzoo_loop(spec: str) -> Runner:
    from tessera.adapters.pettingzoo import env

    e = env(spec)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    seed = [0]

    def chunk() -> int:
        for _ in range(50):
            obs, _, term, trunc, _ = e.last()
            if term or trunc or not e.agents:
                seed[0] += 1
                e.reset(seed=seed[0])
                obs, _, term, trunc, _ = e.last()
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return 50

    chunk()
    return lambda seconds: _timed(chunk, seconds)


def machine() -> dict[str, Any]:
    model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    versions: dict[str, str] = {"python": platform.python_version(), "numpy": np.__version__}
    for mod in ("numba", "jax", "pgx", "pyspiel"):
        with contextlib.suppress(ImportError):
            versions[mod] = getattr(__import__(mod), "__version__", "?")
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "load_average_at_start": load,
        "versions": versions,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def build(args: argparse.Namespace) -> dict[str, Runner]:
    runners: dict[str, Runner] = {}
    games = args.games.split(",")
    batches = [int(b) for b in args.batches.split(",")]
    for g in games:
        for b in batches:
            runners[f"tessera/{g}/B={b}"] = _first(tessera_vector(GAMES[g], b))
    if not args.no_pgx:
        pgx, _, note = pgx_runners(list(PGX_GAMES), batches, args.pgx_python)  # the worker ends with this process
        if note:
            print(note, file=sys.stderr)
        for (name, b), run in pgx.items():
            runners[f"pgx/{name}/B={b}"] = _first(run)
    if not args.no_loops:
        runners["openspiel/hex11/obs+mask loop"] = openspiel_loop(True)
        runners["openspiel/hex11/state loop"] = openspiel_loop(False)
        for g in games:
            runners[f"pettingzoo/{g}/aec loop"] = pettingzoo_loop(GAMES[g])
            runners[f"tessera/{g}/state loop"] = tessera_state_loop(GAMES[g])
    return runners


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per entry and round")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--batches", default=",".join(str(b) for b in BATCHES))
    ap.add_argument("--no-pgx", action="store_true")
    ap.add_argument("--pgx-python", help="an interpreter with pgx and jax (a scratch venv), run as a worker")
    ap.add_argument("--no-loops", action="store_true")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--plot", type=Path, help="draw the PNG of a results file (written beside it) and stop")
    args = ap.parse_args(argv)
    if args.plot:
        print(plot(args.plot))
        return
    info = machine()
    print(f"# {info['cpu']}, {info['cores']} cores, {info['date']}", file=sys.stderr)
    runners = build(args)
    rates: dict[str, list[float]] = {k: [] for k in runners}
    for r in range(args.rounds):
        for name, run in runners.items():
            rates[name].append(run(args.seconds))
        print(f"# round {r + 1}/{args.rounds} done", file=sys.stderr)
        report(args, info, rates, final=r + 1 == args.rounds)


def report(args: argparse.Namespace, info: dict[str, Any], rates: dict[str, list[float]], final: bool) -> None:
    """The medians (and the ratios to pgx at B = 1,024) so far; written to ``--out`` after every round."""
    medians = {k: statistics.median(v) for k, v in rates.items()}
    ratios: dict[str, float] = {}
    for g in args.games.split(","):
        if g not in TARGET_GAMES or args.no_pgx:
            continue
        for p in PGX_GAMES:
            key_t, key_p = f"tessera/{g}/B=1024", f"pgx/{p}/B=1024"
            if key_t in medians and key_p in medians:
                ratios[f"{g} / pgx {p} at B=1024"] = medians[key_t] / medians[key_p]
    if final:
        for k, v in medians.items():
            print(f"{k:40s} {v:14,.0f} steps/CPU s")
        for k, v in ratios.items():
            print(f"{k:40s} {v:8.2f}x")
    result = {
        "machine": info,
        "rounds": len(next(iter(rates.values()))),
        "seconds": args.seconds,
        "rates": rates,
        "medians": medians,
        "ratios": ratios,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))


def plot(path: Path) -> Path:
    """Steps per CPU second against the batch, one line per game (log-log); the loops as levels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = json.loads(path.read_text())
    med: dict[str, float] = res["medians"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    series: dict[str, list[tuple[int, float]]] = {}
    for k, v in med.items():
        who, game, what = k.split("/")
        if what.startswith("B="):
            series.setdefault(f"{who} {game}", []).append((int(what[2:]), v))
    for name, pts in sorted(series.items()):
        pts.sort()
        style = "--" if name.startswith("pgx") else "-"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", label=name)
    for k, v in med.items():
        if k.startswith("openspiel/hex11/obs+mask"):
            ax.axhline(v, color="grey", linestyle=":", label="OpenSpiel hex 11, per-step loop (obs + mask)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch B (games stepped per call)")
    ax.set_ylabel("steps per CPU second")
    m = res["machine"]
    ax.set_title(f"Random play, observations and masks every step\n{m['cpu']}, {m['date']}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    out = path.with_suffix(".png")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return out


if __name__ == "__main__":
    main()
