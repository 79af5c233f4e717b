"""Regression tests for the hostile-input audit of issue 14: body caps, read timeouts, private
games, WebSocket presence and caps, tokens in the query, records without a seed.

Each test quotes the finding it guards against.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tessera.server.http.app import create_app
from tessera.server.http.limits import MAX_BODY_BYTES, MAX_RECORD_BYTES
from tests.server.pg import free_port

POST_ROUTES = ["/api/games", "/api/games/{id}/join", "/api/games/{id}/moves", "/api/games/{id}/resign",
               "/api/games/{id}/undo", "/api/games/{id}/undo/accept", "/api/games/{id}/undo/decline"]  # fmt: skip


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": "nume", "params": {"size": 2}, **body})
    assert r.status_code == 201, r.text
    return r.json()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A real uvicorn server (raw sockets need one): its host and port; bodies time out after 0.5 s."""
    db = tmp_path_factory.mktemp("limits") / "t.db"
    app = create_app(f"sqlite:///{db}", ai_mode="thread", ai_seconds=0.01, body_timeout=0.5)
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        assert time.time() < deadline, "the server did not start"
        time.sleep(0.02)
    yield "127.0.0.1", port
    srv.should_exit = True
    thread.join(10)


def raw_request(addr: tuple[str, int], head: str, body: bytes, *, wait: float = 10.0) -> tuple[int, dict[str, Any]]:
    """Send ``head`` and ``body`` on a fresh connection; the status and JSON of the answer (read until close)."""
    with socket.create_connection(addr, timeout=wait) as s:
        s.sendall(head.encode() + body)
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            data += chunk
    head_part, _, payload = data.partition(b"\r\n\r\n")
    status = int(head_part.split()[1])
    return status, json.loads(payload)


@pytest.mark.parametrize("route", POST_ROUTES)
def test_every_route_refuses_a_body_over_its_cap_before_reading_it(server: tuple[str, int], route: str) -> None:
    """'four concurrent 40 MB bodies to POST /api/games … were answered 201. Cap every body (413 with a
    message) before it is read whole': a 40 MB Content-Length gets 413 after only 1 KiB was sent."""
    path = route.replace("{id}", "abc")
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40000000\r\n\r\n"
    t0 = time.monotonic()
    status, answer = raw_request(server, head, b"{" + b" " * 1023)
    assert status == 413
    assert "too large" in answer["detail"] and "256 KiB" in answer["detail"]
    assert time.monotonic() - t0 < 5  # the server did not wait for the other 39.99 MB


