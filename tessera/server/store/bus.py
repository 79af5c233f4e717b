"""Change notices between server processes on one PostgreSQL database (``LISTEN``/``NOTIFY``).

Several ``tessera serve`` processes (``--workers N``, or processes on several machines behind
a load balancer) share one PostgreSQL database.  A move posted to one process must reach the
WebSocket viewers connected to another: every write transaction of a game also runs
``pg_notify('tessera_games', '<process id>:<game id>')`` (see
:meth:`tessera.server.store.storage.Transaction.changed`).  PostgreSQL delivers a notice only when
its transaction commits, so a viewer never hears of a change that is not stored, and a
change is never stored without its notice being sent.  Each process listens on one
connection of its own (:class:`ChangeListener`) and publishes a game changed by another
process as :class:`tessera.server.events.Changed` (``local=False``): the hub re-reads the game
(its cached copy is stale) and pushes fresh views to its own sockets.

PostgreSQL is the broker because it is already there: no other service to deploy, secure
and keep running, and the notice is tied to the transaction that stores the change.  SQLite
has no such mechanism: several processes on one SQLite file keep every guarantee of storage
(races stay exactly-one) but viewers only hear of changes made by their own process, so
``tessera serve --workers`` requires PostgreSQL.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tessera.server.events import Events

log = logging.getLogger("tessera.server.store.bus")

CHANNEL = "tessera_games"
"""The PostgreSQL notification channel of game changes."""

ORIGIN = f"{os.getpid()}-{secrets.token_hex(4)}"
"""This process's name in notices (its own notices are ignored)."""


def notice(game_id: str) -> str:
    """The payload announcing a change of ``game_id`` by this process."""
    return f"{ORIGIN}:{game_id}"


ACCOUNT_PREFIX = "@account:"
"""A notice whose subject starts so is about an account (its challenges), not a game."""


def account_notice(user_id: str) -> str:
    """The payload announcing a change of what ``user_id``'s live pages show, by this process."""
    return f"{ORIGIN}:{ACCOUNT_PREFIX}{user_id}"


CHAT_PREFIX = "@chat:"
"""A notice whose subject starts so carries a chat message (JSON, see :mod:`tessera.server.chat.rooms`)."""


def chat_notice(payload: str) -> str:
    """The payload announcing a chat message posted in this process (``payload``: its JSON)."""
    return f"{ORIGIN}:{CHAT_PREFIX}{payload}"


STREAM_PREFIX = "@stream:"
"""A notice whose subject starts so says a bot API event stream was opened (``<token digest>/<time>``)."""


def stream_notice(token_key: str, opened: float) -> str:
    """The payload announcing that this process opened an event stream of ``token_key`` at ``opened``."""
    return f"{ORIGIN}:{STREAM_PREFIX}{token_key}/{opened!r}"


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as psycopg takes it (``postgresql+psycopg://`` → ``postgresql://``)."""
    _scheme, sep, rest = url.partition("://")
    return "postgresql://" + rest if sep else url


class ChangeListener:
    """A thread that ``LISTEN``s on :data:`CHANNEL` and publishes the changes made by other processes
    (``Changed(game_id, local=False)``); ``Resync()`` after a lost connection (notices may have been missed)."""

    POLL = 1.0
    """Seconds the listening connection waits for a notice before it looks at the stop flag again."""

    def __init__(self, url: str, events: Events) -> None:
        self.url = libpq_url(url)
        self.events = events
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tessera-listen", daemon=True)

    def start(self, timeout: float = 10.0) -> None:
        """Start listening; returns once the first ``LISTEN`` is in place (or after ``timeout``)."""
        self._thread.start()
        self._ready.wait(timeout)

    def close(self) -> None:
        """Stop the thread: at once when the database answers (a notice of this process's own wakes the
        listening connection, which otherwise waits up to a second for one), else within about a second."""
        self._stop.set()
        if self._thread.is_alive():
            try:
                import psycopg

                with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as conn:
                    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{ORIGIN}:"))
            except Exception:  # the database is away: the thread's own timeout ends it
                pass
        self._thread.join(5)

    def _run(self) -> None:
        import psycopg

        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._ready.set()
                    if not first:
                        from tessera.server.events import Resync

                        self.events.publish(Resync())
                    first = False
                    while not self._stop.is_set():
                        for n in conn.notifies(timeout=self.POLL):
                            if self._stop.is_set():  # woken by close()
                                break
                            origin, _, game_id = n.payload.partition(":")
                            if origin == ORIGIN or not game_id:
                                continue
                            if game_id.startswith(CHAT_PREFIX):
                                from tessera.server.events import ChatPosted

                                self.events.publish(ChatPosted.from_notice(game_id[len(CHAT_PREFIX) :]))
                            elif game_id.startswith(STREAM_PREFIX):
                                from tessera.server.events import StreamOpened

                                key, _, opened = game_id[len(STREAM_PREFIX) :].partition("/")
                                self.events.publish(StreamOpened(key, float(opened), local=False))
                            elif game_id.startswith(ACCOUNT_PREFIX):
                                from tessera.server.events import AccountChanged

                                self.events.publish(AccountChanged(game_id[len(ACCOUNT_PREFIX) :], local=False))
                            else:
                                self.events.changed(game_id, local=False)
            except Exception as e:  # the database went away: try again
                if self._stop.is_set():
                    return
                log.warning("listening for game changes failed (%s); retrying", e)
                time.sleep(1.0)
