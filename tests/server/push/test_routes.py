"""The game WebSocket (``server/push/routes.py``, run by ``server/push/hub.py``).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

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
