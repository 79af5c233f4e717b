"""Two ASGI middlewares of the bot API.

:class:`BotGuard` keeps bots out of what is for people: a request authenticated as a bot
account (its bearer token or session) that would create a game — hot-seat, online, from a
record or from the analysis board — or take a seat of an open game in the lobby is answered
403.  A bot plays the games its challenges make, nothing else.

:class:`BotLimits` holds the bot API's request etiquette, per bearer token: **one request at a
time** (a second one sent while the first is being answered gets 429 with ``Retry-After: 1``)
and a token bucket (``TESSERA_RATE_BOT``, default :data:`BOT_RATE`: 8 a second, 30 at once;
over it 429 with the seconds to wait).  The streams are long requests: they are not counted as
"in flight", but opening one takes a token of the bucket.  A 429 is answered before the request
is read: nothing it asked for was done, so sending it again later loses nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Awaitable

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from tessera.server.http.edge import Buckets
from tessera.server.http.limits import Rate, answer_busy, retry_seconds

BOT_RATE = Rate(8, 30)
"""The bot routes' default bucket per token (``TESSERA_RATE_BOT=RATE/BURST`` overrides it; ``0``: none)."""

PEOPLE_ONLY = re.compile(r"^/api/(games|games/[^/]+/join|records|analysis/continue)$")
"""POST routes that make a game or take a lobby seat: not for bots."""

BOT_ROUTES = re.compile(r"^/api/(bot/|board/|stream/|challenge)")
"""The routes :class:`BotLimits` counts."""

STREAMS = re.compile(r"^/api/(stream/event|(bot|board)/game/stream/[^/]+)$")
"""Long requests: not "in flight" for the one-at-a-time rule."""


def _header(scope: Scope, name: bytes) -> bytes | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return bytes(v)
    return None


def token_key(scope: Scope) -> str | None:
    """A digest of the request's bearer token (None without one)."""
    h = _header(scope, b"authorization")
    if h is None or h[:7].lower() != b"bearer ":
        return None
    return hashlib.sha256(h[7:].strip()).hexdigest()[:32]


def _is_bot(scope: Scope) -> bool:
    """Whether the request is authenticated as a bot account (an unknown credential: no)."""
    from tessera.server.accounts.auth import COOKIE
    from tessera.server.accounts.store import AccountStore
    from tessera.server.bot.store import is_api_bot

    app = scope.get("app")
    if app is None:
        return False
    store = getattr(app.state, "accounts", None)  # as tessera.server.accounts.auth.accounts makes it
    if store is None:
        store = app.state.accounts = AccountStore(app.state.storage)
    h = _header(scope, b"authorization")
    if h is not None:
        kind, _, value = h.decode("latin-1").partition(" ")
        found = store.token_user(value.strip()) if kind.lower() == "bearer" else None
        return found is not None and is_api_bot(found[0])
    cookie = _header(scope, b"cookie")
    if cookie is None:
        return False
    for part in cookie.decode("latin-1").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            user = store.session_user(value)
            return user is not None and is_api_bot(user)
    return False


class BotGuard:
    """ASGI middleware: a bot account may not create games or join open ones (403)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """A request that cannot be a bot's making a game is handed on as it is: the app's own coroutine,
        awaited by the middleware outside (this one stays off the stack while the request waits)."""
        if (
            scope["type"] == "http"
            and scope.get("method") == "POST"
            and PEOPLE_ONLY.match(scope.get("path", ""))
            and (_header(scope, b"authorization") is not None or _header(scope, b"cookie") is not None)
        ):
            return self._checked(scope, receive, send)
        return self.app(scope, receive, send)

    async def _checked(self, scope: Scope, receive: Receive, send: Send) -> None:
        if await run_in_threadpool(_is_bot, scope):
            await answer_busy(
                send,
                "a bot plays the games its challenges make (the bot API): it cannot create games, "
                "play hot-seat or join games in the lobby",
                0,
                status=403,
                key="refusal.bot.no_games",
            )
            return
        await self.app(scope, receive, send)


def bot_rate_from_env() -> Rate:
    text = os.environ.get("TESSERA_RATE_BOT")
    return Rate.parse(text) if text else BOT_RATE


class BotLimits:
    """ASGI middleware: one request at a time per bearer token on the bot routes, and a bucket."""

    def __init__(self, app: ASGIApp, *, rate: Rate | None = None) -> None:
        self.app = app
        self.buckets = Buckets({"bot": bot_rate_from_env() if rate is None else rate})
        self._in_flight: set[str] = set()

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """A request of no bot route, or without a bearer token, is handed on as it is: the app's own
        coroutine, awaited by the middleware outside (this one stays off the stack while the request waits)."""
        if scope["type"] != "http" or not BOT_ROUTES.match(scope.get("path", "")):
            return self.app(scope, receive, send)
        key = token_key(scope)
        if key is None:
            return self.app(scope, receive, send)
        return self._limited(scope, receive, send, key)

    async def _limited(self, scope: Scope, receive: Receive, send: Send, key: str) -> None:
        stream = bool(STREAMS.match(scope.get("path", "")))
        if not stream and key in self._in_flight:
            await answer_busy(
                send,
                "one request at a time per token: send the next one when the last one is answered",
                1,
                key="refusal.bot.one_at_a_time",
            )
            return
        wait = self.buckets.take("bot", key)
        if wait > 0:
            secs = retry_seconds(wait)
            await answer_busy(
                send,
                f"too many requests with this token: try again in {secs} s",
                wait,
                key="refusal.bot.too_many_requests",
                args={"seconds": secs},
            )
            return
        if stream:
            await self.app(scope, receive, send)
            return
        self._in_flight.add(key)
        try:
            await self.app(scope, receive, send)
        finally:
            self._in_flight.discard(key)
