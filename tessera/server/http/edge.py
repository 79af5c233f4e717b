"""The server's edge: what every HTTP request and WebSocket passes through before and after its route.

Two ASGI middlewares, outermost first (``http/app.py`` installs them; the metrics, when on, sit
between them, and the bot API's two inside)::

    Edge → [Metrics] → Limits → BotLimits → BotGuard → the routes

They are one module, with one ``send`` wrapper and one ``receive`` wrapper between them, because a
request enters each middleware's file on the way in and again for every message on the way out: as
six modules (``SecurityHeaders``, ``RequestLog``, ``TokensNotInUrls``, ``Compression``,
``RateLimits``, ``BodyLimits``) a move's answer passed through four ``send`` wrappers in four files
(docs/architecture.md, "One move").  Every function a request runs here is in this file.

:class:`Edge`
    *Security headers* on every HTTP answer (a header the route set itself is kept):

    ``Content-Security-Policy``
        scripts and styles only from the site's own files (no inline script, no ``eval``, no
        inline style), no plug-ins, no ``<base>``, forms posted only to the site, and no framing
        (``frame-ancestors 'none'``): an injected ``<script>``, ``onclick=`` or ``style=`` does
        nothing, and no other site can frame a page to trick a click.  The pages set colours and
        indents through the CSSOM (``web/js/styles.js``), which the policy allows.
    ``X-Frame-Options: DENY``
        framing refused for browsers that predate ``frame-ancestors``.
    ``X-Content-Type-Options: nosniff``
        a response is read only as the type it says (an uploaded-looking text is never run as script).
    ``Referrer-Policy: same-origin``
        a page's address (a game's id, an e-mail link's token) is never sent to another site.
    ``Cross-Origin-Opener-Policy: same-origin``
        a window another site opened cannot reach into the page.

    *A request id and one log line per request*: the id (``X-Request-ID`` as sent, up to 64
    characters, or a new one) is answered in ``X-Request-ID``; the request's log context
    (``request_id``, ``route``, ``game_id``, ``client``: ``tessera.server.http.logs.CONTEXT``) is set
    while it runs; one line with its ``status`` and ``duration`` (seconds) is written when it ends,
    and a request that raised is logged with its traceback.

    *Tokens never in URLs*: a ``token`` query parameter on the API is refused — 400 naming the
    supported ways, and the game WebSocket closed with code :data:`TOKEN_IN_URL_CLOSE` and the
    reason — never read, since URLs are written by access logs, proxies and browser histories.

    *gzip* for an answer when the request accepts ``gzip`` (``Accept-Encoding``, a ``q=0`` refusal
    respected) and the answer is

    * whole: one body message (a ``StreamingResponse`` — the account's and the tournaments' event
      streams, a bot's ``x-ndjson`` stream — goes out as it comes, never held back to be compressed;
      ``X-Accel-Buffering: no`` and the stream types are also never compressed);
    * of a text type (:data:`TYPES`: JSON, HTML, JavaScript, CSS, SVG, plain text) of at least
      :data:`MINIMUM_SIZE` bytes, not already encoded, not a partial answer (206);
    * free of secrets (BREACH, docs/security.md "Compression"): no ``Set-Cookie``, no
      ``Cache-Control: no-store``, and no JSON field naming a secret (:data:`SECRET_FIELDS`: a seat
      token, an invitation, an API token) in a JSON or plain-text body — not looked for when the
      route said its answer holds none (``scope[WITHOUT_SECRETS] = True``: a game's view and a
      move's answer, the largest answers, sent on every move), nor in the site's files (pages,
      scripts, styles, and everything under ``/static/``, the same bytes for everyone: a locale
      catalogue's ``"password"`` is a label).

    WebSockets are not compressed here (their frames are compressed by permessage-deflate when the
    client offers it).  Every answer of a compressible type says ``Vary: Accept-Encoding``.

:class:`Limits`
    *Request rates*: token buckets per client (address, and account when a credential is sent) and
    per kind (:func:`rate_bucket`: game creation, moves, analysis, record import); over its limit a
    request is answered ``429`` with ``Retry-After`` and a JSON ``detail`` before it is read.

    *Body limits*: a request whose ``Content-Length`` is over its route's cap is answered ``413`` at
    once, before a byte of the body is read; a body sent without a length (chunked) is counted as it
    arrives and refused as soon as it passes the cap, so no request ever holds more than the cap in
    memory.  A body that stops arriving (shorter than its ``Content-Length``) is answered ``408``
    after ``read_timeout`` seconds instead of holding the connection forever.  Both answers are
    ``{"detail": "<the reason>"}`` and close the connection.  The body of a request that carries
    one (POST, PUT, PATCH) is read whole here, before the route runs, and kept in the scope
    (:data:`BODY`): the route reads it there, or from ``receive`` as it would without the edge.

The vocabulary they share with other modules stays where it was: the rates and the refusals in
``http/limits.py``, the log format in ``http/logs.py``, the policy's text in ``http/headers.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import logging
import re
import secrets
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qsl

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tessera.server.http.headers import HEADERS, TOKEN_IN_URL, TOKEN_IN_URL_CLOSE, TOKEN_IN_URL_KEY, URL_TOKEN_ALLOWED
from tessera.server.http.limits import (
    BODY_READ_TIMEOUT,
    MAX_BODY_BYTES,
    MAX_RECORD_BYTES,
    RATE_LIMITS,
    RECORD_PATHS,
    BodyRefused,
    Rate,
    answer_busy,
    answer_refusal,
    kib,
    retry_seconds,
)
from tessera.server.http.logs import CONTEXT

# -- the request's facts ----------------------------------------------------------------------------


def client_address(scope: Scope) -> str:
    """The client's address (behind a proxy: uvicorn's ``--forwarded-allow-ips`` sets it from the proxy's header)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def credential(scope: Scope) -> str | None:
    """A digest of the request's bearer token or session cookie (its account's key), or None."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization" or (name == b"cookie" and b"tessera_session=" in value):
            return hashlib.sha256(value).hexdigest()[:24]
    return None


_PROCESS = secrets.token_hex(4)
_COUNT = itertools.count(1)


def request_id() -> str:
    """A new request id (16 hex digits): this process's random prefix and a counter.  Unique without
    a call to the system's random source per request (a system call on the event loop, where any
    other thread waiting for the interpreter lock takes it)."""
    return f"{_PROCESS}{next(_COUNT) & 0xFFFFFFFF:08x}"


def _game_id(path: str) -> str | None:
    parts = path.split("/")
    if len(parts) >= 4 and parts[1] == "api" and parts[2] == "games" and parts[3]:
        return parts[3]
    if len(parts) >= 3 and parts[1] in ("g", "ws"):
        return parts[2] or None
    return None


def token_in_url(scope: Scope) -> bool:
    """Whether an API request's query string has a ``token`` parameter (a path of
    :data:`~tessera.server.http.headers.URL_TOKEN_ALLOWED` excepted)."""
    path = str(scope.get("path", ""))
    if not path.startswith("/api/") or path in URL_TOKEN_ALLOWED:
        return False
    query = scope.get("query_string", b"")
    if b"token" not in query.lower():
        return False
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    return any(name.lower() == "token" for name, _ in pairs)


# -- compression ------------------------------------------------------------------------------------

MINIMUM_SIZE = 1024
"""Smallest body compressed (bytes): below it gzip's 18-byte frame and the CPU are not worth it."""

