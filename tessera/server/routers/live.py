"""The game WebSocket: live views of one game, run by the hub (tessera.server.hub)."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from tessera.server.hub import Hub

router = APIRouter(tags=["live"])


@router.websocket("/api/games/{game_id}/ws")
async def ws_game(websocket: WebSocket, game_id: str, token: str | None = None) -> None:
    """Live views of a game: a ``state`` message now and after every change."""
    hub: Hub = websocket.app.state.hub
    await hub.serve(websocket, game_id, token)
