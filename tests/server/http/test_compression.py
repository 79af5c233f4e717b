"""gzip of HTTP answers (``tessera/server/http/edge.py``; docs/security.md, "Compression").

The issue's words: "HTTP compression: gzip for JSON/HTML/JS/CSS answers above a minimum size; never
for event streams (SSE must keep streaming) and WebSockets untouched".
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tessera.server.http.app import create_app
from tessera.server.http.edge import MINIMUM_SIZE, Edge, accepts_gzip
from tests.server.helpers import run_coroutine

GZIP = {"Accept-Encoding": "gzip"}
PLAIN = {"Accept-Encoding": "identity"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module (each test makes its own games): an app's start is most of a test's time."""
    db = tmp_path_factory.mktemp("gzip") / "t.db"
    with TestClient(create_app(f"sqlite:///{db}", ai_mode="thread", warm=False)) as c:
        yield c


def raw(client: TestClient, method: str, path: str, headers: dict[str, str], **kw: Any) -> tuple[Any, bytes]:
    """The answer and its body as it came over the wire (not decoded by the client)."""
    with client.stream(method, path, headers=headers, **kw) as r:
        return r, b"".join(r.iter_raw())


def test_a_view_asked_with_gzip_comes_gzipped_and_is_the_same_json(client: TestClient) -> None:
    """ "Accept-Encoding gzip → Content-Encoding gzip and the same JSON"."""
    gid = client.post("/api/games", json={"game": "nume", "seed": 3}).json()["id"]
    r, body = raw(client, "GET", f"/api/games/{gid}", GZIP)
    assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in r.headers["vary"].lower()
    assert int(r.headers["content-length"]) == len(body)
    plain_r, plain = raw(client, "GET", f"/api/games/{gid}", PLAIN)
    assert "content-encoding" not in plain_r.headers and len(plain) >= MINIMUM_SIZE
    assert len(body) < len(plain) / 3
    assert json.loads(gzip.decompress(body)) == json.loads(plain)


FILES = ["/", "/account", "/static/js/api.js", "/static/js/account.js", "/static/locales/en/account.json"]


@pytest.mark.parametrize("path", [*FILES, "/api/catalog"])
def test_pages_scripts_and_the_catalogue_are_gzipped_with_their_security_headers(client: TestClient, path: str) -> None:
    """The rule: "gzip for JSON/HTML/JS/CSS answers above a minimum size" — and every answer keeps
    its security headers (the CSP among them).  The site's files are compressed though some name
    ``"password"`` (a label in a locale catalogue, a field in a script): they are the same for everyone."""
    r, body = raw(client, "GET", path, GZIP)
    _, plain = raw(client, "GET", path, PLAIN)
    assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == plain
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"


def test_a_small_answer_is_sent_plain(client: TestClient) -> None:
    """ "small answers plain": below the minimum size gzip is not worth its frame and CPU."""
    r, body = raw(client, "GET", "/healthz", GZIP)
    assert r.status_code == 200 and len(body) < MINIMUM_SIZE
    assert "content-encoding" not in r.headers
    json.loads(body)


def run_app(headers: list[tuple[bytes, bytes]], body: bytes, accept: bytes = b"gzip") -> list[dict[str, Any]]:
    """The messages :class:`Edge` sends for an application answering ``body`` in one message."""
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [(b"accept-encoding", accept)]}
    run_coroutine(Edge(app)(scope, receive, send))
    return sent