LEVEL = 3
"""zlib's level.  On a 22-24 KB view (Nibble, a 216-cell Nume board): level 3 takes 0.05-0.07 ms
and leaves 11-17 % of the bytes; level 6 takes 0.18-0.19 ms for 10-15 % fewer bytes than level 3
(Starlette's default, 9, more still): CPU per move counts more here than the last few hundred bytes."""

TYPES = frozenset(
    {
        "application/json",
        "application/javascript",
        "application/manifest+json",
        "application/xml",
        "image/svg+xml",
        "text/css",
        "text/html",
        "text/javascript",
        "text/plain",
        "text/xml",
    }
)
"""Media types compressed (others — images, fonts, archives, streams — go out as they are)."""

SECRET_FIELDS = (b'"token"', b'"tokens"', b'"invites"', b'"secret"', b'"password"')
"""JSON keys whose value is a secret the answer hands out: an answer naming one is never compressed."""

SEARCHED = frozenset({"application/json", "text/plain"})
"""The media types of answers searched for :data:`SECRET_FIELDS` (the others are the site's files)."""

FILES = "/static/"
"""The path under which the site's files are served (never searched for secrets)."""

BODY = "tessera.body"
"""The request scope's key under which :class:`Limits` keeps the body of a request that carries one
(:data:`BODIED`), read whole within its route's limits: ``request.scope[BODY]`` (bytes)."""

