"""Imports point one way: ``core`` ← ``games`` ← ``agents`` ← ``arena``, everything else on top;
inside ``tessera.agents`` and ``tessera.server`` no module imports itself back through others; the
server's ``store/`` and ``events.py`` import no domain, and no domain queries another's tables.

The imports are read from the source with :mod:`ast` (every ``import`` and ``from … import``
anywhere in a file, including those inside functions and ``TYPE_CHECKING`` blocks, and
``importlib.import_module("tessera.…")`` with a literal name), over every Python file of
the package. Text that merely mentions a module (a docstring, a comment) is not an import.

The layers (docs/architecture.md):

* ``core`` — the game protocol, registry, geometry, render types: imports nothing above it;
* ``games`` — one module or package per game: imports only ``core``, its own modules and
  the shared modules of ``tessera.games`` — never the agents, the server or another game;
* ``agents`` — imports ``core`` and ``games``;
* ``arena`` — imports the layers below; ``lab`` (the balance lab) stands on the arena;
* ``puzzles`` — finds and proves puzzles with the agents' solvers and the arena's self-play;
* on top: ``vector``, ``adapters``, ``lessons``, ``ratings``, ``server``, ``cli``, ``botclient``, the
  ``__main__`` entry point — they may use every lower layer and each other, without a cycle.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

import tessera

PACKAGE = Path(tessera.__file__).resolve().parent

TOP = 5
LAYER = {
    "__init__": 0,  # the package's own module re-exports the core API
    "core": 0,
    "games": 1,
    "agents": 2,
    "arena": 3,
    "puzzles": 4,
    "vector": TOP,
    "adapters": TOP,
    "lessons": TOP,
    "ratings": TOP,
    "server": TOP,
    "cli": TOP,
    "botclient": TOP,
    "__main__": TOP,
}
"""The floor of each top-level part of ``tessera`` (a package, or a module such as ``cli``)."""

NOT_PYTHON = {"web"}
"""Parts of the package that hold no Python (the static web client)."""

EXCEPTIONS = {
    ("tessera.core.registry", "tessera.games"): (
        "the registry lists and loads the game modules found in the tessera.games package (by directory, "
        "then importlib by name): the one place a lower layer names a higher one, and only the package"
    ),
}
"""Imports that go against the layers on purpose, each with its reason. An entry that no
longer matches an import fails the test, so the list only ever shrinks to what is true."""


@dataclass(frozen=True)
class Import:
    source: str  # dotted module that imports
    target: str  # dotted module imported (within tessera)
    where: str  # file:line


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The tessera modules one AST node imports (empty for any other node)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:  # relative: resolve against the importing module's package
            base = module.split(".")
            base = base if is_package else base[:-1]
            base = base[: len(base) - (node.level - 1)]
            stem = ".".join(base + ([node.module] if node.module else []))
        else:
            stem = node.module or ""
        names = [a.name for a in node.names if a.name != "*"]
        # `from tessera import server` imports the module tessera.server; `from x.y import f` imports x.y.
        subs = [f"{stem}.{n}" for n in names if _exists(f"{stem}.{n}")]
        return subs or [stem]
    if (
        isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            or (isinstance(node.func, ast.Name) and node.func.id == "import_module")
        )
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


def _exists(dotted: str) -> bool:
    """Whether a dotted name is a module or package of tessera (not a function or class)."""
    if not dotted.startswith("tessera."):
        return False
    rel = Path(*dotted.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def _read_imports() -> list[Import]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for target in _targets(node, module, path.name == "__init__.py"):
                if target == "tessera" or target.startswith("tessera."):
                    where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"
                    found.append(Import(module, target, where))
    return found


IMPORTS = _read_imports()


def _part(dotted: str) -> str:
    """The top-level part of tessera a dotted module belongs to (``__init__`` for tessera itself)."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _game_of(dotted: str, games: set[str]) -> str | None:
    """The game a module of tessera.games belongs to (``nume`` for ``tessera.games._nume_kernels``
    or ``tessera.games.nume.render``), or None for the package itself and its shared modules."""
    parts = dotted.split(".")
    if len(parts) < 3 or parts[1] != "games":
        return None
    name = parts[2].lstrip("_").removesuffix("_kernels")
    return name if name in games else None


