"""docs/architecture.md's figures are produced by ``scripts/architecture_figures.py``, never typed.

The rule (issue 36): "docs/architecture.md redrawn … with its figures produced by a script, not typed".
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("architecture_figures", ROOT / "scripts" / "architecture_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_documents_server_figures_are_the_scripts_current_output() -> None:
    """ "Its figures produced by a script, not typed": the figures:server block of docs/architecture.md
    is what the script reads from the code now (run ``python scripts/architecture_figures.py --write``
    after adding, moving or lengthening a server module)."""
    figures = _script()
    assert figures.current("server") == figures.server_block(), (
        "docs/architecture.md's server figures are stale: run python scripts/architecture_figures.py --write"
    )


def test_the_script_counts_a_cycle_and_a_table_use() -> None:
    """The figures are only as good as their readers: a cycle of two modules and a use of another
    domain's tables are counted, a tables module's own foreign key and a domain's use of its own
    tables are not."""
    figures = _script()
    imports = [
        ("tessera.server.a.x", "tessera.server.b.y", set()),
        ("tessera.server.b.y", "tessera.server.a.x", set()),
        ("tessera.server.seeks.pool", "tessera.server.accounts.tables", {"users_table"}),
        ("tessera.server.notify.tables", "tessera.server.accounts.tables", {"users_table"}),
        ("tessera.server.ai.warmup", "tessera.server.match.tables", {"games_table"}),
        ("tessera.server.match.live", "tessera.server.match.tables", {"games_table"}),
    ]
    assert figures.cycles(imports) == [["tessera.server.a.x", "tessera.server.b.y"]]
    assert figures.table_users(imports) == {"tessera.server.seeks.pool", "tessera.server.ai.warmup"}


def test_the_walk_block_is_there() -> None:
    """The walk of one move is in the document, written by the script (a measurement, see its text)."""
    assert "server files" in _script().current("walk")