BODIED = frozenset({"POST", "PUT", "PATCH"})
"""The methods whose body :class:`Limits` reads before the route runs."""

WITHOUT_SECRETS = "tessera.without_secrets"
"""The request scope's key by which a route says its answer holds no secret by construction
(``request.scope[WITHOUT_SECRETS] = True``), so that :class:`Edge` need not look for one in the body
(a view never holds a seat token: its seats list names, kinds and flags)."""


def accepts_gzip(scope: Scope) -> bool:
    """Whether the request's ``Accept-Encoding`` admits gzip (``gzip;q=0`` refuses it)."""
    for name, value in scope.get("headers", ()):
        if name != b"accept-encoding":
            continue
        for part in value.decode("latin-1").split(","):
            coding, _, params = part.strip().partition(";")
            if coding.strip().lower() not in ("gzip", "x-gzip"):
                continue
            q = params.strip().lower().replace(" ", "")
            if q.startswith("q="):
                try:
                    return float(q[2:]) > 0
                except ValueError:
                    return False
            return True
    return False


def has_secret(body: bytes) -> bool:
    """Whether a JSON body names a field whose value is a secret (:data:`SECRET_FIELDS`)."""
    return any(field in body for field in SECRET_FIELDS)


def may_hold_secret(scope: Scope, media: str, body: bytes) -> bool:
    """Whether the answer ``body`` (of type ``media``) to the request ``scope`` may hand out a secret."""
    if scope.get(WITHOUT_SECRETS) is True or media not in SEARCHED:
        return False
    if str(scope.get("path", "")).startswith(FILES):
        return False
    return has_secret(body)


def gzip_bytes(body: bytes, level: int = LEVEL) -> bytes:
    """``body`` as a gzip member (RFC 1952)."""
    c = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return c.compress(body) + c.flush()


# -- the outer middleware ---------------------------------------------------------------------------


