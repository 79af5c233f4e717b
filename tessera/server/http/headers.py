"""Security headers on every HTTP response (ASGI middleware :class:`SecurityHeaders`).

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

Tokens never in URLs (:class:`TokensNotInUrls`): a ``token`` query parameter on the API is
refused — 400 naming the supported ways, and the game WebSocket closed with code 4400 and the
reason — never read, since URLs are written by access logs, proxies and browser histories.

The API's own documentation (``/docs``, ``/redoc``, ``/openapi.json``) is served only with
``TESSERA_API_DOCS=1`` (:func:`api_docs`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "font-src 'self'",
        "connect-src 'self'",
        "media-src 'self'",
        "worker-src 'self'",
        "manifest-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
"""The Content-Security-Policy of every response."""

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode("ascii")),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def api_docs() -> bool:
    """``TESSERA_API_DOCS=1``: serve ``/docs``, ``/redoc`` and ``/openapi.json`` (off by default: they
    map every route for whoever looks)."""
    return os.environ.get("TESSERA_API_DOCS", "").lower() in ("1", "true", "yes")


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS` on every HTTP response (a header the route set itself is kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The app's own coroutine, with ``send`` wrapped, awaited by the caller: this middleware has
        nothing to do after it, so its frame stays off the stack while the request waits."""
        if scope["type"] != "http":
            return self.app(scope, receive, send)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in HEADERS if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        return self.app(scope, receive, with_headers)


TOKEN_IN_URL = (
    "a token is never read from the URL (access logs write URLs): send the seat token in the JSON body "
    "('token'), the X-Seat-Token header or, on the game WebSocket, as the subprotocol 'seat.<token>' beside "
    "'tessera.seat'; an account's seat comes from its session cookie or 'Authorization: Bearer <token>'"
)
"""The refusal of a ``?token=`` (the English ``detail``; the pages say it from ``refusal.token.in_url``)."""

TOKEN_IN_URL_KEY = "refusal.token.in_url"

TOKEN_IN_URL_CLOSE = 4400
"""The close code of a game WebSocket opened with ``?token=`` (4000 + HTTP's 400, as the socket's other refusals)."""

URL_TOKEN_ALLOWED = ("/api/notify/email/verify",)
"""Paths whose link carries a one-use token by necessity: the e-mail verification link opens a page
that verifies nothing until its button POSTs the token (docs/security.md, "E-mail links")."""


def token_in_url(scope: Scope) -> bool:
    """Whether an API request's query string has a ``token`` parameter (a path of
    :data:`URL_TOKEN_ALLOWED` excepted)."""
    path = str(scope.get("path", ""))
    if not path.startswith("/api/") or path in URL_TOKEN_ALLOWED:
        return False
    query = scope.get("query_string", b"")
    if b"token" not in query.lower():
        return False
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)
    return any(name.lower() == "token" for name, _ in pairs)


class TokensNotInUrls:
    """ASGI middleware: an API request with ``?token=`` is refused, never read (:func:`token_in_url`).

    HTTP: 400 ``{"detail", "error", "key", "args"}`` naming the supported ways (:data:`TOKEN_IN_URL`).
    WebSocket: accepted (with the ``tessera.seat`` subprotocol when offered, so that a browser sees
    the reason), one ``{"type": "error", "detail", "key"}`` message, then closed with code
    :data:`TOKEN_IN_URL_CLOSE` and the reason."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """A request with no token in its URL is handed on as it is: the app's own coroutine, awaited by
        the caller (this middleware stays off the stack while the request waits)."""
        if scope["type"] not in ("http", "websocket") or not token_in_url(scope):
            return self.app(scope, receive, send)
        return self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            body = json.dumps(
                {"detail": TOKEN_IN_URL, "error": TOKEN_IN_URL, "key": TOKEN_IN_URL_KEY, "args": {}}
            ).encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
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
