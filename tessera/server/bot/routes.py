"""The bot API's HTTP routes (``router``, included by ``create_app``; docs/bot-api.md).

Streams are newline-delimited JSON (``application/x-ndjson``): one object a line, and an empty
line at least every :data:`KEEPALIVE` seconds.  Every refusal is a 4xx with
``{"detail": "<the reason>"}``; a refused move is the move pipeline's own 400 naming the rule.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts import auth as A
from tessera.server.accounts.security import Refused
from tessera.server.accounts.store import User
from tessera.server.bot.guard import token_key
from tessera.server.bot.store import BotStore, is_api_bot
from tessera.server.bot.streams import BotStreams
from tessera.server.chat import Chat, chat_line
from tessera.server.encoding import FastJSONResponse
from tessera.server.limits import client_address

router = APIRouter(tags=["bot"])

KEEPALIVE = 6.0
"""Seconds between two lines of a stream at most (an empty line when nothing happened): under the
7 s a client may count on."""

PRESENCE_EVERY = 1.0
"""Seconds between two looks at whether a person's seat in a game is connected (``opponentGone``)."""

SEEN_EVERY = 5.0
"""A bot's presence (the lobby's online bots) is written at most this often while its event stream is open."""

SCOPE = "bot:play"


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: str = Field(max_length=2000)
    expected: int | None = None
    """The move number the move is for (optional: by default the position now)."""


def bots(request: Request) -> BotStore:
    """The app's bot store (made on first use)."""
    state = request.app.state
    store = getattr(state, "bots", None)
    if store is None:
        store = state.bots = BotStore(A.accounts(request))
    return store


def _token_auth(request: Request, scope: str | None) -> A.Auth:
    auth = A.require(request, scope)
    if auth.via != "token":
        raise Refused(
            403,
            "the bot API is used with a personal API token (Authorization: Bearer …)",
            key="refusal.bot.token_needed",
        )
    return auth


def bot_account(request: Request) -> User:
    """The bot whose token (scope ``bot:play``) made the request."""
    user = _token_auth(request, SCOPE).user
    if not is_api_bot(user):
        raise Refused(
            403,
            "this account is not a bot: upgrade it first (POST /api/bot/account/upgrade)",
            key="refusal.bot.not_bot",
        )
    return user


