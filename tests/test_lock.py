"""The locked installs (issue 42): 'the versions CI tested are locked … and used by both README
commands and deploy/'. A dependency added to ``pyproject.toml`` without refreshing the lock
(``bash scripts/lock.sh``) would be missing from every install: these tests catch it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements"


def normal(name: str) -> str:
    """A package name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(path: Path) -> dict[str, str]:
    """Package → pinned version of a lock file; every pin carries at least one hash."""
    found: dict[str, str] = {}
    text = path.read_text()
    for block in re.split(r"\n(?=\S)", text):
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", block)
        if m:
            assert "--hash=sha256:" in block, f"{path.name}: {m.group(1)} has no hash"
            found[normal(m.group(1))] = m.group(2)
    return found


def declared(*extras: str) -> set[str]:
    """The packages ``pyproject.toml`` asks for: the core dependencies and those of ``extras``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = list(project["dependencies"])
    for extra in extras:
        names += project["optional-dependencies"][extra]
    return {normal(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", n).group(0)) for n in names}  # type: ignore[union-attr]


def test_the_lock_pins_every_declared_dependency_with_hashes() -> None:
    """requirements/test.txt holds every dependency of the test and server extras, and
    requirements/server.txt every one of the server extra, each pinned with its hashes."""
    test, server = locked(REQUIREMENTS / "test.txt"), locked(REQUIREMENTS / "server.txt")
    assert not declared("test", "server") - set(test), "refresh the lock: bash scripts/lock.sh"
    assert not declared("server") - set(server), "refresh the lock: bash scripts/lock.sh"


def test_the_server_lock_has_the_versions_the_tests_ran() -> None:
    """What scripts/serve.py and deploy/ install is what scripts/test.sh tested."""
    test, server = locked(REQUIREMENTS / "test.txt"), locked(REQUIREMENTS / "server.txt")
    differ = {name: (version, test.get(name)) for name, version in server.items() if test.get(name) != version}
    assert not differ, differ


def test_every_install_command_uses_the_lock() -> None:
    """scripts/test.sh (CI), scripts/serve.py and deploy/install.sh install the locked versions, hash-checked."""
    assert "--require-hashes -r requirements/test.txt" in (ROOT / "scripts" / "test.sh").read_text()
    serve = (ROOT / "scripts" / "serve.py").read_text()
    assert '"requirements" / "server.txt"' in serve and '"--require-hashes"' in serve
    assert '--require-hashes -r "$SRC/requirements/server.txt"' in (ROOT / "deploy" / "install.sh").read_text()
