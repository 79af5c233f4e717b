"""Where each side's thinking goes in one timed game: steps played, steps searched (more than one legal
step), CPU in all, and turns, for ``learned(game=nymbat)`` against level 5's search at the same seconds a step.

    PYTHONPATH=. python studies/training/nymbat/steps.py SECONDS SEED
"""

from __future__ import annotations

import json
import sys
import time

import tessera
from tessera.agents import make_agent, set_clock


def main() -> None:
    seconds, seed = float(sys.argv[1]), int(sys.argv[2])
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
        a = agents[p].choose(st, seconds=seconds)
        cpu[p] += time.thread_time() - t
        steps[p] += 1
        searched[p] += n > 1
        stats = getattr(agents[p], "stats", {}) or {}
        ends[p] += abs(stats.get("value", 0.0) or 0.0) >= 1.5
        st.apply_legal(a)
    out = {
        "seats": names,
        "returns": st.returns(),
        "steps": steps,
        "searched_steps": searched,
        "cpu": [round(c, 1) for c in cpu],
        "turns": turns,
        "steps_with_a_proved_result": ends,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
