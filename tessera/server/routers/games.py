"""Games: create, list (the lobby), view, join, and replay positions."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from tessera.server.encoding import FastJSONResponse
from tessera.server.routers.deps import Service, ViewerToken, created_answer

router = APIRouter(tags=["games"])


class ClockIn(BaseModel):
    """Optional clock: seconds per game and increment per turn."""

    initial: float = Field(gt=0, le=86400, description="seconds per player for the whole game")
    increment: float = Field(0, ge=0, le=3600, description="seconds added after each turn")


class CreateIn(BaseModel):
    """``POST /api/games``."""

    game: str = Field(description="game name or one-string form, e.g. 'nume(size=3)'")
    params: dict[str, Any] = Field(default_factory=dict)
    mode: str = "hotseat"
    seat: int = 0
    ai_level: int = 2
    clock: ClockIn | None = None
    seed: int | None = None
    names: list[str] | None = None
    public: bool = True
    seats: list[Any] | None = Field(
        None,
        description="every seat at once, any mix: {'kind': 'here'|'invite'|'ai', 'level': 1-5 (AI), 'name': ...}",
    )


@router.post("/api/games", status_code=201)
def create_game(body: CreateIn, service: Service) -> dict[str, Any]:
    """Create a game; the answer holds the creator's seat tokens and invite links."""
    created = service.create(
        body.game,
        body.params,
        mode=body.mode,
        seat=body.seat,
        ai_level=body.ai_level,
        clock=(body.clock.initial, body.clock.increment) if body.clock else None,
        seed=body.seed,
        names=body.names,
        public=body.public,
        seat_kinds=body.seats,
    )
    return created_answer(created)


@router.get("/api/games")
def list_games(
    service: Service, status: Annotated[str, Query(pattern="^(open|active|finished|all)$")] = "open"
) -> dict[str, Any]:
    """The lobby: open online games (``status=open``), or public games by status."""
    return {"games": service.list_games(None if status == "all" else status)}


@router.get("/api/games/{game_id}")
def get_game(game_id: str, service: Service, token: ViewerToken) -> FastJSONResponse:
    """The game as the token's seat sees it (no token: a spectator).  The web client's fallback when
    its WebSocket is not open (docs/http-api.md)."""
    return FastJSONResponse(service.view(game_id, token))


@router.post("/api/games/{game_id}/join")
def join_game(game_id: str, service: Service) -> dict[str, Any]:
    """Take the free seat of an open public online game (a private game's seats go by invite link only)."""
    seat, token = service.join(game_id)
    return {"id": game_id, "seat": seat, "token": token, "link": f"/g/{game_id}#seat={seat}&t={token}"}


@router.get("/api/games/{game_id}/positions/{n}")
def position(game_id: str, n: int, service: Service) -> dict[str, Any]:
    """The board after the first ``n`` moves, as a spectator sees it (replay)."""
    return service.position(game_id, n)
