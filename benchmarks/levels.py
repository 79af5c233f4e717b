"""Search effort per move of each strength level: the figures of docs/agents.md.

    python benchmarks/levels.py [--games nume ikabegama ...] [--levels 3 4 5] [--plies 0 20] [--rounds 3] [--json]

For each game (default parameters), each level and each position (the initial
position and the position after ``--plies`` random moves, seed 0), the level's
agent chooses a move with its own time per move, **counted on the CPU clock**
(``tessera.agents.set_clock("cpu")``: the searching thread's CPU time), so the
figures do not depend on the machine's load.  Printed: what the search reached —
MCTS and simultaneous-move MCTS count simulations (``iterations``), alpha-beta
nodes (and the completed ``depth``), the whole-turn search of four-player Nymbat
iterations — the median over ``--rounds`` rounds, and the rate per CPU second.
A move chosen from a kept plan (the rest of a multi-step turn) is not a search
and is skipped: the position is taken at the start of a turn.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from tessera import load_game
from tessera.agents import level, make_agent, using_clock
from tessera.core.game import SIMULTANEOUS, State

GAMES = ["nume", "ikabegama", "nibble", "nelaxtam", "nymbat", "nymbat(players=4)"]


def _position(game_spec: str, plies: int, seed: int = 0) -> State:
    """The position after ``plies`` random moves (fewer if the game ends first), at the start of a turn."""
    game = load_game(game_spec)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    done = 0
    while done < plies and not state.is_terminal():
        if state.current_player() == SIMULTANEOUS:
            state.play_joint([state.random_move(rng, player=p) for p in range(game.num_players)])
        else:
            mover = state.current_player()
            state.apply_action(state.random_action(rng))
            if state.current_player() == mover:  # finish a multi-step turn
                continue
        done += 1
    return state


def measure(game_spec: str, level_n: int, plies: int) -> dict[str, Any]:
    """One search of ``level`` from the position ``plies`` random moves in, on the CPU clock."""
    state = _position(game_spec, plies)
    game = load_game(game_spec)
    agent = make_agent(f"level{level_n}", game=game.name)
    kw: dict[str, Any] = {"rng": 1}
    if state.current_player() == SIMULTANEOUS:
        kw["player"] = 0
    with using_clock("cpu"):
        t0 = time.thread_time()
        agent.choose(state, **kw)
        cpu = time.thread_time() - t0
    stats = dict(agent.stats)
    count = stats.get("nodes", stats.get("iterations", 0))
    return {
        "game": game_spec,
        "level": level_n,
        "plies": plies,
        "agent": level(level_n, game.name, players=game.num_players).spec,
        "counted": "nodes" if "nodes" in stats else "iterations",
        "count": int(count),
        "depth": stats.get("depth"),
        "cpu_seconds": round(cpu, 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="*", default=GAMES)
    ap.add_argument("--levels", nargs="*", type=int, default=[3, 4, 5])
    ap.add_argument("--plies", nargs="*", type=int, default=[0, 20])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for game in args.games:
        load_game(game).new_initial_state()  # load the kernels outside the measured searches
        for plies in args.plies:
            for lv in args.levels:
                runs = [measure(game, lv, plies) for _ in range(args.rounds)]
                row = dict(runs[0])
                row["count"] = int(statistics.median(r["count"] for r in runs))
                row["cpu_seconds"] = round(statistics.median(r["cpu_seconds"] for r in runs), 3)
                depths = [r["depth"] for r in runs if r["depth"] is not None]
                row["depth"] = int(statistics.median(depths)) if depths else None
                row["per_cpu_second"] = round(row["count"] / row["cpu_seconds"]) if row["cpu_seconds"] else None
                rows.append(row)
                if not args.json:
                    d = f" (depth {row['depth']})" if row["depth"] is not None else ""
                    rate = row["per_cpu_second"] or 0
                    print(
                        f"{game:20} ply {plies:3}  level {lv}  {row['agent']:40.40}  {row['counted']:10} "
                        f"{row['count']:>9,}{d:11}  {row['cpu_seconds']:6.2f} CPU s  {rate:>9,}/s",
                        flush=True,
                    )
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
