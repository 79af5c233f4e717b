"""README command 1 (``python3 scripts/serve.py``) prepares the games before it prints the address
(issue 39, point 5: the first game of a fresh checkout waits for no compilation), and its
environment runs ``tessera bot`` (point 7: the bot client needs nothing beyond the server's extra).
The time itself is measured by ``benchmarks/startup.py --cold``, not here."""

from __future__ import annotations

import ast
import importlib.util
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tessera.server.ai import warmup

ROOT = Path(__file__).resolve().parents[1]


def serve_module() -> Any:
    spec = importlib.util.spec_from_file_location("serve_script", ROOT / "scripts" / "serve.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_serve_py_prepares_the_kernels_before_it_starts_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """'README command 1 runs the warm-up before it prints the URL': after the install, serve.py runs
    ``python -m tessera.server.ai.warmup`` in the environment, and only then replaces itself with
    ``tessera serve`` (which prints the address)."""
    serve = serve_module()
    calls: list[tuple[str, list[str]]] = []
    py = Path("/venv/bin/python")
    monkeypatch.setattr(serve, "make_venv", lambda env: py)
    monkeypatch.setattr(serve, "install", lambda p, env: calls.append(("install", [])))

    class Done:
        returncode = 0

    monkeypatch.setattr(serve.subprocess, "run", lambda cmd, **kw: calls.append(("run", list(cmd))) or Done())
    monkeypatch.setattr(serve.os, "execv", lambda path, cmd: calls.append(("exec", list(cmd))))
    monkeypatch.setattr(serve.os, "name", "posix")
    serve.main(["--port", "8123"])
    assert [c[0] for c in calls] == ["install", "run", "exec"]
    assert calls[1][1] == [str(py), "-m", "tessera.server.ai.warmup"]
    assert calls[2][1] == [str(py), "-m", "tessera", "serve", "--port", "8123"]


def test_the_preparation_compiles_each_game_and_its_ai_and_reports_progress() -> None:
    """``prepare`` warms a game's rules and each AI level's first move, reporting each game done
    (what serve.py prints); from numba's cache this is quick (the suite's cache is warm)."""
    seen: list[tuple[str, int, int]] = []
    seconds = warmup.prepare(["nume"], lambda name, done, total, s: seen.append((name, done, total)))
    assert seen == [("nume", 1, 1)] and seconds >= 0
    assert warmup.ai_specs("nymbat") == ["nymbat", "nymbat(players=4)"]


def test_the_server_extra_holds_what_tessera_bot_imports() -> None:
    """'tessera bot needs an extra that scripts/serve.py does not install': every third-party module
    the bot client imports is a dependency of the server extra (which serve.py installs)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    server = {d.split(">")[0].split("[")[0].split("=")[0].strip().lower() for d in extras["server"]}
    core = {"numpy", "numba"}
    imported: set[str] = set()
    for path in (ROOT / "tessera" / "botclient").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m not in ("tessera", "__future__")}
    assert third_party, "the bot client imports something besides the standard library"
    assert third_party <= server | core, third_party - server - core