JSON = (b"content-type", b"application/json")
FILLER = b"z" * (2 * MINIMUM_SIZE)


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        ([JSON], b'{"id":"g","tokens":{"0":"s3cret"},"names":"' + FILLER + b'"}'),
        ([JSON], b'{"seat":0,"token":"s3cret","echo":"' + FILLER + b'"}'),
        ([JSON], b'{"game_id":"g","invites":{"1":"s3cret"},"echo":"' + FILLER + b'"}'),
        ([JSON, (b"set-cookie", b"session=s3cret; HttpOnly")], b'{"echo":"' + FILLER + b'"}'),
        ([JSON, (b"cache-control", b"no-store")], b'{"echo":"' + FILLER + b'"}'),
    ],
    ids=["seat tokens", "a seat token", "invitations", "a cookie set", "no-store"],
)
def test_an_answer_carrying_a_secret_is_never_gzipped(headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    """BREACH (docs/security.md, "Compression"): an answer that hands out a secret (seat tokens,
    invitations, a session cookie, a page marked ``no-store``) beside text an attacker could choose
    is not compressed, whatever its size."""
    sent = run_app(headers, body)
    assert sent[1]["body"] == body and b"content-encoding" not in dict(sent[0]["headers"])
    same = run_app([JSON], b'{"echo":"' + FILLER + b'"}')  # the same size without the secret: compressed
    assert dict(same[0]["headers"])[b"content-encoding"] == b"gzip"


def test_a_new_games_answer_with_its_tokens_is_plain(client: TestClient) -> None:
    """The answer creating a game carries its seat tokens: never compressed."""
    r, body = raw(client, "POST", "/api/games", GZIP, json={"game": "nume", "seed": 3})
    assert r.status_code == 201 and "content-encoding" not in r.headers and "tokens" in json.loads(body)


def test_a_move_answer_with_its_change_is_gzipped_when_large_enough(client: TestClient) -> None:
    """The move's answer (acknowledgement plus change) is JSON: compressed above the minimum size,
    and what it decodes to is what the plain answer says."""
    made = client.post("/api/games", json={"game": "nibble", "seed": 5}).json()
    gid, token = made["id"], made["tokens"]["0"]
    view = client.get(f"/api/games/{gid}", headers={"X-Seat-Token": token}).json()
    move = view["render"]["actions"][0]["move"] if view["render"].get("actions") else None
    assert move is not None
    payload = {"token": token, "move": move, "expected": view["move_number"], "view": True}
    r, body = raw(client, "POST", f"/api/games/{gid}/moves", GZIP, json=payload)
    assert r.status_code == 200, body
    assert r.headers["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(body))["version"] == view["version"] + 1


@pytest.mark.parametrize(
    ("header", "accepted"),
    [("gzip", True), ("gzip, deflate, br", True), ("br;q=1, gzip;q=0.5", True), ("gzip;q=0", False), ("br", False)],
)
def test_accept_encoding_is_read_with_its_weights(header: str, accepted: bool) -> None:
    """``gzip;q=0`` refuses gzip (RFC 9110, 12.5.3); a header naming only other codings gets plain answers."""
    assert accepts_gzip({"headers": [(b"accept-encoding", header.encode())]}) is accepted


def test_an_event_stream_is_never_held_back_or_compressed() -> None:
    """ "never for event streams (SSE must keep streaming)": each chunk of a streamed answer reaches
    the network before the application makes the next one, uncompressed, even when it is large."""
    delivered = asyncio.Event()
    sent: list[dict[str, Any]] = []
    chunk = b"data: " + b"x" * (4 * MINIMUM_SIZE) + b"\n\n"

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream"), (b"x-accel-buffering", b"no")],
            }
        )
        for _ in range(3):
            delivered.clear()
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await asyncio.wait_for(delivered.wait(), 1)  # the chunk went out before the next is made
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body":
            delivered.set()

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"accept-encoding", b"gzip")]}
    run_coroutine(Edge(app)(scope, receive, send))
    assert [m["type"] for m in sent] == ["http.response.start"] + ["http.response.body"] * 4
    assert all(m.get("body", b"") in (chunk, b"") for m in sent[1:])
    assert b"content-encoding" not in dict(sent[0]["headers"])


def test_a_streamed_json_body_is_sent_as_it_comes() -> None:
    """A body of several messages (``StreamingResponse``: a bot's ``x-ndjson`` stream, or any type)
    is passed on message by message, never gathered to be compressed."""
    sent: list[dict[str, Any]] = []
    part = b'{"a":"' + b"y" * 2000 + b'"}\n'

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": part, "more_body": False})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"accept-encoding", b"gzip")]}
    run_coroutine(Edge(app)(scope, receive, send))
    assert [m.get("body") for m in sent[1:]] == [part, part]
    assert b"content-encoding" not in dict(sent[0]["headers"])


def test_the_game_websocket_works_for_a_client_that_accepts_gzip(client: TestClient) -> None:
    """ "WebSockets untouched": the socket of a game opens and sends its JSON view as before."""
    gid = client.post("/api/games", json={"game": "nume", "seed": 3}).json()["id"]
    with client.websocket_connect(f"/api/games/{gid}/ws", headers=GZIP) as ws:
        msg = ws.receive_json()
    assert msg["type"] == "state" and msg["view"]["id"] == gid


def test_a_view_and_a_move_answer_are_compressed_without_a_search_for_secrets(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two answers of every move (the view, the move's answer) say they hold no secret, so their
    bodies are not searched for one; any other answer still is."""
    from tessera.server.http import edge

    searched: list[int] = []
    real = edge.has_secret
    monkeypatch.setattr(edge, "has_secret", lambda body: searched.append(len(body)) or real(body))
    made = client.post("/api/games", json={"game": "nibble", "seed": 5}).json()
    searched.clear()
    gid, token = made["id"], made["tokens"]["0"]
    r, _ = raw(client, "GET", f"/api/games/{gid}", {**GZIP, "X-Seat-Token": token})
    view = json.loads(gzip.decompress(_))
    assert r.headers["content-encoding"] == "gzip" and searched == []
    payload = {"token": token, "move": view["render"]["actions"][0]["move"], "expected": view["move_number"]}
    r, _ = raw(client, "POST", f"/api/games/{gid}/moves", GZIP, json=payload)
    assert r.headers["content-encoding"] == "gzip" and searched == []
    r, _ = raw(client, "GET", "/api/catalog", GZIP)
    assert r.headers["content-encoding"] == "gzip" and len(searched) == 1
