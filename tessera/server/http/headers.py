"""The security policy's text: the headers every HTTP answer carries (:data:`HEADERS`, the
Content-Security-Policy :data:`CSP`), the refusal of a token in a URL, and whether the API's own
documentation is served (:func:`api_docs`).

:class:`tessera.server.http.edge.Edge` applies them; its text says what each header is for.
"""

from __future__ import annotations

import os

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
