"""The systemd units of ``deploy/`` are well-formed: ``systemd-analyze verify`` finds nothing to say
about them (an unknown directive, a misspelt section, a dependency on a unit that does not exist)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deploy.stack import INSTALLED_TESSERA, TARGET, UNIT, unit_ports

pytestmark = pytest.mark.deploy


def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    """Every instance ``tessera.target`` wants, and the target, verify cleanly (the installed
    ``tessera`` script stands in as this Python, which exists here)."""
    exe = shutil.which("systemd-analyze")
    if exe is None:
        pytest.skip("systemd-analyze is not installed")
    text = UNIT.read_text()
    assert INSTALLED_TESSERA in text
    names = []
    for port in unit_ports():
        unit = tmp_path / f"tessera@{port}.service"
        unit.write_text(text.replace(INSTALLED_TESSERA, f"{sys.executable} -m tessera"))
        names.append(str(unit))
    shutil.copy(TARGET, tmp_path / TARGET.name)
    done = subprocess.run(
        [exe, "verify", *names, str(tmp_path / TARGET.name)], capture_output=True, text=True, timeout=120
    )
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 0 and not said, said
