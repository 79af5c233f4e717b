"""The bot API's streams on the event interface (:mod:`tessera.server.events`).

Each open stream holds an ``asyncio.Event`` that is set when what it shows may have changed:

- an event stream (``GET /api/stream/event``) wakes on ``AccountChanged`` of its account (a
  challenge to or from it made, answered or withdrawn — also the game an accepted challenge
  made) and on ``Changed`` of the games it knows to be going on (a game's end);
- a game stream (``GET /api/bot/game/stream/{id}``) wakes on ``Changed`` of its game;
- both on ``Resync`` (the PostgreSQL listener lost its connection: notices may have been missed).

``Changed`` and ``AccountChanged`` come from this process or, on PostgreSQL, from the others
(:class:`tessera.server.store.bus.ChangeListener`), so a stream held by one process hears of a move
or a challenge made through another.  The stream itself reads what changed (in a thread); the
wake-up carries nothing.

**One event stream per token**: a second ``GET /api/stream/event`` with the same token ends the
first one — the newer connection wins, so a client whose connection died without the server
noticing reconnects at once.  On PostgreSQL the opening is announced to the other processes
(``StreamOpened``, :func:`tessera.server.store.bus.stream_notice`), and a stream of the same token
opened earlier on another process ends too.

**A cap on game streams per token** (:data:`GAME_STREAMS_PER_TOKEN` in all, :data:`GAME_STREAMS_PER_GAME`
of one game): a stream past it is refused (:class:`TooManyStreams`, answered 429), so one token
cannot hold hundreds of streams open.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

from tessera.server.events import AccountChanged, Changed, ChatPosted, Event, Resync, StreamOpened

GAME_STREAMS_PER_TOKEN = 64
"""Game streams one token may hold open at once on a process (a bot streams each of its games)."""

GAME_STREAMS_PER_GAME = 4
"""Streams of one game one token may hold open at once (a client reconnecting while its dying
connection is not yet noticed needs a second one)."""


class TooManyStreams(Exception):
    """A game stream past the cap of its token: ``limit`` streams are open (``of_game``: of this game)."""

    def __init__(self, limit: int, of_game: bool) -> None:
        super().__init__(limit, of_game)
        self.limit = limit
        self.of_game = of_game


class Wake:
    """One open stream: ``event`` is set when it must read again; ``replaced`` when a newer stream
    with the same token took its place (it then ends)."""

    def __init__(self, game: bool = False) -> None:
        self.event = asyncio.Event()
        self.replaced = False
        self.game = game
        """A game stream (it reads the game's chat), not an event stream."""
        self.chats: list[ChatPosted] = []
        """Chat messages of the watched game posted since the stream last read them (game streams)."""
        self.opened = time.time()
        """When the stream was opened (epoch seconds: compared with streams opened by other processes)."""
        self.token_key = ""
        self.game_id = ""
        """A game stream's token key and game (what its cap counts)."""


class BotStreams:
    """The open bot streams of this process and what wakes each."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._by_user: dict[str, set[Wake]] = {}
        self.listening = 0
        """How many accounts have an event stream open here (kept as streams open and close: read without a call)."""
        self._by_game: dict[str, set[Wake]] = {}
        self._watching: dict[Wake, set[str]] = {}
        self._by_token: dict[str, Wake] = {}
        self._games_of_token: dict[str, list[str]] = {}
        """The game ids of each token's open game streams (one entry per stream)."""
        self._guard = threading.Lock()

    # -- event streams ----------------------------------------------------------------------
    def open_events(self, user_id: str, token_key: str) -> Wake:
        """A new event stream of ``user_id`` by the token whose key is ``token_key`` (an older one
        of the same token is told to end)."""
        self.loop = asyncio.get_running_loop()
        wake = Wake()
        with self._guard:
            old = self._by_token.get(token_key)
            self._by_token[token_key] = wake
            self._by_user.setdefault(user_id, set()).add(wake)
            self.listening = len(self._by_user)
        if old is not None:
            old.replaced = True
            old.event.set()
        return wake

    def close_events(self, user_id: str, token_key: str, wake: Wake) -> None:
        with self._guard:
            if self._by_token.get(token_key) is wake:
                del self._by_token[token_key]
            users = self._by_user.get(user_id)
            if users is not None:
                users.discard(wake)
                if not users:
                    del self._by_user[user_id]
                    self.listening = len(self._by_user)
        self.watch(wake, set())

    def watch(self, wake: Wake, game_ids: set[str]) -> None:
        """The games whose changes wake ``wake`` from now on (replacing the ones before)."""
        with self._guard:
            before = self._watching.pop(wake, set())
            for gid in before - game_ids:
                games = self._by_game.get(gid)
                if games is not None:
                    games.discard(wake)
                    if not games:
                        del self._by_game[gid]
            for gid in game_ids:
                self._by_game.setdefault(gid, set()).add(wake)
            if game_ids:
                self._watching[wake] = set(game_ids)

    # -- game streams -----------------------------------------------------------------------
    def open_game(self, game_id: str, token_key: str = "") -> Wake:
        """A new game stream of ``game_id`` by the token whose key is ``token_key`` (:class:`TooManyStreams`
        past the token's cap)."""
        self.loop = asyncio.get_running_loop()
        wake = Wake(game=True)
        with self._guard:
            held = self._games_of_token.setdefault(token_key, [])
            if len(held) >= GAME_STREAMS_PER_TOKEN:
                raise TooManyStreams(GAME_STREAMS_PER_TOKEN, False)
            if held.count(game_id) >= GAME_STREAMS_PER_GAME:
                raise TooManyStreams(GAME_STREAMS_PER_GAME, True)
            held.append(game_id)
        wake.token_key, wake.game_id = token_key, game_id
        self.watch(wake, {game_id})
        return wake

    def close_game(self, wake: Wake) -> None:
        with self._guard:
            held = self._games_of_token.get(wake.token_key)
            if held is not None and wake.game_id in held:
                held.remove(wake.game_id)
                if not held:
                    del self._games_of_token[wake.token_key]
        self.watch(wake, set())

    # -- the subscriber ---------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        """Thread-safe: wake the streams the event concerns."""
        with self._guard:
            if isinstance(event, Changed):
                wakes = list(self._by_game.get(event.game_id, ()))
            elif isinstance(event, ChatPosted):  # game streams only (an event stream watches no chat)
                wakes = [w for w in self._by_game.get(event.game_id, ()) if w.game]
                for w in wakes:
                    w.chats.append(event)
            elif isinstance(event, AccountChanged):
                wakes = list(self._by_user.get(event.user_id, ()))
            elif isinstance(event, StreamOpened):
                held = self._by_token.get(event.token_key)
                if event.local or held is None or held.opened >= event.opened:
                    return
                held.replaced = True  # a newer stream of the same token, on another process
                wakes = [held]
            elif isinstance(event, Resync):
                wakes = list({w for ws in self._by_user.values() for w in ws} | set(self._watching))
            else:
                return
        loop = self.loop
        if not wakes or loop is None or loop.is_closed():
            return
        for w in wakes:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(w.event.set)
