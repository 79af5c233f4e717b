"""Nume random rollouts against OpenSpiel's C++ MCTS on Hex: equal work, CPU time, medians.

    python benchmarks/nume_vs_openspiel.py [--seconds 2] [--rounds 3] [--json]

Reference (OpenSpiel, C++): ``MCTSBot`` with a ``RandomRolloutEvaluator`` (one
random rollout to the end per simulation) on ``hex(board_size=11)`` — its
simulations per CPU second (:mod:`openspiel_ref`).  Each simulation is one
random game of Hex 11 (121 cells) played in C++, plus the tree work.

Ours: ``nume(size=6)`` (126 cells; every game fills the board, 126 plies), two ways:

* **batch** — ``state.rollouts(64, seed)`` from the initial state: the game's
  rollout kernel, the path MCTS leaves take; random games per CPU second;
* **API** — one Python call per ply through the public, checked API,
  ``state.apply_action(state.random_action(rng))`` until the end; games per CPU second.

Both sides play whole random games from the initial position, nothing is
listed in Python on either side.  Rounds alternate the sides (so load from
other processes hits both alike); each side's median over the rounds is
reported with the ratios ours / OpenSpiel.  Times are this process's CPU time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from openspiel_ref import have_openspiel, openspiel_mcts_rate

import tessera


def batch_rate(spec: str, seconds: float, seed: int) -> float:
    """Random games per CPU second through ``State.rollouts`` (64 a call)."""
    state = tessera.load_game(spec).new_initial_state()
    state.rollouts(1, seed)  # compile / load the kernel outside the timing
    games = 0
    start = time.process_time()
    while True:
        seed += 1
        games += state.rollouts(64, seed).n
        dt = time.process_time() - start
        if dt >= seconds:
            return games / dt


def api_rate(spec: str, seconds: float, seed: int) -> float:
    """Random games per CPU second, one checked ``apply_action(random_action)`` call per ply."""
    game = tessera.load_game(spec)
    rng = random.Random(seed)
    games = 0
    start = time.process_time()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(state.random_action(rng))
        games += 1
        dt = time.process_time() - start
        if dt >= seconds:
            return games / dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per side per round")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (median reported)")
    ap.add_argument("--nume", default="nume(size=6)", help="our game string")
    ap.add_argument("--hex-size", type=int, default=11, help="OpenSpiel hex board_size")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not have_openspiel():
        print("OpenSpiel is not installed: pip install 'tessera[bench]' (open-spiel)", file=sys.stderr)
        return 1
    has_batch = hasattr(tessera.load_game(args.nume).new_initial_state(), "rollouts")  # older checkouts lack it
    runs: dict[str, list[float]] = {"openspiel_mcts_sims_per_s": [], "batch_games_per_s": [], "api_games_per_s": []}
    for rnd in range(args.rounds):
        runs["openspiel_mcts_sims_per_s"].append(openspiel_mcts_rate(args.seconds, args.hex_size))
        runs["batch_games_per_s"].append(batch_rate(args.nume, args.seconds, 1000 * rnd) if has_batch else 0.0)
        runs["api_games_per_s"].append(api_rate(args.nume, args.seconds, rnd))
        if not args.json:
            print(f"round {rnd + 1}: " + ", ".join(f"{k}={v[-1]:.0f}" for k, v in runs.items()))
    med = {k: statistics.median(v) for k, v in runs.items()}
    ref = med["openspiel_mcts_sims_per_s"]
    result = {
        "ours": args.nume,
        "reference": f"OpenSpiel C++ MCTSBot(RandomRolloutEvaluator(1)) on hex(board_size={args.hex_size})",
        "median": {k: round(v, 1) for k, v in med.items()},
        "ratio_batch_over_reference": round(med["batch_games_per_s"] / ref, 3),
        "ratio_api_over_reference": round(med["api_games_per_s"] / ref, 3),
        "runs": {k: [round(x, 1) for x in v] for k, v in runs.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"OpenSpiel C++ MCTSBot sims/s, hex({args.hex_size}):    {ref:10.0f}")
    print(
        f"{args.nume} rollouts/s, State.rollouts:  {med['batch_games_per_s']:10.0f}"
        f"  ratio {result['ratio_batch_over_reference']:.2f} (target >= 1.5)"
    )
    print(
        f"{args.nume} rollouts/s, API per ply:     {med['api_games_per_s']:10.0f}"
        f"  ratio {result['ratio_api_over_reference']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
