"""The tournaments' HTTP API in lichess's shape (docs/tournaments.md, docs/http-api.md) and pages.

Creating, joining, withdrawing and berserking need an account (a session, or a token with the
``play`` scope: a bot joins with its bot token).  Reading is open to everyone.  Every refusal is a
4xx with ``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts import auth as A
from tessera.server.accounts.security import Refused
from tessera.server.http.pages import WEB
from tessera.server.tournaments import store
from tessera.server.tournaments.director import Director

router = APIRouter(tags=["tournaments"])

STREAM_POLL = 1.0
"""How often the live stream looks at storage for a change (any process's)."""

KEEPALIVE = 6.0
"""The live stream sends an empty line at least this often."""


class TournamentClock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    initial: float = Field(description="seconds per player for the whole game")
    increment: float = Field(0.0, description="seconds added after each turn")


class TournamentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="'arena' or 'swiss'")
    game: str = Field(max_length=500, description="game name or spec with its variant, e.g. 'nume(size=5)'")
    clock: TournamentClock | None = Field(None, description="a real-time clock")
    days: int | None = Field(None, description="correspondence: days per move (1, 2, 3, 5, 7 or 14)")
    rated: bool = True
    starts_at: float | None = Field(None, description="seconds since 1970; default: now")
    minutes: int | None = Field(None, description="an arena's length")
    rounds: int | None = Field(None, description="a Swiss event's rounds")
    name: str | None = Field(None, max_length=200)


def director(request: Request) -> Director:
    d: Director = request.app.state.tournaments
    return d


def _player(request: Request) -> Any:
    """The asker's account: a session, or a token with the ``play`` scope (a bot's: ``bot:play``)."""
    auth = A.require(request)
    if not (auth.allows("play") or auth.allows("bot:play")):
        raise Refused(
            403, "this API token lacks the scope 'play'", key="refusal.auth.scope_missing", args={"scope": "play"}
        )
    return auth.user


@router.post("/api/tournaments", status_code=201)
def create(body: TournamentIn, request: Request) -> dict[str, Any]:
    """Announce a tournament (``kind`` arena or swiss, ``game``, ``clock`` or ``days``, ``rated``,
    ``starts_at``, ``minutes`` or ``rounds``, ``name``): its public form with its ``id``."""
    me = _player(request)
    data = body.model_dump(exclude_none=True)
    return director(request).create(me, data)


@router.get("/api/tournaments")
def listing(request: Request) -> dict[str, Any]:
    """``{"created": [...], "started": [...], "finished": [...]}``: upcoming, running, finished."""
    return store.listing(request.app.state.storage, time.time())


@router.get("/api/tournaments/{tid}")
def view(tid: str, request: Request) -> dict[str, Any]:
    """The tournament: settings, status, rounds, ``standings``, ``pairings`` with their game ids;
    for a signed-in player ``me`` (joined, the game he plays now)."""
    auth = A.optional_auth(request)
    return director(request).view(tid, None if auth is None else auth.user)


@router.post("/api/tournaments/{tid}/join")
def join(tid: str, request: Request) -> dict[str, Any]:
    """Enter the tournament (again, after withdrawing)."""
    return director(request).join(_player(request), tid)


@router.post("/api/tournaments/{tid}/withdraw")
def withdraw(tid: str, request: Request) -> dict[str, Any]:
    """Leave: paired no more; the games played stay in the table."""
    return director(request).withdraw(_player(request), tid)


@router.post("/api/tournaments/{tid}/berserk")
def berserk(tid: str, request: Request) -> dict[str, Any]:
    """Berserk the next arena game (half one's clock, an extra point for a win)."""
    return director(request).berserk(_player(request), tid)


@router.get("/api/tournaments/{tid}/stream")
async def stream(tid: str, request: Request) -> StreamingResponse:
    """The tournament as NDJSON: the whole view (as ``GET /api/tournaments/{id}``) at once and after
    every change of its standings, pairings or status; an empty line at least every 6 s; the stream
    ends after the view of the finished tournament."""
    d = director(request)
    auth = await run_in_threadpool(A.optional_auth, request)
    user = None if auth is None else auth.user
    first = await run_in_threadpool(d.view, tid, user)

    async def lines() -> AsyncIterator[str]:
        last = ""
        view = first
        quiet = 0.0
        while True:
            text = json.dumps(view, sort_keys=True, separators=(",", ":"))
            body = json.dumps({k: v for k, v in view.items() if not k.startswith("seconds_")}, sort_keys=True)
            if body != last:
                last = body
                quiet = 0.0
                yield text + "\n"
            elif quiet >= KEEPALIVE:
                quiet = 0.0
                yield "\n"
            if view["status"] == "finished":
                return
            await asyncio.sleep(STREAM_POLL)
            quiet += STREAM_POLL
            try:
                view = await run_in_threadpool(lambda: d.view(tid, user, fresh_within=STREAM_POLL - 0.1))
            except Refused:
                return

    return StreamingResponse(
        lines(),
        media_type="application/x-ndjson",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.get("/api/users/{username}/tournaments")
def user_tournaments(username: str, request: Request) -> dict[str, Any]:
    """A player's finished tournaments, newest first, with his rank (1: a trophy) and points."""
    u = A.accounts(request).user(username)
    if u is None:
        raise Refused(404, "no such player", key="refusal.player.unknown")
    return {"tournaments": store.user_results(request.app.state.storage, u.id)}


@router.get("/tournaments", include_in_schema=False)
def list_page() -> FileResponse:
    """The tournaments: upcoming, running, finished; a form to announce one."""
    return FileResponse(WEB / "tournaments.html")


@router.get("/tournament/{tid}", include_in_schema=False)
def tournament_page(tid: str) -> FileResponse:
    """One tournament: countdown, live standings and pairings, the player's game opening by itself."""
    return FileResponse(WEB / "tournament.html")
