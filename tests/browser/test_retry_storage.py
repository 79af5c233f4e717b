"""The web client's move retry when the server's storage refuses writes (issue 29).

"the web client retries a move safely (the expected move number makes a retry idempotent) with a
visible 'reconnecting', and reports what the server said otherwise": here the server is reached
but its SQLite database turns read-only under it, so the move is answered 503 with Retry-After;
the page says it is reconnecting and why, and once the storage takes writes again the move lands,
exactly once.  (A move that never reaches the server: tests/browser/test_usability.py.)
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


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """A server in this process (its storage can be made to refuse writes): base URL and app."""
    import uvicorn

    from tessera.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'retry.db'}", ai_mode="thread", warm=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(15)


def test_a_move_refused_for_read_only_storage_shows_reconnecting_and_lands_once_when_storage_is_back(
    own_server: tuple[str, Any], browser: Any, artifacts: Path
) -> None:
    from tests.server.test_faults import sqlite_refusing

    base, app = own_server
    req = urllib.request.Request(
        base + "/api/games",
        data=json.dumps({"game": "nume", "mode": "hotseat"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    created = json.loads(urllib.request.urlopen(req, timeout=10).read())
    both = "&".join(f"t{s}={t}" for s, t in created["tokens"].items())
    page = browser.new_page(viewport={"width": 390, "height": 844})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + created["url"] + "#" + both)
    page.wait_for_selector("svg.board .cell")
    with sqlite_refusing(app, "PRAGMA query_only = ON"):
        page.locator("svg.board .target-dot").first.click()
        page.locator("#number-ok").click()
        page.wait_for_function("document.getElementById('error').textContent.startsWith('Reconnecting')")
        text = page.locator("#error").inner_text()
        assert "read-only" in text and "sent again" in text, text
        page.screenshot(path=str(artifacts / "retry-storage-read-only.png"))
        assert page.locator("#moves li").count() == 0
    page.wait_for_function("document.querySelectorAll('#moves li').length === 1", timeout=30_000)
    time.sleep(1.0)  # a second copy of the move, if one were sent, would have landed by now
    view = json.loads(urllib.request.urlopen(f"{base}/api/games/{created['id']}", timeout=10).read())
    assert view["move_number"] == 1 and len(view["moves"]) == 1, "the move landed exactly once"
    assert page.locator("#moves li").count() == 1
    assert not errors, errors
    page.close()
