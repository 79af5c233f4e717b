"""The example scripts of docs/research.md run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_openspiel_example_plays_random_games() -> None:
    """examples/openspiel_quickstart.py: a random game of a dealt game ends with zero-sum returns."""
    state = _load("openspiel_quickstart").random_game("tessera_nibble", seed=1)
    assert state.is_terminal() and sum(state.returns()) == 0


def test_pettingzoo_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/pettingzoo_random.py: masked random play to the end in both envs."""
    _load("pettingzoo_random").main()
    out = capsys.readouterr().out
    assert "final reward" in out and "nelaxtam (parallel)" in out


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_training_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/train_masked_agent.py: trains with masks for a moment and reports win rates."""
    _load("train_masked_agent").main(0.2, eval_games=2)
    out = capsys.readouterr().out
    assert "before: win rate" in out and "after:  win rate" in out


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "name", ["tessera.adapters.openspiel", "tessera.adapters.pettingzoo", "tessera.adapters.gymnasium"]
)
def test_adapter_docstring_examples(name: str) -> None:
    """The examples in the adapters' docstrings run."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
