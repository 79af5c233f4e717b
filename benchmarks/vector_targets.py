"""Issue 38's speed targets, measured side by side: the vector engine's formats against pgx, the per-step
API against OpenSpiel.  CPU time, one run, medians of interleaved rounds.

    nice -n 10 python benchmarks/vector_targets.py [--seconds 0.5] [--rounds 3] [--batch 1024]
        [--pgx-python PYTHON] [--json FILE]

* **Vector** (``tessera.vector.make``, B = ``--batch``): every step draws one random legal decision per
  game from the mask (``random_legal``) inside the timed loop, then ``env.step``; for each game
  ``float32`` + ``flat`` (the engine's format before issue 38), ``uint8`` + ``flat`` and ``uint8`` +
  ``factored`` (decisions per CPU second and moves per CPU second: a move is one decision in Nibble,
  Ikabegamá and Nelaxtam, two in Nume, one or two in Nymbat).
* **pgx** ``hex`` (11×11), ``go_9x9`` and ``chess`` at the same batch: a jitted ``lax.scan`` of 8 steps of
  ``vmap(auto_reset(step, init))`` with ``act_randomly`` on the legal mask (as ``vector_bench.py``).
  pgx and JAX are not dependencies of tessera: ``--pgx-python`` names an interpreter that has them (a
  scratch venv: ``python3 -m venv PGXENV && PGXENV/bin/pip install pgx jax``, PGXENV a directory of
  your choice outside the repository), which runs ``vector_runners.py`` as a worker in the same rounds;
  without it pgx is imported here if it can be, else the pgx figures are skipped with a message.
* **Per step** (one game, Python): ``s.apply_action(rng.choice(s.legal_actions()))`` game after game,
  tessera's ``State`` and OpenSpiel's ``hex`` 11, 19 and ``go`` 19×19 through pyspiel; the cost per step
  divided by the mean length of the legal-action list is the cost *per listed action*.

The targets (issue 38) are printed beside the figures with ``met`` / ``MISSED``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vector_runners import RemotePgx, Timed, pgx_runners, tessera_vector, timed  # the shared runners

GAMES = {
    "nume": "nume",
    "nume6": "nume(size=6)",
    "nibble": "nibble",
    "ikabegama": "ikabegama",
    "nymbat": "nymbat",
    "nymbat4": "nymbat(players=4)",
    "nelaxtam": "nelaxtam",
}
FORMATS = (("float32", "flat"), ("uint8", "flat"), ("uint8", "factored"))
PGX = ("hex", "go_9x9", "chess")
OPENSPIEL = {"hex 11": ("hex", {"board_size": 11}), "hex 19": ("hex", {"board_size": 19}), "go 19": ("go", {})}
PER_STEP = ("nume", "nume6", "nibble", "ikabegama", "nymbat", "nymbat4")
"""The games of the per-step targets (Nelaxtam's turns are simultaneous: no one-action loop)."""
FLAT_TARGET = {
    "nibble": 5.0,
    "ikabegama": 5.0,
    "nelaxtam": 5.0,
    "nume": 1.5,
    "nume6": 1.5,
    "nymbat": 1.0,
    "nymbat4": 1.0,
}
"""``uint8`` + ``flat``: the multiple of pgx hex each game must reach."""


def per_step(load: Callable[[], Any]) -> Timed:
    """Steps per CPU second of the user's loop, and legal actions listed per CPU second."""
    game = load()
    rng = random.Random(0)
    state = {"s": game.new_initial_state()}

    def chunk() -> tuple[int, int]:
        s = state["s"]
        listed = 0
        for _ in range(200):
            if s.is_terminal():
                s = game.new_initial_state()
            legal = s.legal_actions()
            listed += len(legal)
            s.apply_action(rng.choice(legal))
        state["s"] = s
        return 200, listed

    chunk()
    return lambda seconds: timed(chunk, seconds)


def _openspiel(name: str, params: dict[str, int]) -> Callable[[], Any]:
    def load() -> Any:
        import pyspiel

        return pyspiel.load_game(name, params)

    return load


def _tessera(spec: str) -> Callable[[], Any]:
    def load() -> Any:
        import tessera

        return tessera.load_game(spec)

    return load


def profile_vector(spec: str, batch: int, actions: str, seconds: float) -> dict[str, float]:
    """Where a vector step goes (``uint8`` planes): CPU ns per game and decision of each part of
    ``random_legal`` + ``env.step`` — the draw, the checks of the input (``first_illegal``), the engine's
    kernel (apply, resets, planes, flat mask; for factored actions also the phase bookkeeping, and the
    kernel runs only when a move completes) and the factored masks — taken apart by calling the
    engine's parts in the order ``step`` does."""
    from tessera.core.kernels import rng_state
    from tessera.core.kits.vector import _advance
    from tessera.vector import make, random_legal

    env = make(spec, batch=batch, seed=0, actions=actions)
    bt = env.reset()
    rs = rng_state(1)
    acts = np.empty(batch, np.int64)
    parts = dict.fromkeys(("draw", "check", "engine", "masks"), 0.0)
    f = env.factoring
    clock = time.process_time
    decisions = 0
    start = clock()
    while clock() - start < seconds:
        t0 = clock()
        random_legal(bt.mask, rs, acts)
        t1 = clock()
        checked = env._checked(acts)
        t2 = clock()
        if f is None:
            env._step(checked)
            t3 = t4 = clock()
        else:
            if _advance(checked, env._phase, env._decided, f.flat, f.single, env._moves):
                env._step(env._moves)
            else:
                env._rewards[:] = 0.0
                env._terminated[:] = False
            t3 = clock()
            env._refactor()
            t4 = clock()
        parts["draw"] += t1 - t0
        parts["check"] += t2 - t1
        parts["engine"] += t3 - t2
        parts["masks"] += t4 - t3
        decisions += batch
    total = sum(parts.values())
    out = {k: 1e9 * v / decisions for k, v in parts.items()}
    out["total"] = 1e9 * total / decisions
    return out


# -- the run --------------------------------------------------------------------------------------


def build(args: argparse.Namespace) -> tuple[dict[str, Timed], RemotePgx | None, str]:
    entries: dict[str, Timed] = {}
    games = args.games.split(",")
    for g in games:
        for obs, acts in FORMATS:
            entries[f"vector {g} {obs}+{acts}"] = tessera_vector(GAMES[g], args.batch, obs, acts)
    pgx, remote, note = pgx_runners(list(PGX), [args.batch], args.pgx_python)
    for (name, _), run in pgx.items():
        entries[f"pgx {name}"] = run
    if note:
        print(note, file=sys.stderr)
    try:
        import pyspiel  # noqa: F401

        for label, (name, params) in OPENSPIEL.items():
            entries[f"step openspiel {label}"] = per_step(_openspiel(name, params))
    except ImportError:
        note += "; pyspiel is not installed: the OpenSpiel figures are skipped"
    for g in games:
        if g in PER_STEP:
            entries[f"step {g}"] = per_step(_tessera(GAMES[g]))
    return entries, remote, note


def _verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="CPU seconds per entry and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated, of " + ", ".join(GAMES))
    ap.add_argument("--pgx-python", help="an interpreter with pgx and jax (a scratch venv), run as a worker")
    ap.add_argument("--json", help="write the medians and verdicts to this file")
    ap.add_argument("--profile", action="store_true", help="where a vector step goes, per game and format; stop")
    args = ap.parse_args()
    if args.profile:
        print(f"B = {args.batch}, uint8 planes; CPU ns per game and decision, {args.seconds} s each")
        print(f"{'game':<10}{'actions':<10}{'draw':>8}{'check':>8}{'engine':>8}{'masks':>8}{'total':>8}")
        for g in args.games.split(","):
            for acts in ("flat", "factored"):
                prof = profile_vector(GAMES[g], args.batch, acts, 0.2)  # compile and warm up
                prof = profile_vector(GAMES[g], args.batch, acts, args.seconds)
                cells = "".join(f"{prof[k]:>8,.0f}" for k in ("draw", "check", "engine", "masks", "total"))
                print(f"{g:<10}{acts:<10}{cells}")
        return
    from tessera.arena.runner import provenance

    code = provenance()  # which code runs: taken before the engines are loaded, not after the run
    entries, remote, note = build(args)
    samples: dict[str, list[list[float]]] = {k: [] for k in entries}
    names = list(entries)
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            samples[name].append(entries[name](args.seconds))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    if remote is not None:
        remote.close()

    def med(name: str, i: int = 0) -> float | None:
        if name not in samples:
            return None
        return statistics.median(x[i] for x in samples[name])

    out: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}",
        "batch": args.batch,
        "rounds": args.rounds,
        "seconds": args.seconds,
        "note": note,
        "code": code,
        "vector": {},
        "pgx": {},
        "per_step": {},
    }
    hex_rate = med("pgx hex")
    print(f"B = {args.batch}; CPU time; medians of {args.rounds} interleaved rounds of {args.seconds} s")
    for name in PGX:
        rate = med(f"pgx {name}")
        if rate is not None:
            out["pgx"][name] = round(rate)
            print(f"pgx {name:<12}{rate:>14,.0f} steps/CPU-s")
    print(f"{'game':<10}{'format':<18}{'decisions/s':>13}{'moves/s':>12}{'×hex dec':>9}{'×hex mv':>9}  target")
    for g in args.games.split(","):
        for obs, acts in FORMATS:
            key = f"vector {g} {obs}+{acts}"
            dec, mv = med(key), med(key, 1)
            assert dec is not None and mv is not None
            row: dict[str, Any] = {"decisions_per_cpu_s": round(dec), "moves_per_cpu_s": round(mv)}
            verdict = ""
            if hex_rate:
                row["x_hex_decision"], row["x_hex_move"] = round(dec / hex_rate, 2), round(mv / hex_rate, 2)
                if (obs, acts) == ("uint8", "factored"):
                    ok = dec >= 5 * hex_rate and mv >= 2 * hex_rate
                    verdict = f"≥5× per decision, ≥2× per move: {_verdict(ok)}"
                elif (obs, acts) == ("uint8", "flat"):
                    ok = mv >= FLAT_TARGET[g] * hex_rate
                    verdict = f"≥{FLAT_TARGET[g]}×: {_verdict(ok)}"
                row["verdict"] = verdict
            out["vector"][f"{g} {obs}+{acts}"] = row
            ratios = f"{dec / hex_rate:>9.2f}{mv / hex_rate:>9.2f}" if hex_rate else f"{'—':>9}{'—':>9}"
            print(f"{g:<10}{obs + '+' + acts:<18}{dec:>13,.0f}{mv:>12,.0f}{ratios}  {verdict}")
    ref = med("step openspiel hex 11")
    ref_listed = med("step openspiel hex 11", 1)
    print(f"{'per step':<22}{'steps/CPU-s':>13}{'ns/step':>10}{'actions':>9}{'ns/action':>11}  target")
    ref_per_action = (1e9 / ref) / (ref_listed / ref) if ref and ref_listed else None
    for label in [f"openspiel {k}" for k in OPENSPIEL] + [g for g in args.games.split(",") if g in PER_STEP]:
        rate, listed = med(f"step {label}"), med(f"step {label}", 1)
        if rate is None or listed is None:
            continue
        ns = 1e9 / rate
        mean = listed / rate
        per_action = ns / mean
        verdict = ""
        if ref_per_action and not label.startswith("openspiel"):
            verdict = f"per action ≤ hex 11's: {_verdict(per_action <= ref_per_action)}"
            if label == "nibble" and ref:
                verdict += f"; per step ≥ hex 11: {_verdict(rate >= ref)}"
        out["per_step"][label] = {
            "steps_per_cpu_s": round(rate),
            "ns_per_step": round(ns),
            "mean_legal_actions": round(mean, 1),
            "ns_per_listed_action": round(per_action, 2),
            "verdict": verdict,
        }
        print(f"{label:<22}{rate:>13,.0f}{ns:>10,.0f}{mean:>9.1f}{per_action:>11.2f}  {verdict}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
