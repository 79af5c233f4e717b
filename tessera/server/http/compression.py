"""gzip for HTTP answers (ASGI middleware :class:`Compression`).

An answer is compressed when the request accepts ``gzip`` (``Accept-Encoding``, a ``q=0`` refusal
respected) and the answer is

* whole: one body message (a ``StreamingResponse`` — the account's and the tournaments' event
  streams, a bot's ``x-ndjson`` stream — goes out as it comes, never held back to be compressed;
  ``X-Accel-Buffering: no`` and the stream types are also never compressed);
* of a text type (:data:`TYPES`: JSON, HTML, JavaScript, CSS, SVG, plain text) of at least
  :data:`MINIMUM_SIZE` bytes, not already encoded, not a partial answer (206);
* free of secrets (BREACH, docs/security.md "Compression"): no ``Set-Cookie``, no
  ``Cache-Control: no-store``, and no JSON field naming a secret (:data:`SECRET_FIELDS`: a seat
  token, an invitation, an API token) in a JSON or plain-text body — not looked for when the route
  said its answer holds none (:func:`without_secrets`: a game's view and a move's answer, the
  largest answers, sent on every move), nor in the site's files (pages, scripts, styles, and
  everything under ``/static/``, the same bytes for everyone: a locale catalogue's ``"password"``
  is a label).

WebSockets are not touched (their frames are compressed by permessage-deflate when the client
offers it).  Every answer of a compressible type says ``Vary: Accept-Encoding``.
"""

from __future__ import annotations

import zlib
from collections.abc import Awaitable

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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


WITHOUT_SECRETS = "tessera.without_secrets"
"""The request scope's key by which a route says its answer holds no secret (:func:`without_secrets`)."""


def without_secrets(scope: Scope) -> None:
    """Say that the answer to this request (``scope``: the request's ASGI scope) holds no secret by
    construction, so that :class:`Compression` need not look for one in the body (a view never
    holds a seat token: its seats list names, kinds and flags)."""
    scope[WITHOUT_SECRETS] = True


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


def gzip_bytes(body: bytes, level: int = LEVEL) -> bytes:
    """``body`` as a gzip member (RFC 1952)."""
    c = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return c.compress(body) + c.flush()


class Compression:
    """ASGI middleware: gzip for whole text answers without secrets (the module's text says which)."""

    def __init__(self, app: ASGIApp, minimum_size: int = MINIMUM_SIZE, level: int = LEVEL) -> None:
        self.app = app
        self.minimum_size = minimum_size
        self.level = level

    @staticmethod
    def may_hold_secret(scope: Scope, media: str, body: bytes) -> bool:
        """Whether the answer ``body`` (of type ``media``) to the request ``scope`` may hand out a secret."""
        if scope.get(WITHOUT_SECRETS) is True or media not in SEARCHED:
            return False
        if str(scope.get("path", "")).startswith(FILES):
            return False
        return has_secret(body)

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The app's own coroutine, with ``send`` wrapped, awaited by the caller: nothing of this middleware
        runs after it, so its frame stays off the stack while the request waits."""
        if scope["type"] != "http":  # WebSockets, lifespan: untouched
            return self.app(scope, receive, send)
        gzip = accepts_gzip(scope)
        start: Message | None = None
        passing = False
        media = ""

        async def wrapped(message: Message) -> None:
            nonlocal start, passing, media
            if passing:
                await send(message)
                return
            kind = message["type"]
            if kind == "http.response.start":
                headers = Headers(raw=message.get("headers", []))
                media = headers.get("content-type", "").partition(";")[0].strip().lower()
                if media not in TYPES or message.get("status") == 206:
                    passing = True
                    await send(message)
                    return
                if "content-encoding" in headers:
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
                and len(body) >= self.minimum_size
                and "set-cookie" not in headers
                and "no-store" not in headers.get("cache-control", "").lower()
                and not self.may_hold_secret(scope, media, body)
            ):
                body = gzip_bytes(body, self.level)
                headers["Content-Encoding"] = "gzip"
                headers["Content-Length"] = str(len(body))
                message = {**message, "body": body}
            await send(first)
            await send(message)

        return self.app(scope, receive, wrapped)
