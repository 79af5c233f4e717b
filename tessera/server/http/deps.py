"""Dependencies shared by the routers: the service, the hub, the warm-up, the seat token.

They are ``async`` functions: FastAPI runs a plain ``def`` dependency in its thread pool, a trip
to a worker thread per request (measured: 0.1-0.2 ms of CPU per move)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, Depends, Header, Request
from fastapi.requests import HTTPConnection
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts.auth import COOKIE, seat_token_for
from tessera.server.ai.warmup import Warmup
from tessera.server.match.seats import Created
from tessera.server.match.service import MatchService
from tessera.server.push.hub import Hub


async def get_service(request: Request) -> MatchService:
    """The app's match service."""
    service: MatchService = request.app.state.service
    return service


async def get_hub(request: Request) -> Hub:
    """The app's WebSocket hub."""
    hub: Hub = request.app.state.hub
    return hub


async def get_warmup(request: Request) -> Warmup:
    """The app's kernel warm-up."""
    warmup: Warmup = request.app.state.warmup
    return warmup


Service = Annotated[MatchService, Depends(get_service)]
WarmupDep = Annotated[Warmup, Depends(get_warmup)]
SeatHeader = Annotated[str | None, Header(alias="x-seat-token")]
"""The ``X-Seat-Token`` header."""


class TokenIn(BaseModel):
    """A request that only needs the seat token."""

    token: str | None = None


def first_token(*given: str | None) -> str | None:
    """The first token given (the JSON body's, then the ``X-Seat-Token`` header).  Never ``?token=``:
    a URL is written by access logs (tessera.server.http.edge.Edge refuses it)."""
    for t in given:
        if t:
            return t
    return None


async def account_seat(connection: HTTPConnection, game_id: str, given: str | None) -> str | None:
    """``given`` if a seat token was given; else the seat token of the seat the requester's account
    holds in ``game_id`` (its session cookie or bearer token,
    :func:`tessera.server.accounts.auth.seat_token_for`, read in a worker thread); else None (a
    spectator or a guest: no cookie and no ``Authorization`` header costs nothing)."""
    if given:
        return given
    if COOKIE not in connection.cookies and "authorization" not in connection.headers:
        return None
    return await run_in_threadpool(seat_token_for, connection, game_id)


async def seat_token(
    request: Request,
    game_id: str,
    body: Annotated[TokenIn | None, Body()] = None,
    x_seat_token: SeatHeader = None,
) -> str | None:
    """The seat token of a request whose body is only ``{"token": ...}`` (or empty), or of its
    ``X-Seat-Token`` header; without one, the seat the requester's account holds (:func:`account_seat`)."""
    return await account_seat(request, game_id, first_token(body.token if body else None, x_seat_token))


async def viewer_token(request: Request, game_id: str, x_seat_token: SeatHeader = None) -> str | None:
    """The token of whoever looks (the ``X-Seat-Token`` header; without one, the seat the requester's
    account holds; none: a spectator)."""
    return await account_seat(request, game_id, x_seat_token)


SeatToken = Annotated[str | None, Depends(seat_token)]
"""The seat's own actions (resign, undo, draw offers and their answers)."""

ViewerToken = Annotated[str | None, Depends(viewer_token)]
"""Views and analysis sources: a seat's token, or none (a spectator)."""


def created_answer(created: Created) -> dict[str, Any]:
    """The answer to a new game: its id, the creator's seat tokens and links, the invite links."""
    gid = created.game_id
    return {
        "id": gid,
        "url": f"/g/{gid}",
        "tokens": {str(k): v for k, v in created.tokens.items()},
        "links": {str(k): f"/g/{gid}#seat={k}&t={v}" for k, v in created.tokens.items()},
        "invites": {str(k): f"/g/{gid}#seat={k}&t={v}" for k, v in created.invites.items()},
        "watch": f"/g/{gid}",
    }
