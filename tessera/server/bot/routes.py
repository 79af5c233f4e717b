"""The bot API's HTTP routes (``router``, included by ``create_app``; docs/bot-api.md).

Streams are newline-delimited JSON (``application/x-ndjson``): one object a line, and an empty
line at least every :data:`KEEPALIVE` seconds whatever else happens on them; a stream ends when the
token that opened it no longer holds.  Their lines carry lichess's field names beside tessera's
(:mod:`tessera.server.bot.lichess`).  Every refusal is a 4xx with ``{"detail": "<the reason>",
"error": …}``; a refused move is the move pipeline's own 400 naming the rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts import auth as A
from tessera.server.accounts.security import Refused
from tessera.server.accounts.store import User
from tessera.server.bot import lichess
from tessera.server.bot.guard import token_key
from tessera.server.bot.store import BotStore, is_api_bot
from tessera.server.bot.streams import BotStreams, TooManyStreams
from tessera.server.chat.rooms import Chat, chat_line
from tessera.server.http.edge import client_address
from tessera.server.http.encoding import FastJSONResponse
from tessera.server.http.errors import ServiceError

router = APIRouter(tags=["bot"])

KEEPALIVE = 6.0
"""Seconds between two lines of a stream at most (an empty line when nothing happened): under the
7 s a client may count on."""

PRESENCE_EVERY = 1.0
"""Seconds between two looks at whether a person's seat in a game is connected (``opponentGone``)."""

SEEN_EVERY = 5.0
"""A bot's presence (the lobby's online bots) is written at most this often while its event stream is open."""

SCOPE = "bot:play"

CHECK_EVERY = 2.0
"""Seconds between two looks, on a quiet game stream, at whether its token still holds (an event stream
looks at each wake-up and keep-alive).  A stream whose token is revoked, or whose account is deleted,
ends at the next look, within a keep-alive; a stream about to say something looks first, whatever the
time since the last look, so nothing is said after the token was revoked."""


def _still_allowed(request: Request, user_id: str, scope: str | None) -> bool:
    auth = A.optional_auth(request)
    return auth is not None and auth.user.id == user_id and (scope is None or auth.allows(scope))


async def _allowed(request: Request, user_id: str, scope: str | None) -> bool:
    """Whether the credential that opened a stream still holds (same account, the scope still granted)."""
    return await run_in_threadpool(_still_allowed, request, user_id, scope)


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
    """What one event stream has told its client, and the lines for what changed since (with
    lichess's fields beside tessera's: :mod:`tessera.server.bot.lichess`).  ``look``: a game as a
    spectator sees it now (whose turn, the last move), None when it cannot be read."""

    def __init__(self, store: BotStore, user: User, look: Callable[[str], dict[str, Any] | None] | None = None) -> None:
        self.store = store
        self.user = user
        self.look = look
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
                out.append({"type": "gameStart", "game": self._game(summary)})
        for gid in self.games.keys() - games.keys():
            summary = self.store.game_summary(gid, self.games[gid]["seat"])
            if summary is not None:
                out.append({"type": "gameFinish", "game": self._game(summary)})
        self.games = games
        pending = self.store.pending_challenges(self.user)
        for cid in pending.keys() - self.challenges.keys():
            out.append(_challenge_line("challenge", self._challenge(pending[cid])))
        for cid in self.challenges.keys() - pending.keys():
            now = self.store.challenge_now(cid)
            if now is None:
                continue
            before = self.challenges[cid]
            now = {**now, "direction": before["direction"], "from_bot": before["from_bot"], "to_bot": before["to_bot"]}
            if now["status"] == "declined":
                out.append(_challenge_line("challengeDeclined", self._challenge(now)))
            elif now["status"] == "cancelled":
                out.append(_challenge_line("challengeCanceled", self._challenge(now)))
        self.challenges = pending
        if self.user.is_bot and time.monotonic() - self.seen_at >= SEEN_EVERY:
            self.store.seen(self.user)
            self.seen_at = time.monotonic()
        return out

    def _game(self, summary: dict[str, Any]) -> dict[str, Any]:
        look = None
        if self.look is not None:
            try:
                look = self.look(summary["id"])
            except ServiceError:
                look = None
        return lichess.game_event(summary, look)

    def _challenge(self, c: dict[str, Any]) -> dict[str, Any]:
        pool = str(c["game"]).partition("(")[0]
        ratings: dict[str, dict[str, Any] | None] = {}
        for name in (c.get("from"), c.get("to")):
            u = self.store.accounts.user(name) if name else None
            if name and u is not None:
                ratings[name] = self.store.accounts.ratings(u).get(pool) or {"rating": 1500, "provisional": True}
        return lichess.challenge(c, ratings)


