"""The generic vector engine on the kernel contract against each game's own engine: CPU time per game-step.

Both engines play the same games (``tests/vector/test_contract_engine.py``); each step draws one random
legal action per game from the mask (``random_legal``, inside the timed loop) and steps the batch
(observations, masks, rewards, automatic resets).  The rounds interleave the two engines of a game;
the medians over rounds are reported, in nanoseconds of CPU time (``time.process_time``) per game-step.
A game keeps its own engine where the generic one costs more than 10 % (docs/engine.md); the figure
is quoted at the top of that game's ``vector.py``.

``--rollouts N``: instead, random games to the end from the initial position, ``N`` a round, by each
game's own rollout kernel (``State.rollouts``) and by the generic rollout loop on the contract
(``ContractGame.rollouts``): games per CPU second (a Nelaxtam step is a turn in the first and a
troop's decision in the second, so games, not steps, are compared).

Run: ``nice -n 10 python benchmarks/contract_engine.py --batch 1024 --steps 10 --rounds 3 [--json FILE]``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import time

import numpy as np

from tessera.core.kernels import rng_state
from tessera.core.kits.stepper import ContractVector
from tessera.core.kits.vector import VectorGame
from tessera.vector import make, random_legal

GAMES = ["nume", "nume(size=6)", "nibble", "ikabegama", "nelaxtam"]
"""The games that keep an engine of their own (Nymbat's is the generic one since 2026-11-29)."""


def per_step(env: VectorGame, steps: int, seed: int) -> float:
    """CPU seconds per game-step over ``steps`` steps of the whole batch from a reset."""
    bt = env.reset()
    rs = rng_state(seed)
    out = np.empty(env.batch, np.int64)
    t = time.process_time()
    for _ in range(steps):
        random_legal(bt.mask, rs, out)
        bt = env.step(out)
    return (time.process_time() - t) / (steps * env.batch)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=GAMES)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default=None, help="write the figures to this file")
    ap.add_argument("--rollouts", type=int, default=0, help="compare random games to the end, N a round")
    args = ap.parse_args(argv)
    if args.rollouts:
        return rollouts(args)
    rows = []
    for spec in args.games:
        own = make(spec, batch=args.batch, seed=0)
        generic = ContractVector(own.adapted, args.batch, 0)
        per_step(own, 2, 0), per_step(generic, 2, 0)  # compile or load the kernels outside the timing
        mine, gen = [], []
        for r in range(args.rounds):
            mine.append(per_step(own, args.steps, r))
            gen.append(per_step(generic, args.steps, r))
        a, b = statistics.median(mine) * 1e9, statistics.median(gen) * 1e9
        rows.append({"game": spec, "own_ns": round(a), "generic_ns": round(b), "generic_over_own": round(b / a, 3)})
        print(f"{spec:22s} own {a:8.0f} ns   generic {b:8.0f} ns   generic/own {b / a:5.2f}", flush=True)
    if args.json:
        meta = {"date": datetime.date.today().isoformat(), "batch": args.batch, "steps": args.steps}
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({**meta, "rounds": args.rounds, "rows": rows}, f, indent=1)
    return 0


def rollouts(args: argparse.Namespace) -> int:
    """Games per CPU second: the game's own rollout kernel against the generic one on its contract."""
    from tessera.core.kits.contract import ContractGame
    from tessera.core.registry import load_game

    for spec in [*args.games, "nymbat", "nymbat(players=4)"] if args.games == GAMES else args.games:
        game = load_game(spec)
        game = game.bounded(0)[0]
        contract = game.kernel_contract()
        if contract is None:
            raise SystemExit(f"{spec}: no kernel contract")
        cg = ContractGame(contract, seed=0)
        st = game.new_initial_state(contract.initial_seed(cg.s) if contract.initial_seed else None)
        st.rollouts(2, 0), cg.rollouts(2)  # compile or load outside the timing
        own, gen = [], []
        for r in range(args.rounds):
            t = time.process_time()
            st.rollouts(args.rollouts, r)
            own.append(args.rollouts / (time.process_time() - t))
            t = time.process_time()
            cg.rollouts(args.rollouts)
            gen.append(args.rollouts / (time.process_time() - t))
        a, b = statistics.median(own), statistics.median(gen)
        print(f"{spec:22s} own {a:9.0f} games/s   generic {b:9.0f} games/s   generic/own {b / a:5.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
