"""Limits on what a client may send: request body size and the time to send a body.

:class:`BodyLimits` is a plain ASGI middleware in front of the whole app.  A
request whose ``Content-Length`` is over its route's cap is answered ``413`` at
once, before a byte of the body is read; a body sent without a length (chunked)
is counted as it arrives and refused as soon as it passes the cap, so no
request ever holds more than the cap in memory.  A body that stops arriving
(shorter than its ``Content-Length``) is answered ``408`` after
``read_timeout`` seconds instead of holding the connection forever.  Both
answers are ``{"detail": "<the reason>"}`` and close the connection.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 256 * 1024
"""The largest request body on every route but record import (a move or a new game is a few hundred bytes)."""

MAX_RECORD_BYTES = 2 * 1024 * 1024
"""The largest record accepted by ``POST /api/records`` (a long game's record is a few kilobytes)."""
RECORD_PATHS = ("/api/records", "/api/analysis/record")
"""The paths that take a record (the analysis board reads one without creating a game)."""

BODY_READ_TIMEOUT = 15.0
"""Seconds a client may pause while sending a request body before it is answered 408."""


class BodyRefused(HTTPException):
    """A body over its cap (413) or not sent in time (408); raised from ``receive`` inside a route."""


def _kib(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n % (1024 * 1024) == 0 else f"{n // 1024} KiB"


class BodyLimits:
    """ASGI middleware: a body cap per path (413) and a read timeout for bodies (408)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        cap_for: Callable[[str], int] | None = None,
        read_timeout: float = BODY_READ_TIMEOUT,
    ) -> None:
        self.app = app
        self.cap_for = cap_for or (lambda path: MAX_RECORD_BYTES if path in RECORD_PATHS else MAX_BODY_BYTES)
        self.read_timeout = read_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = self.cap_for(scope.get("path", ""))
        too_large = f"the request body is too large: at most {_kib(cap)} on this route"
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                text = value.decode("latin-1").strip()
                if not text.isdigit():
                    await _answer(send, 400, "the Content-Length header is not a number")
                    return
                if int(text) > cap:
                    await _answer(send, 413, too_large)
                    return
        received = 0
        done = False
        started = False
        timeout = self.read_timeout

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
                    raise BodyRefused(413, too_large)
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
            await _answer(send, e.status_code, str(e.detail))


async def _answer(send: Send, status: int, detail: str) -> None:
    """A JSON refusal that closes the connection (the rest of the body is never read)."""
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
