"""The web client's move retry against a real server (issue 29).

"the web client retries a move safely (the expected move number makes a retry idempotent) with a
visible 'reconnecting', and reports what the server said otherwise":

- the server is reached but its SQLite database turns read-only under it, so the move is answered
  503 with Retry-After: the page says it is reconnecting and why, and once the storage takes writes
  again the move lands, exactly once;
- the server is stopped while the move is sent and started again on the same database: the page
  says it is reconnecting, and the move lands once the server is back, exactly once.

(A connection dropped by the browser itself: tests/browser/test_usability.py.)
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser


class OwnServer:
    """A server in this process on a fixed port (its storage can be made to refuse writes; it can be
    stopped and started again on the same database)."""

    def __init__(self, db: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.db = db
        self.base = f"http://127.0.0.1:{self.port}"
        self.app: Any = None
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        import uvicorn

        from tessera.server.http.app import create_app

        self.app = create_app(f"sqlite:///{self.db}", ai_mode="thread", warm=False)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_config=None, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            assert self._thread is not None
            self._thread.join(15)
            self._server = None


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[OwnServer]:
    server = OwnServer(tmp_path / "retry.db")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def new_hotseat_page(server: OwnServer, browser: Any) -> tuple[dict[str, Any], Any, list[str]]:
    """A hot-seat Nume game open on a phone-sized page that plays both seats."""
    req = urllib.request.Request(
        server.base + "/api/games",
        data=json.dumps({"game": "nume", "mode": "hotseat"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    created = json.loads(urllib.request.urlopen(req, timeout=10).read())
    both = "&".join(f"t{s}={t}" for s, t in created["tokens"].items())
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.base + created["url"] + "#" + both)
    page.wait_for_selector("svg.board .cell")
    return created, page, errors


def stored_moves(server: OwnServer, game_id: str) -> int:
    view = json.loads(urllib.request.urlopen(f"{server.base}/api/games/{game_id}", timeout=10).read())
    assert view["move_number"] == len(view["moves"])
    return int(view["move_number"])


def test_a_move_refused_for_read_only_storage_shows_reconnecting_and_lands_once_when_storage_is_back(
    own_server: OwnServer, browser: Any, artifacts: Path
) -> None:
    from tests.server.test_faults import sqlite_refusing

    created, page, errors = new_hotseat_page(own_server, browser)
    with sqlite_refusing(own_server.app, "PRAGMA query_only = ON"):
        page.locator("svg.board .target-dot").first.click()
        page.locator("#number-ok").click()
        page.wait_for_function("document.getElementById('error').textContent.startsWith('Reconnecting')")
        text = page.locator("#error").inner_text()
        assert "read-only" in text and "sent again" in text, text
        page.screenshot(path=str(artifacts / "retry-storage-read-only.png"))
        assert page.locator("#moves li").count() == 0
    page.wait_for_function("document.querySelectorAll('#moves li').length === 1", timeout=30_000)
    time.sleep(1.0)  # a second copy of the move, if one were sent, would have landed by now
    assert stored_moves(own_server, created["id"]) == 1, "the move landed exactly once"
    assert page.locator("#moves li").count() == 1
    assert not errors, errors
    page.close()


def test_a_move_sent_while_the_server_is_stopped_lands_once_when_it_is_back(
    own_server: OwnServer, browser: Any, artifacts: Path
) -> None:
    created, page, errors = new_hotseat_page(own_server, browser)
    own_server.stop()
    page.locator("svg.board .target-dot").first.click()
    page.locator("#number-ok").click()
    page.wait_for_function("document.getElementById('error').textContent.startsWith('Reconnecting')")
    text = page.locator("#error").inner_text()
    assert "No connection to the server" in text, text
    page.screenshot(path=str(artifacts / "retry-server-stopped.png"))
    own_server.start()  # the same port and database
    page.wait_for_function("document.querySelectorAll('#moves li').length === 1", timeout=30_000)
    time.sleep(1.0)
    assert stored_moves(own_server, created["id"]) == 1, "the move landed exactly once"
    assert page.locator("#moves li").count() == 1
    assert not errors, errors
    page.close()
