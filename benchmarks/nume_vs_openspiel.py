"""Nume random rollouts against OpenSpiel's C++ Hex, side by side, in one process on one core.

Ours: ``nume(size=6)`` (126 cells, every game fills the board: 126 plies), each
rollout ``state = game.new_initial_state()`` then
``state.apply_action(state.random_action(rng))`` until the end — the public,
checked API; ``random_action`` is the engine's O(1) sampler.

OpenSpiel: ``hex(board_size=11)`` (121 cells) from PyPI (``pip install open-spiel``),
each rollout a Python loop over the C++ state:
``state.apply_action(rng.choice(state.legal_actions()))``.

The two are timed in alternating rounds (so load from other processes hits
both alike), pinned to one core, on the process's CPU time (time stolen by
other processes on a shared machine is not counted against either), and the
ratio of games per second (ours / OpenSpiel) is printed.  Run: ``python benchmarks/nume_vs_openspiel.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

import tessera


def nume_rollouts(spec: str, seconds: float, rng: random.Random) -> tuple[int, int, float]:
    """(games, plies, elapsed) of random Nume rollouts for about ``seconds``."""
    game = tessera.load_game(spec)
    games = plies = 0
    start = time.process_time()
    end = start + seconds
    while time.process_time() < end:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(state.random_action(rng))
        plies += state.move_number()
        games += 1
    return games, plies, time.process_time() - start


def openspiel_rollouts(board_size: int, seconds: float, rng: random.Random) -> tuple[int, int, float]:
    """(games, plies, elapsed) of random OpenSpiel Hex rollouts (Python loop over C++)."""
    import pyspiel

    game = pyspiel.load_game("hex", {"board_size": board_size})
    games = plies = 0
    start = time.process_time()
    end = start + seconds
    choice = rng.choice
    while time.process_time() < end:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            n += 1
        plies += n
        games += 1
    return games, plies, time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per side per round")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    ap.add_argument("--nume", default="nume(size=6)", help="our game string")
    ap.add_argument("--hex-size", type=int, default=11, help="OpenSpiel hex board_size")
    ap.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the first allowed)")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        cpu = args.cpu if args.cpu is not None else min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        print(f"pinned to core {cpu}")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed (pip install open-spiel); timing Nume alone")
        g, p, t = nume_rollouts(args.nume, args.seconds, random.Random(1))
        print(f"{args.nume}: {g / t:.0f} games/s, {p / t:.0f} plies/s")
        return
    sides: dict[str, Callable[[random.Random], tuple[int, int, float]]] = {
        "ours": lambda r: nume_rollouts(args.nume, args.seconds, r),
        "openspiel": lambda r: openspiel_rollouts(args.hex_size, args.seconds, r),
    }
    totals = {k: [0, 0, 0.0] for k in sides}
    for rnd in range(args.rounds):
        for name, run in sides.items():
            g, p, t = run(random.Random(rnd))
            tot = totals[name]
            tot[0] += g
            tot[1] += p
            tot[2] += t
            print(f"round {rnd + 1} {name:9}: {g / t:8.0f} games/s {p / t:10.0f} plies/s")
    rate = {k: v[0] / v[2] for k, v in totals.items()}
    o, s = totals["ours"], totals["openspiel"]
    print(f"ours      {args.nume}: {rate['ours']:.0f} games/s, {o[1] / o[2]:.0f} plies/s, {o[1] / o[0]:.1f} plies/game")
    print(
        f"openspiel hex({args.hex_size}): {rate['openspiel']:.0f} games/s, {s[1] / s[2]:.0f} plies/s, "
        f"{s[1] / s[0]:.1f} plies/game"
    )
    print(f"ratio ours/openspiel (games/s): {rate['ours'] / rate['openspiel']:.2f}")


if __name__ == "__main__":
    main()
