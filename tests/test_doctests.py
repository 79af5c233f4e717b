"""Docs are executable: every example written as a doctest runs, and a wrong one fails.

The examples are found, not listed: every module of the ``tessera`` package (a new module
is covered the day it is added) and every page of ``docs/`` and ``README.md`` that holds a
``>>>`` prompt. Markdown code fences around an example are not part of its expected output.
The rulebook (``docs/rules/``) is held to the games' own declarations the same way.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

import tessera

ROOT = Path(tessera.__file__).resolve().parent.parent
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
PROMPT = re.compile(r"^\s*>>> ", re.MULTILINE)
FENCE = re.compile(r"^\s*```.*$", re.MULTILINE)


def _module_names() -> list[str]:
    """Every module of the package, except the ``__main__`` entry points (importing one runs it)."""
    names = ["tessera"]
    for info in pkgutil.walk_packages(tessera.__path__, "tessera."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            names.append(info.name)
    return sorted(names)


MODULES = _module_names()
PAGES = sorted(
    str(p.relative_to(ROOT))
    for p in [*(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]
    if p.is_file() and PROMPT.search(p.read_text(encoding="utf-8"))
)


def _import(name: str) -> ModuleType:
    """Import a module; skip it only when an optional third-party extra it needs is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing and missing != "tessera":
            pytest.skip(f"{name} needs the optional package {missing!r}, not installed here")
        raise


def _run(tests: list[doctest.DocTest]) -> tuple[int, int, str]:
    """Run doctests; return (examples tried, examples failed, the failure report)."""
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    return result.attempted, result.failed, "".join(report)


@pytest.mark.parametrize("name", MODULES)
def test_every_docstring_example_of_a_module_gives_the_output_it_shows(name: str) -> None:
    """A module's docstring examples (module, classes, functions, methods) all pass."""
    module = _import(name)
    tests = doctest.DocTestFinder().find(module, name)
    attempted, failed, report = _run(tests)
    assert failed == 0, f"{failed} of {attempted} examples failed in {name}:\n{report}"
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    if PROMPT.search(source):
        assert attempted > 0, f"{name} shows '>>>' examples but none of them was found and run"


@pytest.mark.parametrize("page", PAGES)
def test_every_example_on_a_docs_page_gives_the_output_it_shows(page: str) -> None:
    """A page's ``>>>`` examples run in order, sharing one namespace, like a session."""
    text = FENCE.sub("", (ROOT / page).read_text(encoding="utf-8"))
    test = doctest.DocTestParser().get_doctest(text, {}, page, page, 0)
    attempted, failed, report = _run([test])
    assert attempted > 0
    assert failed == 0, f"{failed} of {attempted} examples failed on {page}:\n{report}"


def test_the_collection_reaches_every_package_and_the_modules_that_hold_examples() -> None:
    """The doctest run cannot silently shrink: it covers each package directory of ``tessera``
    and, by name, every module file whose text holds a ``>>>`` prompt."""
    package_dirs = {p.parent for p in (ROOT / "tessera").rglob("__init__.py")}
    for directory in package_dirs:
        dotted = ".".join(directory.relative_to(ROOT).parts)
        assert dotted in MODULES, f"package {dotted} is not collected"
    for path in (ROOT / "tessera").rglob("*.py"):
        if path.parent in package_dirs and path.name != "__main__.py" and PROMPT.search(path.read_text("utf-8")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            dotted = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            assert dotted in MODULES, f"{path} holds examples but is not collected"


BUILT_IN_GAMES = [n for n in tessera.list_games() if type(tessera.load_game(n)).__module__.startswith("tessera.games.")]


@pytest.mark.parametrize("name", BUILT_IN_GAMES)
def test_every_game_has_a_rulebook_page_that_names_each_of_its_parameters(name: str) -> None:
    """The rulebook has a page per game, linked from its index, whose parameter table names
    every parameter the game declares (a new parameter cannot go undocumented)."""
    page = ROOT / "docs" / "rules" / f"{name}.md"
    assert page.is_file(), f"the rulebook has no page for {name}: write docs/rules/{name}.md"
    assert f"]({name}.md)" in (ROOT / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`") for line in text.splitlines() if line.startswith("| `")}
    declared = {p.name for p in tessera.load_game(name).info.params}
    assert declared <= rows, f"docs/rules/{name}.md does not list the parameters {sorted(declared - rows)}"
