"""Nymbat speed: random playouts (games/s, steps/s) and step generation.

Run ``python benchmarks/nymbat_bench.py [--seconds 5] [--game "nymbat(reserve=12,first_limit=8)"]``.

Three measurements per game string:

* ``random_action`` playouts (the game's own sampler, as the conformance suite
  and MCTS rollouts use it): games/s, steps/s, mean turns and steps per game;
* uniform playouts (``rng.choice(state.legal_actions())`` at every step, as a
  naive random agent does): the same figures;
* ``legal_actions()`` calls/s and ``clone()`` calls/s on positions sampled from
  random games.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import tessera
from tessera import State


def playouts(spec: str, seconds: float, pick: Callable[[State, random.Random], int]) -> dict[str, float]:
    """Play seeded random games for about ``seconds``; totals and rates."""
    game = tessera.load_game(spec)
    rng = random.Random(1)
    games = steps = turns = 0
    wins = [0, 0, 0]
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or games == 0:
        st = game.new_initial_state()
        while not st.is_terminal():
            st.apply_action(pick(st, rng))
            steps += 1
        games += 1
        turns += st.to_dict().get("turn", 0)
        w = st.winner()
        wins[2 if w is None else w] += 1
    dt = time.perf_counter() - start
    return {
        "games/s": games / dt,
        "steps/s": steps / dt,
        "turns/game": turns / games,
        "steps/game": steps / games,
        "red/blue/draw": wins,  # type: ignore[dict-item]
        "games": games,
    }


def generation(spec: str, seconds: float) -> dict[str, float]:
    """``legal_actions`` and ``clone`` rates over positions from random games."""
    game = tessera.load_game(spec)
    rng = random.Random(2)
    states: list[State] = []
    while len(states) < 300:
        st = game.new_initial_state()
        while not st.is_terminal():
            if rng.random() < 0.1:
                states.append(st.clone())
            st.apply_action(st.random_action(rng))
    calls = total = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2:
        for s in states:
            c = s.clone()
            total += len(c.legal_actions())
            calls += 1
    gen_dt = time.perf_counter() - start
    clones = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2:
        for s in states:
            s.clone()
            clones += 1
    clone_dt = time.perf_counter() - start
    return {
        "clone+legal_actions/s": calls / gen_dt,
        "mean legal steps": total / calls,
        "clone/s": clones / clone_dt,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--game", action="append", help="game string (repeatable)")
    args = ap.parse_args()
    specs = args.game or ["nymbat", "nymbat(reserve=12,first_limit=8)"]
    for spec in specs:
        print(f"== {spec}")
        r = playouts(spec, args.seconds, lambda s, rng: s.random_action(rng))
        print("  random_action playouts: " + ", ".join(f"{k} {_fmt(v)}" for k, v in r.items()))
        r = playouts(spec, args.seconds, lambda s, rng: rng.choice(s.legal_actions()))
        print("  uniform playouts:       " + ", ".join(f"{k} {_fmt(v)}" for k, v in r.items()))
        g = generation(spec, args.seconds)
        print("  generation:             " + ", ".join(f"{k} {_fmt(v)}" for k, v in g.items()))


def _fmt(v: object) -> str:
    return f"{v:,.1f}" if isinstance(v, float) else str(v)


if __name__ == "__main__":
    main()
