"""The figures of docs/architecture.md, measured: never typed by hand.

Two marked blocks of the document are written from the code:

* ``figures:server`` — the server's folders (modules and lines in each), its largest modules, the
  import cycles among its modules (every import counted, function-level ones included) and the
  modules that still import another domain's tables (read from the source, no server started);
* ``figures:walk`` — the walk of one move (``benchmarks/move_walk.py``: a server started in this
  process, one move posted, the server functions run until the other seat's socket has the view):
  files, functions, stays, returns and the files entered more than once.

Usage::

    python scripts/architecture_figures.py           # print both blocks
    python scripts/architecture_figures.py --write   # write them into docs/architecture.md
    python scripts/architecture_figures.py --write --no-walk   # only the server block (no server started)
    python scripts/architecture_figures.py --check   # exit 1 when the server block is not current

``tests/test_architecture_figures.py`` checks the ``figures:server`` block.  The walk's block is a
measurement: a timer of the warm-up may run inside the counted span or not, so two runs can differ
by a file and a few functions; it is written with the date's other figures, not checked.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tessera" / "server"
DOC = ROOT / "docs" / "architecture.md"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _domain(dotted: str) -> str:
    parts = dotted.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


def _is_module(dotted: str) -> bool:
    rel = Path(*dotted.split(".")[1:])
    pkg = ROOT / "tessera"
    return (pkg / rel).with_suffix(".py").is_file() or (pkg / rel / "__init__.py").is_file()


def server_imports() -> list[tuple[str, str, set[str]]]:
    """Every import between modules of tessera.server, anywhere in a file: (importer, imported, names)."""
    found: list[tuple[str, str, set[str]]] = []
    for path in sorted(SERVER.rglob("*.py")):
        source = _module(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(source, a.name, set()) for a in node.names if a.name.startswith("tessera.server")]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tessera.server"):
                names = {a.name for a in node.names}
                subs = [f"{node.module}.{n}" for n in names if _is_module(f"{node.module}.{n}")]
                found += [(source, t, set()) for t in subs] or [(source, node.module, names)]
    return found


def cycles(imports: list[tuple[str, str, set[str]]]) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b, _ in imports:
        if a != b:
            graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def table_users(imports: list[tuple[str, str, set[str]]]) -> set[str]:
    """Modules (not tables modules, not migrations) that import another domain's tables."""
    users = set()
    for a, b, _ in imports:
        if a.endswith(".tables") or ".migrations." in a:
            continue
        if b.endswith(".tables") and _domain(a) != _domain(b):
            users.add(a)
    return users


LONG = 600
"""The issue's limit of a module's length (longer ones say why at their top)."""


def server_block() -> str:
    """The ``figures:server`` block (Markdown): only figures that change when the structure does (module
    counts, modules past :data:`LONG` lines, cycles, table users), not with every edited line."""
    folders: dict[str, int] = defaultdict(int)
    long = []
    for path in sorted(SERVER.rglob("*.py")):
        rel = path.relative_to(SERVER)
        if rel.parts[0] == "store" and "migrations" in rel.parts:
            continue  # the migration scripts are history, not modules
        folders[rel.parts[0] + "/" if len(rel.parts) > 1 else "(root)"] += 1
        if len(path.read_text(encoding="utf-8").splitlines()) > LONG:
            long.append(f"`{rel.as_posix()}`")
    imports = server_imports()
    found = cycles(imports)
    order = sorted(folders, key=lambda f: (f != "(root)", f))
    return "\n".join(
        [
            "| " + " | ".join(f"`{f}`" for f in order) + " |",
            "| " + " | ".join("---:" for _ in order) + " |",
            "| " + " | ".join(str(folders[f]) for f in order) + " |",
            "",
            f"{sum(folders.values())} modules in {len(folders) - 1} folders and the root (modules per folder"
            f" above). Past {LONG} lines: {', '.join(long) or 'none'}.",
            f"Import cycles among the server's modules (function-level imports counted): {len(found)}"
            + (f" (of {', '.join(str(len(c)) for c in found)} modules)" if found else "")
            + f". Modules that still import another domain's tables: {len(table_users(imports))}"
            " (tests/test_layers.py, `TABLES_LEFT`).",
        ]
    )


def walk_block() -> str:
    """The ``figures:walk`` block (Markdown): one move walked by benchmarks/move_walk.py."""
    spec = importlib.util.spec_from_file_location("move_walk", ROOT / "benchmarks" / "move_walk.py")
    assert spec is not None and spec.loader is not None
    walk: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(walk)
    trail: list[str] = []
    context: list[Any] = []
    seen = walk.walk(trail=trail, context=context)
    moves = walk.entries(trail, context)
    kinds = moves["returns_by_kind"]
    left = ", ".join(f"`{f}`" for f in moves["left"]) or "none"
    again = ", ".join(
        f"`{f}` {n}" for f, n in sorted(moves["entries"].items(), key=lambda kv: (-kv[1], kv[0])) if n > 1
    )
    return "\n".join(
        [
            f"One move: **{len(seen)} server files, {sum(len(v) for v in seen.values())} server functions**; "
            f"{moves['stays']} calls stay in the file of the call before, {moves['returns']} return to a file "
            "already left.",
            f"Files entered more than once: {again or 'none'}.",
            f"Of the returns, {kinds['still running']} enter a file that is still running below the call, "
            f"{kinds['another flow']} a file first entered in another flow (the push to the viewers after the "
            f"request), and {kinds['left']} a file left earlier in the same flow ({left}).",
        ]
    )


def _mark(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- figures:{name} -->\n)(.*?)\n?(<!-- /figures:{name} -->)", re.S)


def current(name: str, text: str | None = None) -> str:
    """The document's block ``name`` as it stands (raises ``LookupError`` if the marks are missing)."""
    m = _mark(name).search(DOC.read_text(encoding="utf-8") if text is None else text)
    if m is None:
        raise LookupError(f"docs/architecture.md has no figures:{name} block")
    return m.group(2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="write the blocks into docs/architecture.md")
    ap.add_argument("--check", action="store_true", help="exit 1 when the document's server block is not current")
    ap.add_argument("--no-walk", action="store_true", help="only the server block (no server started)")
    args = ap.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    if args.check:
        blocks = {"server": server_block()}
        stale = [n for n, b in blocks.items() if current(n, text) != b]
        for n in stale:
            print(f"figures:{n} is not current:\n{blocks[n]}")
        return 1 if stale else 0
    blocks = {"server": server_block()} if args.no_walk else {"server": server_block(), "walk": walk_block()}
    if args.write:
        for n, b in blocks.items():
            current(n, text)
            m = _mark(n).search(text)
            assert m is not None
            text = text[: m.start()] + m.group(1) + b + "\n" + m.group(3) + text[m.end() :]
        DOC.write_text(text, encoding="utf-8")
        return 0
    for n, b in blocks.items():
        print(f"<!-- figures:{n} -->\n{b}\n<!-- /figures:{n} -->")
    return 0


if __name__ == "__main__":
    sys.exit(main())
