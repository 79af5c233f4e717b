"""The HTTP connection as uvicorn runs it, with two limits uvicorn lacks.

* **Header timeout**: a connection must send a complete request head within
  :data:`HEADER_TIMEOUT` seconds of opening (or of its previous answer); a client trickling header
  bytes is disconnected (uvicorn's own keep-alive timeout is reset by every byte received).
* **Connections per address**: at most :data:`MAX_CONNECTIONS_PER_ADDRESS` open connections
  (HTTP and WebSocket alike) from one address; beyond, a new connection is closed at once,
  before a byte of it is read.

``tessera serve`` passes :class:`GuardedHTTP` as uvicorn's ``http`` protocol; the limits are
class attributes set from its options (``--header-timeout``, ``--max-connections-per-address``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from typing import Any, ClassVar

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Base
except ImportError:  # no httptools: uvicorn's pure-Python parser
    from uvicorn.protocols.http.h11_impl import H11Protocol as _Base  # type: ignore[assignment]

log = logging.getLogger("tessera.server.connections")

HEADER_TIMEOUT = float(os.environ.get("TESSERA_HEADER_TIMEOUT") or 10.0)
"""Seconds a connection may take to send a request's head (``TESSERA_HEADER_TIMEOUT``)."""

MAX_CONNECTIONS_PER_ADDRESS = int(os.environ.get("TESSERA_CONNECTIONS_PER_ADDRESS") or 200)
"""Open connections one address may hold (``TESSERA_CONNECTIONS_PER_ADDRESS``; raise it behind a
reverse proxy that shares one address)."""


class GuardedHTTP(_Base):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol with a header timeout and a cap on connections per address."""

    header_timeout: float = HEADER_TIMEOUT
    max_per_address: int = MAX_CONNECTIONS_PER_ADDRESS
    _open: ClassVar[dict[str, set[asyncio.BaseTransport]]] = {}
    _refused_logged: ClassVar[set[str]] = set()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else "unknown"
        mine = {t for t in self._open.get(address, set()) if not t.is_closing()}
        if self.max_per_address and len(mine) >= self.max_per_address:
            if address not in self._refused_logged:  # once per address until its connections drop
                self._refused_logged.add(address)
                log.warning("connections refused: %s holds %d open connections (the cap)", address, len(mine))
            self._open[address] = mine
            transport.abort()
            return
        self._refused_logged.discard(address)
        mine.add(transport)
        self._open[address] = mine
        self._address = address
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "transport", None) is None:  # refused in connection_made
            return
        self._open.get(self._address, set()).discard(self.transport)
        if not self._open.get(self._address, True):
            self._open.pop(self._address, None)
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        """Close the connection unless a new request has started within the header timeout.

        The timer holds a weak reference to the answered request: a strong one kept each request
        (its scope, its answer's objects) alive for the whole timeout — at 1,500 requests a second
        some 15,000 requests' objects, which made the garbage collector's young collections walk
        over 100,000 objects (100-200 ms pauses)."""
        if self.header_timeout <= 0:
            return
        cycle = self.cycle
        waiting_for = None if cycle is None else weakref.ref(cycle)
        self.loop.call_later(self.header_timeout, self._expire, waiting_for)

    def _expire(self, waiting_for: weakref.ref[Any] | None) -> None:
        transport = self.transport
        if transport is None or transport.is_closing() or transport.get_protocol() is not self:
            return  # closed, or upgraded to a WebSocket
        cycle = self.cycle
        # the same request as when armed (gone from memory: a newer one replaced it)
        same = cycle is None if waiting_for is None else cycle is not None and waiting_for() is cycle
        if same and (cycle is None or cycle.response_complete):
            transport.close()
