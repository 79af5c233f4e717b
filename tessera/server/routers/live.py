"""The game WebSocket: live views of one game, run by the hub (tessera.server.hub)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, WebSocket

from tessera.server.hub import Hub
from tessera.server.routers.deps import account_seat

router = APIRouter(tags=["live"])


@router.websocket("/api/games/{game_id}/ws")
async def ws_game(websocket: WebSocket, game_id: str, token: str | None = None) -> None:
    """Live views of a game: a ``state`` message now and after every change."""
    hub: Hub = websocket.app.state.hub
    if not token:  # an account's seat: its session cookie (from the site's own pages) or bearer token
        try:
            token = await account_seat(websocket, game_id, None)
        except HTTPException as e:  # a cross-site page with the cookie, a revoked bearer token
            await websocket.accept()
            await websocket.send_json({"type": "error", "detail": e.detail})
            await websocket.close(code=4000 + e.status_code)
            return
    await hub.serve(websocket, game_id, token)
