"""The game WebSocket (``server/push/routes.py``, run by ``server/push/hub.py``).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from tests.server.helpers import create, move


def test_websocket_pushes_moves_and_connection_status(client: TestClient) -> None:
    """Live updates over WebSocket; a player's connection status is shown to the other;
    reconnecting clients resume from the stored state."""
    g = create(client, "nume", mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    with client.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t0}"]) as ws0:
        first = ws0.receive_json()
        assert first["type"] == "state" and first["view"]["you"] == 0
        with client.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t1}"]) as ws1:
            ws1.receive_json()
            seen = ws0.receive_json()  # a small presence message, not a whole view
            while seen["type"] != "presence" or not seen["connected"][1]:
                seen = ws0.receive_json()
            assert seen == {"type": "presence", "connected": [True, True]}
            move(client, gid, t0, "a1=3", 0)
            pushed = ws1.receive_json()
            while pushed.get("type") != "state" or pushed["view"]["move_number"] != 1:
                pushed = ws1.receive_json()
            assert pushed["view"]["you"] == 1 and pushed["view"]["moves"][0]["move"] == "a1=3"
            assert pushed["view"]["seats"][0]["connected"] and pushed["view"]["seats"][1]["connected"]
        gone = ws0.receive_json()
        while gone.get("type") != "presence" or gone["connected"][1]:
            gone = ws0.receive_json()
    with client.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t1}"]) as again:
        resumed = again.receive_json()["view"]
        assert resumed["move_number"] == 1 and resumed["render"]["actions"]
    with client.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", "seat.wrong"]) as bad:
        assert bad.receive_json() == {"type": "error", "detail": f"this token does not hold a seat in game {gid}"}


def storage_down() -> sa.exc.OperationalError:
    """What SQLAlchemy raises when PostgreSQL is shut down under a query."""
    return sa.exc.OperationalError("COMMIT", {}, Exception("terminating connection due to administrator command"))


def test_a_viewer_who_joins_as_the_storage_fails_stays_connected_and_gets_the_next_move(
    client: TestClient, monkeypatch: Any
) -> None:
    """'Nothing acknowledged is ever lost … a viewer connected through the outage': the storage failing
    during a joining socket's check of the stored version (the race a PostgreSQL restart once hit,
    which dropped the socket without a close frame and left it in the hub) leaves the socket open and
    counted once; the next move reaches it, and closing it frees its place."""
    g = create(client, "nume", params={"size": 3}, seed=4)
    gid, tokens = g["id"], g["tokens"]
    service, hub = client.app.state.service, client.app.state.hub  # type: ignore[attr-defined]
    version = service.version
    failed: list[str] = []

    def failing_once(game_id: str) -> int:
        if not failed:
            failed.append(game_id)
            raise storage_down()
        return int(version(game_id))

    monkeypatch.setattr(service, "version", failing_once)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "ping"})  # answered after the join's check: the socket lived through it
        assert ws.receive_json()["type"] == "pong" and failed == [gid]
        assert hub.connections() == 1
        move(client, gid, tokens["0"], "a1=3", 0)
        pushed = ws.receive_json()
        while pushed.get("type") != "state":
            pushed = ws.receive_json()
        assert pushed["view"]["move_number"] == 1
    deadline = time.monotonic() + 10
    while hub.connections() and time.monotonic() < deadline:  # (the server's side of the close runs on)
        time.sleep(0.01)
    assert hub.connections() == 0


def test_a_refresh_while_the_storage_fails_says_why_and_keeps_the_socket(client: TestClient, monkeypatch: Any) -> None:
    """'Bad input always gets a clear error … never corrupts or loses state': a ``refresh`` that cannot
    read the game is answered with an ``error`` saying the storage is unavailable, and the same socket
    is served once the storage is back."""
    g = create(client, "nume", params={"size": 3}, seed=4)
    gid = g["id"]
    service = client.app.state.service  # type: ignore[attr-defined]
    view = service.view
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        monkeypatch.setattr(service, "view", lambda *a, **k: (_ for _ in ()).throw(storage_down()))
        ws.send_json({"type": "refresh"})
        err = ws.receive_json()
        assert err["type"] == "error" and "storage is unavailable" in err["detail"]
        monkeypatch.setattr(service, "view", view)
        ws.send_json({"type": "refresh"})
        assert ws.receive_json()["type"] == "state"


def test_a_socket_handler_that_fails_on_storage_closes_with_a_reason_not_a_dropped_connection(
    client: TestClient, monkeypatch: Any
) -> None:
    """A storage failure escaping a socket's handler is answered as a request's is: after the socket was
    accepted, an ``error`` message and the close code 4503 (never a connection dropped without a close
    frame, as the HTTP error handler written for requests once did); before it was accepted, the
    handshake is refused 503 with the JSON reason."""
    gid = create(client, "nume", params={"size": 3}, seed=4)["id"]
    hub = client.app.state.hub  # type: ignore[attr-defined]

    async def accepted_then_failed(websocket: Any, *args: Any, **kwargs: Any) -> None:
        await websocket.accept()
        raise storage_down()

    monkeypatch.setattr(hub, "serve", accepted_then_failed)
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        err = ws.receive_json()
        assert err["type"] == "error" and "storage is unavailable" in err["detail"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4503

    async def failed_first(websocket: Any, *args: Any, **kwargs: Any) -> None:
        raise storage_down()

    monkeypatch.setattr(hub, "serve", failed_first)
    with pytest.raises(WebSocketDenialResponse) as denied, client.websocket_connect(f"/api/games/{gid}/ws"):
        pass
    assert denied.value.status_code == 503 and "storage is unavailable" in denied.value.json()["detail"]
    assert int(denied.value.headers["retry-after"]) >= 1
