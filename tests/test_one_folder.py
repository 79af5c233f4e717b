"""One game, one folder: code that names a game lives in that game's folder (issue 36).

Everything outside ``tessera/games/<game>/`` reaches a game through the protocol and the hooks
the game declares (``Game.solver()``, ``Game.lessons()``, ``Game.vector_engine()``,
``Game.level_tuning()``, ``Game.rules_page()`` …), never by its name.  The source is read, not
run: in Python (:mod:`ast`) an import of a game's module, a dictionary keyed by a game's name, a
comparison with a game's name; in the web client the same in JavaScript (a comparison with a
game's name, an object key or ``case`` label that is one).  Docstrings, comments and examples
may mention a game.

What is not moved yet stands in :data:`PYTHON_LEFT` / :data:`JS_LEFT`, each with its reason;
an entry that no longer matches the code fails, so the lists only shrink.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tessera
from tessera.core.kits.stepper import ContractVector
from tessera.core.registry import _builtin_games, game_class

PACKAGE = Path(tessera.__file__).resolve().parent
GAMES = sorted(_builtin_games())
_ANY = "|".join(GAMES)
_NAMED = re.compile(rf"^({_ANY})(\(.*\))?$")
"""A game's name, or its one-string form (``nume(size=2)``)."""

PYTHON_LEFT: dict[str, str] = {}
"""Generic modules that still name a game, each with what is to be done (the list only shrinks)."""

JS_LEFT: dict[str, str] = {}
"""Files of the web client that still branch on a game's name (the list only shrinks)."""


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings or bare expression strings."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def _names_a_game(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(_NAMED.match(node.value))


def python_naming(source: str) -> list[str]:
    """Where Python source names a game: imports of a game's module, dictionary keys, comparisons."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.module == "tessera.games":
                names += [f"tessera.games.{a.name}" for a in node.names]
            for name in names:
                parts = name.split(".")
                if parts[:2] == ["tessera", "games"] and len(parts) > 2 and parts[2] in GAMES:
                    found.append(f"line {node.lineno}: imports {name}")
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if isinstance(k, ast.Constant) and _names_a_game(k)]
            found += [f"line {k.lineno}: key {k.value!r}" for k in keys]
        elif isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                items = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                named = [e for e in items if isinstance(e, ast.Constant) and _names_a_game(e)]
                found += [f"line {e.lineno}: compares with {e.value!r}" for e in named]
    return found


_JS = [
    re.compile(rf"""(===|!==|==|!=)\s*["']({_ANY})["']"""),
    re.compile(rf"""["']({_ANY})["']\s*(===|!==|==|!=)"""),
    re.compile(rf"""(^|[{{,])\s*["']?({_ANY})["']?\s*:(?!\S)"""),
    re.compile(rf"""\bcase\s+["']({_ANY})["']"""),
]


def js_naming(source: str) -> list[str]:
    """Where JavaScript compares with a game's name or keys an object or a ``case`` by one."""
    return [
        f"line {n}: {line.strip()[:100]}"
        for n, line in enumerate(source.splitlines(), start=1)
        if not line.lstrip().startswith("//") and any(p.search(line) for p in _JS)
    ]


_JS_LITERAL = re.compile(rf"""["'`]({_ANY})(\(|["'`])""")
_JS_TRAILING_COMMENT = re.compile(r"\s//\s.*$")


def js_literals(source: str) -> list[str]:
    """Where JavaScript code (not its comments) holds a game's name or one-string form as a literal."""
    found = []
    for n, line in enumerate(source.splitlines(), start=1):
        if line.lstrip().startswith("//"):
            continue
        code = _JS_TRAILING_COMMENT.sub("", line)
        if _JS_LITERAL.search(code):
            found.append(f"line {n}: {line.strip()[:100]}")
    return found


def _generic_python() -> list[Path]:
    return [
        p
        for p in sorted(PACKAGE.rglob("*.py"))
        if not (p.relative_to(PACKAGE).parts[0] == "games" and p.relative_to(PACKAGE).parts[1] in GAMES)
    ]


def _rel(p: Path) -> str:
    return p.relative_to(PACKAGE.parent).as_posix()


def test_the_readers_find_each_kind_of_naming() -> None:
    """The checks are only as good as their readers (each kind of naming is found, a mention is not)."""
    assert python_naming("from tessera.games.nume import kernels")
    assert python_naming("from tessera.games import nibble")
    assert python_naming("SPECS = {'nymbat': 1}")
    assert python_naming("if game.name == 'nelaxtam':\n    pass")
    assert python_naming("ok = name in ('nume(size=2)', 'x')")
    assert not python_naming('"""Nume and nibble are mentioned here."""\nx = load("nume")')
    assert js_naming('if (g.name === "ikabegama") {}')
    assert js_naming("const T = {\n  nume: { vs2: 90 },\n};")
    assert js_naming("switch (g) { case 'nibble': break; }")
    assert not js_naming('// a comment on nume\nconst key = "game:nume.legend";')
    assert js_literals('ui.spec = query.get("spec") || "nume";')
    assert js_literals("option.value = 'nymbat(players=4)';")
    assert js_literals("const GAMES = [`nibble`, 'x'];")
    assert not js_literals('const key = "game:nume.legend"; // the default was "nume"\n// "nelaxtam" in a comment')


