"""Our MCTS against OpenSpiel's C++ MCTSBot: simulations per second, same process, one core.

    python benchmarks/mcts_vs_openspiel.py [--seconds 3] [--repeats 3]

OpenSpiel (PyPI ``open-spiel``, optional) runs its C++ ``MCTSBot`` with a
``RandomRolloutEvaluator`` doing one random rollout to the end of the game,
UCT c = 1.4, on ``hex(board_size=11)`` (121 cells).  Ours runs ``mcts`` with
random rollouts to the end (``rollout_cutoff=-1``, the same kind of
simulation) on Nume ``size=6`` (126 cells, ~16 000 placements per move, so
progressive widening with sampled candidates).  Both search the initial
position; the report is simulations per second and the ratio ours/theirs
(target ≥ 0.2).  Runs alternate between the two and the median is kept, so
a noisy machine affects both alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import tessera
from tessera.agents import make_agent


def openspiel_rate(seconds: float) -> float:
    import pyspiel

    game = pyspiel.load_game("hex(board_size=11)")
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    sims = 200
    while True:
        bot = pyspiel.MCTSBot(game, evaluator, 1.4, sims, 1000, False, 0, False)
        state = game.new_initial_state()
        t0 = time.perf_counter()
        bot.step(state)
        dt = time.perf_counter() - t0
        if dt >= seconds * 0.8 or sims > 10**7:
            return sims / dt
        sims = int(sims * max(2.0, seconds / max(dt, 1e-3)))


def our_rate(seconds: float) -> float:
    state = tessera.load_game("nume(size=6)").new_initial_state()
    agent = make_agent("mcts(c=1.4,rollout_cutoff=-1)")
    agent.choose(state, seconds=seconds, rng=0)
    return agent.stats["iterations"] / agent.stats["seconds"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed: pip install open-spiel", file=sys.stderr)
        return 1
    theirs, ours = [], []
    for _ in range(args.repeats):
        theirs.append(openspiel_rate(args.seconds))
        ours.append(our_rate(args.seconds))
    t, o = statistics.median(theirs), statistics.median(ours)
    result = {
        "openspiel_hex11_sims_per_s": round(t, 1),
        "tessera_nume6_sims_per_s": round(o, 1),
        "ratio_ours_over_theirs": round(o / t, 3),
        "runs": {"openspiel": [round(x, 1) for x in theirs], "tessera": [round(x, 1) for x in ours]},
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"OpenSpiel C++ MCTSBot, hex(board_size=11), 1 random rollout: {t:10.1f} simulations/s")
        print(f"tessera mcts, nume(size=6), random rollout to the end:      {o:10.1f} simulations/s")
        print(f"ratio ours/theirs: {o / t:.3f} (target >= 0.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
