"""Games: create, list (the lobby), view, join, and replay positions."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from tessera.server.encoding import FastJSONResponse
from tessera.server.errors import ServiceError
from tessera.server.inputs import seat_plan
from tessera.server.limits import client_address
from tessera.server.routers.deps import Service, ViewerToken, created_answer

router = APIRouter(tags=["games"])


class ClockIn(BaseModel):
    """Optional clock: seconds per game and increment per turn, or ``days`` per move (correspondence)."""

    initial: float | None = Field(None, gt=0, le=86400, description="seconds per player for the whole game")
    increment: float = Field(0, ge=0, le=3600, description="seconds added after each turn")
    days: int | None = Field(None, description="correspondence: days per move (1, 2, 3, 5, 7 or 14)")

    def settings(self) -> tuple[float, float] | dict[str, Any]:
        """What the service takes (tessera.server.clocks.clock_from checks it)."""
        if self.days is not None or self.initial is None:
            return {"days": self.days, "initial": self.initial, "increment": self.increment}
        return (self.initial, self.increment)


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
    public: bool = False
    """Listed in the lobby and joinable by strangers (an online game); private by default, as in the web form."""
    seats: list[Any] | None = Field(
        None,
        description="every seat at once, any mix: {'kind': 'here'|'invite'|'ai', 'level': 1-5 (AI), 'name': ...}",
    )


MAX_ALL_AI_GAMES = 2
"""Games whose every seat is an AI that one account may have going at once (guests may have none)."""


def all_ai(body: CreateIn) -> bool:
    """Whether every seat of the game asked for is an AI (it plays itself, on the server's time)."""
    if body.seats is None:
        return False
    try:
        _, plan = seat_plan(body.seats)
    except ServiceError:
        return False  # the service refuses it with the reason
    return all(kind == "ai" for kind, _, _ in plan)


def check_all_ai(request: Request, service: Service) -> str:
    """An all-AI game is for accounts only, :data:`MAX_ALL_AI_GAMES` at a time: the account's key."""
    from tessera.server.accounts.auth import optional_auth

    auth = optional_auth(request)
    if auth is None:
        raise ServiceError(403, "a game whose every seat is an AI needs an account: sign in first")
    key = f"account:{auth.user.id}"
    going: dict[str, list[str]] = request.app.state.__dict__.setdefault("all_ai_games", {})
    mine = [g for g in going.get(key, []) if _active(service, g)]
    going[key] = mine
    if len(mine) >= MAX_ALL_AI_GAMES:
        raise ServiceError(
            429, f"at most {MAX_ALL_AI_GAMES} games whose every seat is an AI at a time: wait for one to finish"
        )
    return key


def _active(service: Service, game_id: str) -> bool:
    with service.storage.transaction() as tx:
        row = tx.get_game(game_id)
    return row is not None and row.status in ("open", "active")


@router.post("/api/games", status_code=201)
def create_game(body: CreateIn, service: Service, request: Request) -> dict[str, Any]:
    """Create a game; the answer holds the creator's seat tokens and invite links.  A game whose every
    seat is an AI is for accounts only, a few at a time (403 for a guest, 429 over the cap)."""
    client = client_address(request.scope)
    robots = all_ai(body)
    if robots:
        client = check_all_ai(request, service)
    worker = request.app.state.worker
    with worker.acting_for(client):
        created = service.create(
            body.game,
            body.params,
            mode=body.mode,
            seat=body.seat,
            ai_level=body.ai_level,
            clock=body.clock.settings() if body.clock else None,
            seed=body.seed,
            names=body.names,
            public=body.public,
            seat_kinds=body.seats,
        )
    if robots:
        request.app.state.all_ai_games.setdefault(client, []).append(created.game_id)
    worker.claim(created.game_id, client)
    return created_answer(created)


LOBBY_PER_CREATOR = 5
"""Games of one creator (its address, or account) listed on a page of the lobby."""


@router.get("/api/games")
def list_games(
    service: Service,
    request: Request,
    status: Annotated[str, Query(pattern="^(open|active|finished|all)$")] = "open",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
) -> dict[str, Any]:
    """The lobby: open online games (``status=open``, newest first), or public games by status; a page
    of ``limit`` from ``offset``, at most :data:`LOBBY_PER_CREATOR` games of one creator on it."""
    worker = request.app.state.worker
    games = service.list_games(
        None if status == "all" else status,
        limit=limit,
        offset=offset,
        creator=worker.client_of,
        per_creator=LOBBY_PER_CREATOR,
    )
    return {"games": games, "limit": limit, "offset": offset}


@router.get("/api/games/{game_id}")
def get_game(game_id: str, service: Service, token: ViewerToken, request: Request) -> FastJSONResponse:
    """The game as the token's seat sees it (no token: a spectator).  The web client's fallback when
    its WebSocket is not open (docs/http-api.md).  ``ai_waiting``: since when (epoch seconds) an AI
    seat has been waiting for a worker process to think (absent when none waits)."""
    view = service.view(game_id, token)
    since = request.app.state.worker.waiting_since(game_id)
    if since is not None:
        view = {**view, "ai_waiting": round(since, 3)}
    return FastJSONResponse(view)


@router.post("/api/games/{game_id}/join")
def join_game(game_id: str, service: Service) -> dict[str, Any]:
    """Take the free seat of an open public online game (a private game's seats go by invite link only)."""
    seat, token = service.join(game_id)
    return {"id": game_id, "seat": seat, "token": token, "link": f"/g/{game_id}#seat={seat}&t={token}"}


@router.get("/api/games/{game_id}/positions/{n}")
def position(game_id: str, n: int, service: Service) -> dict[str, Any]:
    """The board after the first ``n`` moves, as a spectator sees it (replay)."""
    return service.position(game_id, n)
