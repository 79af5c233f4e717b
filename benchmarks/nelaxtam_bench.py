"""Nelaxtam speed: random playouts through the public API, in one process.

For each variant (``nelaxtam(size=10)``, the default 12×12,
``nelaxtam(size=8,variant=quiet)``, ``nelaxtam(size=20)``):

* *strings*: ``state.play_joint([state.random_move(rng, p) for p in (0, 1)])`` — random
  legal orders as strings, parsed and checked again by ``play_joint`` (what the
  conformance suite and string-mode bots do);
* *ints*: ``state.apply_actions([state.random_actions(rng, p) for p in (0, 1)])`` — the
  factored integer form the simultaneous MCTS uses (still checked);
* *options*: one ``troop_actions(p)`` call on positions met in random games, in µs.

Reported as games/s and turns/s (a turn is one joint order), with the mean game
length and how games ended (natural end vs. the ``max_idle_turns`` safeguard).

Run: ``python benchmarks/nelaxtam_bench.py [--seconds 3] [spec ...]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import tessera
from tessera.games.nelaxtam import NelaxtamState

SPECS = (
    "nelaxtam(size=10)",
    "nelaxtam",
    "nelaxtam(size=8,variant=quiet)",
    "nelaxtam(size=20)",
)


def playouts(spec: str, seconds: float, mode: str) -> dict[str, float]:
    """Random games for about ``seconds`` with ``mode`` ``strings`` or ``ints``."""
    game = tessera.load_game(spec)
    rng = random.Random(0)
    games = turns = idle_ends = 0
    lengths = []
    start = time.perf_counter()
    stop = start + seconds
    while time.perf_counter() < stop:
        state = game.new_initial_state()
        assert isinstance(state, NelaxtamState)
        n = 0
        while not state.is_terminal():
            if mode == "strings":
                state.play_joint([state.random_move(rng, p) for p in (0, 1)])
            else:
                state.apply_actions([state.random_actions(rng, p) for p in (0, 1)])
            n += 1
        games += 1
        turns += n
        lengths.append(n)
        idle_ends += state.can_destroy()
    elapsed = time.perf_counter() - start
    return {
        "games/s": games / elapsed,
        "turns/s": turns / elapsed,
        "mean turns": statistics.fmean(lengths),
        "idle ends %": 100.0 * idle_ends / games,
    }


def options_us(spec: str, samples: int = 2000) -> float:
    """Mean microseconds of one ``troop_actions(p)`` on positions of random games."""
    game = tessera.load_game(spec)
    rng = random.Random(1)
    states: list[NelaxtamState] = []
    while len(states) < 200:
        state = game.new_initial_state()
        assert isinstance(state, NelaxtamState)
        while not state.is_terminal():
            state.play_joint([state.random_move(rng, p) for p in (0, 1)])
            if not state.is_terminal():
                states.append(state.clone())
    start = time.perf_counter()
    for i in range(samples):
        states[i % len(states)].troop_actions(i % 2)
    return 1e6 * (time.perf_counter() - start) / samples


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    ap.add_argument("specs", nargs="*", default=list(SPECS))
    args = ap.parse_args()
    print(f"{'variant':34} {'mode':8} {'games/s':>9} {'turns/s':>9} {'turns':>7} {'idle%':>6}")
    for spec in args.specs:
        for mode in ("strings", "ints"):
            r = playouts(spec, args.seconds, mode)
            print(
                f"{spec:34} {mode:8} {r['games/s']:9.1f} {r['turns/s']:9.0f} "
                f"{r['mean turns']:7.1f} {r['idle ends %']:6.1f}"
            )
        print(f"{spec:34} options  {options_us(spec):9.1f} µs per troop_actions(p)")


if __name__ == "__main__":
    main()
