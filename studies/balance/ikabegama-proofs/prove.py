"""Which Ikabegamá openings are a forced win: the exact race solver from the initial position.

For each nest distance, ``tessera.games.ikabegama.solver.solve`` is asked whether the first player
can force a win (or is lost) within ``--horizon`` plies, on the CPU clock with ``--seconds`` at most;
the answer, the first move of the win in the game's notation and the CPU time are written to
``proofs.json`` beside this file. A distance where nothing is proved is said as such ("unknown within
N plies"), never as a draw.

    PYTHONPATH=. python studies/balance/ikabegama-proofs/prove.py --distances 2,4,6,8,10,12 --horizon 13

``--boards plane,hexhex:7,hexhex:10`` asks the same on each board (the game's ``board`` parameter);
every row names its board.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import tessera
from tessera.games.ikabegama.solver import solve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--distances", default="2,4,6,8,10,12")
    ap.add_argument("--boards", default="plane", help="comma-separated values of the game's board parameter")
    ap.add_argument("--horizon", type=int, default=13)
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--out", default=str(Path(__file__).with_name("proofs.json")))
    args = ap.parse_args()
    rows = []
    cases = [(b, int(d)) for b in args.boards.split(",") for d in args.distances.split(",")]
    for board, distance in cases:
        game = tessera.load_game(f"ikabegama(distance={distance},board={board})")
        state = game.new_initial_state()
        t0 = time.process_time()
        out = solve(state, seconds=args.seconds, horizon=args.horizon)
        cpu = round(time.process_time() - t0, 2)
        if out is None:
            row = {"board": board, "distance": distance, "result": f"unknown within {args.horizon} plies", "cpu_s": cpu}
        else:
            value, move, plies = out
            row = {
                "board": board,
                "distance": distance,
                "result": "first player wins" if value > 0 else "first player loses",
                "plies": plies,
                "first_move": state.action_to_string(move),
                "cpu_s": cpu,
            }
        print(json.dumps(row), flush=True)
        rows.append(row)
    Path(args.out).write_text(
        json.dumps({"horizon": args.horizon, "seconds": args.seconds, "clock": "cpu", "rows": rows}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main()
