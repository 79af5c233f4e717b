"""The floor under the vector engine's rate: what only writing each step's planes and masks costs.

    python benchmarks/vector_floor.py [--batch 1024] [--seconds 0.5] [--rounds 3]

For each game's engine at batch ``B`` (same games as ``benchmarks/vector_bench.py``), same run,
interleaved rounds, medians of CPU time:

* ``step``: the engine's rate, ``random_legal(batch.mask)`` then ``env.step(actions)``, steps
  per CPU second (as ``vector_bench.py`` measures it);
* ``write only``: arrays of the engine's observation and mask shapes filled with zeros once per step
  (``ndarray.fill``: a memset of every byte a step must write, no rules at all), steps per CPU
  second; no engine that writes those arrays every step can be faster than this;
* ``draw only``: ``random_legal(batch.mask)`` alone (the random choice reading the masks);
* ``bytes``: the bytes of planes and mask per game and step.

The target of issue 27 (5× pgx hex at B = 1,024) is compared with both.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from tessera.core.kernels import rng_state
from tessera.vector import make, random_legal

GAMES = {
    "nume": "nume",
    "nibble": "nibble",
    "ikabegama": "ikabegama",
    "nymbat": "nymbat",
    "nymbat4": "nymbat(players=4)",
}


def timed(fn, seconds: float, per: int) -> float:  # type: ignore[no-untyped-def]
    n = 0
    t0 = time.process_time()
    while True:
        fn()
        n += per
        dt = time.process_time() - t0
        if dt >= seconds:
            return n / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated, of " + ", ".join(GAMES))
    ap.add_argument("--pgx-hex", type=float, default=216_000.0, help="pgx hex steps per CPU s at this batch")
    args = ap.parse_args()
    b = args.batch
    envs = {}
    for name in args.games.split(","):
        env = make(GAMES[name], batch=b, seed=0)
        envs[name] = (env, {"batch": env.reset()}, rng_state(1))
    rates: dict[tuple[str, str], list[float]] = {}
    acts = np.empty(b, np.int64)
    for r in range(args.rounds):
        names = list(envs) if r % 2 == 0 else list(envs)[::-1]
        for name in names:
            env, st, rs = envs[name]

            def step(env=env, st=st, rs=rs) -> None:  # type: ignore[no-untyped-def]
                random_legal(st["batch"].mask, rs, acts)
                st["batch"] = env.step(acts)

            obs, mask = np.empty_like(env._obs), np.empty_like(env._mask_rows)  # the engine's shapes

            def write(obs=obs, mask=mask) -> None:  # type: ignore[no-untyped-def]
                obs.fill(0.0)
                mask.fill(False)

            def draw(st=st, rs=rs) -> None:  # type: ignore[no-untyped-def]
                random_legal(st["batch"].mask, rs, acts)

            step()
            rates.setdefault((name, "step"), []).append(timed(step, args.seconds, b))
            rates.setdefault((name, "draw"), []).append(timed(draw, args.seconds, b))
            rates.setdefault((name, "write"), []).append(timed(write, args.seconds, b))
    target = 5 * args.pgx_hex
    print(f"B = {b}; medians of {args.rounds} rounds, CPU time; target 5 × pgx hex = {target:,.0f} steps/CPU-s")
    head = ("bytes/step", 12), ("step", 12), ("draw only", 12), ("write only", 12), ("step÷target", 13), ("÷target", 9)
    print(f"{'game':<12}" + "".join(f"{h:>{w}}" for h, w in head))
    for name, (env, _, _) in envs.items():
        nbytes = env._obs[0].nbytes + env._mask_rows[0].nbytes
        s = statistics.median(rates[(name, "step")])
        w = statistics.median(rates[(name, "write")])
        d = statistics.median(rates[(name, "draw")])
        print(f"{name:<12}{nbytes:>12,}{s:>12,.0f}{d:>12,.0f}{w:>12,.0f}{s / target:>13.2f}{w / target:>9.2f}")


if __name__ == "__main__":
    main()
