"""A seat's actions: the move (the move pipeline's HTTP door), resign, undo, draw offers."""

from __future__ import annotations

import email.message
import json
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from tessera.server.http.deps import SeatToken, Service, account_seat
from tessera.server.http.edge import BODY, WITHOUT_SECRETS
from tessera.server.http.encoding import FastJSONResponse

router = APIRouter(tags=["moves"])


class MoveIn(BaseModel):
    """``POST /api/games/{id}/moves``."""

    token: str | None = None
    move: str
    expected: int | None = None
    view: bool = True
    """False: answer the acknowledgement alone (version, move number, who is to move, status,
    result, the last move), for a client that gets the new view by its WebSocket."""
    change: bool = False
    """True: answer the acknowledgement and ``change``, the change from the seat's view of the
    version the move was played on to its new view (docs/render.md, "Light moves"); it wins over
    ``view``."""


MOVE_OPENAPI: dict[str, Any] = {
    "parameters": [
        {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string", "title": "Game Id"}},
        {"name": "token", "in": "query", "required": False, "schema": {"type": "string", "title": "Token"}},
        {
            "name": "x-seat-token",
            "in": "header",
            "required": False,
            "schema": {"type": "string", "title": "X-Seat-Token"},
        },
    ],
    "requestBody": {"required": True, "content": {"application/json": {"schema": MoveIn.model_json_schema()}}},
    "responses": {
        "422": {
            "description": "Validation Error",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/HTTPValidationError"}}},
        }
    },
}
"""The move's parameters and body as FastAPI would document them (the route reads them itself)."""


def is_json(content_type: str | None) -> bool:
    """Whether a ``Content-Type`` names JSON (``application/json`` or ``application/*+json``), as
    FastAPI decides for a declared body; a missing one is not JSON (FastAPI's strict default)."""
    if content_type is None:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


def read_move(raw: bytes, content_type: str | None) -> MoveIn:
    """The body of ``POST /moves`` read and checked as FastAPI reads a declared body, with the same
    refusals (422 through the app's validation handler): no body, a body that is not JSON (by its
    type or its text), or one :class:`MoveIn` refuses; a body that is not text at all is FastAPI's
    400.  Done here because FastAPI's general machinery for the body, the header and the query cost
    more than the rest of the move's route."""
    if not raw:
        raise RequestValidationError([{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}])
    data: Any = raw
    if content_type == "application/json" or is_json(content_type):  # (the usual type, at once)
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            error = {"type": "json_invalid", "loc": ("body", e.pos), "msg": "JSON decode error", "input": {}}
            raise RequestValidationError([{**error, "ctx": {"error": e.msg}}], body=e.doc) from e
        except UnicodeDecodeError as e:  # not text at all: FastAPI's 400 for a body it cannot parse
            raise HTTPException(status_code=400, detail="There was an error parsing the body") from e
    try:
        return MoveIn.model_validate(data, from_attributes=True)  # (FastAPI's wording for a non-object)
    except ValidationError as e:
        errors = [{**err, "loc": ("body", *err["loc"])} for err in e.errors(include_url=False)]
        raise RequestValidationError(errors, body=data) from None


@router.post("/api/games/{game_id}/moves", openapi_extra=MOVE_OPENAPI)
async def post_move(request: Request) -> FastJSONResponse:
    """Play a move (a Nelaxtam order is sealed until both are in).

    The body is ``{"move": ..., "expected": ..., "token": ..., "view": ..., "change": ...}`` (:class:`MoveIn`); the
    seat token may also come as the ``X-Seat-Token`` header (never ``?token=``: refused); without one, the seat the
    requester's account holds.  On the event loop: the move pipeline (tessera.server.match.moves)
    prepares the move against the game in memory, commits it (on the loop where the database
    allows, else in a worker thread) and publishes the change; the answer comes after the commit.
    (The route reads its own parameters and the service from the app's state: this is the hot
    path, and FastAPI's parameter and dependency machinery cost more than the rest of the route.)
    """
    game_id: str = request.path_params["game_id"]
    headers = request.headers
    raw = request.scope.get(BODY)  # read by the edge within the route's limits (http/edge.py)
    body = read_move(raw if raw is not None else await request.body(), headers.get("content-type"))
    given = body.token or headers.get("x-seat-token")
    seat = given if given else await account_seat(request, game_id, None)
    pipeline = request.app.state.service.moves
    answer = await pipeline.submit(game_id, seat, body.move, body.expected, view=body.view, change=body.change)
    request.scope[WITHOUT_SECRETS] = True  # a view, an acknowledgement or a change: no token in any (http/edge.py)
    return FastJSONResponse(answer)


@router.post("/api/games/{game_id}/resign")
def resign(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Give up the game."""
    return FastJSONResponse(service.resign(game_id, seat_token))


@router.post("/api/games/{game_id}/abort")
def abort(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Abort the game: allowed until every seat has made a move (the view's ``abortable``); no result,
    no rating change."""
    return FastJSONResponse(service.abort(game_id, seat_token))


@router.post("/api/games/{game_id}/undo")
def undo(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Take back your last move (online: ask the opponent)."""
    return FastJSONResponse(service.undo(game_id, seat_token))


@router.post("/api/games/{game_id}/undo/accept")
def undo_accept(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Accept the opponent's request to take back a move."""
    return FastJSONResponse(service.answer_undo(game_id, seat_token, True))


@router.post("/api/games/{game_id}/undo/decline")
def undo_decline(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Refuse the opponent's request to take back a move."""
    return FastJSONResponse(service.answer_undo(game_id, seat_token, False))


@router.post("/api/games/{game_id}/draw")
def offer_draw(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Offer a draw (a game whose rules allow one); an AI opponent answers at once."""
    return FastJSONResponse(service.offer_draw(game_id, seat_token))


@router.post("/api/games/{game_id}/draw/accept")
def draw_accept(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Accept the opponent's draw offer: the game ends drawn (reason "agreement")."""
    return FastJSONResponse(service.answer_draw(game_id, seat_token, True))


@router.post("/api/games/{game_id}/draw/decline")
def draw_decline(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Decline the opponent's draw offer."""
    return FastJSONResponse(service.answer_draw(game_id, seat_token, False))