def test_a_chunked_body_is_refused_once_it_passes_the_cap(server: tuple[str, int]) -> None:
    """A body without a Content-Length (chunked) is counted as it arrives and refused past the cap."""
    chunk = b"x" * 65536
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(MAX_BODY_BYTES // len(chunk) + 2))
    head = "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    status, answer = raw_request(server, head, body)
    assert status == 413 and "too large" in answer["detail"]


def test_a_body_shorter_than_its_content_length_gets_a_408(server: tuple[str, int]) -> None:
    """'a body shorter than its Content-Length holds the connection with no reply (add a read timeout)'."""
    head = "POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    t0 = time.monotonic()
    status, answer = raw_request(server, head, b'{"game": "nu')
    assert status == 408 and "did not arrive" in answer["detail"]
    assert time.monotonic() - t0 < 8


def test_records_keep_their_larger_cap(server: tuple[str, int]) -> None:
    """Records may be up to 2 MiB; more is a 413 naming that cap."""
    over = MAX_RECORD_BYTES + 1
    head = f"POST /api/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {over}\r\n\r\n"
    status, answer = raw_request(server, head, b"")
    assert status == 413 and "2 MiB" in answer["detail"]
    mid = b'{"format": "tessera-record", "pad": "' + b"x" * (MAX_BODY_BYTES * 2) + b'"}'
    head = f"POST /api/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(mid)}"
    head += "\r\n\r\n"
    status, answer = raw_request(server, head, mid)
    assert status == 422  # read whole (under the records cap) and refused for what it says, not its size


def test_join_honours_a_private_game(client: TestClient) -> None:
    """'POST /api/games/{id}/join ignores public: false … Only the invite link (its secret) may claim an
    invited seat; public games keep join.'"""
    g = new_game(client, mode="online", public=False)
    gid = g["id"]
    r = client.post(f"/api/games/{gid}/join")
    assert r.status_code == 403 and "private" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json()["seats"][1]["claimed"] is False
    invite = g["invites"]["1"].split("&t=")[1]
    mine = client.get(f"/api/games/{gid}", headers={"X-Seat-Token": invite}).json()
    assert mine["you"] == 1 and mine["seats"][1]["claimed"] is True
    public = new_game(client, mode="online", public=True)
    joined = client.post(f"/api/games/{public['id']}/join")
    assert joined.status_code == 200 and joined.json()["seat"] == 1


def test_an_online_game_created_over_http_is_private_unless_it_asks_to_be_public(client: TestClient) -> None:
    """'public defaults to false in the HTTP API as in the web form': a game created without the field
    is neither listed in the lobby nor joinable by a stranger."""
    g = new_game(client, mode="online")
    assert g["id"] not in [x["id"] for x in client.get("/api/games").json()["games"]]
    assert client.post(f"/api/games/{g['id']}/join").status_code == 403


def test_a_token_in_the_url_is_refused_naming_the_supported_ways(client: TestClient) -> None:
    """'tokens never in URLs (a first WebSocket message or a cookie/subprotocol)': a request that
    still sends ?token= gets a 400 naming the supported ways, and the game WebSocket is closed with
    4400 and the reason — never read, even with a right token; the game is left as it was."""
    g = new_game(client, mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    refusals = [
        client.get(f"/api/games/{gid}", params={"token": t0}),
        client.get(f"/api/games/{gid}/chat", params={"token": t0}),
        client.get(f"/api/games/{gid}/analysis", params={"TOKEN": t0}),
        client.post(f"/api/games/{gid}/moves", params={"token": t0}, json={"move": "a1=3", "expected": 0}),
        client.post(f"/api/games/{gid}/resign", params={"token": t0}),
        client.post(f"/api/games/{gid}/chat", params={"token": t0}, json={"room": "player", "text": "hi"}),
        client.get(f"/api/games/{gid}/rematch", params={"token": ""}),
    ]
    for r in refusals:
        assert r.status_code == 400, (r.request.url, r.text)
        body = r.json()
        assert body["key"] == "refusal.token.in_url" and "X-Seat-Token" in body["detail"]
        assert "subprotocol" in body["detail"] and body["error"] == body["detail"]
    with client.websocket_connect(f"/api/games/{gid}/ws?token={t0}", subprotocols=["tessera.seat"]) as ws:
        assert ws.accepted_subprotocol == "tessera.seat"  # a browser sees the reason (it offered the protocol)
        first = ws.receive_json()
        assert first["type"] == "error" and first["key"] == "refusal.token.in_url"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4400 and "URL" in closed.value.reason
    v = client.get(f"/api/games/{gid}", headers={"X-Seat-Token": t0}).json()
    assert v["you"] == 0 and v["move_number"] == 0 and v["status"] != "finished"
    assert client.get(f"/api/games/{gid}", params={"tokens": "x"}).status_code == 200  # only `token` itself


def test_the_seat_token_goes_in_the_header_on_post_routes(client: TestClient) -> None:
    """'the seat token may come as the X-Seat-Token header' on the moves, undo and resign routes."""
    g = new_game(client, mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    r = client.post(f"/api/games/{gid}/moves", headers={"X-Seat-Token": t0}, json={"move": "a1=3", "expected": 0})
    assert r.status_code == 200, r.text
    assert client.post(f"/api/games/{gid}/undo", headers={"X-Seat-Token": t0}).json()["undo_request"] == 0
    assert client.post(f"/api/games/{gid}/undo/decline", headers={"X-Seat-Token": t1}).json()["undo_request"] is None
    ended = client.post(f"/api/games/{gid}/resign", headers={"X-Seat-Token": t1}).json()
    assert ended["status"] == "finished" and ended["result"]["reason"] == "abort"  # seat 1 had not moved


def test_a_json_record_without_seed_is_imported_except_for_nibble(client: TestClient) -> None:
    """docs/records.md: 'seed deals the initial position of dealt games (Nibble); the other games ignore it'."""
    record = {"format": "tessera-record", "version": 1, "game": "nume", "params": {"size": 2},
              "turns": [{"player": 0, "moves": ["a1=3"]}]}  # fmt: skip
    r = client.post("/api/records", json=record)
    assert r.status_code == 201, r.text
    assert client.get(f"/api/games/{r.json()['id']}").json()["moves"][0]["move"] == "a1=3"
    nibble = {"format": "tessera-record", "version": 1, "game": "nibble", "params": {}, "turns": []}
    r = client.post("/api/records", json=nibble)
    assert r.status_code == 422 and "seed" in r.json()["detail"]


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 't.db'}", ai_mode="thread", sockets_per_game=3, sockets_per_client=4)
    with TestClient(app) as c:
        yield c


def test_websocket_connections_are_capped_per_game_and_per_client(capped: TestClient) -> None:
    """'Every WebSocket connect/disconnect … with no token needed and no cap': at most N per game and per
    client address; the one over the cap gets an error message and is closed."""
    gid = new_game(capped)["id"]
    other = new_game(capped)["id"]
    socks = [capped.websocket_connect(f"/api/games/{gid}/ws") for _ in range(3)]
    for ws in socks:
        ws.__enter__()
        assert ws.receive_json()["type"] == "state"
    with capped.websocket_connect(f"/api/games/{gid}/ws") as over:
        msg = over.receive_json()
        assert msg["type"] == "error" and "3 spectators" in msg["detail"]
        with pytest.raises(WebSocketDisconnect) as closed:
            over.receive_json()
        assert closed.value.code == 4429
    with capped.websocket_connect(f"/api/games/{other}/ws") as fourth:
        assert fourth.receive_json()["type"] == "state"
        with capped.websocket_connect(f"/api/games/{other}/ws") as fifth:
            msg = fifth.receive_json()
            assert msg["type"] == "error" and "your address" in msg["detail"]
    for ws in socks:
        ws.__exit__(None, None, None)
    with capped.websocket_connect(f"/api/games/{gid}/ws") as again:  # closed sockets no longer count
        assert again.receive_json()["type"] == "state"


def test_a_game_full_of_spectators_still_admits_its_seat_holders(tmp_path: Path) -> None:
    """'200 spectator sockets must not lock the players out' (issue 35): the per-game cap counts
    spectators; each seat's holder has slots of his own (SOCKETS_PER_SEAT), beyond which he too is
    refused."""
    from tessera.server.push.hub import SOCKETS_PER_SEAT

    app = create_app(f"sqlite:///{tmp_path / 't.db'}", ai_mode="thread", sockets_per_game=3, sockets_per_client=100)
    with TestClient(app) as c:
        g = new_game(c, mode="hotseat")
        crowd = [c.websocket_connect(f"/api/games/{g['id']}/ws") for _ in range(3)]
        for ws in crowd:
            ws.__enter__()
            assert ws.receive_json()["type"] == "state"
        with c.websocket_connect(f"/api/games/{g['id']}/ws") as over:
            assert "3 spectators" in over.receive_json()["detail"]
        token = g["tokens"]["0"]
        mine = [
            c.websocket_connect(f"/api/games/{g['id']}/ws", subprotocols=["tessera.seat", f"seat.{token}"])
            for _ in range(SOCKETS_PER_SEAT)
        ]
        for ws in mine:
            ws.__enter__()
            msg = ws.receive_json()
            assert msg["type"] == "state" and msg["view"]["you"] == 0, "the player was locked out by spectators"
        with c.websocket_connect(f"/api/games/{g['id']}/ws", subprotocols=["tessera.seat", f"seat.{token}"]) as extra:
            assert "this seat already has" in extra.receive_json()["detail"]
        for ws in [*crowd, *mine]:
            ws.__exit__(None, None, None)


def test_spectators_coming_and_going_send_players_nothing(client: TestClient) -> None:
    """'Every WebSocket connect/disconnect pushes a fresh view to every socket of the game … (quadratic)':
    presence is a small message, sent only when a seat's connected flag changes."""
    g = new_game(client, mode="hotseat")
    gid, t0 = g["id"], g["tokens"]["0"]
    with client.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t0}"]) as player:
        assert player.receive_json()["type"] == "state"
        assert player.receive_json() == {"type": "presence", "connected": [True, False]}
        for _ in range(10):
            with client.websocket_connect(f"/api/games/{gid}/ws") as spectator:
                assert spectator.receive_json()["type"] == "state"
        time.sleep(0.2)  # longer than the presence delay: a message would have been sent by now
        assert client.post(f"/api/games/{gid}/moves", json={"token": t0, "move": "a1=3", "expected": 0}).is_success
        nxt = player.receive_json()
        assert nxt["type"] == "state" and nxt["view"]["move_number"] == 1  # nothing came in between


def test_a_posted_body_is_read_whole_by_the_edge_and_given_to_the_route_again() -> None:
    """Body limits: the body of a POST is read by the edge within its cap ("no request ever holds more
    than the cap in memory") and kept in the scope (``BODY``); the route may read it there or from
    ``receive`` as before, and after it ``receive`` still brings the client's disconnect."""
    import asyncio

    from tessera.server.http.edge import BODY, Limits

    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen["scope"] = scope.get(BODY)
        seen["first"] = await receive()
        seen["then"] = await receive()
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def run(chunks: list[bytes], cap: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        seen.clear()
        incoming = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]
        incoming.append({"type": "http.disconnect"})
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return incoming.pop(0)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/api/x", "headers": [], "client": ("1.2.3.4", 5)}
        asyncio.run(Limits(app, rates={}, cap_for=lambda _: cap)(scope, receive, send))
        return sent, dict(seen)

    sent, got = run([b'{"move": ', b'"a1"}'], cap=100)
    assert sent[0]["status"] == 204
    assert got["scope"] == b'{"move": "a1"}'
    assert got["first"] == {"type": "http.request", "body": b'{"move": "a1"}', "more_body": False}
    assert got["then"] == {"type": "http.disconnect"}
    sent, got = run([b"x" * 60, b"x" * 60], cap=100)  # chunked past the cap: refused, the route never runs
    assert sent[0]["status"] == 413 and not got
