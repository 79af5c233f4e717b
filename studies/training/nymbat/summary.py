"""Summarise a match kept with ``--out DIR`` (DIR/results.jsonl), also while it runs or after it was stopped.

    python studies/training/nymbat/summary.py DIR AGENT_A

Wins/draws/losses of AGENT_A by seat, the Wilson 95 % interval of its win rate, and the CPU each
side thought in all (the records' ``think``, by seat).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, mid - half), min(1.0, mid + half)


def main() -> None:
    path, a = Path(sys.argv[1]) / "results.jsonl", sys.argv[2]
    lines = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    wdl = [[0, 0, 0], [0, 0, 0]]
    think_a = think_b = 0.0
    plies = []
    for r in lines:
        seat = r["seats"].index(a)
        ret = r["returns"][seat]
        wdl[seat][0 if ret > 0 else 1 if ret == 0 else 2] += 1
        think_a += r["think"][seat]
        think_b += r["think"][1 - seat]
        plies.append(r["plies"])
    n = len(lines)
    wins = wdl[0][0] + wdl[1][0]
    lo, hi = wilson(wins, n)
    out = {
        "games": n,
        "wins": wins,
        "draws": wdl[0][1] + wdl[1][1],
        "losses": wdl[0][2] + wdl[1][2],
        "by_seat": wdl,
        "win_rate": wins / n if n else None,
        "win_ci95": [round(lo, 3), round(hi, 3)],
        "think_a": round(think_a, 1),
        "think_b": round(think_b, 1),
        "plies": sorted(plies),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
