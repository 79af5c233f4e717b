"""Nume random playouts through the public API: list API and the O(1) rollout sampler.

* **list API**: ``state.apply_action(rng.choice(state.legal_actions()))`` — every
  ply builds the full list of legal ``cell × number`` actions (about 8000 at
  size 5 on an early ply), so this measures move generation.
* **rollout**: ``state.apply_action(state.random_action(rng))`` — the sampler the
  agents' rollouts use (a random empty cell, then a random number for a new group).
* **legal_moves**: time of ``legal_moves()`` (sorted strings) on the first ply.

Times are CPU time of this process (stable on a shared machine).
Run: ``python benchmarks/nume_rollouts.py [--seconds 2] [spec ...]``.
"""

from __future__ import annotations

import argparse
import random
import time

import tessera


def list_api(spec: str, seconds: float, rng: random.Random) -> tuple[float, float]:
    """(plies/s, games/s) choosing uniformly from ``legal_actions()`` every ply."""
    game = tessera.load_game(spec)
    games = plies = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        games += 1
    dt = time.process_time() - start
    return plies / dt, games / dt


def rollouts(spec: str, seconds: float, rng: random.Random) -> tuple[float, float]:
    """(plies/s, games/s) with ``random_action``."""
    game = tessera.load_game(spec)
    games = plies = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(state.random_action(rng))
        plies += state.move_number()
        games += 1
    dt = time.process_time() - start
    return plies / dt, games / dt


def legal_moves_ms(spec: str, repeat: int = 20) -> float:
    """Milliseconds for ``legal_moves()`` on the empty board (the largest list)."""
    state = tessera.load_game(spec).new_initial_state()
    start = time.process_time()
    for _ in range(repeat):
        state.legal_moves()
    return (time.process_time() - start) / repeat * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="*", default=["nume(size=2)", "nume", "nume(size=6)", "nume(variant=square)"])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = ap.parse_args()
    print(
        f"{'game':32} {'list plies/s':>13} {'list games/s':>13} {'rollout plies/s':>16} {'games/s':>9} {'moves ms':>9}"
    )
    for spec in args.specs:
        lp, lg = list_api(spec, args.seconds, random.Random(1))
        rp, rg = rollouts(spec, args.seconds, random.Random(1))
        ms = legal_moves_ms(spec)
        print(f"{spec:32} {lp:13.0f} {lg:13.1f} {rp:16.0f} {rg:9.0f} {ms:9.2f}")


if __name__ == "__main__":
    main()
