"""The examples in docstrings run (docs are executable)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tessera",
    "tessera.core.registry",
    "tessera.core.game",
    "tessera.core.geometry",
    "tessera.lab.stats",
    "tessera.lab.runner",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
