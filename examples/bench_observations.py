"""CPU time per observation tensor, per game: median of 5 rounds over 200 random positions.

Run: ``python examples/bench_observations.py``
"""

from __future__ import annotations

import random
import statistics
import time

from tessera.adapters.core import adapt

SPECS = ["nume", "ikabegama", "nymbat", "nibble", "nibble(colors=13,board=hex)", "nelaxtam"]


def positions(spec: str, n: int, seed: int = 0) -> list:
    """``n`` random positions of ``spec`` (random decisions from fresh games)."""
    game = adapt(spec)
    rng = random.Random(seed)
    out = []
    state = game.new_initial_state(seed=0) if game.dealt else game.new_initial_state()
    while len(out) < n:
        if state.is_terminal():
            state = game.new_initial_state(seed=len(out)) if game.dealt else game.new_initial_state()
        if state.current_player() >= 0:
            out.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
    return out


def main() -> None:
    for spec in SPECS:
        states = positions(spec, 200)
        rounds = []
        for _ in range(5):
            t0 = time.process_time()
            for s in states:
                s.observation(s.current_player())
            rounds.append((time.process_time() - t0) / len(states))
        shape = adapt(spec).observation_shape
        print(f"{spec:32s} shape {shape!s:16s} {1e6 * statistics.median(rounds):7.1f} µs per observation")


if __name__ == "__main__":
    main()
