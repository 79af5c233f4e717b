"""MCTS simulations per second in every game (a benchmark, not a test).

    python benchmarks/mcts_bench.py [--seconds 2] [--agent "mcts"] [--games nume nibble ...] [--json]

For each game the agent searches from the initial position and from a
position 20 random moves in (seeded), for ``--seconds`` each, on one core;
the report gives simulations (iterations) per second, the tree size at the
root and whether progressive widening was on.  Simultaneous games
(Nelaxtam) are searched for player 0's order.
"""

from __future__ import annotations

import argparse
import json
import platform
import random

import tessera
from tessera import SIMULTANEOUS, State
from tessera.agents import make_agent


def advance(state: State, plies: int, rng: random.Random) -> State:
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.current_player() == SIMULTANEOUS:
            state.play_joint([state.random_move(rng, p) for p in range(state.game.num_players)])
        else:
            state.apply_action(state.random_action(rng))
    return state


def bench(spec: str, agent_spec: str, seconds: float, plies: int) -> dict:
    game = tessera.load_game(spec)
    state = advance(game.new_initial_state(seed=1), plies, random.Random(1))
    agent = make_agent(agent_spec)
    kw = {"player": 0} if state.current_player() == SIMULTANEOUS else {}
    agent.choose(state, seconds=seconds, rng=1, **kw)
    st = agent.stats
    sims = st.get("iterations", 0)
    took = st.get("seconds", seconds)
    return {
        "game": spec,
        "agent": agent.name,
        "plies_in": plies,
        "legal": len(state.legal_actions(0 if kw else None)),
        "simulations": sims,
        "seconds": round(took, 3),
        "sims_per_s": round(sims / took, 1) if took else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--agent", default="mcts")
    ap.add_argument("--games", nargs="*", default=None, help="game strings (default: every game)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    specs = args.games or tessera.list_games()
    rows = [bench(spec, args.agent, args.seconds, plies) for spec in specs for plies in (0, 20)]
    if args.json:
        print(json.dumps({"python": platform.python_version(), "rows": rows}, indent=2))
        return
    print(
        f"MCTS simulations per second ({args.agent}, {args.seconds:g} s per search, Python {platform.python_version()})"
    )
    print(f"{'game':<28}{'plies in':>9}{'legal':>8}{'sims':>9}{'sims/s':>10}")
    for r in rows:
        print(f"{r['game']:<28}{r['plies_in']:>9}{r['legal']:>8}{r['simulations']:>9}{r['sims_per_s']:>10}")


if __name__ == "__main__":
    main()
