"""Our MCTS against OpenSpiel's C++ MCTSBot: simulations per CPU second, interleaved rounds, medians.

    python benchmarks/mcts_vs_openspiel.py [--seconds 3] [--rounds 3] [--json]

OpenSpiel (PyPI ``open-spiel``, the ``bench`` extra) runs its C++ ``MCTSBot``
with a ``RandomRolloutEvaluator`` doing one random rollout to the end of the
game, UCT c = 1.4, on ``hex(board_size=11)`` (121 cells) (:mod:`openspiel_ref`).
Ours runs ``mcts`` with one random rollout to the end per simulation
(``rollout_cutoff=-1``, the same kind of simulation), c = 1.4, on Nume
``size=6`` (126 cells, ~16 000 placements per move, so progressive widening
with sampled candidates).  Both search the initial position; the rate is
simulations per CPU second of this process (``time.process_time``).  Rounds
alternate the two sides and the median of each is reported with the ratio
ours / theirs (target >= 1.0).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from openspiel_ref import have_openspiel, openspiel_mcts_rate

import tessera
from tessera.agents import make_agent


def our_rate(seconds: float, seed: int, spec: str = "nume(size=6)") -> float:
    """Simulations per CPU second of ``mcts(c=1.4,rollout_cutoff=-1)`` on ``spec``'s initial position."""
    state = tessera.load_game(spec).new_initial_state()
    make_agent("mcts(c=1.4,rollout_cutoff=-1)").choose(state, iterations=2, rng=seed)  # load kernels
    iterations = 100
    while True:
        agent = make_agent("mcts(c=1.4,rollout_cutoff=-1,reuse=false)")
        t0 = time.process_time()
        agent.choose(state, iterations=iterations, rng=seed)
        dt = time.process_time() - t0
        if dt >= seconds * 0.8 or iterations > 10**7:
            return iterations / dt
        iterations = int(iterations * min(10.0, max(2.0, seconds / max(dt, 1e-3))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per side per round")
    ap.add_argument("--rounds", "--repeats", type=int, default=3, help="alternating rounds (median reported)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not have_openspiel():
        print("OpenSpiel is not installed: pip install 'tessera[bench]' (open-spiel)", file=sys.stderr)
        return 1
    theirs, ours = [], []
    for rnd in range(args.rounds):
        theirs.append(openspiel_mcts_rate(args.seconds))
        ours.append(our_rate(args.seconds, rnd))
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
        print(f"OpenSpiel C++ MCTSBot, hex(board_size=11), 1 random rollout: {t:10.1f} simulations/CPU s")
        print(f"tessera mcts, nume(size=6), random rollout to the end:      {o:10.1f} simulations/CPU s")
        print(f"ratio ours/theirs: {o / t:.3f} (target >= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