@pytest.mark.parametrize("path", _generic_python(), ids=_rel)
def test_a_generic_python_module_names_no_game(path: Path) -> None:
    """A module outside the games' folders reaches a game through its declared hooks, not its name."""
    found = python_naming(path.read_text(encoding="utf-8"))
    if _rel(path) in PYTHON_LEFT:
        assert found, f"{_rel(path)} no longer names a game: remove it from PYTHON_LEFT"
        return
    assert not found, f"{_rel(path)} names a game:\n" + "\n".join(found)


@pytest.mark.parametrize("path", sorted((PACKAGE / "web" / "js").rglob("*.js")), ids=lambda p: p.name)
def test_the_web_client_branches_on_no_game_name(path: Path) -> None:
    """The client draws every game from its render description; what a game needs beyond it comes from
    the server or from the game's own client module, never from a branch on the game's name."""
    found = js_naming(path.read_text(encoding="utf-8"))
    if path.name in JS_LEFT:
        assert found, f"{path.name} no longer branches on a game: remove it from JS_LEFT"
        return
    assert not found, f"{path.name} branches on a game's name:\n" + "\n".join(found)


@pytest.mark.parametrize("path", sorted((PACKAGE / "web" / "js").rglob("*.js")), ids=lambda p: p.name)
def test_the_web_client_names_no_game(path: Path) -> None:
    """The client is game-agnostic: no game's name as a value in its code (a default game, a list of the
    games, a variant's spec), only what the catalogue and the render descriptions say; what one game needs
    beyond them (Nelaxtam's rules between the troops of an order) is in its own client module."""
    found = js_literals(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name} names a game:\n" + "\n".join(found)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_declares_its_capabilities_from_its_own_folder(game: str) -> None:
    """What a game brings is found through its object, and comes from its folder."""
    cls = game_class(game)
    folder = f"tessera.games.{game}."
    assert cls.rules_page("en"), f"{game} has no rules page"
    book = cls.lessons()
    assert book is not None and book.diagrams and book.lessons
    assert cls.level_tuning() is not None
    engine = tessera.load_game(game).vector_engine()
    assert engine is not None
    if issubclass(engine, ContractVector):  # the generic engine: its verbs and compiled loop are the game's
        contract = tessera.load_game(game).bounded(0)[0].kernel_contract()
        assert contract is not None and contract.init.py_func.__module__.startswith(folder)
    else:
        assert engine.__module__.startswith(folder)
    solver = tessera.load_game(game).solver()
    if solver is not None:
        assert solver.make.__module__.startswith(folder)


@pytest.mark.parametrize("game", GAMES)
def test_what_a_game_says_about_its_levels_is_in_every_catalogue(game: str) -> None:
    """The lobby shows a game's level measurements and note from the catalogue (``levels``), not from a
    table keyed by the game's name: the note is a key of every language's web catalogue."""
    import json

    levels = game_class(game).level_tuning().as_dict()
    assert set(levels["measured"]) in ({"vs4", "vs3", "games", "vs2"}, set())  # type: ignore[arg-type]
    note = levels["note"]
    if note is None:
        return
    ns, _, key = str(note).partition(":")
    for lang_dir in sorted(p for p in (PACKAGE / "web" / "locales").iterdir() if p.is_dir()):
        tree = json.loads((lang_dir / f"{ns}.json").read_text(encoding="utf-8"))
        for part in key.split("."):
            assert part in tree, f"{lang_dir.name}/{ns}.json has no {key}"
            tree = tree[part]


def test_a_declared_client_module_is_served_from_the_games_folder_and_named_by_the_catalogue() -> None:
    """The browser loads a game's client module because the game declares it: the catalogue names its URL,
    the server serves that file of the game's folder; a game without one, or no game, is a 404."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from tessera.server.catalog.routes import catalog
    from tessera.server.http import pages

    entries = {g["name"]: g for g in catalog()}
    declared = sorted(n for n in GAMES if game_class(n).client_module)
    assert declared, "no game declares a client module"
    app = FastAPI()
    app.include_router(pages.router)
    client = TestClient(app)
    for name in GAMES:
        url = entries[name]["client_module"]
        if name not in declared:
            assert url is None
            assert client.get(f"/games/{name}/client.js").status_code == 404
            continue
        assert url == f"/games/{name}/client.js"
        r = client.get(url)
        assert r.status_code == 200 and "javascript" in r.headers["content-type"]
        path = game_class(name).client_module_path()
        assert path is not None and path.parent.name == name and r.text == path.read_text(encoding="utf-8")
    r = client.get("/games/chess/client.js")
    assert r.status_code == 404 and "chess" in r.json()["detail"]
