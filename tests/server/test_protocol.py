"""The HTTP connection's own limits (tessera/server/protocol.py), checked without a server."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from tessera.server.http.protocol import GuardedHTTP


class _Answered:
    """Stands for uvicorn's request-response cycle of an answered request."""

    response_complete = True


class _Loop:
    def __init__(self) -> None:
        self.timers: list[tuple[float, Any, tuple[Any, ...]]] = []

    def call_later(self, delay: float, callback: Any, *args: Any) -> None:
        self.timers.append((delay, callback, args))


class _Transport:
    def __init__(self, protocol: Any) -> None:
        self.protocol, self.closed = protocol, False

    def is_closing(self) -> bool:
        return self.closed

    def get_protocol(self) -> Any:
        return self.protocol

    def close(self) -> None:
        self.closed = True


def _connection() -> Any:
    conn: Any = GuardedHTTP.__new__(GuardedHTTP)  # only the attributes the header timer reads
    conn.header_timeout, conn.loop = 1.0, _Loop()
    conn.transport = _Transport(conn)
    return conn


def test_the_header_timer_does_not_keep_the_answered_request_in_memory() -> None:
    """'a complete request head within the header timeout of … its previous answer': the timer armed
    after an answer must not hold that request (its scope and answer) for the whole timeout — at
    1,500 requests a second a strong reference kept ~15,000 requests alive."""
    conn = _connection()
    conn.cycle = _Answered()
    gone = weakref.ref(conn.cycle)
    conn._arm()
    conn.cycle = _Answered()  # the next request has come and been answered
    gc.collect()
    assert gone() is None, "the timer of the previous answer still holds its request"
    _, expire, args = conn.loop.timers[0]
    expire(*args)
    assert not conn.transport.closed, "a connection that made a new request was closed by an old timer"


def test_an_idle_connection_is_closed_when_the_header_timeout_passes() -> None:
    """'a client trickling header bytes is disconnected': with no new request since the answer, the
    timer closes the connection; before any request (no answer yet), the same."""
    for first in (_Answered(), None):
        conn = _connection()
        conn.cycle = first
        conn._arm()
        _, expire, args = conn.loop.timers[0]
        expire(*args)
        assert conn.transport.closed
