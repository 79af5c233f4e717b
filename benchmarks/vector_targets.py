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
  your choice outside the repository), which runs
  this file as a worker in the same rounds; without it pgx is imported here if it can be, else the
  pgx figures are skipped with a message.
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
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np

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

Timed = Callable[[float], list[float]]
"""Runs for about the given CPU seconds; returns rates per CPU second (the first is the main one)."""


def _timed(chunk: Callable[[], tuple[int, ...]], seconds: float) -> list[float]:
    totals: list[int] = []
    t0 = time.process_time()
    while True:
        got = chunk()
        totals = [a + b for a, b in zip(totals, got, strict=True)] if totals else list(got)
        dt = time.process_time() - t0
        if dt >= seconds:
            return [x / dt for x in totals]


# -- the entries --------------------------------------------------------------------------------


def tessera_vector(spec: str, batch: int, obs_dtype: str, actions: str) -> Timed:
    """Decisions and moves per CPU second of ``batch`` games in one format."""
    from tessera.core.kernels import rng_state
    from tessera.vector import make, random_legal

    env = make(spec, batch=batch, seed=0, obs_dtype=obs_dtype, actions=actions)
    state = {"batch": env.reset()}
    rs = rng_state(1)
    acts = np.empty(batch, np.int64)
    reps = max(1, 256 // batch)
    moves = env.last_moves

    def chunk() -> tuple[int, int]:
        bt = state["batch"]
        done = 0
        for _ in range(reps):
            random_legal(bt.mask, rs, acts)
            bt = env.step(acts)
            done += int(np.count_nonzero(moves >= 0))
        state["batch"] = bt
        return reps * batch, done

    chunk()  # compile (numba's cache) and warm up
    return lambda seconds: _timed(chunk, seconds)


def pgx_env(name: str, batch: int) -> Timed:
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import act_randomly, auto_reset

    env = pgx.make(name)
    step = jax.vmap(auto_reset(env.step, env.init))
    length = 8

    def body(carry: Any, _: Any) -> tuple[Any, None]:
        st, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        action = act_randomly(k_act, st.legal_action_mask)
        st = step(st, action, jax.random.split(k_step, batch))
        return (st, key), None

    @jax.jit
    def run(st: Any, key: Any) -> Any:
        (st, key), _ = jax.lax.scan(body, (st, key), None, length=length)
        return st, key

    key = jax.random.PRNGKey(0)
    st = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    state = {"st": st, "key": key}

    def chunk() -> tuple[int]:
        st, key = run(state["st"], state["key"])
        jnp.asarray(st.observation).block_until_ready()
        st.legal_action_mask.block_until_ready()
        state["st"], state["key"] = st, key
        return (length * batch,)

    chunk()
    return lambda seconds: _timed(chunk, seconds)


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
    return lambda seconds: _timed(chunk, seconds)


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


# -- pgx in another interpreter -------------------------------------------------------------------


def worker() -> None:
    """Serve pgx measurements (``{"env", "batch", "seconds"}`` JSON lines) on stdin (``--pgx-worker``)."""
    runners: dict[tuple[str, int], Timed] = {}
    for line in sys.stdin:
        req = json.loads(line)
        key = (req["env"], int(req["batch"]))
        if key not in runners:
            runners[key] = pgx_env(*key)
        print(json.dumps(runners[key](float(req["seconds"]))), flush=True)


class RemotePgx:
    """pgx measured by a worker process of another interpreter, one request at a time."""

    def __init__(self, python: str) -> None:
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__), "--pgx-worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, JAX_PLATFORMS="cpu"),
        )

    def runner(self, name: str, batch: int) -> Timed:
        def run(seconds: float) -> list[float]:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(json.dumps({"env": name, "batch": batch, "seconds": seconds}) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the pgx worker stopped (pgx {name}, B = {batch})")
            return list(json.loads(line))

        run(0.05)  # compile outside the rounds
        return run

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


# -- the run --------------------------------------------------------------------------------------


def build(args: argparse.Namespace) -> tuple[dict[str, Timed], RemotePgx | None, str]:
    entries: dict[str, Timed] = {}
    games = args.games.split(",")
    for g in games:
        for obs, acts in FORMATS:
            entries[f"vector {g} {obs}+{acts}"] = tessera_vector(GAMES[g], args.batch, obs, acts)
    remote = None
    note = ""
    if args.pgx_python:
        remote = RemotePgx(args.pgx_python)
        for name in PGX:
            entries[f"pgx {name}"] = remote.runner(name, args.batch)
    else:
        try:
            import pgx  # noqa: F401

            for name in PGX:
                entries[f"pgx {name}"] = pgx_env(name, args.batch)
        except ImportError:
            note = "pgx is not installed here and no --pgx-python was given: the pgx figures are skipped"
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
    ap.add_argument("--pgx-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.pgx_worker:
        worker()
        return
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