@router.get("/api/stream/event")
async def event_stream(request: Request) -> StreamingResponse:
    """The account's events as NDJSON: ``gameStart``, ``gameFinish``, ``challenge``,
    ``challengeCanceled``, ``challengeDeclined``; an empty line at least every 6 s.  Any bearer
    token of the account; one stream per token (a newer one ends the older, on any process)."""
    user = (await run_in_threadpool(_token_auth, request, None)).user
    key = token_key(request.scope) or ""
    streams: BotStreams = request.app.state.bot_streams
    service = request.app.state.service
    reader = EventReader(bots(request), user, look=service.view)
    wake = streams.open_events(user.id, key)
    await run_in_threadpool(reader.store.announce_stream, key, wake.opened)  # the other processes' streams

    async def stream() -> AsyncIterator[str]:
        try:
            yield "\n"  # at once: the client knows its stream is open
            written = checked = time.monotonic()
            while not wake.replaced:
                wake.event.clear()
                lines = await run_in_threadpool(reader.read)
                streams.watch(wake, set(reader.games))
                if (lines or time.monotonic() - checked >= CHECK_EVERY) and not await _allowed(request, user.id, None):
                    break  # the token was revoked (or the account is gone): nothing more is said
                checked = time.monotonic()
                for obj in lines:
                    yield _line(obj)
                    written = time.monotonic()
                if wake.replaced:
                    break
                if time.monotonic() - written >= KEEPALIVE:  # whatever wakes the stream, a line every KEEPALIVE
                    yield "\n"
                    written = time.monotonic()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.event.wait(), max(0.05, KEEPALIVE - (time.monotonic() - written)))
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
    return await seat_stream(request, user, game_id, SCOPE)


