"""The one interface by which the match layer tells the rest of the server that something happened.

The service publishes; the hub (WebSocket pushes), the AI worker (an AI seat may be next)
and the clock timers subscribe.  Nobody hands callbacks to anybody else: a publisher knows
only :class:`Events`, a subscriber only the events it is given.

``Changed(game_id, local, ai, clock, finished)``
    a game was changed and stored: by this process (``local``: its copy in memory is current),
    or by another server process on the same PostgreSQL database (announced by
    :class:`tessera.server.store.bus.ChangeListener`; the game is read again before it is shown).
    ``ai`` and ``clock`` say whether the game has AI seats and a clock, ``finished`` whether it is
    finished (each True when not known), and ``mode`` its mode (None when not known), so that the AI
    worker, the clock timers, the rating of ended games and the notifier need not ask.
``Resync()``
    change notices may have been missed (the listener's connection was lost): every watched
    game is read again.
``Thinking(game_id, info)``
    an AI seat's progress (``None``: it stopped thinking).
``AccountChanged(user_id, local)``
    what an account's live pages show changed (a challenge to or from it was made, answered or
    withdrawn), here or (``local`` False) in another server process on the same PostgreSQL
    database; :mod:`tessera.server.accounts.live` pushes it to the account's open pages.
``ChatPosted(game_id, message, finished, local)``
    a chat message was stored (here, or in another process on the same PostgreSQL database);
    the hub pushes it to the game's sockets that may read its room (:mod:`tessera.server.chat.rooms`).

:class:`Presence` is the other shared fact: which seats have a live connection (the hub
writes it, the views read it).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("tessera.server.events")


@dataclass(frozen=True)
class Changed:
    """A game changed and is stored (``ai``/``clock``: it has AI seats / a clock; ``finished``: it is
    finished; each True when the publisher does not know, e.g. a change announced by another process)."""

    game_id: str
    local: bool = True
    ai: bool = True
    clock: bool = True
    finished: bool = True
    mode: str | None = None
    """The game's mode (``hotseat``, ``ai``, ``online``); None: not known to the publisher."""


@dataclass(frozen=True)
class Resync:
    """Change notices may have been missed: every watched game is read again."""


@dataclass(frozen=True)
class Thinking:
    """An AI seat's progress in a game (``info`` None: it stopped thinking)."""

    game_id: str
    info: dict[str, Any] | None


@dataclass(frozen=True)
class AccountChanged:
    """What an account's live pages show (its challenges) changed."""

    user_id: str
    local: bool = True


@dataclass(frozen=True)
class ChatPosted:
    """A chat message of a game was stored (``message`` as :func:`tessera.server.chat.rooms.public` shows
    it; ``finished``: the game was over when it was posted)."""

    game_id: str
    message: dict[str, Any]
    finished: bool
    local: bool = True

    def notice(self) -> str:
        """The JSON that carries this event to the other server processes (tessera.server.store.bus)."""
        return json.dumps({"game_id": self.game_id, "message": self.message, "finished": self.finished})

    @classmethod
    def from_notice(cls, payload: str, *, local: bool = False) -> ChatPosted:
        """The event from its notice's JSON (:meth:`notice`); raises ``ValueError`` or ``KeyError`` on
        a payload that is not one."""
        d = json.loads(payload)
        return cls(str(d["game_id"]), dict(d["message"]), bool(d["finished"]), local)


@dataclass(frozen=True)
class StreamOpened:
    """An event stream of the bot API was opened with the token whose digest is ``token_key``, at
    ``opened`` (epoch seconds) — by another process when ``local`` is False: an older stream of the
    same token held here ends (one open stream per token, across processes)."""

    token_key: str
    opened: float
    local: bool = True


Event = Changed | Resync | Thinking | AccountChanged | ChatPosted | StreamOpened
Subscriber = Callable[[Event], None]


class Events:
    """Publish an event to every subscriber that wants it (thread-safe; a subscriber's failure is logged,
    not raised).  A subscriber says which events it wants when it subscribes — their kinds, and values
    their fields must have — and is called for those only: a move of a hot-seat game never calls the
    AI worker, the rating of ended games or the account streams (one place decides who hears what,
    as a bus with channels does)."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[Subscriber, tuple[type, ...], tuple[tuple[str, object], ...]]] = []

    def subscribe(self, subscriber: Subscriber, *kinds: type, where: dict[str, object] | None = None) -> None:
        """Call ``subscriber(event)`` for every event from now on (from whatever thread publishes it:
        a subscriber that needs its event loop hands the event over itself) — only for events of the
        classes ``kinds`` if any are given, and only for events whose fields have the values ``where``
        gives (``{"local": True, "finished": True}``).  Raises ``ValueError`` for a ``where`` field that
        none of ``kinds`` has (a filter that could never match would silence the subscriber)."""
        conditions = tuple((where or {}).items())
        for name, _ in conditions:
            if not kinds or not all(name in getattr(k, "__dataclass_fields__", {}) for k in kinds):
                raise ValueError(f"where={{{name!r}: ...}}: not a field of every event kind subscribed to {kinds}")
        self._subscribers = [*self._subscribers, (subscriber, kinds, conditions)]

    def publish(self, event: Event) -> None:
        """Tell every subscriber that wants the event."""
        for sub, kinds, conditions in self._subscribers:
            if kinds and not isinstance(event, kinds):
                continue
            for name, value in conditions:  # a plain loop, no call: the publisher's walk stays here
                if getattr(event, name) != value:
                    break
            else:
                try:
                    sub(event)
                except Exception:  # one subscriber's failure must not cost the others their notice
                    log.exception("an event subscriber failed on %r", event)

    def changed(self, game_id: str, *, local: bool = True, ai: bool = True, clock: bool = True) -> None:
        """Publish :class:`Changed`."""
        self.publish(Changed(game_id, local, ai, clock))


class Presence:
    """Which seats of each game have at least one live connection (written by the hub, read by views)."""

    def __init__(self) -> None:
        self._seats: dict[str, dict[int, int]] = {}
        self._guard = threading.Lock()

    def arrive(self, game_id: str, seat: int | None) -> None:
        """A connection for ``seat`` (None: a spectator) opened."""
        if seat is None:
            return
        with self._guard:
            seats = self._seats.setdefault(game_id, {})
            seats[seat] = seats.get(seat, 0) + 1

    def leave(self, game_id: str, seat: int | None) -> None:
        """A connection for ``seat`` closed."""
        if seat is None:
            return
        with self._guard:
            seats = self._seats.get(game_id)
            if seats is None or seat not in seats:
                return
            seats[seat] -= 1
            if seats[seat] <= 0:
                del seats[seat]
            if not seats:
                del self._seats[game_id]

    def of(self, game_id: str) -> list[bool]:
        """Whether each seat has at least one live connection (at least two entries)."""
        seats = self._seats.get(game_id) or {}
        n = max(seats, default=-1) + 1
        return [i in seats for i in range(max(n, 2))]
