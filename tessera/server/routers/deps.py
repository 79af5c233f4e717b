"""Dependencies shared by the routers: the service, the hub, the warm-up, the seat token."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, Depends, Header, Request
from pydantic import BaseModel

from tessera.server.hub import Hub
from tessera.server.seats import Created
from tessera.server.service import MatchService
from tessera.server.warmup import Warmup


def get_service(request: Request) -> MatchService:
    """The app's match service."""
    service: MatchService = request.app.state.service
    return service


def get_hub(request: Request) -> Hub:
    """The app's WebSocket hub."""
    hub: Hub = request.app.state.hub
    return hub


def get_warmup(request: Request) -> Warmup:
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
    """The first token given (the JSON body's, the ``X-Seat-Token`` header, ``?token=``, in that order)."""
    for t in given:
        if t:
            return t
    return None


def seat_token(
    body: Annotated[TokenIn | None, Body()] = None,
    x_seat_token: SeatHeader = None,
    token: str | None = None,
) -> str | None:
    """The seat token of a request whose body is only ``{"token": ...}`` (or empty)."""
    return first_token(body.token if body else None, x_seat_token, token)


def viewer_token(token: str | None = None, x_seat_token: SeatHeader = None) -> str | None:
    """The token of whoever looks (``?token=`` or the header; none: a spectator)."""
    return first_token(token, x_seat_token)


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