def _ndjson(gen: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(
        gen, media_type="application/x-ndjson", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


# -- accounts --------------------------------------------------------------------------------
@router.post("/api/bot/account/upgrade")
def upgrade(request: Request) -> dict[str, Any]:
    """Make the token's account a bot, for good (scope ``bot:play``; an account that has played no game)."""
    user = _token_auth(request, SCOPE).user
    done = bots(request).upgrade(user)
    return {"ok": True, "username": done.username, "bot": True}


@router.get("/api/bots/online")
def online(request: Request) -> dict[str, Any]:
    """The bots whose event stream is open now, with their ratings (the lobby's list)."""
    return {"bots": bots(request).online()}


# -- the event stream -------------------------------------------------------------------------
def _challenge_line(kind: str, c: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "challenge": c}


class EventReader:
    """What one event stream has told its client, and the lines for what changed since."""

    def __init__(self, store: BotStore, user: User) -> None:
        self.store = store
        self.user = user
        self.games: dict[str, dict[str, Any]] = {}
        self.challenges: dict[str, dict[str, Any]] = {}
        self.seen_at = 0.0

    def read(self) -> list[dict[str, Any]]:
        """The lines since the last read (the first read: every ongoing game and pending challenge)."""
        out: list[dict[str, Any]] = []
        games = self.store.ongoing(self.user)
        for gid in games.keys() - self.games.keys():
            summary = self.store.game_summary(gid, games[gid]["seat"])
            if summary is not None:
                out.append({"type": "gameStart", "game": summary})
        for gid in self.games.keys() - games.keys():
            summary = self.store.game_summary(gid, self.games[gid]["seat"])
            if summary is not None:
                out.append({"type": "gameFinish", "game": summary})
        self.games = games
        pending = self.store.pending_challenges(self.user)
        for cid in pending.keys() - self.challenges.keys():
            out.append(_challenge_line("challenge", pending[cid]))
        for cid in self.challenges.keys() - pending.keys():
            now = self.store.challenge_now(cid)
            if now is None:
                continue
            now = {**now, "direction": self.challenges[cid]["direction"]}
            if now["status"] == "declined":
                out.append(_challenge_line("challengeDeclined", now))
            elif now["status"] == "cancelled":
                out.append(_challenge_line("challengeCanceled", now))
        self.challenges = pending
        if self.user.is_bot and time.monotonic() - self.seen_at >= SEEN_EVERY:
            self.store.seen(self.user)
            self.seen_at = time.monotonic()
        return out


@router.get("/api/stream/event")
async def event_stream(request: Request) -> StreamingResponse:
    """The account's events as NDJSON: ``gameStart``, ``gameFinish``, ``challenge``,
    ``challengeCanceled``, ``challengeDeclined``; an empty line at least every 6 s.  Any bearer
    token of the account; one stream per token (a newer one ends the older, on any process)."""
    user = (await run_in_threadpool(_token_auth, request, None)).user
    key = token_key(request.scope) or ""
    streams: BotStreams = request.app.state.bot_streams
    reader = EventReader(bots(request), user)
    wake = streams.open_events(user.id, key)
    await run_in_threadpool(reader.store.announce_stream, key, wake.opened)  # the other processes' streams

    async def stream() -> AsyncIterator[str]:
        try:
            yield "\n"  # at once: the client knows its stream is open
            while not wake.replaced:
                wake.event.clear()
                lines = await run_in_threadpool(reader.read)
                streams.watch(wake, set(reader.games))
                for obj in lines:
                    yield _line(obj)
                if wake.replaced:
                    break
                try:
                    await asyncio.wait_for(wake.event.wait(), KEEPALIVE)
                except TimeoutError:
                    yield "\n"
        finally:
            streams.close_events(user.id, key, wake)
            if user.is_bot and not wake.replaced:  # offline at once (not awaited: it may be being cancelled)
                asyncio.get_running_loop().run_in_executor(None, functools.partial(reader.store.seen, user, gone=True))

    return _ndjson(stream())


# -- the game stream --------------------------------------------------------------------------
def game_state(view: dict[str, Any]) -> dict[str, Any]:
    """A ``gameState`` line from the seat's view (never the render: a seat's view holds nothing of
    another seat's sealed order, and the line holds less)."""
    moves = view["moves"]
    return {
        "type": "gameState",
        "version": view["version"],
        "moves": [m["move"] for m in moves],
        "movers": [m["player"] for m in moves],
        "move_number": view["move_number"],
        "status": view["status"],
        "to_move": view["to_move"],
        "sealed": view["sealed"],
        "clock": view["clock"],
        "draw_offer": view["draw_offer"],
        "undo_request": view["undo_request"],
        "result": view["result"],
    }


def game_full(summary: dict[str, Any], view: dict[str, Any], seat: int) -> dict[str, Any]:
    """The first line of a game stream."""
    return {
        "type": "gameFull",
        "id": view["id"],
        "game": view["game"],
        "spec": view["spec"],
        "params": view["params"],
        "seed": view["seed"],
        "seat": seat,
        "rated": summary["rated"],
        "clock": summary["clock"],
        "players": summary["players"],
        "state": game_state(view),
    }


def _changed(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("version", "status", "draw_offer", "undo_request", "sealed")
    return any(a[k] != b[k] for k in keys)


@router.get("/api/bot/game/stream/{game_id}")
async def game_stream(game_id: str, request: Request) -> StreamingResponse:
    """One game as the bot's seat sees it, as NDJSON: ``gameFull``, then ``gameState`` on every
    change and ``opponentGone`` when an opponent seen connected leaves (or comes back); the stream
    ends after the game's last state."""
    user = await run_in_threadpool(bot_account, request)
    seat, token = await run_in_threadpool(A.accounts(request).seat_token, user, game_id)
    service = request.app.state.service
    streams: BotStreams = request.app.state.bot_streams
    store = bots(request)
    view = await run_in_threadpool(service.view, game_id, token)
    summary = await run_in_threadpool(store.game_summary, game_id, seat)
    assert summary is not None
    chat: Chat = request.app.state.chat
    wake = streams.open_game(game_id)
    service.presence.arrive(game_id, seat)
    people = [p["seat"] for p in summary["players"] if not p["ai"] and p["seat"] != seat]

    async def stream() -> AsyncIterator[str]:
        nonlocal view
        seen: set[int] = set()
        gone: set[int] = set()
        try:
            yield _line(game_full(summary, view, seat))
            last = game_state(view)
            quiet_since = time.monotonic()
            while last["status"] != "finished":
                try:  # presence is not an event: looked at every PRESENCE_EVERY seconds
                    await asyncio.wait_for(wake.event.wait(), PRESENCE_EVERY if people else KEEPALIVE)
                    woke = True
                except TimeoutError:
                    woke = False
                wake.event.clear()
                said = False
                chats, wake.chats = wake.chats, []
                for posted in chats:  # the seat's own rooms, without what it muted
                    if await run_in_threadpool(chat.visible, posted, seat):
                        yield _line(chat_line(posted.message))
                        said = True
                if woke:
                    view = await run_in_threadpool(service.view, game_id, token)
                    now = game_state(view)
                    if _changed(now, last):
                        yield _line(now)
                        said = True
                    last = now
                present = service.presence.of(game_id)
                here = {s for s in people if s < len(present) and present[s]}
                seen |= here
                now_gone = seen - here
                if now_gone != gone:
                    back = gone - now_gone
                    gone = now_gone
                    if gone:
                        yield _line({"type": "opponentGone", "gone": True, "seats": sorted(gone)})
                    if back:
                        yield _line({"type": "opponentGone", "gone": False, "seats": sorted(back)})
                    said = True
                if said:
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since >= KEEPALIVE - PRESENCE_EVERY:
                    yield "\n"
                    quiet_since = time.monotonic()
        finally:
            streams.close_game(wake)
            service.presence.leave(game_id, seat)

    return _ndjson(stream())


# -- actions ---------------------------------------------------------------------------------
def _seat_token(request: Request, game_id: str) -> str:
    user = bot_account(request)
    return A.accounts(request).seat_token(user, game_id)[1]


@router.post("/api/bot/game/{game_id}/move")
async def move(game_id: str, body: MoveIn, request: Request) -> FastJSONResponse:
    """Play a move (a Nelaxtam order is sealed until every order is in) through the move pipeline:
    a move the rules refuse is a 400 whose ``detail`` names the rule."""
    token = await run_in_threadpool(_seat_token, request, game_id)
    service = request.app.state.service
    expected = body.expected
    if expected is None:
        live = service.games.cached(game_id)
        if live is None:
            expected = (await run_in_threadpool(service.view, game_id, token))["move_number"]
        else:
            expected = live.state.move_number()
    ack = await service.moves.submit(game_id, token, body.move, expected, view=False)
    return FastJSONResponse({"ok": True, **ack})


@router.post("/api/bot/game/{game_id}/resign")
def resign(game_id: str, request: Request) -> dict[str, Any]:
    """Give up the game."""
    view = request.app.state.service.resign(game_id, _seat_token(request, game_id))
    return {"ok": True, "status": view.get("status"), "result": view.get("result")}


class ChatIn(BaseModel):
    """``POST /api/bot/game/{id}/chat``."""

    room: str
    text: str


@router.post("/api/bot/game/{game_id}/chat", status_code=201)
def chat_post(game_id: str, body: ChatIn, request: Request) -> dict[str, Any]:
    """Say something in the game's ``player`` room (the bot's seat's room; the rules and limits of
    :mod:`tessera.server.chat`: at most 200 characters, a few messages a second)."""
    user = bot_account(request)
    token = A.accounts(request).seat_token(user, game_id)[1]
    chat: Chat = request.app.state.chat
    who = chat.speaker(game_id, token, user, client_address(request.scope))
    return chat.post(game_id, who, body.room, body.text)


@router.post("/api/bot/game/{game_id}/draw/{answer}")
def draw(game_id: str, answer: str, request: Request) -> dict[str, Any]:
    """``yes``: accept the opponent's draw offer, or offer one; ``no``: decline the opponent's offer."""
    if answer not in ("yes", "no"):
        raise Refused(404, "the draw answer is yes or no", key="refusal.bot.draw_answer")
    service = request.app.state.service
    token = _seat_token(request, game_id)
    current = service.view(game_id, token)
    offer = current["draw_offer"]
    offered = offer is not None and offer != current["you"]
    if answer == "no":
        service.answer_draw(game_id, token, False)
    elif offered:
        service.answer_draw(game_id, token, True)
    else:
        service.offer_draw(game_id, token)
    return {"ok": True}
