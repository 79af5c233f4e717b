"""The seek pool's HTTP API (``router``, included by ``create_app``; docs/http-api.md, docs/play-online.md).

A seek's secret travels in the ``X-Seek-Secret`` header, never in a URL; an account's own seeks
are its own without it (session, or a token with the ``play`` scope).  Every refusal is a 4xx
with ``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts import auth as A
from tessera.server.accounts.security import Refused
from tessera.server.http.edge import client_address
from tessera.server.seeks.pool import MAX_WAIT, SeekPool, Who, guest_client

router = APIRouter(tags=["seeks"])

Secret = Annotated[str | None, Header(alias="X-Seek-Secret", max_length=200)]


class SeekClock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    initial: float | None = Field(None, description="seconds per player for the whole game")
    increment: float = Field(0.0, description="seconds added after each turn")
    days: int | None = Field(None, description="correspondence: days per move (1, 2, 3, 5, 7 or 14)")


class SeekIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str = Field(max_length=500, description="game name or spec with its variant, e.g. 'nume(size=5)'")
    rated: bool = False
    clock: SeekClock | None = None


DEFAULT_WAIT = 25.0
"""Seconds a wait is held when the body does not say."""


class WaitIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    timeout: float = Field(DEFAULT_WAIT, ge=0, le=MAX_WAIT, description="seconds to hold the request at most")


def pool_of(request: Request) -> SeekPool:
    pool: SeekPool = request.app.state.seeks
    return pool


def who(request: Request) -> Who:
    """The asker: an account (a session, or a token with the ``play`` scope), or a guest by address."""
    auth = A.optional_auth(request)
    if auth is None:
        return Who(None, guest_client(client_address(request.scope)))
    if not auth.allows("play"):
        raise Refused(
            403, "this API token lacks the scope 'play'", key="refusal.auth.scope_missing", args={"scope": "play"}
        )
    return Who(auth.user, f"user:{auth.user.id}")


@router.post("/api/seeks", status_code=201)
def seek(body: SeekIn, request: Request) -> dict[str, Any]:
    """Ask for a game (``game``, ``rated``, ``clock``): the seek's ``id`` and its ``secret``."""
    clock = None if body.clock is None else body.clock.model_dump(exclude_none=True)
    return pool_of(request).create(who(request), body.game, rated=body.rated, clock=clock)


@router.get("/api/seeks")
def standing(request: Request) -> dict[str, Any]:
    """The standing seeks (the lobby's list), oldest first; ``mine`` marks the asker's own."""
    return {"seeks": pool_of(request).standing(who(request))}


@router.delete("/api/seeks/{seek_id}")
def cancel(seek_id: str, request: Request, secret: Secret = None) -> dict[str, Any]:
    """Withdraw one's own standing seek."""
    return pool_of(request).cancel(who(request), seek_id, secret)


@router.post("/api/seeks/{seek_id}/wait")
async def wait(seek_id: str, request: Request, secret: Secret = None, body: WaitIn | None = None) -> dict[str, Any]:
    """Long-poll one's own seek: answered at once when it is paired (the game, seat, seat token and
    link), when the AI is newly offered, or after ``timeout`` seconds with it still standing."""
    asker = await run_in_threadpool(who, request)
    return await pool_of(request).wait(asker, seek_id, secret, body.timeout if body else DEFAULT_WAIT)


@router.post("/api/seeks/{seek_id}/ai")
def play_ai(seek_id: str, request: Request, secret: Secret = None) -> dict[str, Any]:
    """Take the AI offered to a seek that found no opponent in time: the game against it."""
    return pool_of(request).play_ai(who(request), seek_id, secret)
