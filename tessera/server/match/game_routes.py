"""Games: create, list (the lobby), view, join, and replay positions."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from tessera.server.http.deps import Service, ViewerToken, created_answer
from tessera.server.http.edge import WITHOUT_SECRETS, client_address
from tessera.server.http.encoding import FastJSONResponse
from tessera.server.http.errors import ServiceError
from tessera.server.http.storage_errors import STORAGE_ERRORS
from tessera.server.match.inputs import seat_plan

log = logging.getLogger("tessera.server")

router = APIRouter(tags=["games"])


class ClockIn(BaseModel):
    """Optional clock: seconds per game and increment per turn, or ``days`` per move (correspondence)."""

    initial: float | None = Field(None, gt=0, le=86400, description="seconds per player for the whole game")
    increment: float = Field(0, ge=0, le=3600, description="seconds added after each turn")
    days: int | None = Field(None, description="correspondence: days per move (1, 2, 3, 5, 7 or 14)")

    def settings(self) -> tuple[float, float] | dict[str, Any]:
        """What the service takes (tessera.server.match.clocks.clock_from checks it)."""
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


def creator_key(request: Request) -> tuple[str, str | None]:
    """Who is creating a game: ``("account:<id>", id)`` when the request carries an account, else
    ``("addr:<address>", None)``."""
    from tessera.server.accounts.auth import optional_auth

    auth = optional_auth(request)
    if auth is None:
        return f"addr:{client_address(request.scope)}", None
    return f"account:{auth.user.id}", auth.user.id


def check_all_ai(service: Service, creator: str, user_id: str | None) -> None:
    """An all-AI game is for accounts only, :data:`MAX_ALL_AI_GAMES` at a time (counted in the database:
    the cap holds across server processes and restarts)."""
    from tessera.server.match import creators

    if user_id is None:
        raise ServiceError(403, "a game whose every seat is an AI needs an account: sign in first")
    with service.storage.transaction() as tx:
        going = creators.all_ai_going(tx, creator)
    if going >= MAX_ALL_AI_GAMES:
        raise ServiceError(
            429, f"at most {MAX_ALL_AI_GAMES} games whose every seat is an AI at a time: wait for one to finish"
        )


@router.post("/api/games", status_code=201)
def create_game(body: CreateIn, service: Service, request: Request) -> dict[str, Any]:
    """Create a game; the answer holds the creator's seat tokens and invite links.  A game whose every
    seat is an AI is for accounts only, a few at a time (403 for a guest, 429 over the cap)."""
    from tessera.server.match import creators

    creator, user_id = creator_key(request)
    robots = all_ai(body)
    if robots:
        check_all_ai(service, creator, user_id)
    client = creator if user_id is not None else client_address(request.scope)
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
    try:
        with service.storage.transaction() as tx:
            creators.record(tx, created.game_id, creator, user_id=user_id, all_ai=robots)
    except STORAGE_ERRORS as e:  # the game is made (a 503 would say nothing was): it counts as its own creator
        log.warning("the creator of game %s was not recorded: %s", created.game_id, e)
    worker.claim(created.game_id, client)
    return created_answer(created)


LOBBY_PER_CREATOR = 5
"""Open games of one creator (its account, or address) listed in the lobby (its newest)."""


@router.get("/api/games")
def list_games(
    service: Service,
    request: Request,
    status: Annotated[str, Query(pattern="^(open|active|finished|all)$")] = "open",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
    offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
) -> dict[str, Any]:
    """The lobby: open online games (``status=open``), or public games by status; a page of ``limit``
    from ``offset``.  Open games: at most :data:`LOBBY_PER_CREATOR` of one creator; for a signed-in
    player the nearest ratings (the creator's in that game's pool) first, ties newest first; for a
    guest newest first."""
    from tessera.server.accounts.auth import optional_auth

    auth = optional_auth(request) if status == "open" else None
    games = service.list_games(
        None if status == "all" else status,
        limit=limit,
        offset=offset,
        per_creator=LOBBY_PER_CREATOR,
        player=auth.user.id if auth is not None else None,
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
    request.scope[WITHOUT_SECRETS] = True  # a view holds no token (http/edge.py)
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
