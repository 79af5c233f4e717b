"""PostgreSQL writes on the event loop: a move's whole transaction as one statement, awaited.

A move on PostgreSQL is a network round trip or more; awaited in a worker thread it also
pays the trip to the thread, SQLAlchemy's execution layer and the thread's waits for the
interpreter lock (several per transaction).  Here it is one statement sent by psycopg's
asynchronous driver on the event loop, in autocommit mode (one statement, one transaction)::

    WITH bumped AS (UPDATE games SET version = next, … WHERE id = … AND version = cached RETURNING id),
         claimed AS (UPDATE seats SET claimed = true FROM bumped WHERE … seat = the mover's),
         moved AS (INSERT INTO moves … SELECT … FROM bumped RETURNING game_id)
    SELECT pg_notify('tessera_games', …) FROM moved

The same changes as :func:`tessera.server.match.tables.bump_version`, ``claim_seat``,
``insert_move`` and ``changed``, all or nothing: if the stored version is no longer the cached
one the update matches no row and nothing is inserted (no row comes back); a move index
already taken fails the whole statement.  The other server processes hear of the move by the
``NOTIFY`` when it commits (tessera.server.store.bus).

A few connections are kept per process (:data:`LOOP_CONNECTIONS`), opened on the loop that
first uses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from typing import Any

from tessera.server.store.bus import CHANNEL, libpq_url, notice
from tessera.server.store.errors import Conflict

log = logging.getLogger("tessera.server.store.pg_loop")

LOOP_CONNECTIONS = 4
"""Connections one process keeps for writes on its event loop (a move waits for a free one)."""

APPEND_MOVE = """
WITH bumped AS (
    UPDATE games SET version = %s, clock = %s, status = %s, result = %s, undo_request = %s, draw_offer = %s,
        updated_at = %s
    WHERE id = %s AND version = %s
    RETURNING id
), claimed AS (
    UPDATE seats SET claimed = true FROM bumped
    WHERE seats.game_id = bumped.id AND seats.seat = %s
    RETURNING seats.seat
), moved AS (
    INSERT INTO moves (game_id, move_index, player, move, created_at)
    SELECT id, %s, %s, %s, %s FROM bumped
    RETURNING game_id
)
SELECT pg_notify(%s, %s) FROM moved
"""
"""Parameters: next version, the :data:`COLUMNS` (clock, status, result, undo_request, draw_offer),
now; game id, cached version; the seat to claim (NULL: none); move index, player, text, now; the
channel and the notice."""

COLUMNS = ("clock", "status", "result", "undo_request", "draw_offer")
"""The columns of the game row a move writes (tessera.server.match.live.columns)."""


class LoopWriter:
    """Moves stored on the running event loop (see the module's text)."""

    def __init__(self, url: str, size: int = LOOP_CONNECTIONS) -> None:
        self.url = libpq_url(url)
        self.size = size
        self._loop: asyncio.AbstractEventLoop | None = None
        self._idle: list[Any] = []
        self._open = 0
        self._waiters: deque[asyncio.Future[Any]] = deque()

    async def append_move(
        self,
        game_id: str,
        version: int,
        values: dict[str, Any],
        move: tuple[int, int, str],
        claim_seat: int | None = None,
    ) -> bool | None:
        """Store a move: claim version ``version + 1`` with ``values`` (:data:`COLUMNS`), claim the
        seat ``claim_seat`` if given, insert ``move`` (index, player, text) and announce it.  True:
        committed.  False: the stored version was not ``version`` (nothing written).  None: the
        driver could not (the connection failed; nothing is known to be written): store it another
        way.  ``Conflict``: the move index is taken."""
        import psycopg

        index, player, text = move
        now = time.time()
        clock, result = values["clock"], values["result"]
        params = (
            version + 1,
            None if clock is None else json.dumps(clock, separators=(",", ":")),
            values["status"],
            None if result is None else json.dumps(result, separators=(",", ":")),
            values["undo_request"],
            values["draw_offer"],
            now,
            game_id,
            version,
            claim_seat,
            index,
            player,
            text,
            now,
            CHANNEL,
            notice(game_id),
        )
        try:
            conn = await self._acquire()
        except (psycopg.OperationalError, OSError) as e:
            log.warning("no connection for a move on the event loop (%s): a worker thread stores it", e)
            return None
        ok = False
        try:
            cur = await conn.execute(APPEND_MOVE, params, prepare=True)
            rows = await cur.fetchall()
            ok = True
        except psycopg.errors.UniqueViolation as e:
            ok = True
            raise Conflict(f"move {index} of game {game_id} is already stored") from e
        except (psycopg.OperationalError, psycopg.InterfaceError) as e:
            log.warning("a move on the event loop failed (%s): a worker thread stores it", e)
            return None
        finally:
            self._release(conn, ok)
        return len(rows) == 1

    async def _acquire(self) -> Any:
        """A connection, first come first served: a move that had to wait is handed the next one
        released (a newcomer taking it first left some moves waiting through many turns: the
        slowest 1 % took 10-20 times the median)."""
        import psycopg

        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # connections belong to the loop that opened them
            self._drop_all()
            self._loop = loop
        if not self._waiters:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
                self._open -= 1
            if self._open < self.size:
                return await self._connect(psycopg)
        waiter: asyncio.Future[Any] = loop.create_future()
        self._waiters.append(waiter)
        try:
            conn = await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed one just as it was cancelled: pass it on
                self._hand(waiter.result())
            raise
        if conn is None:  # a connection was closed: its place is this waiter's
            return await self._connect(psycopg, counted=True)
        return conn

    async def _connect(self, psycopg: Any, counted: bool = False) -> Any:
        if not counted:
            self._open += 1
        try:
            return await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        except BaseException:
            self._open -= 1
            raise

    def _release(self, conn: Any, ok: bool) -> None:
        if ok and not conn.closed:
            self._hand(conn)
        else:
            _finish(conn)
            self._hand(None)

    def _hand(self, conn: Any) -> None:
        """Give ``conn`` (None: the place of a closed one) to the first move waiting, else keep it."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                return
        if conn is not None:
            self._idle.append(conn)
        else:
            self._open -= 1

    def _drop_all(self) -> None:
        for conn in self._idle:
            _finish(conn)
        self._idle.clear()
        self._open = 0
        self._waiters.clear()

    def close(self) -> None:
        """Close the connections (from any thread, once the loop no longer uses them)."""
        self._drop_all()
        self._loop = None


def _finish(conn: Any) -> None:
    """Close a connection's socket without the event loop (it may be gone)."""
    with contextlib.suppress(Exception):  # already closed
        conn.pgconn.finish()