def _game_names() -> set[str]:
    """The registered games (a module of tessera.games that is not one, such as a shared helper
    package, is shared by every game)."""
    return set(tessera.list_games())


def _against_the_layers(imp: Import) -> bool:
    return LAYER[_part(imp.target)] > LAYER[_part(imp.source)] or (
        LAYER[_part(imp.source)] < TOP
        and LAYER[_part(imp.target)] == LAYER[_part(imp.source)]
        and _part(imp.target) != _part(imp.source)
        and {_part(imp.target), _part(imp.source)} != {"__init__", "core"}
    )


def test_the_reader_finds_imports_at_module_level_and_inside_functions() -> None:
    """The check is only as good as its reader: it sees the games' core imports and the
    on-demand import inside a function of the arena."""
    edges = {(_part(i.source), _part(i.target)) for i in IMPORTS}
    assert ("games", "core") in edges and ("agents", "core") in edges and ("server", "core") in edges
    assert any(i.source == "tessera.core.registry" and i.target == "tessera.games" for i in IMPORTS)


def test_every_part_of_the_package_has_a_floor() -> None:
    """A new package of tessera must be placed in the layers before it can be merged."""
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if not p.name.startswith(".")}
    parts = {p for p in parts if p not in {"__pycache__", "py"} and not p.endswith(".typed")}
    unplaced = sorted(p for p in parts - NOT_PYTHON if p not in LAYER)
    assert not unplaced, f"add these parts of tessera to LAYER in {__file__}: {unplaced}"
    python_in = sorted(p for p in NOT_PYTHON if any((PACKAGE / p).rglob("*.py")))
    assert not python_in, f"these parts now hold Python and need a floor: {python_in}"


@pytest.mark.parametrize("part", sorted(p for p, floor in LAYER.items() if floor < TOP))
def test_a_lower_layer_never_imports_a_higher_one_or_a_neighbour(part: str) -> None:
    """The rule "core ← games ← agents ← arena": each imports only the floors below it (and itself)."""
    wrong = [
        f"{i.where}: {i.source} imports {i.target}"
        for i in IMPORTS
        if _part(i.source) == part and _against_the_layers(i) and (i.source, i.target) not in EXCEPTIONS
    ]
    assert not wrong, "\n".join(wrong)


def test_a_game_imports_only_its_own_modules_and_the_shared_ones() -> None:
    """The rule "no game imports the server, the agents or another game"."""
    games = _game_names()
    assert {"ikabegama", "nelaxtam", "nibble", "nume", "nymbat"} <= games
    wrong = []
    for i in IMPORTS:
        mine, theirs = _game_of(i.source, games), _game_of(i.target, games)
        if mine is not None and theirs is not None and mine != theirs:
            wrong.append(f"{i.where}: game {mine} imports {i.target} of game {theirs}")
        if _part(i.source) == "games" and _part(i.target) not in {"core", "games", "__init__"}:
            wrong.append(f"{i.where}: {i.source} imports {i.target}")
    assert not wrong, "\n".join(wrong)


