"""A game's chat: its history, a new message, mutes (the rules are in :mod:`tessera.server.chat.rooms`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.requests import HTTPConnection
from pydantic import BaseModel

from tessera.server.accounts.auth import accounts, optional_auth
from tessera.server.accounts.security import Refused
from tessera.server.chat.rooms import Chat, Speaker
from tessera.server.http.deps import SeatHeader, first_token
from tessera.server.http.edge import client_address

router = APIRouter(tags=["chat"])


class ChatIn(BaseModel):
    """``POST /api/games/{id}/chat``."""

    room: str
    text: str
    token: str | None = None


class MuteIn(BaseModel):
    """``POST /api/games/{id}/chat/mute`` and ``/unmute``: a seat or an account."""

    seat: int | None = None
    account: str | None = None
    token: str | None = None


def chat_of(connection: HTTPConnection) -> Chat:
    """The app's chat."""
    chat: Chat = connection.app.state.chat
    return chat


CHAT_SCOPE = "play"
"""What a bearer token needs to write in a game's chat (post, mute, unmute); ``read`` does not let
it speak.  The bot API's chat needs ``bot:play`` (:mod:`tessera.server.bot.routes`)."""


def speaker(request: Request, game_id: str, given: str | None, *, write: bool = False) -> Speaker:
    """Who asks (run in a worker thread): the seat of the seat token given, else the seat his
    account holds in the game (session cookie — from this site's own pages only — or a bearer token
    with the ``play`` scope), else a spectator (with his account's name, if any).  ``write``: the
    caller posts or mutes, and a bearer token without :data:`CHAT_SCOPE` is refused (403)."""
    auth = optional_auth(request)  # a cross-site write with the cookie is refused here (403)
    if write and auth is not None and not auth.allows(CHAT_SCOPE):
        scope = CHAT_SCOPE
        raise Refused(
            403, f"this API token lacks the scope {scope!r}", key="refusal.auth.scope_missing", args={"scope": scope}
        )
    user = auth.user if auth is not None else None
    token = given
    if token is None and auth is not None and auth.allows("play"):
        try:
            token = accounts(request).seat_token(auth.user, game_id)[1]
        except Refused:  # no seat of his: a spectator
            token = None
    return chat_of(request).speaker(game_id, token, user, client_address(request.scope))


@router.get("/api/games/{game_id}/chat")
def chat_history(
    game_id: str,
    request: Request,
    room: str | None = None,
    after: int | None = None,
    x_seat_token: SeatHeader = None,
) -> dict[str, Any]:
    """The chat messages the caller may read (``?room=`` one room only; ``?after=`` newer than a
    message id), the rooms he reads, the room he writes in and his mutes."""
    who = speaker(request, game_id, x_seat_token)
    return chat_of(request).history(game_id, who, room, after)


@router.post("/api/games/{game_id}/chat", status_code=201)
def chat_post(game_id: str, body: ChatIn, request: Request, x_seat_token: SeatHeader = None) -> dict[str, Any]:
    """Post a message to a room (players: ``player``; spectators: ``spectator``)."""
    who = speaker(request, game_id, first_token(body.token, x_seat_token), write=True)
    return chat_of(request).post(game_id, who, body.room, body.text)


@router.post("/api/games/{game_id}/chat/mute")
def chat_mute(game_id: str, body: MuteIn, request: Request, x_seat_token: SeatHeader = None) -> dict[str, Any]:
    """Hide a seat's (or an account's) messages from the calling player; his mutes after."""
    who = speaker(request, game_id, first_token(body.token, x_seat_token), write=True)
    return chat_of(request).mute(game_id, who, seat=body.seat, account=body.account, on=True)


@router.post("/api/games/{game_id}/chat/unmute")
def chat_unmute(game_id: str, body: MuteIn, request: Request, x_seat_token: SeatHeader = None) -> dict[str, Any]:
    """Show a muted seat's (or account's) messages again; the caller's mutes after."""
    who = speaker(request, game_id, first_token(body.token, x_seat_token), write=True)
    return chat_of(request).mute(game_id, who, seat=body.seat, account=body.account, on=False)
