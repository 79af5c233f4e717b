"""Wins of the first-named agent in every match under studies/training/nibble/, with Wilson 95 % intervals.

python studies/training/nibble/summary.py
"""

import json
import math
from pathlib import Path

HERE = Path(__file__).parent


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


for d in sorted(p for p in HERE.iterdir() if (p / "results.jsonl").exists()):
    lines = (d / "results.jsonl").read_text().splitlines()
    head = json.loads(lines[0])["header"]
    a = head["agents"][0]
    games = [json.loads(x) for x in lines[1:] if x.startswith('{"key')]
    score = sum((1.0 + g["returns"][g["seats"].index(a)]) / 2 for g in games)
    wins = sum(1 for g in games if g["returns"][g["seats"].index(a)] > 0)
    lo, hi = wilson(wins, len(games))
    budget = f"{head['iterations']} it" if head["iterations"] else f"{head['seconds']} s {head['clock']}"
    print(
        f"{d.name}: {a} vs {head['agents'][1]}, {budget}: {wins}/{len(games)} wins, "
        f"score {score / max(1, len(games)):.1%} [{lo:.0%}–{hi:.0%}]"
    )
