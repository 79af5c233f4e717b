"""Accounts on the event interface (tessera.server.events): ratings at a game's end, and each
account's live pages (its challenges, pushed as server-sent events).

:class:`RateOnEnd` rates a finished rated game when its end is published by this process.  It
is subscribed before the hub, and the hub only schedules its broadcast on the event loop, so
the new ratings are stored before any viewer is told the game ended (a page that then asks
``GET /api/games/{id}/accounts`` finds them).

:class:`AccountStreams` keeps the open ``GET /api/account/events`` streams of each account.
A challenge made, answered or withdrawn is announced by :func:`announce`: to this process's
streams at once (an :class:`~tessera.server.events.AccountChanged` event), and on PostgreSQL to
the other server processes by ``NOTIFY`` on the games' channel (tessera.server.store.bus), whose
listeners publish the same event there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterable

import sqlalchemy as sa

from tessera.server.accounts.rating import rate_all_pending, rate_finished_game
from tessera.server.accounts.tables import challenge_invitees_table, challenges_table
from tessera.server.events import AccountChanged, Changed, Event, Events, Resync
from tessera.server.match.live import Games
from tessera.server.store.storage import Storage

log = logging.getLogger("tessera.server.accounts.live")


class RateOnEnd:
    """Subscriber: a game this process finished is rated (if it is a rated game) before its end is pushed."""

    def __init__(self, storage: Storage, games: Games) -> None:
        self.storage = storage
        self.games = games

    def on_event(self, event: Event) -> None:
        if not isinstance(event, Changed) or not event.local:
            return  # another process ended it: that process rates it
        if not event.finished:
            return  # not finished (most moves): no need to look at the game
        live = self.games.cached(event.game_id)
        if live is None or live.row.status != "finished":
            return
        rate_finished_game(self.storage, event.game_id)


class AccountStreams:
    """The open live streams of each account: a wake-up per stream when what it shows changed."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._streams: dict[str, set[asyncio.Event]] = {}
        self._guard = threading.Lock()
        self.listening = 0
        """How many accounts have a stream open here (kept as streams open and close: read without a call)."""

    def open(self, user_id: str) -> asyncio.Event:
        """A new stream of ``user_id`` (on the event loop): set whenever it must be read again."""
        self.loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        with self._guard:
            self._streams.setdefault(user_id, set()).add(wake)
            self.listening = len(self._streams)
        return wake

    def close(self, user_id: str, wake: asyncio.Event) -> None:
        with self._guard:
            streams = self._streams.get(user_id)
            if streams is not None:
                streams.discard(wake)
                if not streams:
                    del self._streams[user_id]
                    self.listening = len(self._streams)

    def count(self, user_id: str) -> int:
        """How many streams of ``user_id`` are open."""
        return len(self._streams.get(user_id, ()))

    def on_event(self, event: Event) -> None:
        """Thread-safe: wake the streams of the account concerned (every stream after a ``Resync``)."""
        if isinstance(event, AccountChanged):
            with self._guard:
                wakes = list(self._streams.get(event.user_id, ()))
        elif isinstance(event, Resync):
            with self._guard:
                wakes = [w for ws in self._streams.values() for w in ws]
        else:
            return
        loop = self.loop
        if not wakes or loop is None or loop.is_closed():
            return
        for w in wakes:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(w.set)


def announce(storage: Storage, events: Events, user_ids: Iterable[str]) -> None:
    """Tell the live pages of these accounts, in this process and (PostgreSQL) in the others, that
    their challenges changed.  Called after the change is committed."""
    ids = sorted(set(user_ids))
    if storage.engine.dialect.name == "postgresql" and ids:
        from tessera.server.store.bus import CHANNEL, account_notice

        try:
            with storage.transaction(write=True) as tx:
                for uid in ids:
                    tx.conn.execute(sa.select(sa.func.pg_notify(CHANNEL, account_notice(uid))))
        except Exception:  # the change is stored; pages that missed the notice see it when they reconnect
            log.exception("could not announce a challenge change to the other processes")
    for uid in ids:
        events.publish(AccountChanged(uid))


def repair_at_start(storage: Storage) -> dict[str, int]:
    """What a crash (``kill -9``, an out-of-memory kill) can leave half done, finished at start-up:

    - a finished rated game whose rating was not written yet (its end is stored first, its rating
      right after, by :class:`RateOnEnd`) is rated now, before any request reads a rating;
    - a two-player challenge left ``accepted`` with no game (by a version that accepted in several
      transactions; an accept is now one transaction with its game) is pending again, so its
      player can accept it once more.

    Returns how many of each were repaired."""
    rated = rate_all_pending(storage)
    c = challenges_table
    with storage.transaction(write=True) as tx:
        reopened = tx.conn.execute(
            c.update()
            .where(c.c.status == "accepted", c.c.game_id.is_(None))
            .where(~sa.exists().where(challenge_invitees_table.c.challenge_id == c.c.id))
            .values(status="pending")
        ).rowcount
    if rated or reopened:
        log.warning("repaired at start: %d games rated, %d challenges pending again", rated, reopened)
    return {"rated": rated, "challenges": reopened}


def install(events: Events, storage: Storage, games: Games) -> AccountStreams:
    """Subscribe the accounts' listeners (call before the hub subscribes); the live streams."""
    events.subscribe(RateOnEnd(storage, games).on_event, Changed, where={"local": True, "finished": True})
    streams = AccountStreams()
    events.subscribe(streams.on_event, AccountChanged, Resync)
    return streams
