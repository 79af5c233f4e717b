"""Fit each game's AI level ratings from the matches of studies/ai_ratings/run.sh and the sequential
tests of studies/sprt/levels/run.sh, and store them in
``tessera/games/<game>/levels.json`` (read by tessera.server.ai.ratings: the AI accounts' starting
ratings, the seek pool's offer, the lobby's form).

Bradley–Terry on the Elo scale: P(a beats b) = 1 / (1 + 10^((R_b - R_a) / 400)), a draw counting half
a win to each; level 1 is held at 800 (the anchor, docs/agents.md); one virtual draw between each
pair of neighbouring levels keeps a clean sweep finite (as BayesElo's prior). The 95 % interval of
each level is ±1.96 standard errors from the observed information (the inverse Hessian of the
log-likelihood, level 1 fixed); the AI account's starting deviation is the standard error (bounded
below and above by the server, tessera.server.ai.ratings.MIN_RD/MAX_RD).

    python studies/ai_ratings/fit.py [--dry-run]   # also writes the table of docs/agents.md
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ANCHOR = 800.0
LEVELS = (1, 2, 3, 4, 5)
K = math.log(10) / 400


def level_of(agent: str) -> int:
    """``level3(scale=0.1)`` → 3."""
    return int(agent.split("(")[0].removeprefix("level"))


def games_of(game: str) -> list[tuple[int, int, float]]:
    """Every finished match game of ``game``: (level of seat 0, level of seat 1, score of seat 0), from the
    rating matches and from the sequential tests of neighbouring levels (``studies/sprt/levels``: the
    same agents, budgets and clock; a sequential test stops when its evidence suffices, which biases
    a fit of its games little at these game counts, as fishtest's Elo estimates of its SPRTs)."""
    out = []
    files = sorted(HERE.glob(f"{game}/*/results.jsonl")) + sorted(HERE.glob(f"{game}-*/results.jsonl"))
    files += sorted((ROOT / "studies" / "sprt" / "levels").glob(f"{game}/*/results.jsonl"))  # the level SPRTs
    for results in files:
        for line in results.read_text().splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a line cut short when the run was stopped
            if "header" in row or row.get("error") or not row.get("returns"):
                continue
            a, b = (level_of(s) for s in row["seats"])
            ra, rb = row["returns"]
            out.append((a, b, 1.0 if ra > rb else 0.0 if ra < rb else 0.5))
    return out


def fit(games: list[tuple[int, int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Ratings (level 1 = ANCHOR) and their standard errors."""
    prior = [(lv, lv + 1, 0.5) for lv in LEVELS[:-1]]  # one virtual draw between neighbours
    data = games + prior
    n = len(LEVELS)
    r = np.array([ANCHOR + 300.0 * i for i in range(n)])
    for _ in range(200):  # Newton's method on levels 2..5
        grad = np.zeros(n)
        hess = np.zeros((n, n))
        for a, b, s in data:
            i, j = a - 1, b - 1
            p = 1.0 / (1.0 + math.exp(-K * (r[i] - r[j])))
            grad[i] += K * (s - p)
            grad[j] -= K * (s - p)
            w = K * K * p * (1 - p)
            hess[i, i] -= w
            hess[j, j] -= w
            hess[i, j] += w
            hess[j, i] += w
        step = np.linalg.solve(hess[1:, 1:], -grad[1:])
        r[1:] += np.clip(step, -200, 200)
        if np.max(np.abs(step)) < 1e-6:
            break
    cov = np.linalg.inv(-hess[1:, 1:])
    se = np.concatenate([[0.0], np.sqrt(np.diag(cov))])
    return r, se


def write_table(rows: dict[str, dict[str, dict[str, float]]], total: dict[str, int]) -> None:
    """The table of docs/agents.md ("Ratings of the levels"), between its two markers."""
    start, end = "<!-- levels table: written by studies/ai_ratings/fit.py -->", "<!-- /levels table -->"
    lines = [
        start,
        "| game (games) | level 1 | level 2 | level 3 | level 4 | level 5 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for game, levels in sorted(rows.items()):
        cells = [
            f"{x['rating']:g} [{x['low']:g}, {x['high']:g}] ({x['games']:g})"
            if k != "1"
            else f"{x['rating']:g} (anchor)"
            for k, x in sorted(levels.items(), key=lambda kv: int(kv[0]))
        ]
        lines.append(f"| {game} ({total[game]}) | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Each cell: the rating, its 95 % interval and (the games the level played); a level without games",
        "is held one virtual draw from its neighbour, so its interval says how little is known.",
        end,
    ]
    doc = ROOT / "docs" / "agents.md"
    text = doc.read_text(encoding="utf-8")
    a, b = text.index(start), text.index(end) + len(end)
    doc.write_text(text[:a] + "\n".join(lines) + text[b:], encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dry-run", action="store_true", help="print, do not write the levels.json files")
    args = ap.parse_args()
    rows: dict[str, dict[str, dict[str, float]]] = {}
    total: dict[str, int] = {}
    for game_dir in sorted(p for p in HERE.iterdir() if p.is_dir() and "-" not in p.name):
        game = game_dir.name
        games = games_of(game)
        if not games:
            continue
        r, se = fit(games)
        played = {lv: sum(1 for a, b, _ in games if lv in (a, b)) for lv in LEVELS}
        pairs: dict[str, list[float]] = {}
        for a, b, s in games:
            lo, hi = sorted((a, b))
            key = f"{lo}-{hi}"
            pairs.setdefault(key, [0.0, 0.0])
            pairs[key][0] += s if a == lo else 1 - s
            pairs[key][1] += 1
        levels = {
            str(lv): {
                "rating": round(float(r[lv - 1])),
                "rd": round(float(se[lv - 1]), 1),
                "low": round(float(r[lv - 1] - 1.96 * se[lv - 1])),
                "high": round(float(r[lv - 1] + 1.96 * se[lv - 1])),
                "games": played[lv],
            }
            for lv in LEVELS
        }
        out = {
            "anchor": f"level 1 = {ANCHOR:g}",
            "method": "Bradley-Terry (Elo scale), one virtual draw between neighbouring levels, 95 % intervals "
            "from the observed information; matches: studies/ai_ratings/run.sh (levels 3-5 at a tenth of "
            "their time per move, CPU clock)",
            "games": len(games),
            "pairs": {k: {"score_of_lower": v[0], "games": int(v[1])} for k, v in sorted(pairs.items())},
            "levels": levels,
        }
        text = json.dumps(out, indent=2) + "\n"
        print(f"== {game}: {len(games)} games")
        for lv in LEVELS:
            x = levels[str(lv)]
            print(f"   level {lv}: {x['rating']:5d}  [{x['low']}, {x['high']}]  ({x['games']} games)")
        rows[game], total[game] = levels, len(games)
        if not args.dry_run:
            (ROOT / "tessera" / "games" / game / "levels.json").write_text(text, encoding="utf-8")
    if not args.dry_run:
        write_table(rows, total)


if __name__ == "__main__":
    main()
