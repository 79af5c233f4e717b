"""Two ``tessera serve`` processes on one PostgreSQL database: 'new messages pushed over the game
WebSocket … and across processes on PostgreSQL (events + bus)'."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from tests.server.test_processes import serve


def next_chat(ws: ClientConnection) -> dict[str, Any]:
    """The next chat message a socket receives (views and presence skipped)."""
    while True:
        msg = json.loads(ws.recv(timeout=60))
        if msg["type"] == "chat":
            return dict(msg["message"])


def settle(ws: ClientConnection) -> None:
    """Read a socket up to its answer to a ping."""
    ws.send(json.dumps({"type": "ping"}))
    while json.loads(ws.recv(timeout=60))["type"] != "pong":
        pass


@pytest.mark.postgres
def test_a_message_posted_on_one_process_reaches_the_allowed_sockets_of_another(db_url: str) -> None:
    """Posted through process A, pushed by process B to its sockets that may read the room: the
    spectators' message to the spectator, never to the player of the live game; the players' to the
    player, never to the spectator."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share live notices through PostgreSQL only")
    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        ca = httpx.Client(base_url=a, timeout=120)  # the first game waits for its kernels to compile
        r = ca.post("/api/games", json={"game": "nibble", "mode": "online", "public": True})
        assert r.status_code == 201, r.text
        gid, t0 = r.json()["id"], r.json()["tokens"]["0"]
        t1 = ca.post(f"/api/games/{gid}/join").json()["token"]
        ws_b = b.replace("http://", "ws://") + f"/api/games/{gid}/ws"
        with (
            connect(ws_b, subprotocols=["tessera.seat", f"seat.{t1}"], open_timeout=10) as player,
            connect(ws_b, open_timeout=10) as spectator,
        ):
            settle(player)
            settle(spectator)
            r = ca.post(f"/api/games/{gid}/chat", json={"room": "spectator", "text": "from process A"})
            assert r.status_code == 201, r.text
            assert next_chat(spectator) == r.json()
            r = ca.post(f"/api/games/{gid}/chat", json={"room": "player", "text": "hello", "token": t0})
            assert r.status_code == 201, r.text
            assert next_chat(player) == r.json()  # the spectators' message never reached the player
            r = ca.post(f"/api/games/{gid}/chat", json={"room": "spectator", "text": "second"})
            assert next_chat(spectator)["text"] == "second"  # the players' message never reached him
