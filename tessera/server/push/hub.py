"""The WebSocket hub: it runs every game socket, knows who is connected to which game, and
pushes each viewer his own view.

The hub hears of changes through the event interface (:mod:`tessera.server.events`): a
``Changed`` event makes it push fresh views, ``Thinking`` the AI's progress; it calls the
service only to build views.

Every connection is for one game and one seat (or none: a spectator).  After
any change the hub sends every connection ``{"type": "state", "view": ...}``
computed for *that connection's* seat, so a Nelaxtam order sealed by one
player never reaches the other or a spectator.  Each distinct view is built
and encoded once per change (all spectators of a game share one text).  A client that reconnects gets
the stored state at once.

**Light moves** (docs/render.md): a socket opened with ``?changes=1`` gets the whole view once (and
again after a ``refresh``), then ``{"type": "change", "from": v0, "version": v1, "ops": [...]}``:
the change from the view it was last sent to its new one (tessera.server.match.changes), computed from
that socket's own seat's views only.  A client whose view is not at ``from`` asks ``refresh``.

Connecting and leaving are cheap: the new connection alone gets a view, and
the others get a small ``{"type": "presence", "connected": [bool, …]}`` —
only when a seat's connected flag actually changed, and at most once per
``PRESENCE_DELAY`` per game however many sockets come and go.  Connections
are capped per game and per client address (:meth:`Hub.admit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from tessera.server.events import Changed, ChatPosted, Event, Resync, Thinking
from tessera.server.http.encoding import dumps, dumps_text, loads
from tessera.server.http.errors import ServiceError
from tessera.server.http.storage_errors import STORAGE_ERRORS, storage_trouble
from tessera.server.match.service import MatchService

if TYPE_CHECKING:
    from tessera.server.chat.rooms import Chat

log = logging.getLogger("tessera.server.push.hub")

MAX_SOCKETS_PER_GAME = 200
"""Open spectator WebSockets one game accepts (the seat holders' own are not counted: :data:`SOCKETS_PER_SEAT`)."""

SOCKETS_PER_SEAT = 8
"""Open WebSockets each seat's holder may have on a game (tabs, devices), on top of the spectators':
a crowd of spectators never locks the players out of their own game."""

MAX_SOCKETS_PER_CLIENT = 50
"""Open WebSockets one client address may hold across all games (``tessera serve --max-sockets-per-client``)."""

PRESENCE_DELAY = 0.05
"""Seconds over which presence changes of one game are gathered into one message."""


@dataclass(eq=False)
class Connection:
    """One open WebSocket."""

    ws: WebSocket
    game_id: str
    seat: int | None
    token: str | None
    client: str = ""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    light: bool = False
    """The client asked for changes (``?changes=1``): after the first view it gets ``change`` messages."""
    base: tuple[int, bytes] | None = None
    """The version and JSON of the last view sent on this socket (the base of its next change)."""
    user_id: str | None = None
    """A spectator's account (signed in): the chat of accounts he blocks is not pushed to him."""


class Hub:
    """Open connections by game; broadcasts views and presence."""

    def __init__(
        self,
        service: MatchService,
        *,
        per_game: int = MAX_SOCKETS_PER_GAME,
        per_client: int = MAX_SOCKETS_PER_CLIENT,
    ) -> None:
        self.service = service
        self.games: dict[str, set[Connection]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.per_game = per_game
        self.per_client = per_client
        self._clients: Counter[str] = Counter()
        self._presence_sent: dict[str, list[bool]] = {}
        self._presence_due: set[str] = set()
        self.chat: Chat | None = None
        """The chat (tessera.server.chat.rooms): its messages go to the sockets it names (None: no chat)."""
        service.events.subscribe(self.on_event, Changed, Resync, Thinking, ChatPosted)

    def on_event(self, event: Event) -> None:
        """Thread-safe: a change pushes fresh views (read again first if another process made it),
        the AI's progress is passed on as it is.  A change of a game with no socket here wakes
        nothing (every move of every game on every process, with several processes on one
        database): a socket that joins just after it reads the stored version once it is added
        (:meth:`serve`), so it misses no change."""
        if isinstance(event, Changed):
            if event.game_id not in self.games:
                return
            loop = self.loop
            if loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    loop.call_soon_threadsafe(self._start_broadcast, event.game_id, event.local)
        elif isinstance(event, Resync):
            self.notify_all(fresh=False)
        elif isinstance(event, Thinking):
            self.push(event.game_id, {"type": "ai", "thinking": event.info})
        elif isinstance(event, ChatPosted) and self.chat is not None:
            loop = self.loop
            if loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    loop.call_soon_threadsafe(self._start_chat, event)

    def presence(self, game_id: str) -> list[bool]:
        """Whether each seat has at least one live connection."""
        return self.service.presence.of(game_id)

    # -- the socket loop -----------------------------------------------------------------
    async def serve(
        self, websocket: WebSocket, game_id: str, token: str | None, *, subprotocol: str | None = None
    ) -> None:
        """Run one game socket: a ``state`` message now and after every change; the client may send
        ``{"type": "ping"}`` (answered ``pong``) and ``{"type": "refresh"}`` (answered with its view).
        ``subprotocol``: the one accepted (the seat token's, tessera.server.push.routes).  With
        ``?changes=1`` in the URL, changes follow the first view (:class:`Connection` ``light``)."""
        light = websocket.query_params.get("changes") in ("1", "true")
        await websocket.accept(subprotocol=subprotocol)
        client = websocket.client.host if websocket.client else ""
        refused = self.admit(game_id, client)
        if refused is None:
            try:
                view = await run_in_threadpool(self.service.view, game_id, token)
            except ServiceError as e:
                await websocket.send_json({"type": "error", "detail": e.detail})
                await websocket.close(code=4000 + e.status)
                return
            except STORAGE_ERRORS as e:  # no view to start from: the client tries again (code 4503)
                await websocket.send_json({"type": "error", "detail": storage_trouble(e)[0]})
                await websocket.close(code=4503)
                return
            refused = self.admit(game_id, client, seat=view["you"], seated=True)
        if refused is not None:
            await websocket.send_json({"type": "error", "detail": refused})
            await websocket.close(code=4429)
            return
        conn = Connection(websocket, game_id, view["you"], token, client, light=light)
        if conn.seat is None and ("cookie" in websocket.headers or "authorization" in websocket.headers):
            conn.user_id = await run_in_threadpool(spectator_account, websocket)
        self.add(conn)  # the others get a small presence message if a seat's flag changed
        await self._send_state(conn, view["version"], dumps(view))
        try:
            await self._catch_up(conn, view["version"])
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                msg = client_message(frame)
                if isinstance(msg, str):
                    await self._send(conn, {"type": "error", "detail": msg})
                elif msg["type"] == "ping":  # (with the version last sent: a light client behind it asks again)
                    await self._send(conn, {"type": "pong", "version": conn.base[0] if conn.base else None})
                else:
                    await self.send_view(conn)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.remove(conn)

    async def _catch_up(self, conn: Connection, version: int) -> None:
        """If a change landed between ``conn``'s first view (at ``version``) and its joining the hub,
        bring this socket alone up to date as a broadcast would (a light one gets the change, or
        nothing if the change's own broadcast, which may also reach it now that it joined, already
        brought it).  The storage failing meanwhile leaves the socket open: the change listener's
        resync when the database is back, the game's next change or the client's ``ping`` (which
        carries the version it holds) brings it up to date."""
        try:
            if await run_in_threadpool(self.service.version, conn.game_id) != version:
                await self.broadcast(conn.game_id, fresh=False, only=conn)
        except STORAGE_ERRORS as e:
            log.warning("a socket of game %s joined while the storage failed: %s", conn.game_id, e)

    def admit(self, game_id: str, client: str, *, seat: int | None = None, seated: bool = False) -> str | None:
        """Why a new connection from ``client`` to ``game_id`` is refused (None: it is welcome).

        Before its seat is known (``seated`` false) only the client's cap is checked; then a
        spectator (``seat`` None) counts against :attr:`per_game`, a seat's holder against
        :data:`SOCKETS_PER_SEAT` for that seat alone."""
        if client and self._clients[client] >= self.per_client:
            return f"too many open connections from your address (at most {self.per_client})"
        if not seated:
            return None
        conns = self.games.get(game_id, ())
        if seat is None and sum(1 for c in conns if c.seat is None) >= self.per_game:
            return f"this game already has {self.per_game} spectators; try again later"
        if seat is not None and sum(1 for c in conns if c.seat == seat) >= SOCKETS_PER_SEAT:
            return f"this seat already has {SOCKETS_PER_SEAT} open connections; close one of your tabs"
        return None

    def add(self, conn: Connection) -> None:
        """Register an accepted connection."""
        self.games.setdefault(conn.game_id, set()).add(conn)
        self.service.presence.arrive(conn.game_id, conn.seat)
        self._clients[conn.client] += 1
        self._presence_changed(conn.game_id)

    def remove(self, conn: Connection) -> None:
        """Forget a closed connection."""
        conns = self.games.get(conn.game_id)
        if conns is not None and conn in conns:
            conns.discard(conn)
            self.service.presence.leave(conn.game_id, conn.seat)
            self._clients[conn.client] -= 1
            if self._clients[conn.client] <= 0:
                del self._clients[conn.client]
            if not conns:
                del self.games[conn.game_id]
                self._presence_sent.pop(conn.game_id, None)
            else:
                self._presence_changed(conn.game_id)

    def connections(self) -> int:
        """How many sockets are open."""
        return sum(len(c) for c in self.games.values())

    # -- presence ------------------------------------------------------------------------
    def _presence_changed(self, game_id: str) -> None:
        """Called on the event loop: send the game's presence soon (once for many changes)."""
        if game_id in self._presence_due or self.loop is None:
            return
        self._presence_due.add(game_id)
        self.loop.call_later(PRESENCE_DELAY, self._send_presence, game_id)

    def _send_presence(self, game_id: str) -> None:
        self._presence_due.discard(game_id)
        conns = self.games.get(game_id)
        if not conns:
            return
        now = self.presence(game_id)
        if self._presence_sent.get(game_id) == now:
            return  # spectators came or went: nobody's seat changed
        first = game_id not in self._presence_sent
        self._presence_sent[game_id] = now
        if first and not any(now):
            return
        text = encode({"type": "presence", "connected": now})
        for conn in list(conns):
            self._spawn(self._send_text(conn, text))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        task.add_done_callback(_log_failure)

    # -- views ---------------------------------------------------------------------------
    def notify(self, game_id: str, *, fresh: bool = True) -> None:
        """Thread-safe: push fresh views of ``game_id`` to its viewers soon.

        ``fresh``: this process made the change (its copy of the game is current); False for a
        change announced by another process (the game is read again first).
        """
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._start_broadcast, game_id, fresh)

    def notify_all(self, *, fresh: bool = True) -> None:
        """Thread-safe: push fresh views of every watched game (after missed change notices)."""
        for game_id in self.watched():
            self.notify(game_id, fresh=fresh)

    def watched(self) -> list[str]:
        """The games with open sockets here (thread-safe snapshot)."""
        for _ in range(3):
            with contextlib.suppress(RuntimeError):  # changed size during iteration
                return list(self.games)
        return []

    def _start_broadcast(self, game_id: str, fresh: bool = True) -> None:
        if game_id in self.games:
            self._spawn(self.broadcast(game_id, fresh=fresh))

    def push(self, game_id: str, message: dict[str, object]) -> None:
        """Thread-safe: send the same ``message`` to every viewer of ``game_id`` (the AI's progress)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return

        def start() -> None:
            conns = list(self.games.get(game_id, ()))
            text = encode(message) if conns else ""
            for conn in conns:
                self._spawn(self._send_text(conn, text))

        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(start)

    def _start_chat(self, event: ChatPosted) -> None:
        if event.game_id in self.games:
            self._spawn(self.send_chat(event))

    async def send_chat(self, event: ChatPosted) -> None:
        """A chat message to the sockets of its game that may read it (the chat decides by seat)."""
        conns = list(self.games.get(event.game_id, ()))
        if not conns or self.chat is None:
            return
        readers = await run_in_threadpool(self.chat.readers, event, {c.seat for c in conns})
        watching = {c.user_id for c in conns if c.seat is None and c.seat in readers and c.user_id}
        blockers = await run_in_threadpool(self.chat.blockers, event, watching) if watching else set()
        text = encode(self.chat.line(event))
        for conn in conns:
            if conn.seat in readers and (conn.user_id is None or conn.user_id not in blockers):
                await self._send_text(conn, text)

    def push_seats(self, game_id: str, build: Callable[[set[int | None]], dict[int | None, dict[str, Any]]]) -> None:
        """Thread-safe: send each connection of ``game_id`` here the message meant for **its seat**
        (``None``: the spectators').  ``build(seats)`` makes the messages of the seats connected
        (run in a worker thread, and only if the game has connections here); a seat it leaves out
        gets nothing.  A message for one seat — a rematch's new seat token — never reaches another
        seat's connection or a spectator's."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return

        async def run() -> None:
            seats = {conn.seat for conn in self.games.get(game_id, ())}
            if not seats:
                return
            try:
                messages = await run_in_threadpool(build, seats)
            except Exception:
                log.exception("the per-seat messages of game %s could not be made", game_id)
                return
            texts = {seat: encode(m) for seat, m in messages.items()}
            for conn in list(self.games.get(game_id, ())):
                if conn.seat in texts:
                    await self._send_text(conn, texts[conn.seat])

        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(lambda: self._spawn(run()))

    async def send_view(self, conn: Connection) -> None:
        """Send one connection its current view."""
        try:
            view = await run_in_threadpool(self.service.view, conn.game_id, conn.token)
        except ServiceError as e:
            view = None
            await self._send(conn, {"type": "error", "detail": e.detail})
        except STORAGE_ERRORS as e:  # the socket stays open: the client may ask again
            view = None
            await self._send(conn, {"type": "error", "detail": storage_trouble(e)[0]})
        if view is not None:
            await self._send_state(conn, view["version"], dumps(view))

    async def _send_state(self, conn: Connection, version: int, full: bytes) -> None:
        """Send the whole view (``full``: its JSON) and keep it as the socket's base.  If a newer view
        went out on this socket meanwhile (a push that overlapped this read), that one is sent again
        instead: a socket never goes back a version."""
        if conn.base is not None and conn.base[0] > version:
            version, full = conn.base
        conn.base = (version, full)
        await self._send_text(conn, state_text(full))

    async def broadcast(self, game_id: str, *, fresh: bool = True, only: Connection | None = None) -> None:
        """Every viewer of ``game_id`` gets his own view, or its change (a light socket); ``only``:
        that connection alone (one that joined while the game changed, :meth:`serve`).

        The views are built and JSON-encoded once per distinct token (all spectators share one
        text), not once per socket: on the event loop from the game in memory after this
        process's own change, else in one trip to the thread pool.  A change is computed once per
        distinct token and base version, the operations of the render's shared part once for all
        of them (:meth:`~tessera.server.match.views.Views.diff`); a light socket whose view did not change gets nothing.
        """
        conns = [only] if only is not None else list(self.games.get(game_id, ()))
        if not conns:
            return
        tokens = {conn.token for conn in conns}
        views: dict[str | None, tuple[int, bytes, dict[str, Any] | None] | str] | None = None
        if fresh:  # on the loop, from the game in memory (no lock, no thread)
            built: dict[str | None, tuple[int, bytes, dict[str, Any] | None] | str] = {}
            for token in tokens:
                try:
                    got = self.service.views.encoded_from_memory(game_id, token)
                except ServiceError as e:
                    built[token] = encode({"type": "error", "detail": e.detail})
                    continue
                if got is None:  # the look needs more (a seat to claim, a flag to store): in a thread
                    break
                built[token] = got
            else:
                views = built
        if views is None:
            views = await run_in_threadpool(functools.partial(self.encoded_views, game_id, tokens, fresh=fresh))
        states: dict[str | None, str] = {}
        changes: dict[tuple[str | None, int, bytes], str] = {}
        for conn in conns:
            item = views[conn.token]
            if isinstance(item, str):
                await self._send_text(conn, item)
                continue
            version, full, new = item
            base = conn.base
            if base is not None and base[0] > version:
                continue  # a newer view went out already (pushes of one game can overlap): never go back
            if conn.light and base is not None:
                if base[1] == full:
                    continue  # nothing new for this socket
                key = (conn.token, base[0], base[1])
                text = changes.get(key)
                if text is None:
                    views_ = self.service.views
                    ops = views_.known_change(game_id, conn.seat, base[1], full)
                    if ops is not None:
                        text = encode({"type": "change", "from": base[0], "version": version, "ops": ops})
                    else:
                        old = views_.decoded(game_id, conn.seat, base[0], base[1])
                        before = old if old is not None else loads(base[1])
                        # (the change of the render's shared part is computed once for all viewers)
                        ops = views_.diff(game_id, before, new if new is not None else loads(full))
                        text = encode({"type": "change", "from": base[0], "version": version, "ops": ops})
                    if len(text) >= len(full) + 24:  # (the state message's own length; a change no smaller)
                        text = states.get(conn.token) or states.setdefault(conn.token, state_text(full))
                    changes[key] = text
            else:
                text = states.get(conn.token) or states.setdefault(conn.token, state_text(full))
            conn.base = (version, full)
            await self._send_text(conn, text)

    def encoded_views(
        self, game_id: str, tokens: set[str | None], *, fresh: bool = True
    ) -> dict[str | None, tuple[int, bytes, dict[str, Any] | None] | str]:
        """The view (version, JSON, view) of each token, or an ``error`` message's text (run in a worker thread)."""
        out: dict[str | None, tuple[int, bytes, dict[str, Any] | None] | str] = {}
        for token in tokens:
            try:
                view = self.service.view(game_id, token, trust_cache=fresh)
            except ServiceError as e:
                out[token] = encode({"type": "error", "detail": e.detail})
            else:
                out[token] = (view["version"], dumps(view), view)
        return out

    async def _send(self, conn: Connection, message: dict[str, object]) -> None:
        await self._send_text(conn, encode(message))

    async def _send_text(self, conn: Connection, text: str) -> None:
        async with conn.lock:
            try:
                await conn.ws.send_text(text)
            except Exception:  # the socket closed under us; its handler removes it
                log.debug("send to a closed socket of game %s", conn.game_id)


def _log_failure(task: asyncio.Task[None]) -> None:
    """A spawned send or broadcast that failed is logged (a storage failure briefly, as a warning; the
    resync after it, or the game's next change, sends the views again), never silently dropped."""
    if task.cancelled() or (e := task.exception()) is None:
        return
    if isinstance(e, STORAGE_ERRORS):
        log.warning("views not sent while the storage failed: %s", e)
    else:
        log.error("a push failed", exc_info=e)


def client_message(frame: Any) -> dict[str, Any] | str:
    """A client's message (``ping`` or ``refresh``), or what is wrong with it."""
    text = frame.get("text")
    if text is None:
        return 'messages are JSON text: {"type": "ping"} or {"type": "refresh"}; binary frames are not read'
    if len(text) > 10_000:
        return "the message is too long"
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return "the message is not valid JSON"
    kind = msg.get("type") if isinstance(msg, dict) else None
    if kind not in ("ping", "refresh"):
        return (
            f"unknown message {str(kind if kind is not None else msg)[:40]!r}: the socket only reads "
            '{"type": "ping"} and {"type": "refresh"}; moves are POSTed to /api/games/{id}/moves'
        )
    return {"type": kind}


def spectator_account(websocket: WebSocket) -> str | None:
    """The account id of a spectator's socket (its session cookie or bearer token; None: a guest,
    or credentials that do not hold)."""
    from tessera.server.accounts.auth import optional_auth

    try:
        auth = optional_auth(websocket)
    except Exception:  # a refused token or a cross-site cookie: watched as a guest
        return None
    return auth.user.id if auth is not None else None


def state_text(full: bytes) -> str:
    """The ``state`` message carrying the view whose JSON is ``full``."""
    return '{"type":"state","view":' + full.decode("utf-8") + "}"


def encode(message: dict[str, object]) -> str:
    """A message as the WebSocket sends it (what Starlette's ``send_json`` would write)."""
    return dumps_text(message)
