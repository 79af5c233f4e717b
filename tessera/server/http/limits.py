"""The limits' vocabulary: body caps, request rates and the JSON refusals that say them.

The middleware that applies them is :class:`tessera.server.http.edge.Limits` (with the token buckets,
:class:`~tessera.server.http.edge.Buckets`): a body over its route's cap is answered ``413`` before it
is read whole, a body that stops arriving ``408`` after :data:`BODY_READ_TIMEOUT` seconds, and a
client over one of :data:`RATE_LIMITS` ``429`` with ``Retry-After``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import Send

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


def kib(n: int) -> str:
    """``n`` bytes as the refusals write them ("256 KiB", "2 MiB")."""
    return f"{n // (1024 * 1024)} MiB" if n % (1024 * 1024) == 0 else f"{n // 1024} KiB"


async def answer_refusal(send: Send, status: int, detail: str, *, key: str | None = None, close: bool = True) -> None:
    """A JSON refusal ``{"detail"}`` (with ``key``: ``{"detail", "error", "key", "args"}``, ``error``
    the field lichess's clients read); ``close``: the connection is closed after it (the rest of the
    body is never read)."""
    out: dict[str, Any] = {"detail": detail}
    if key is not None:
        out.update(error=detail, key=key, args={})
    body = json.dumps(out).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
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


def rates_from_env() -> dict[str, Rate]:
    """:data:`RATE_LIMITS` with the environment's overrides."""
    import os

    out = dict(RATE_LIMITS)
    for name in RATE_LIMITS:
        text = os.environ.get(f"TESSERA_RATE_{name.upper()}")
        if text:
            out[name] = Rate.parse(text)
    return out


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