class Edge:
    """ASGI middleware, outermost: security headers, the request id and log line, the refusal of a
    ``?token=``, and gzip (the module's text says each).

    ``minimum_size`` and ``level``: the smallest body compressed (bytes) and zlib's level."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        logger: str = "tessera.server.requests",
        minimum_size: int = MINIMUM_SIZE,
        level: int = LEVEL,
    ) -> None:
        self.app = app
        self.log = logging.getLogger(logger)
        self.minimum_size = minimum_size
        self.level = level

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http" and kind != "websocket":  # lifespan
            await self.app(scope, receive, send)
            return
        rid = None
        for name, value in scope.get("headers", ()):
            if name == b"x-request-id" and 0 < len(value) <= 64:
                rid = value.decode("latin-1")
        rid = rid or request_id()
        path = scope.get("path", "")
        ctx = {"request_id": rid, "route": path, "client": client_address(scope)}
        gid = _game_id(path)
        if gid:
            ctx["game_id"] = gid
        token = CONTEXT.set(ctx)
        started = time.perf_counter()
        status = 500
        tag = (b"x-request-id", rid.encode())

        async def emit(message: Message) -> None:  # the request id and the security headers
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [*message.get("headers", ()), tag]
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in HEADERS if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        try:
            if kind == "websocket":
                if token_in_url(scope):
                    await _refuse_socket(scope, receive, send)
                else:
                    await self.app(scope, receive, send)
            elif token_in_url(scope):
                await answer_refusal(emit, 400, TOKEN_IN_URL, key=TOKEN_IN_URL_KEY, close=False)
            else:
                await self.app(scope, receive, self._compressing(scope, emit))
        except Exception:
            self.log.exception("request failed")
            raise
        finally:
            if kind == "http" and self.log.isEnabledFor(logging.INFO):
                duration = round(time.perf_counter() - started, 4)
                extra = {"status": status, "duration": duration, "method": scope.get("method")}
                self.log.log(logging.WARNING if status >= 500 else logging.INFO, "request", extra=extra)
            CONTEXT.reset(token)

    def _compressing(self, scope: Scope, send: Send) -> Send:
        """``send`` behind gzip: the answer's start is held until its body shows whether to compress."""
        gzip = accepts_gzip(scope)
        minimum_size, level = self.minimum_size, self.level
        start: Message | None = None
        passing = False
        media = ""

        async def out(message: Message) -> None:
            nonlocal start, passing, media
            if passing:
                await send(message)
                return
            kind = message["type"]
            if kind == "http.response.start":
                headers = Headers(raw=message.get("headers", []))
                media = headers.get("content-type", "").partition(";")[0].strip().lower()
                if media not in TYPES or message.get("status") == 206 or "content-encoding" in headers:
                    passing = True
                    await send(message)
                    return
                start = message
                return
            if kind != "http.response.body" or start is None:
                await send(message)
                return
            first, start = start, None
            passing = True
            headers = MutableHeaders(raw=first.setdefault("headers", []))
            body = message.get("body", b"")
            if message.get("more_body", False) or headers.get("x-accel-buffering", "").lower() == "no":
                await send(first)  # a stream: sent as it comes
                await send(message)
                return
            headers.add_vary_header("Accept-Encoding")
            if (
                gzip
                and len(body) >= minimum_size
                and "set-cookie" not in headers
                and "no-store" not in headers.get("cache-control", "").lower()
                and not may_hold_secret(scope, media, body)
            ):
                body = gzip_bytes(body, level)
                headers["Content-Encoding"] = "gzip"
                headers["Content-Length"] = str(len(body))
                message = {**message, "body": body}
            await send(first)
            await send(message)

        return out


