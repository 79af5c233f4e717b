"""Seeded samples of heavy drills: the suite runs a few cases of a drill, its benchmark command all of them.

A case is drawn by the sample's seed: ``TESSERA_SAMPLE_SEED`` if set (``all`` draws every case), else the
checked-out commit, so each commit runs its own reproducible sample and the cases rotate as ``main`` moves.
A case not drawn is skipped with the seed in its reason; ``benchmarks/drills.py`` runs every case.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def sample_seed() -> str:
    """The seed of this run's sample: ``TESSERA_SAMPLE_SEED``, else the commit checked out, else ``"0"``."""
    seed = os.environ.get("TESSERA_SAMPLE_SEED")
    if seed:
        return seed
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "0"
    return out.stdout.strip()[:12] or "0"


def drawn(case: str, share: float) -> bool:
    """True if ``case`` is in this run's sample; each case is drawn with probability ``share``, independently."""
    seed = sample_seed()
    if seed == "all":
        return True
    digest = hashlib.sha256(f"{seed}:{case}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def sampled(case: str, share: float) -> pytest.MarkDecorator:
    """A ``skipif`` mark that runs ``case`` only when it is drawn (see :func:`drawn`)."""
    return pytest.mark.skipif(
        not drawn(case, share),
        reason=f"not drawn in the seeded sample (seed {sample_seed()}); TESSERA_SAMPLE_SEED=all runs it",
    )


def sample_params(name: str, cases: list[str], share: float) -> list[object]:
    """``cases`` as ``pytest.param`` values, each run only when drawn under ``name``."""
    return [pytest.param(c, marks=sampled(f"{name}:{c}", share)) for c in cases]
