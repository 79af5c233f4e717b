"""No secret in any log line (issue 35): a real server at log level ``info`` is used as a browser
session uses it — sign-up (password, session cookie), a game with seat tokens, its WebSocket opened
with the token as a subprotocol, a move, and an older page's or a script's attempts with the token in
the URL (refused) — and its whole log output is scanned for every token, session and password value."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from websockets.sync.client import connect

from tessera.server.http.logs import redact
from tests.server.crash_drill import PASSWORD, browser, kill, start


def test_credentials_in_a_query_string_are_redacted() -> None:
    line = '127.0.0.1:5 - "WebSocket /api/games/g1/ws?token=Ab-c_9&x=1" [accepted]'
    assert redact(line) == '127.0.0.1:5 - "WebSocket /api/games/g1/ws?token=[redacted]&x=1" [accepted]'


def test_no_token_session_or_password_reaches_the_server_log(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = start(f"sqlite:///{tmp_path / 's.db'}", log, log_level="info")
    secrets: list[str] = [PASSWORD]
    try:
        with browser(server) as b:
            r = b.post("/api/account/signup", json={"username": "logscan", "password": PASSWORD})
            assert r.status_code == 201, r.text
            secrets += [v for v in b.cookies.values() if len(v) >= 16]
            game = b.post("/api/games", json={"game": "nume", "params": {"size": 3}, "mode": "hotseat"}).json()
            gid, tokens = game["id"], game["tokens"]
            secrets += list(tokens.values())
            ws = server.base.replace("http", "ws") + f"/api/games/{gid}/ws"
            with connect(ws, subprotocols=["tessera.seat", f"seat.{tokens['0']}"], open_timeout=30) as sock:  # type: ignore[list-item]
                assert sock.subprotocol == "tessera.seat"
                assert json.loads(sock.recv(timeout=30))["view"]["you"] == 0
            with connect(f"{ws}?token={tokens['1']}", open_timeout=30) as sock:  # an older page: refused
                assert json.loads(sock.recv(timeout=30))["key"] == "refusal.token.in_url"
            assert b.get(f"/api/games/{gid}?token={tokens['1']}").status_code == 400
            view = b.get(f"/api/games/{gid}", headers={"X-Seat-Token": tokens["0"]}).json()
            act = view["render"]["actions"][0]
            move = act["move"] if "move" in act else act["template"].replace("{n}", "1")
            r = b.post(f"/api/games/{gid}/moves", json={"token": tokens["0"], "move": move, "expected": 0})
            assert r.status_code == 200, r.text
            assert b.post("/api/account/logout").status_code in (200, 204)
        httpx.get(f"{server.base}/api/games/{gid}/ws?token={tokens['1']}")  # a plain GET with the token too
    finally:
        kill(server)
    text = log.read_text()
    assert "WebSocket" in text and "[redacted]" in text, "the log holds the socket lines that carried a token"
    leaked = [s[:6] + "…" for s in secrets if s in text]
    assert not leaked, f"secrets written to the server log: {leaked}"
