"""The game WebSocket: live views of one game, run by the hub (tessera.server.push.hub)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, WebSocket

from tessera.server.http.deps import account_seat
from tessera.server.push.hub import Hub

router = APIRouter(tags=["live"])

SEAT_PROTOCOL = "tessera.seat"
"""The WebSocket subprotocol that carries a seat token: the client offers ``tessera.seat`` and
``seat.<token>`` (``new WebSocket(url, ["tessera.seat", "seat." + token])``); the server accepts
``tessera.seat``.  The token then travels in a header that access logs do not write, never in the URL."""


def seat_from_protocols(websocket: WebSocket) -> str | None:
    """The seat token offered as a subprotocol (``seat.<token>`` beside ``tessera.seat``), or None."""
    offered = list(websocket.scope.get("subprotocols") or [])
    if SEAT_PROTOCOL not in offered:
        return None
    return next((p.removeprefix("seat.") for p in offered if p.startswith("seat.")), None)


@router.websocket("/api/games/{game_id}/ws")
async def ws_game(websocket: WebSocket, game_id: str) -> None:
    """Live views of a game: a ``state`` message now and after every change.  A seat's holder gives
    his token as a subprotocol (:data:`SEAT_PROTOCOL`), or his account's session cookie or bearer
    token; ``?token=`` in the URL is refused (closed with code 4400 and the reason, by
    tessera.server.http.edge.Edge), never read."""
    hub: Hub = websocket.app.state.hub
    subprotocol = SEAT_PROTOCOL if SEAT_PROTOCOL in (websocket.scope.get("subprotocols") or []) else None
    token = seat_from_protocols(websocket)
    if not token:  # an account's seat: its session cookie (from the site's own pages) or bearer token
        try:
            token = await account_seat(websocket, game_id, None)
        except HTTPException as e:  # a cross-site page with the cookie, a revoked bearer token
            await websocket.accept(subprotocol=subprotocol)
            await websocket.send_json({"type": "error", "detail": e.detail})
            await websocket.close(code=4000 + e.status_code)
            return
    await hub.serve(websocket, game_id, token, subprotocol=subprotocol)
