"""No secret in any log line, and no token in any URL, through a browser session (issue 35): in
Debian's Chromium a person signs up, makes a game against a friend, opens it with his seat link
(the page's WebSocket carries the seat token as a subprotocol), the friend opens his invite link in
another page, a move is played, and the person signs out; the server's whole log output at level
``info`` is then scanned for the password, the session cookie and every seat token, and every URL
the pages requested (fragments aside: a browser never sends them) for the tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.server.crash_drill import PASSWORD, kill, start

pytestmark = pytest.mark.browser


def test_a_browser_session_leaves_no_token_session_or_password_in_the_server_log(tmp_path: Path, browser: Any) -> None:
    """(The session's browser is used: a second Playwright in one process refuses to start.)"""
    log = tmp_path / "server.log"
    server = start(f"sqlite:///{tmp_path / 'b.db'}", log, log_level="info")
    secrets: list[str] = [PASSWORD]
    try:
        context = browser.new_context()
        urls: list[str] = []
        context.on("request", lambda request: urls.append(request.url.split("#", 1)[0]))
        context.on("page", lambda p: p.on("websocket", lambda ws: urls.append(ws.url)))  # (not requests)
        page: Any = context.new_page()
        page.goto(server.base + "/account")
        form = page.locator("#signup")
        form.locator("input[name=username]").fill("logscan")
        form.locator("input[name=password]").fill(PASSWORD)
        form.locator("button[type=submit]").click()
        page.wait_for_selector("#me-card:not([hidden])")
        secrets += [c["value"] for c in page.context.cookies() if len(c["value"]) >= 16]
        game = page.evaluate(
            """async () => (await fetch('/api/games', {method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({game: 'nume', params: {size: 3}, mode: 'online', seat: 0})})).json()"""
        )
        token = game["tokens"]["0"]
        secrets += [token, *game.get("invites", {}).values()]
        page.goto(f"{server.base}/g/{game['id']}#seat=0&t={token}")
        page.wait_for_selector("body[data-conn=online]", timeout=60_000)
        friend: Any = context.new_page()
        invite = game["invites"]["1"]
        friend.goto(f"{server.base}/g/{game['id']}#seat=1&t={invite}")
        friend.wait_for_selector("body[data-conn=online]", timeout=60_000)
        moved = page.evaluate(
            """async ([id, token]) => {
                const headers = {'X-Seat-Token': token, 'Content-Type': 'application/json'};
                const view = await (await fetch(`/api/games/${id}`, {headers})).json();
                const a = view.render.actions[0];
                const move = a.move !== undefined ? a.move : a.template.replace('{n}', '1');
                const r = await fetch(`/api/games/${id}/moves`, {method: 'POST', headers,
                    body: JSON.stringify({move, expected: view.move_number})});
                return r.status;
            }""",
            [game["id"], token],
        )
        assert moved == 200
        page.goto(server.base + "/account")
        page.evaluate("async () => fetch('/api/account/logout', {method: 'POST'})")
        context.close()
    finally:
        kill(server)
    text = log.read_text()
    assert "WebSocket" in text, "the log holds the page's socket line"
    leaked = [s[:6] + "…" for s in secrets if s in text]
    assert not leaked, f"secrets written to the server log: {leaked}"
    assert any("/ws" in u for u in urls) and any("/moves" in u for u in urls), "the pages' requests were seen"
    in_urls = [u for u in urls if any(s in u for s in secrets)]
    assert not in_urls, f"a token in a requested URL: {[u[:60] for u in in_urls]}"
