"""The compiled search tree's speed: simulations per CPU second against OpenSpiel's C++ MCTSBot and
against level 5's Python tree.

    python benchmarks/mcts_compiled.py [--seconds 2] [--rounds 5] [--games nibble,nume] [--json]

**Against OpenSpiel** (the ``bench`` extra, ``pyspiel``): C++ ``MCTSBot`` with a
``RandomRolloutEvaluator`` doing one random rollout to the end (UCT c = 1.4) on
``hex(board_size=11)`` (121 cells), and ``mcts_compiled(c=1.4,rollout_cutoff=-1)`` on Nume
``size=6`` (126 cells, ~16 000 placements: progressive widening), both from the initial position,
in the same process and **with equal simulations**: each round runs OpenSpiel first with ``N``
simulations (``N`` set once so that its search takes about ``--seconds``), then ours with the same
``N``; the rounds interleave the two and the medians of simulations per CPU second
(``time.process_time``) are reported with their ratio (target >= 3).

**Against level 5** (per game): the Python tree (:mod:`tessera.agents.mcts`) and the compiled one
with the same UCT options and the same kind of simulation — one random rollout to the end
(the level's ``c`` and widening, ``compiled_spec``) — from the game's initial position, equal
simulations, interleaved rounds, medians; and the rate of level 5's own search where it is UCT
(Nume's level 5 scores leaves with the evaluation instead of a rollout: a different simulation).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import tessera
from tessera.agents import make_agent
from tessera.agents.spec import compiled_spec, level, parse_spec

GAMES = {"nibble": "nibble", "nume": "nume(size=6)", "ikabegama": "ikabegama(board=hexhex:6)", "nymbat": "nymbat"}
"""The games compared with level 5's tree, as loaded (Ikabegamá on a bounded board: the contract's)."""


def _state(spec: str) -> Any:
    game = tessera.load_game(spec)
    return game.new_initial_state(seed=1) if spec.startswith("nibble") else game.new_initial_state()


def timed(spec: str, state: Any, sims: int, seed: int) -> float:
    """CPU seconds of one search of ``sims`` simulations by a fresh agent ``spec`` (no tree kept)."""
    agent = make_agent(spec)
    t0 = time.process_time()
    agent.choose(state, iterations=sims, rng=seed)
    dt = time.process_time() - t0
    if agent.stats.get("compiled") is False:
        raise RuntimeError(f"{spec}: the position went to the Python tree")
    return dt


def openspiel_timed(sims: int, board_size: int = 11) -> float:
    """CPU seconds of one C++ MCTSBot search of ``sims`` simulations (one random rollout each) on hex."""
    import pyspiel

    game = pyspiel.load_game("hex", {"board_size": board_size})
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 0), 1.4, sims, 1000, False, 0, False)
    state = game.new_initial_state()
    t0 = time.process_time()
    bot.step(state)
    return time.process_time() - t0


def sims_for(run: Any, seconds: float) -> int:
    """A number of simulations for which ``run(sims)`` takes about ``seconds`` of CPU."""
    sims = 200
    while True:
        dt = run(sims)
        if dt >= seconds * 0.5 or sims > 10**7:
            return max(1, int(sims * seconds / max(dt, 1e-6)))
        sims = int(sims * min(10.0, max(2.0, seconds / max(dt, 1e-3))))


def vs_openspiel(seconds: float, rounds: int) -> dict[str, Any]:
    state = _state("nume(size=6)")
    ours_spec = "mcts_compiled(c=1.4,rollout_cutoff=-1,reuse=false)"
    timed(ours_spec, state, 10, 0)  # load the compiled loop
    sims = sims_for(openspiel_timed, seconds)
    theirs, ours = [], []
    for rnd in range(rounds):
        theirs.append(sims / openspiel_timed(sims))
        ours.append(sims / timed(ours_spec, state, sims, rnd))
    t, o = statistics.median(theirs), statistics.median(ours)
    return {
        "simulations": sims,
        "openspiel_hex11_sims_per_cpu_s": round(t),
        "compiled_nume6_sims_per_cpu_s": round(o),
        "ratio": round(o / t, 2),
        "runs": {"openspiel": [round(x) for x in theirs], "compiled": [round(x) for x in ours]},
    }


def vs_level5(name: str, seconds: float, rounds: int) -> dict[str, Any]:
    spec = GAMES[name]
    state = _state(spec)
    compiled = compiled_spec(level(5, name).spec).replace(")", ",reuse=false)")
    python = compiled.replace("mcts_compiled(", "mcts(")
    own_name, _ = parse_spec(level(5, name).spec)
    own = level(5, name).spec.replace(")", ",reuse=false)") if own_name == "mcts" else None
    timed(compiled, state, 10, 0)
    sims = sims_for(lambda n: timed(python, state, n, 0), seconds)
    py, co, lv = [], [], []
    for rnd in range(rounds):
        py.append(sims / timed(python, state, sims, rnd))
        co.append(sims / timed(compiled, state, sims, rnd))
        if own is not None:
            lv.append(sims / timed(own, state, sims, rnd))
    p, c = statistics.median(py), statistics.median(co)
    out: dict[str, Any] = {
        "game": spec,
        "simulations": sims,
        "python_spec": python,
        "python_sims_per_cpu_s": round(p),
        "compiled_sims_per_cpu_s": round(c),
        "ratio": round(c / p, 2),
    }
    if lv:
        out["level5_spec"] = level(5, name).spec
        out["level5_sims_per_cpu_s"] = round(statistics.median(lv))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of one search (sets the simulations)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (medians reported)")
    ap.add_argument("--games", default=",".join(GAMES), help="games compared with level 5 (comma-separated)")
    ap.add_argument("--no-openspiel", action="store_true", help="skip the OpenSpiel comparison")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result: dict[str, Any] = {}
    if not args.no_openspiel:
        try:
            import pyspiel  # noqa: F401
        except ImportError:
            print("OpenSpiel is not installed: pip install 'tessera[bench]' (open-spiel)", file=sys.stderr)
            return 1
        result["openspiel"] = vs_openspiel(args.seconds, args.rounds)
        if not args.json:
            r = result["openspiel"]
            print(f"equal simulations: {r['simulations']}, medians of {args.rounds} interleaved rounds (CPU time)")
            print(
                f"OpenSpiel C++ MCTSBot, hex 11, 1 random rollout:  {r['openspiel_hex11_sims_per_cpu_s']:>9} sims/CPU s"
            )
            print(
                f"mcts_compiled, nume(size=6), 1 random rollout:     {r['compiled_nume6_sims_per_cpu_s']:>9} sims/CPU s"
            )
            print(f"ratio compiled/OpenSpiel: {r['ratio']} (target >= 3)")
    result["level5"] = []
    for name in [g.strip() for g in args.games.split(",") if g.strip()]:
        if name not in GAMES:
            print(f"unknown game {name!r}: choose from {', '.join(GAMES)}", file=sys.stderr)
            return 2
        r = vs_level5(name, args.seconds, args.rounds)
        result["level5"].append(r)
        if not args.json:
            extra = (
                f"; level 5 as tuned ({r['level5_spec']}): {r['level5_sims_per_cpu_s']}" if "level5_spec" in r else ""
            )
            print(
                f"{r['game']:>26}: Python tree {r['python_sims_per_cpu_s']:>8}, "
                f"compiled {r['compiled_sims_per_cpu_s']:>8} sims/CPU s (x{r['ratio']}, {r['simulations']} sims){extra}"
            )
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
