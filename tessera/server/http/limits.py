"""Limits on what a client may send: request body size and the time to send a body.

:class:`BodyLimits` is a plain ASGI middleware in front of the whole app.  A
request whose ``Content-Length`` is over its route's cap is answered ``413`` at
once, before a byte of the body is read; a body sent without a length (chunked)
is counted as it arrives and refused as soon as it passes the cap, so no
request ever holds more than the cap in memory.  A body that stops arriving
(shorter than its ``Content-Length``) is answered ``408`` after
``read_timeout`` seconds instead of holding the connection forever.  Both
answers are ``{"detail": "<the reason>"}`` and close the connection.

:class:`RateLimits` counts requests per client (address, and account when a credential is sent)
in token buckets per kind (game creation, moves, analysis, record import): over its limit a
request is answered ``429`` with ``Retry-After`` and a JSON ``detail``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

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


# -- request rates ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rate:
    """A token bucket: ``rate`` requests a second on average, ``burst`` at once (``rate`` 0: no limit)."""

    rate: float
    burst: float

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"0.5/10"``: 0.5 a second, bursts of 10 (``"0"``: no limit)."""
        rate, _, burst = text.partition("/")
        try:
            r = float(rate)
            b = float(burst) if burst else max(1.0, r)
        except ValueError:
            raise ValueError(f"a rate limit is written RATE/BURST (e.g. 0.5/10), not {text!r}") from None
        if r < 0 or b < 1:
            raise ValueError(f"a rate limit needs RATE >= 0 and BURST >= 1, not {text!r}")
        return cls(r, b)


RATE_LIMITS: dict[str, Rate] = {
    "create": Rate(0.5, 20),  # new games (and games continued from analysis): 30 a minute, 20 at once
    "move": Rate(20, 60),  # moves and a seat's other actions
    "analysis": Rate(2, 20),  # analysis positions and evaluations
    "import": Rate(0.5, 10),  # record import and records read for analysis
}
"""The default limits per client (address, and account when the request carries a credential);
``TESSERA_RATE_<NAME>=RATE/BURST`` overrides one (``0``: none)."""

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


def rates_from_env() -> dict[str, Rate]:
    """:data:`RATE_LIMITS` with the environment's overrides."""
    import os

    out = dict(RATE_LIMITS)
    for name in RATE_LIMITS:
        text = os.environ.get(f"TESSERA_RATE_{name.upper()}")
        if text:
            out[name] = Rate.parse(text)
    return out


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


class RateLimits:
    """ASGI middleware: token buckets per client and per kind of request; over the limit the request
    is answered ``429`` with ``Retry-After`` and ``{"detail": …}`` before it is read."""

    MAX_KEYS = 50_000
    """Buckets kept (the least recently used are forgotten first)."""

    def __init__(self, app: ASGIApp, *, rates: dict[str, Rate] | None = None) -> None:
        self.app = app
        self.rates = RATE_LIMITS if rates is None else rates
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

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        """The refusal, or the app's own coroutine: either is awaited by the caller (this middleware has
        nothing to do after it, so its frame stays off the stack while the request waits)."""
        if scope["type"] == "http":
            name = rate_bucket(scope.get("method", ""), scope.get("path", ""))
            if name is not None:
                keys = [client_address(scope)]
                cred = credential(scope)
                if cred is not None:
                    keys.append("account:" + cred)
                wait = max(self.take(name, k) for k in keys)
                if wait > 0:
                    secs = retry_seconds(wait)
                    return answer_busy(
                        send,
                        f"too many requests of this kind ({name}): try again in {secs} s",
                        wait,
                        key="refusal.too_many_requests",
                        args={"kind": name, "seconds": secs},
                    )
        return self.app(scope, receive, send)


def retry_seconds(wait: float) -> int:
    """The whole seconds a refusal asks a client to wait (``Retry-After``; at least 1): its body says the same."""
    return max(1, math.ceil(wait))


async def answer_busy(
    send: Send,
    detail: str,
    retry_after: float,
    status: int = 429,
    *,
    key: str | None = None,
    args: dict[str, Any] | None = None,
) -> None:
    """A JSON refusal with ``Retry-After`` (:func:`retry_seconds`): ``{"detail", "error"}`` (the same
    reason: ``error`` is the field lichess's clients read), and ``key`` and ``args`` where it has them."""
    out: dict[str, Any] = {"detail": detail, "error": detail}
    if key is not None:
        out["key"], out["args"] = key, args or {}
    body = json.dumps(out).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(retry_seconds(retry_after)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