def test_the_parts_of_the_package_import_each_other_without_a_cycle() -> None:
    """Imports point one way: no chain of imports between parts comes back to where it started
    (the top floor's parts may use each other, but never in a circle)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for i in IMPORTS:
        a, b = _part(i.source), _part(i.target)
        if a != b and {a, b} != {"__init__", "core"} and (i.source, i.target) not in EXCEPTIONS:
            graph[a].add(b)
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            cycle = [*path[path.index(node) :], node]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if node in done:
            return
        for nxt in sorted(graph[node]):
            visit(nxt, [*path, node])
        done.add(node)

    for start in sorted(graph):
        visit(start, [])


@pytest.mark.parametrize("edge", sorted(EXCEPTIONS))
def test_each_exception_to_the_layers_is_still_an_import_of_the_code(edge: tuple[str, str]) -> None:
    """An exception that no longer matches an import is removed, so the list stays true."""
    assert any((i.source, i.target) == edge for i in IMPORTS), f"{edge} no longer happens: {EXCEPTIONS[edge]}"


def _module_cycles(prefix: str) -> list[list[str]]:
    """The import cycles between the modules under ``prefix`` (each a strongly connected set of two or more
    modules), every import counted: at the top of a file, inside a function, under ``TYPE_CHECKING``."""
    graph: dict[str, set[str]] = defaultdict(set)
    for i in IMPORTS:
        if i.source.startswith(prefix) and i.target.startswith(prefix) and i.source != i.target:
            graph[i.source].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _cycle_report(cycles: list[list[str]]) -> str:
    lines = []
    for part in cycles:
        members = set(part)
        ties = sorted(f"{i.where}: {i.source} -> {i.target}" for i in IMPORTS if {i.source, i.target} <= members)
        lines.append(f"cycle of {len(part)} modules:\n  " + "\n  ".join(ties))
    return "\n".join(lines)


def test_the_cycle_reader_finds_a_cycle_made_by_a_function_level_import() -> None:
    """The check below is only as good as its reader: a cycle closed by an import inside a function counts."""
    global IMPORTS
    kept = IMPORTS
    try:
        IMPORTS = [
            *kept,
            Import("tessera.agents.zz_a", "tessera.agents.zz_b", "a.py:1"),
            Import("tessera.agents.zz_b", "tessera.agents.zz_a", "b.py:9"),  # as an import inside a function
        ]
        assert ["tessera.agents.zz_a", "tessera.agents.zz_b"] in _module_cycles("tessera.agents")
    finally:
        IMPORTS = kept


def test_the_agents_import_each_other_without_a_cycle() -> None:
    """No module of ``tessera.agents`` comes back to itself through imports, function-level ones included
    (issue 36: ``agents/spec ↔ agents/learned`` was one)."""
    cycles = _module_cycles("tessera.agents.")
    assert not cycles, _cycle_report(cycles)


def test_the_server_modules_import_each_other_without_a_cycle() -> None:
    """No module of ``tessera.server`` comes back to itself through imports, function-level ones included
    (issue 36: ``storage → bus → chat → accounts/store → storage`` was one, of 28 modules)."""
    cycles = _module_cycles("tessera.server.")
    assert not cycles, _cycle_report(cycles)


# -- the server's domains (docs/architecture.md, "The server") ---------------------------------------

SERVER = "tessera.server"
DOMAIN_FREE = {"store", "events"}
"""Parts of the server that import no domain: the storage layer and the one event interface."""

DOMAIN_FREE_EXCEPTIONS: dict[tuple[str, str], str] = {}
"""Imports of a domain by ``store/`` or ``events.py``, each with its reason (the list only shrinks)."""

TABLES_LEFT: dict[str, str] = {}
"""Modules that still query another domain's tables, each with why (to become calls of that domain's
query functions; the list only shrinks).  A ``tables`` module naming another's table for a foreign key
is a schema, not a query, and is not counted."""


def _domain(dotted: str) -> str:
    """The server domain of a module: its folder under tessera.server (``match`` for
    ``tessera.server.match.moves``), or its own name for a module at the server's root (``events``)."""
    parts = dotted.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


