"""Every case of the heavy drills whose suite runs a seeded sample (tests/sampling.py).

The suite draws a few cases of each such drill by a seed (the commit, or ``TESSERA_SAMPLE_SEED``); this
command runs all of them: the test files that import ``tests.sampling``, with ``TESSERA_SAMPLE_SEED=all``.
Exits with pytest's code (5, no test collected, is an error here too).

    python benchmarks/drills.py              # every sampled drill, in full
    python benchmarks/drills.py -k nymbat    # extra arguments go to pytest
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sampled_files() -> list[str]:
    """The test files that draw a seeded sample, relative to the repository."""
    return sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("test_*.py")
        if "tests.sampling import" in p.read_text(encoding="utf-8")
    )


def main(argv: list[str]) -> int:
    files = sampled_files()
    print("drills in full:", ", ".join(files), flush=True)
    env = {**os.environ, "TESSERA_SAMPLE_SEED": "all"}
    return subprocess.call(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *files, *argv], cwd=ROOT, env=env
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
