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

The API's own documentation (``/docs``, ``/redoc``, ``/openapi.json``) is served only with
``TESSERA_API_DOCS=1`` (:func:`api_docs`).
"""

from __future__ import annotations

import os

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

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in HEADERS if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
