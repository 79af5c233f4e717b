"""A seat's actions: the move (the move pipeline's HTTP door), resign, undo, draw offers."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel

from tessera.server.encoding import FastJSONResponse
from tessera.server.limits import client_address
from tessera.server.routers.deps import SeatHeader, SeatToken, Service, account_seat

router = APIRouter(tags=["moves"])


class MoveIn(BaseModel):
    """``POST /api/games/{id}/moves``."""

    token: str | None = None
    move: str
    expected: int | None = None
    view: bool = True
    """False: answer the acknowledgement alone (version, move number, who is to move, status,
    result, the last move), for a client that gets the new view by its WebSocket."""


@router.post("/api/games/{game_id}/moves")
async def post_move(
    game_id: str, body: MoveIn, request: Request, x_seat_token: SeatHeader = None, token: str | None = None
) -> FastJSONResponse:
    """Play a move (a Nelaxtam order is sealed until both are in).

    On the event loop: the move pipeline (tessera.server.moves) prepares the move against the game
    in memory, commits it (on the loop where the database allows, else in a worker thread) and
    publishes the change; the answer comes after the commit.  (The service is read from the app's
    state, not through a dependency: this is the hot path, and FastAPI's dependency machinery costs
    more than the rest of the route.)
    """
    given = body.token or x_seat_token or token
    seat = given if given else await account_seat(request, game_id, None)
    request.app.state.worker.claim(game_id, client_address(request.scope))  # the AI's reply counts against it
    pipeline = request.app.state.service.moves
    return FastJSONResponse(await pipeline.submit(game_id, seat, body.move, body.expected, view=body.view))


@router.post("/api/games/{game_id}/resign")
def resign(game_id: str, service: Service, seat_token: SeatToken) -> FastJSONResponse:
    """Give up the game."""
    return FastJSONResponse(service.resign(game_id, seat_token))


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
