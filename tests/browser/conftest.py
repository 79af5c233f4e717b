"""Browser tests: a really started server (``tessera serve`` in a subprocess) and headless Chromium.

Skipped with a reason when /usr/bin/chromium is missing, except under CI=true,
where they must run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tessera.agents.evidence import SPRT_DIR_ENV
from tests.agents.sprt_runs import write_run

CHROMIUM = "/usr/bin/chromium"
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = pytest.mark.browser


def _need_browser() -> None:
    if not os.path.exists(CHROMIUM):
        if CI:
            pytest.fail(f"{CHROMIUM} is missing, and browser tests must run under CI (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); browser tests skipped outside CI")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if CI:
            pytest.fail("the playwright Python package is missing")
        pytest.skip("the playwright Python package is missing")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


DATABASES: dict[str, str] = {}
"""The database URL of each started server, by its base URL (for tests that run ``tessera admin``)."""


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``tessera serve`` on a free localhost port with a fresh SQLite file; yields its base URL."""
    _need_browser()
    port = _free_port()
    db = tmp_path_factory.mktemp("srv") / "tessera.db"
    log = open(tmp_path_factory.mktemp("srvlog") / "server.log", "w+")  # noqa: SIM115
    cmd = [
        sys.executable,
        "-m",
        "tessera",
        "serve",
        "--port",
        str(port),
        "--db",
        f"sqlite:///{db}",
        "--ai-seconds",
        "0.05",
    ]
    # the browser tests' people all sign up from 127.0.0.1: more than one address may make in a window
    # the stored SPRT runs it reads (tessera.agents.evidence): a fixture in which two-player Nymbat's level 6
    # has been accepted against level 5 and no other game has one, whatever studies/sprt holds today
    sprt = tmp_path_factory.mktemp("sprt")
    write_run(sprt, [(1.0, 1.0)] * 10)
    env = {**os.environ, "TESSERA_SIGNUPS_PER_ADDRESS": "200", SPRT_DIR_ENV: str(sprt)}
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    DATABASES[base] = f"sqlite:///{db}"
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(base + "/api/catalog", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                log.seek(0)
                proc.kill()
                pytest.fail(f"the server did not start: {log.read()}")
            time.sleep(0.2)
    try:
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


class TestBrowser:
    """The browser as the tests drive it: its contexts and pages let Playwright's own helpers
    (``wait_for_function`` with a string predicate evaluates it in the page) past the site's
    Content-Security-Policy, which admits no ``eval``.  ``tests/browser/test_csp.py`` asks for
    ``bypass_csp=False``: the pages as a visitor's browser runs them."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **kw: Any) -> Any:
        kw.setdefault("bypass_csp", True)
        return self._browser.new_context(**kw)

    def new_page(self, **kw: Any) -> Any:
        kw.setdefault("bypass_csp", True)
        return self._browser.new_page(**kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def browser(server: str) -> Iterator[Any]:
    """Headless Debian Chromium driven by Playwright (as :class:`TestBrowser`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield TestBrowser(b)
        b.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (test-artifacts/)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
