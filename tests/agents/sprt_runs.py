"""Stored SPRT runs for tests: a ``results.jsonl`` as ``tessera match A B --sprt ... --out DIR`` writes it,
in a fixture directory that ``TESSERA_SPRT_DIR`` (tessera.agents.evidence) can point at."""

from __future__ import annotations

import json
from pathlib import Path

from tessera.games.nymbat.game import LEVELS as NYMBAT_LEVELS

FOLDER = NYMBAT_LEVELS.level6_sprt or ""
AGENT = NYMBAT_LEVELS.level6 or ""


def write_run(
    root: Path,
    pairs: list[tuple[float, float]],
    *,
    agents: tuple[str, str] = (AGENT, "level5"),
    game: str = "nymbat",
    sprt: tuple[float, float] = (0.0, 150.0),
    folder: str = FOLDER,
) -> Path:
    """A results file as ``tessera match A B --sprt ... --out`` writes it: each pair is A's score in game
    ``2k`` (A in seat 0) and ``2k + 1`` (A in seat 1)."""
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    header = {
        "kind": "sprt",
        "game": game,
        "agents": list(agents),
        "seconds": 0.3,
        "iterations": None,
        "seed": 1,
        "clock": "cpu",
        "sprt": [sprt[0], sprt[1], 0.05, 0.05],
        "paired": True,
    }
    lines = [json.dumps({"header": header})]
    for k, pair in enumerate(pairs):
        for j, a_score in enumerate(pair):
            seat_a = j
            ret_a = {1.0: 1.0, 0.0: -1.0, 0.5: 0.0}[a_score]
            returns = [ret_a, -ret_a] if seat_a == 0 else [-ret_a, ret_a]
            lines.append(
                json.dumps({"key": str(2 * k + j), "game": game, "returns": returns, "error": None, "offender": None})
            )
    path = d / "results.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