async def _refuse_socket(scope: Scope, receive: Receive, send: Send) -> None:
    """A game WebSocket opened with ``?token=``: accepted (with the ``tessera.seat`` subprotocol when
    offered, so that a browser sees the reason), one ``{"type": "error", "detail", "key"}`` message,
    then closed with :data:`TOKEN_IN_URL_CLOSE` and the reason."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    offered = list(scope.get("subprotocols") or [])
    accept: Message = {"type": "websocket.accept"}
    if "tessera.seat" in offered:
        accept["subprotocol"] = "tessera.seat"
    await send(accept)
    error = {"type": "error", "detail": TOKEN_IN_URL, "key": TOKEN_IN_URL_KEY}
    await send({"type": "websocket.send", "text": json.dumps(error)})
    await send({"type": "websocket.close", "code": TOKEN_IN_URL_CLOSE, "reason": "token in the URL: refused"})


# -- the inner middleware ---------------------------------------------------------------------------

_MOVE_PATH = re.compile(
    r"^/api/games/[^/]+/(moves|resign|undo|undo/accept|undo/decline|draw|draw/accept|draw/decline)$"
)


def rate_bucket(method: str, path: str) -> str | None:
    """Which limit a request counts against (None: not limited)."""
    if method != "POST":
        return None
    if path in ("/api/games", "/api/analysis/continue"):
        return "create"
    if path in RECORD_PATHS:
        return "import"
    if path.startswith("/api/analysis/"):
        return "analysis"
    if _MOVE_PATH.match(path):
        return "move"
    return None


class Buckets:
    """Token buckets by name and key (:class:`~tessera.server.http.limits.Rate` per name): the
    request rates of :class:`Limits`, and the bot API's and the chat's own."""

    MAX_KEYS = 50_000
    """Buckets kept (the least recently used are forgotten first)."""

    def __init__(self, rates: dict[str, Rate]) -> None:
        self.rates = rates
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
        self._clock = time.monotonic

    def take(self, name: str, key: str) -> float:
        """Take one token of ``key``'s bucket ``name``: 0 if allowed, else the seconds until one is free."""
        rate = self.rates.get(name)
        if rate is None or rate.rate <= 0:
            return 0.0
        now = self._clock()
        tokens, last = self._buckets.pop((name, key), (rate.burst, now))
        tokens = min(rate.burst, tokens + (now - last) * rate.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / rate.rate
        self._buckets[(name, key)] = (tokens, now)
        while len(self._buckets) > self.MAX_KEYS:
            self._buckets.popitem(last=False)
        return wait


def _default_cap(path: str) -> int:
    return MAX_RECORD_BYTES if path in RECORD_PATHS else MAX_BODY_BYTES


class Limits:
    """ASGI middleware, innermost: request rates (429) and body limits (413, 408) (the module's text).

    ``rates``: the limits per kind (default :data:`~tessera.server.http.limits.RATE_LIMITS`);
    ``cap_for``: a path's body cap in bytes; ``read_timeout``: seconds a body may pause."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        rates: dict[str, Rate] | None = None,
        cap_for: Callable[[str], int] | None = None,
        read_timeout: float = BODY_READ_TIMEOUT,
    ) -> None:
        self.app = app
        self.buckets = Buckets(RATE_LIMITS if rates is None else rates)
        self.cap_for = cap_for or _default_cap
        self.read_timeout = read_timeout

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The refusal, or the app's coroutine behind the body limits: awaited by the caller."""
        if scope["type"] != "http":
            return self.app(scope, receive, send)
        name = rate_bucket(scope.get("method", ""), scope.get("path", ""))
        if name is not None:
            take = self.buckets.take
            wait = take(name, client_address(scope))
            cred = credential(scope)
            if cred is not None:
                wait = max(wait, take(name, "account:" + cred))
            if wait > 0:
                secs = retry_seconds(wait)
                return answer_busy(
                    send,
                    f"too many requests of this kind ({name}): try again in {secs} s",
                    wait,
                    key="refusal.too_many_requests",
                    args={"kind": name, "seconds": secs},
                )
        return self._bodied(scope, receive, send)

    async def _bodied(self, scope: Scope, receive: Receive, send: Send) -> None:
        cap = self.cap_for(scope.get("path", ""))
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                text = value.decode("latin-1").strip()
                if not text.isdigit():
                    await answer_refusal(send, 400, "the Content-Length header is not a number")
                    return
                if int(text) > cap:
                    await answer_refusal(send, 413, _too_large(cap))
                    return
        timeout = self.read_timeout
        if scope.get("method") in BODIED:
            await self._read_first(scope, receive, send, cap, timeout)
            return
        received = 0
        done = False
        started = False

        async def limited() -> Message:
            nonlocal received, done
            if done:  # the body is in: later reads only wait for a disconnect
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), timeout)
            except TimeoutError:
                raise BodyRefused(
                    408, f"the request body did not arrive: nothing was received for {timeout:g} s"
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    raise BodyRefused(413, _too_large(cap))
                done = not message.get("more_body", False)
            else:
                done = True
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if isinstance(message.get("status"), int) and message["status"] in (408, 413):
                    message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)

        try:
            await self.app(scope, limited, tracked)
        except BodyRefused as e:
            if started:
                raise
            await answer_refusal(send, e.status_code, str(e.detail))

    async def _read_first(self, scope: Scope, receive: Receive, send: Send, cap: int, timeout: float) -> None:
        """A request that carries a body (:data:`BODIED`): the body read whole here, within the same
        limits, and kept in the scope (:data:`BODY`); the app gets the body again from ``receive``,
        then the original ``receive`` (a disconnect).  A route on the hot path reads the scope's key
        and never calls back into this module (docs/architecture.md, "One move")."""
        chunks: list[bytes] = []
        received = 0
        last: Message | None = None
        while True:
            try:
                message = await asyncio.wait_for(receive(), timeout)
            except TimeoutError:
                await answer_refusal(
                    send, 408, f"the request body did not arrive: nothing was received for {timeout:g} s"
                )
                return
            if message["type"] != "http.request":
                last = message  # the client left before the whole body came: the app hears it
                break
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > cap:
                await answer_refusal(send, 413, _too_large(cap))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        scope[BODY] = body
        pending: list[Message] = [last] if last is not None else []
        pending.append({"type": "http.request", "body": body, "more_body": last is not None})

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)


def _too_large(cap: int) -> str:
    return f"the request body is too large: at most {kib(cap)} on this route"
