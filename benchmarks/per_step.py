"""The per-step API against OpenSpiel's C++ ``hex`` 11×11: steps per CPU second, same run, medians.

    python benchmarks/per_step.py [--seconds 1] [--rounds 5] [--baseline DIR] [--json FILE]

The loop timed on both sides is the one a user writes::

    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))

from the initial state, a new game each time the last one ends; steps per CPU
second of this process (``time.process_time``).  OpenSpiel's side is the same
loop through its Python bindings on ``hex(board_size=11)``.

A second loop reads the legal actions as an array, for loops that can take one
(``state.legal_actions_array()``: a read-only view, no list)::

    a = s.legal_actions_array()
    s.apply_action(int(a[rng.randrange(len(a))]))

(OpenSpiel's hex has no such call: its figure there is the list loop's.)

A third, clone-heavy variant is a tiny flat Monte-Carlo written the way a user
would: at every step of a game, each legal action gets one random playout from
``s.clone()`` (``current_player``, ``legal_actions``, ``apply_action``,
``is_terminal``, ``returns``), and the best one is played.  Its figure is the
steps (inside playouts included) per CPU second; the clones per CPU second are
reported too.

``--baseline DIR`` runs the tessera side a second time from another checkout
(e.g. a worktree of the commit before a change) in a worker process with
``DIR`` first on the path, in the same interleaved rounds: "before" and "after"
in one run.  Rounds alternate the sides so load from other processes hits all
alike; each figure is the median over the rounds.  The results (``--json``)
record which code each side ran (``code``: tessera's version, git commit,
whether tracked files differ from it, Python, numba), not the checkout's path.
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
from typing import Any

GAMES = ["nume", "nume(size=6)", "nibble", "ikabegama", "nymbat", "nymbat(players=4)"]
HEX = "hex"


def _load(spec: str) -> Any:
    if spec == HEX:
        import pyspiel

        return pyspiel.load_game("hex", {"board_size": 11})
    import tessera

    return tessera.load_game(spec)


def random_steps(game: Any, seconds: float, seed: int) -> float:
    """Steps per CPU second of ``s.apply_action(rng.choice(s.legal_actions()))`` to the end, game after game."""
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    while True:
        s = game.new_initial_state()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            steps += 1
        dt = time.process_time() - start
        if dt >= seconds:
            return steps / dt


def array_steps(game: Any, seconds: float, seed: int) -> float:
    """Steps per CPU second of the loop on ``legal_actions_array()`` (module docstring), game after game."""
    if not hasattr(game.new_initial_state(), "legal_actions_array"):
        return random_steps(game, seconds, seed)  # OpenSpiel: the list is all it has
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    while (dt := time.process_time() - start) < seconds or not steps:
        s = game.new_initial_state()
        while not s.is_terminal():
            a = s.legal_actions_array()
            s.apply_action(int(a[rng.randrange(len(a))]))
            steps += 1
    return steps / dt


def flat_mc(game: Any, seconds: float, seed: int, width: int = 8) -> tuple[float, float]:
    """A user's flat Monte-Carlo: one random playout per candidate (at most ``width``) at every step.

    Returns (steps per CPU second, playouts inside included; clones per CPU second).
    """
    rng = random.Random(seed)
    steps = clones = 0
    start = time.process_time()
    while True:
        s = game.new_initial_state()
        while not s.is_terminal():
            me = s.current_player()
            actions = s.legal_actions()
            candidates = actions if len(actions) <= width else rng.sample(actions, width)
            best, best_value = candidates[0], -2.0
            for a in candidates:
                c = s.clone()
                clones += 1
                c.apply_action(a)
                steps += 1
                while not c.is_terminal():
                    c.apply_action(rng.choice(c.legal_actions()))
                    steps += 1
                value = c.returns()[me]
                if value > best_value:
                    best, best_value = a, value
            s.apply_action(best)
            steps += 1
            dt = time.process_time() - start
            if dt >= seconds:
                return steps / dt, clones / dt


def measure(spec: str, kind: str, seconds: float, seed: int, games: dict[str, Any]) -> list[float]:
    if spec not in games:
        games[spec] = _load(spec)
        random_steps(games[spec], 0.05, 0)  # compile / warm the kernels outside the timing
    if kind == "random":
        return [random_steps(games[spec], seconds, seed)]
    if kind == "array":
        return [array_steps(games[spec], seconds, seed)]
    return list(flat_mc(games[spec], seconds, seed))


def worker() -> None:
    """Serve ``measure`` requests (one JSON line each) on stdin for ``--baseline``; ``{"code": true}`` asks
    which code the worker runs (:func:`code`)."""
    games: dict[str, Any] = {}
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("code"):
            print(json.dumps(code()), flush=True)
            continue
        out = measure(req["spec"], req["kind"], req["seconds"], req["seed"], games)
        print(json.dumps(out), flush=True)


def code() -> dict[str, Any]:
    """Which code this process measures: tessera's version, the git commit of its checkout, whether tracked
    files differ from it, Python and numba (:func:`tessera.arena.runner.provenance`)."""
    from tessera.arena.runner import provenance

    return provenance()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per measurement")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", nargs="*", default=GAMES)
    ap.add_argument("--mc-seconds", type=float, default=None, help="CPU seconds of the flat MC (default: --seconds)")
    ap.add_argument("--baseline", help="another checkout to run as 'before' in a worker process")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    mc_seconds = args.mc_seconds if args.mc_seconds is not None else args.seconds

    proc = None
    if args.baseline:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.baseline))
        proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def remote(spec: str, kind: str, seconds: float, seed: int) -> list[float]:
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"spec": spec, "kind": kind, "seconds": seconds, "seed": seed}) + "\n")
        proc.stdin.flush()
        return list(json.loads(proc.stdout.readline()))

    baseline_code: dict[str, Any] | None = None
    if proc is not None:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"code": True}) + "\n")
        proc.stdin.flush()
        baseline_code = json.loads(proc.stdout.readline())
    games: dict[str, Any] = {}
    sides = ["after"] + (["before"] if proc else [])
    samples: dict[tuple[str, str, str], list[list[float]]] = {}
    for r in range(args.rounds):
        for kind in ("random", "array", "mc"):
            secs = mc_seconds if kind == "mc" else args.seconds
            order = [(HEX, "openspiel")] + [(g, side) for g in args.games for side in sides]
            if r % 2:
                order.reverse()
            for spec, side in order:
                seed = 1000 * r + 7
                if side == "before":
                    out = remote(spec, kind, secs, seed)
                else:
                    out = measure(spec, kind, secs, seed, games)
                samples.setdefault((spec, side, kind), []).append(out)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    if proc is not None:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()

    def med(key: tuple[str, str, str], i: int = 0) -> float:
        return statistics.median(x[i] for x in samples[key])

    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    machine = (
                        f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} cpus, Python {platform.python_version()}"
                    )
                    break
    except OSError:
        pass
    result: dict[str, Any] = {
        "machine": machine,
        "seconds": args.seconds,
        "mc_seconds": mc_seconds,
        "rounds": args.rounds,
        "code": {"after": code(), "before": baseline_code},
        "rows": [],
    }
    print(f"machine: {machine}; medians of {args.rounds} interleaved rounds, CPU time")
    hex_rate = med((HEX, "openspiel", "random"))
    hex_array = med((HEX, "openspiel", "array"))
    hex_mc = med((HEX, "openspiel", "mc"))
    hex_clones = med((HEX, "openspiel", "mc"), 1)
    print(
        f"{'game':<20}{'side':<10}{'steps/CPU-s':>13}{'× hex':>8}{'array loop':>12}{'× hex':>8}"
        f"{'MC steps/s':>12}{'× hex':>8}{'clones/s':>10}"
    )
    row = f"{hex_rate:>13,.0f}{1.0:>8.2f}{hex_array:>12,.0f}{1.0:>8.2f}{hex_mc:>12,.0f}{1.0:>8.2f}{hex_clones:>10,.0f}"
    print(f"{'hex 11 (OpenSpiel)':<20}{'C++':<10}{row}")
    for g in args.games:
        for side in sides:
            rate = med((g, side, "random"))
            arr = med((g, side, "array"))
            mc = med((g, side, "mc"))
            clones = med((g, side, "mc"), 1)
            print(
                f"{g:<20}{side:<10}{rate:>13,.0f}{rate / hex_rate:>8.2f}{arr:>12,.0f}{arr / hex_array:>8.2f}"
                f"{mc:>12,.0f}{mc / hex_mc:>8.2f}{clones:>10,.0f}"
            )
            result["rows"].append(
                {
                    "game": g,
                    "side": side,
                    "steps_per_cpu_s": round(rate),
                    "ratio_to_hex": round(rate / hex_rate, 3),
                    "array_steps_per_cpu_s": round(arr),
                    "array_ratio_to_hex": round(arr / hex_array, 3),
                    "mc_steps_per_cpu_s": round(mc),
                    "mc_ratio_to_hex": round(mc / hex_mc, 3),
                    "mc_clones_per_cpu_s": round(clones),
                }
            )
    result["hex"] = {
        "steps_per_cpu_s": round(hex_rate),
        "array_steps_per_cpu_s": round(hex_array),
        "mc_steps_per_cpu_s": round(hex_mc),
        "mc_clones_per_cpu_s": round(hex_clones),
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