async def seat_stream(request: Request, user: User, game_id: str, scope: str) -> StreamingResponse:
    """The game stream of ``user``'s seat in ``game_id`` (a bot's, or a person's through the board
    API): it writes a line at least every :data:`KEEPALIVE` seconds whatever happens in the game, and
    ends when the game does or when the token that opened it no longer holds ``scope``.  At most
    :data:`tessera.server.bot.streams.GAME_STREAMS_PER_TOKEN` of them per token (429 beyond)."""
    seat, token = await run_in_threadpool(A.accounts(request).seat_token, user, game_id)
    service = request.app.state.service
    streams: BotStreams = request.app.state.bot_streams
    store = bots(request)
    chat: Chat = request.app.state.chat
    key = token_key(request.scope) or ""
    try:  # listen before reading: a move stored between the read and the listening would be missed
        wake = streams.open_game(game_id, key)
    except TooManyStreams as e:
        n = e.limit
        if e.of_game:
            raise Refused(
                429,
                f"too many streams of this game open with this token (at most {n}): close one first",
                {"Retry-After": "1"},
                key="refusal.bot.too_many_streams_game",
                args={"n": n},
            ) from None
        raise Refused(
            429,
            f"too many game streams open with this token (at most {n}): close one first",
            {"Retry-After": "1"},
            key="refusal.bot.too_many_streams",
            args={"n": n},
        ) from None
    try:
        view = await run_in_threadpool(service.view, game_id, token)
        summary = await run_in_threadpool(store.game_summary, game_id, seat)
    except BaseException:
        streams.close_game(wake)
        raise
    assert summary is not None
    service.presence.arrive(game_id, seat)
    people = [p["seat"] for p in summary["players"] if not p["ai"] and p["seat"] != seat]
    two = lichess.two_seats(view)

    async def stream() -> AsyncIterator[str]:
        nonlocal view
        seen: set[int] = set()
        gone: set[int] = set()
        try:
            yield _line(lichess.game_full(game_full(summary, view, seat), view, two))
            last = game_state(view)
            written = checked = time.monotonic()
            while last["status"] != "finished":
                quiet = time.monotonic() - written
                # presence is not an event: looked at every PRESENCE_EVERY seconds
                wait = min(PRESENCE_EVERY if people else KEEPALIVE, KEEPALIVE - quiet, CHECK_EVERY)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.event.wait(), max(0.05, wait))
                # read whether it was set only now (a wake-up just after the time-out counts too), then
                # clear it before reading the view: a change stored after the clear wakes the next round
                woke = wake.event.is_set()
                wake.event.clear()
                out: list[dict[str, Any]] = []
                chats, wake.chats = wake.chats, []
                for posted in chats:  # the seat's own rooms, without what it muted
                    if await run_in_threadpool(chat.visible, posted, seat):
                        out.append(chat_line(posted.message))
                if woke:
                    view = await run_in_threadpool(service.view, game_id, token)
                    now = game_state(view)
                    if _changed(now, last):
                        out.append(lichess.game_state(now, view, two))
                    last = now
                present = service.presence.of(game_id)
                here = {s for s in people if s < len(present) and present[s]}
                seen |= here
                now_gone = seen - here
                if now_gone != gone:
                    back = gone - now_gone
                    gone = now_gone
                    if gone:
                        out.append({"type": "opponentGone", "gone": True, "seats": sorted(gone)})
                    if back:
                        out.append({"type": "opponentGone", "gone": False, "seats": sorted(back)})
                if out or time.monotonic() - checked >= CHECK_EVERY:
                    if not await _allowed(request, user.id, scope):
                        break  # the token was revoked (or lost the scope): nothing more is said
                    checked = time.monotonic()
                for obj in out:
                    yield _line(obj)
                    written = time.monotonic()
                if time.monotonic() - written >= KEEPALIVE - 0.5:  # a line every KEEPALIVE at most apart
                    yield "\n"
                    written = time.monotonic()
        finally:
            streams.close_game(wake)

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
    return await play_move(request, game_id, token, body.move, body.expected)


async def play_move(request: Request, game_id: str, token: str, move: str, expected: int | None) -> FastJSONResponse:
    """A seat's move through the move pipeline (``expected``: the move number it is for; None: now)."""
    service = request.app.state.service
    if expected is None:
        live = service.games.cached(game_id)
        if live is None:
            expected = (await run_in_threadpool(service.view, game_id, token))["move_number"]
        else:
            expected = live.state.move_number()
    ack = await service.moves.submit(game_id, token, move, expected, view=False)
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
    :mod:`tessera.server.chat.rooms`: at most 200 characters, a few messages a second)."""
    user = bot_account(request)
    token = A.accounts(request).seat_token(user, game_id)[1]
    chat: Chat = request.app.state.chat
    who = chat.speaker(game_id, token, user, client_address(request.scope))
    return chat.post(game_id, who, body.room, body.text)


@router.post("/api/bot/game/{game_id}/draw/{answer}")
def draw(game_id: str, answer: str, request: Request) -> dict[str, Any]:
    """``yes``: accept the opponent's draw offer, or offer one; ``no``: decline the opponent's offer."""
    return answer_draw(request, _seat_token(request, game_id), answer)


def answer_draw(request: Request, token: str, answer: str) -> dict[str, Any]:
    """A seat's ``yes`` (accept the opponent's offer, or offer a draw) or ``no`` (decline the offer)."""
    if answer not in ("yes", "no"):
        raise Refused(404, "the draw answer is yes or no", key="refusal.bot.draw_answer")
    service = request.app.state.service
    game_id = request.path_params["game_id"]
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
