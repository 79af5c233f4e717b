"""Nibble speed: the seeded deal, random playouts, legal-move generation, in one process.

For each board (``nibble``: 9×9, ``nibble(colors=13)``: 13×13,
``nibble(colors=13,board=hex)``: hexagon of side 8):

* *deal*: ``game.new_initial_state(seed)`` over many seeds (mean, worst);
* *playouts*: ``state.apply_action(state.random_action(rng))`` from a fresh deal to
  the end — the public, checked API — as games/s and plies (steps)/s, plus the
  average game length and how often each way of winning ended the game;
* *play/s*: plies (steps) per second of the same playouts without the deal;
* *legal*: one ``legal_actions()`` from scratch (cache cleared) on positions met in
  random games, in microseconds.

Run: ``python benchmarks/nibble_bench.py [--seconds 3] [--deals 200]`` (it imports the
``tessera`` of the checkout it lives in).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # time this working tree, not another install

import tessera
from tessera.games.nibble import NibbleState
from tessera.games.nibble import kernels as nibble_kernels

SPECS = ("nibble", "nibble(colors=13)", "nibble(colors=13,board=hex)")


def bench_deal(spec: str, deals: int) -> tuple[float, float]:
    """(mean, worst) milliseconds per deal over ``deals`` seeds."""
    game = tessera.load_game(spec)
    times = []
    for seed in range(deals):
        t = time.perf_counter()
        game.new_initial_state(seed=seed)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.fmean(times), 1000 * max(times)


def bench_playouts(spec: str, seconds: float) -> dict[str, float]:
    """Random playouts for about ``seconds``: rates, mean length and how games ended."""
    game = tessera.load_game(spec)
    rng = random.Random(0)
    games = plies = 0
    ends = {"instant": 0, "majority": 0}
    start = time.perf_counter()
    stop = start + seconds
    seed = 0
    while time.perf_counter() < stop:
        state = game.new_initial_state(seed=seed)
        seed += 1
        while not state.is_terminal():
            state.apply_action(state.random_action(rng))
        assert isinstance(state, NibbleState)
        ends["majority" if state.occ == 0 else "instant"] += 1
        plies += state.move_number()
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "games_per_s": games / elapsed,
        "plies_per_s": plies / elapsed,
        "mean_plies": plies / games,
        "instant_share": ends["instant"] / games,
    }


def bench_play_only(spec: str, seconds: float) -> float:
    """Plies (steps) per second of random playouts from boards dealt beforehand (no deal cost)."""
    game = tessera.load_game(spec)
    boards = [game.new_initial_state(seed=s) for s in range(20)]
    rng = random.Random(0)
    plies = 0
    start = time.perf_counter()
    stop = start + seconds
    i = 0
    while time.perf_counter() < stop:
        state = boards[i % len(boards)].clone()
        i += 1
        while not state.is_terminal():
            state.apply_action(state.random_action(rng))
        plies += state.move_number()
    return plies / (time.perf_counter() - start)


def bench_legal(spec: str, positions: int = 300) -> float:
    """Mean microseconds of one uncached ``legal_actions()`` on positions from random games."""
    game = tessera.load_game(spec)
    rng = random.Random(1)
    states: list[NibbleState] = []
    seed = 0
    while len(states) < positions:
        st = game.new_initial_state(seed=seed)
        seed += 1
        while not st.is_terminal() and len(states) < positions:
            assert isinstance(st, NibbleState)
            states.append(st.clone())
            st.apply_action(st.random_action(rng))
    reps = 5
    t = time.perf_counter()
    for _ in range(reps):
        for st in states:
            st.s[st._h + nibble_kernels.N_LEGAL] = -1  # forget the cached legal steps
            st._legal = None
            st.legal_actions()
    return 1e6 * (time.perf_counter() - t) / (reps * len(states))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="playout time per board")
    ap.add_argument("--deals", type=int, default=200, help="seeds dealt per board")
    args = ap.parse_args()
    head = ("deal ms", "worst", "games/s", "plies/s", "plies", "instant", "play/s", "legal µs")
    print(f"{'board':32} " + " ".join(f"{h:>8}" for h in head))
    for spec in SPECS:
        mean, worst = bench_deal(spec, args.deals)
        p = bench_playouts(spec, args.seconds)
        play = bench_play_only(spec, args.seconds)
        legal = bench_legal(spec)
        print(
            f"{spec:32} {mean:8.2f} {worst:8.2f} {p['games_per_s']:8.1f} {p['plies_per_s']:8.0f} "
            f"{p['mean_plies']:8.1f} {p['instant_share']:8.0%} {play:8.0f} {legal:8.1f}"
        )


if __name__ == "__main__":
    main()
