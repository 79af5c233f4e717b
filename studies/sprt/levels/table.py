"""The table of docs/agents.md ("Sequential tests of neighbouring levels"), read from the SPRT runs of
``studies/sprt/levels/<game>/<higher>-vs-<lower>/results.jsonl`` (``run.sh`` writes them).

Each cell: the verdict (H1: the higher level is at least ELO1 stronger more likely than equal; H0: the
reverse; "none" when the run stopped at its cap between the bounds), the games and the higher level's
W-D-L, the LLR, the Elo of its score (draws half) with the Wilson 95 % interval of that score turned
into Elo (finite where every game was won, unlike the pentanomial normal interval), and the CPU time
both agents spent thinking.  Prints Markdown, or with ``--write`` puts it in docs/agents.md between the markers
``<!-- level-sprt:start -->`` and ``<!-- level-sprt:end -->``::

    python studies/sprt/levels/table.py [--write]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from tessera.agents.evidence import read_sprt
from tessera.arena.stats import wilson_interval
from tessera.core.kits.sprt import score_to_elo

HERE = Path(__file__).resolve().parent
GAMES = ["ikabegama", "nelaxtam", "nibble", "nume", "nymbat"]
PAIRS = [(2, 1), (3, 2), (4, 3), (5, 4)]
DOC = HERE.parents[2] / "docs" / "agents.md"
START, END = "<!-- level-sprt:start -->", "<!-- level-sprt:end -->"


def _elo(x: float) -> str:
    return f"{x:+.0f}" if math.isfinite(x) else ("+∞" if x > 0 else "−∞")


def _cpu(seconds: float) -> str:
    return f"{seconds:.0f} CPU s" if seconds < 600 else f"{seconds / 60:.0f} CPU min"


def cell(path: Path) -> str:
    """One pair's cell, or ``not run``."""
    if not path.exists():
        return "not run"
    e = read_sprt(path)
    think = 0.0
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        d = json.loads(line)
        if not d.get("error"):
            think += sum(d.get("think") or [])
    lo, hi = wilson_interval(e.wins + 0.5 * e.draws, e.games)
    mid, lo, hi = score_to_elo(e.score), score_to_elo(lo), score_to_elo(hi)
    verdict = {"H1": "**H1**", "H0": "**H0**", None: "none (cap)"}[e.verdict]
    return (
        f"{verdict}, {e.games} games {e.wins}-{e.draws}-{e.losses}, LLR {e.llr:.2f}, "
        f"Elo {_elo(mid)} [{_elo(lo)}, {_elo(hi)}], {_cpu(think)}"
    )


def table() -> str:
    """The Markdown table: a row per pair, a column per game."""
    rows = ["| pair | " + " | ".join(GAMES) + " |", "| --- |" + " --- |" * len(GAMES)]
    for hi, lo in PAIRS:
        cells = [cell(HERE / g / f"level{hi}-vs-level{lo}" / "results.jsonl") for g in GAMES]
        rows.append(f"| {hi} vs {lo} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def write(doc: Path = DOC) -> None:
    """Put :func:`table` in ``doc`` between the markers (``ValueError`` when they are missing)."""
    text = doc.read_text(encoding="utf-8")
    start, end = text.index(START) + len(START), text.index(END)
    doc.write_text(text[:start] + "\n" + table() + text[end:], encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="update docs/agents.md instead of printing")
    if ap.parse_args().write:
        write()
    else:
        print(table(), end="")


if __name__ == "__main__":
    main()
