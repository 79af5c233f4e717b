"""The WebSocket hub: who is connected to which game, and pushing each viewer his own view.

Every connection is for one game and one seat (or none: a spectator).  After
any change the hub sends every connection ``{"type": "state", "view": ...}``
computed for *that connection's* seat, so a Nelaxtam order sealed by one
player never reaches the other or a spectator.  A client that reconnects gets
the stored state at once; the seats' connection flags are part of the view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from tessera.server.service import MatchService, ServiceError

log = logging.getLogger("tessera.server.hub")


@dataclass(eq=False)
class Connection:
    """One open WebSocket."""

    ws: WebSocket
    game_id: str
    seat: int | None
    token: str | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    """Open connections by game; broadcasts views."""

    def __init__(self, service: MatchService) -> None:
        self.service = service
        self.games: dict[str, set[Connection]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[str] = set()

    def presence(self, game_id: str) -> list[bool]:
        """Whether each seat has at least one live connection."""
        seats = [c.seat for c in self.games.get(game_id, ()) if c.seat is not None]
        n = max(seats, default=-1) + 1
        return [i in seats for i in range(max(n, 2))]

    def add(self, conn: Connection) -> None:
        """Register an accepted connection."""
        self.games.setdefault(conn.game_id, set()).add(conn)

    def remove(self, conn: Connection) -> None:
        """Forget a closed connection."""
        conns = self.games.get(conn.game_id)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.games[conn.game_id]

    def notify(self, game_id: str) -> None:
        """Thread-safe: push fresh views of ``game_id`` to its viewers soon."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._start_broadcast, game_id)

    def _start_broadcast(self, game_id: str) -> None:
        if game_id in self.games:
            task = asyncio.ensure_future(self.broadcast(game_id))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    async def send_view(self, conn: Connection) -> None:
        """Send one connection its current view."""
        try:
            view = await run_in_threadpool(self.service.view, conn.game_id, conn.token)
        except ServiceError as e:
            view = None
            await self._send(conn, {"type": "error", "detail": e.detail})
        if view is not None:
            await self._send(conn, {"type": "state", "view": view})

    async def broadcast(self, game_id: str) -> None:
        """Every viewer of ``game_id`` gets his own view (computed once per seat)."""
        conns = list(self.games.get(game_id, ()))
        views: dict[str | None, dict[str, object]] = {}
        for conn in conns:
            if conn.token not in views:
                try:
                    views[conn.token] = await run_in_threadpool(self.service.view, game_id, conn.token)
                except ServiceError as e:
                    await self._send(conn, {"type": "error", "detail": e.detail})
                    continue
            await self._send(conn, {"type": "state", "view": views[conn.token]})

    async def _send(self, conn: Connection, message: dict[str, object]) -> None:
        async with conn.lock:
            try:
                await conn.ws.send_json(message)
            except Exception:  # the socket closed under us; its handler removes it
                log.debug("send to a closed socket of game %s", conn.game_id)
