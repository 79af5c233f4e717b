"""examples/train_vector_pg.py learns: a short seeded run beats the random agent clearly.

"An example that trains something real … it must learn (beat ``random`` clearly) within a few
CPU minutes.  A test runs a short version of it and checks it beats random."
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_vector_pg.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_train_vector_pg", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_short_training_run_beats_random_clearly():
    train = _load().train
    curve = train(updates=10, batch=32, steps=40, eval_every=8, eval_games=400, greedy_games=0, seed=0, log=False)
    before, after = curve["random"]
    assert 0.4 <= before <= 0.6  # the untrained policy is about as good as random
    assert after >= 0.62 and after - before >= 0.08  # 400 games: the standard error is about 0.025