def _table_uses_in(module: str, text: str) -> list[str]:
    """Where the source ``text`` of ``module`` imports another domain's tables (a ``<domain>.tables``
    module, by name or as a module), as ``'<module>: <what>'`` lines."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module.endswith(".tables") and _domain(node.module) != _domain(module):
                found.append(f"{module}: line {node.lineno} imports {node.module} ({', '.join(sorted(names))})")
            elif (
                node.module.startswith(SERVER + ".")
                and "tables" in names
                and _domain(node.module + ".tables") != _domain(module)
            ):
                found.append(f"{module}: line {node.lineno} imports {node.module}.tables")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(SERVER) and a.name.endswith(".tables") and _domain(a.name) != _domain(module):
                    found.append(f"{module}: line {node.lineno} imports {a.name}")
    return found


def _table_uses(source: str) -> list[str]:
    """:func:`_table_uses_in` over the server's modules (only ``source`` if given), its tables modules
    and migrations left out."""
    found = []
    for path in sorted((PACKAGE / "server").rglob("*.py")):
        module = _module_name(path)
        if source and module != source:
            continue
        if module.endswith(".tables") or "migrations" in module.split("."):
            continue
        found += _table_uses_in(module, path.read_text(encoding="utf-8"))
    return found


def test_the_store_and_the_events_import_no_domain() -> None:
    """ "``store/`` and ``events.py`` import no domain": what they import of the server is the store and
    the events, at any depth (function-level imports included)."""
    wrong = [
        f"{i.where}: {i.source} imports {i.target}"
        for i in IMPORTS
        if i.source.startswith(SERVER + ".")
        and _domain(i.source) in DOMAIN_FREE
        and i.target.startswith(SERVER + ".")
        and _domain(i.target) not in DOMAIN_FREE
        and (i.source, i.target) not in DOMAIN_FREE_EXCEPTIONS
    ]
    assert not wrong, "\n".join(wrong)


def test_each_domain_free_exception_is_still_an_import() -> None:
    gone = [edge for edge in sorted(DOMAIN_FREE_EXCEPTIONS) if not any((i.source, i.target) == edge for i in IMPORTS)]
    assert not gone, f"{gone} no longer happen: remove them from DOMAIN_FREE_EXCEPTIONS"


def test_the_table_reader_finds_each_kind_of_use() -> None:
    """The check below is only as good as its reader: a domain's tables module, imported by name
    (``from <domain>.tables import …``) or as a module (``from <domain> import tables``), is found in a
    module known to use it; a tables module's foreign key is not."""
    assert not _table_uses("tessera.server.match.live")  # its own domain's tables
    for text in (
        "from tessera.server.match import tables",
        "from tessera.server.match.tables import games_table",
        "import tessera.server.match.tables",
    ):
        assert _table_uses_in("tessera.server.notify.zz", text), text
        assert not _table_uses_in("tessera.server.match.zz", text), text
    assert not _table_uses("tessera.server.notify.tables")  # a foreign key to the users table


def test_a_domain_queries_another_domain_only_through_its_functions() -> None:
    """ "Other domains call a domain's query functions, never its tables": no module imports another
    domain's ``tables`` module or the match tables, but those still listed in TABLES_LEFT."""
    found = _table_uses("")
    wrong = [f for f in found if f.split(":")[0] not in TABLES_LEFT]
    assert not wrong, "\n".join(wrong)
    gone = sorted(m for m in TABLES_LEFT if not any(f.split(":")[0] == m for f in found))
    assert not gone, f"these no longer use another domain's tables: remove them from TABLES_LEFT: {gone}"


def test_each_table_is_defined_in_its_domains_tables_module() -> None:
    """ "Server domains in folders that own their tables": every ``sa.Table`` of the server is defined in
    a domain's ``tables`` module (the match domain's games, seats and moves in ``match/tables.py``, not
    beside the engine in ``store/``)."""
    elsewhere = []
    for path in sorted((PACKAGE / "server").rglob("*.py")):
        module = _module_name(path)
        if module.endswith(".tables") or "migrations" in module.split("."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            f = node.func if isinstance(node, ast.Call) else None
            if (
                isinstance(f, ast.Attribute)
                and f.attr == "Table"
                and isinstance(f.value, ast.Name)
                and f.value.id == "sa"
            ):
                elsewhere.append(f"{module}: line {node.lineno}")
    assert not elsewhere, elsewhere


def test_the_server_root_holds_only_the_shared_modules() -> None:
    """One folder per domain: at the server's root only the package, the event interface and the command."""
    root = sorted(p.name for p in (PACKAGE / "server").glob("*.py"))
    assert root == ["__init__.py", "cli.py", "events.py"], root
