"""Where each side's thinking goes in one timed game: steps played, steps searched (more than one legal
step), CPU in all, and turns, for ``learned(game=nymbat)`` against level 5's search at the same seconds a step.

    PYTHONPATH=. python studies/training/nymbat/steps.py SECONDS SEED [LEARNED_SECONDS] [GAMES]

``LEARNED_SECONDS``: the learned side's seconds a step (default ``SECONDS``); ``GAMES`` games from seeds
``SEED``, ``SEED + 1``, … (odd seeds: the learned side in seat 1), one JSON line each.
"""

from __future__ import annotations

import json
import sys
import time

import tessera
from tessera.agents import make_agent, set_clock


def main() -> None:
    seconds, first = float(sys.argv[1]), int(sys.argv[2])
    mine = float(sys.argv[3]) if len(sys.argv) > 3 else seconds
    for seed in range(first, first + (int(sys.argv[4]) if len(sys.argv) > 4 else 1)):
        play(seconds, mine, seed)


def play(seconds: float, mine: float, seed: int) -> None:
    set_clock("cpu")
    st = tessera.load_game("nymbat").new_initial_state()
    names = ["learned(game=nymbat)", "level5"]
    agents = [make_agent(f"learned(game=nymbat,seed={seed})"), make_agent(f"level5(seed={seed + 1})")]
    if seed % 2:
        names.reverse()
        agents.reverse()
    steps = [0, 0]
    searched = [0, 0]
    cpu = [0.0, 0.0]
    turns = [0, 0]
    ends = [0, 0]
    last = -1
    while not st.is_terminal():
        p = st.current_player()
        if p != last:
            turns[p] += 1
            last = p
        n = len(st.legal_actions())
        t = time.thread_time()
        a = agents[p].choose(st, seconds=mine if names[p] == "learned(game=nymbat)" else seconds)
        cpu[p] += time.thread_time() - t
        steps[p] += 1
        searched[p] += n > 1
        stats = getattr(agents[p], "stats", {}) or {}
        ends[p] += abs(stats.get("value", 0.0) or 0.0) >= 1.5
        st.apply_legal(a)
    out = {
        "seed": seed,
        "seconds": {"learned(game=nymbat)": mine, "level5": seconds},
        "seats": names,
        "returns": st.returns(),
        "steps": steps,
        "searched_steps": searched,
        "cpu": [round(c, 1) for c in cpu],
        "turns": turns,
        "steps_with_a_proved_result": ends,
    }
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
