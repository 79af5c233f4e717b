"""The move pipeline: every move (and every sealed order) goes through :meth:`MovePipeline.submit`.

One pipeline, three steps, whoever drives it (HTTP on the event loop, the AI worker and the
tests from a thread):

**prepare** (:meth:`MovePipeline.prepare`) — against the game in memory, nothing stored:
authorise the seat (its token), a duplicate of the move just stored is answered again, the
game must be active, the move must be for the current move number and by the player to move;
the move is parsed once and played on a copy of the position (an ``IllegalMove`` becomes a
400 naming the rule).  At a simultaneous node the order is checked alone and sealed (the turn
resolves when every order is in).

**commit** (:meth:`MovePipeline.commit`) — one conditional ``UPDATE`` of the game's version
and one ``INSERT``, acknowledged only after the commit; a game changed meanwhile (another
request or process) is read again and the move prepared again (at most three times).  Where
the commit runs depends on the driver and the database: a thread commits where it is; on the
event loop an SQLite file commits on the loop when nothing has to be waited for
(:func:`tessera.server.match.tables.append_move_now`), PostgreSQL commits on the loop with
its asynchronous driver (:class:`tessera.server.store.pg_loop.LoopWriter`), and anything else (a
sealed order, a busy database) goes to a worker thread.

**publish** — one :class:`tessera.server.events.Changed` event: the hub pushes each viewer his
view, the AI worker looks whether an AI seat is next, the clock timers re-arm.

A clock that ran out is stored first (then the move is refused, or in a game that goes on
without the flagged player, played).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from tessera.core.game import GAME_OVER, SIMULTANEOUS, IllegalMove, State
from tessera.core.texts import Text, name_text
from tessera.server.events import Events
from tessera.server.http.errors import ServiceError
from tessera.server.match import tables
from tessera.server.match.clocks import clock_stop, flagged
from tessera.server.match.endings import Endings
from tessera.server.match.inputs import MAX_MOVE_CHARS
from tessera.server.match.knowledge import is_retry
from tessera.server.match.live import Games, Live, Stale, after_move, changed_event, columns, copy_row, seat_of
from tessera.server.match.results import names
from tessera.server.match.tables import GameRow, MoveRow
from tessera.server.match.views import Views
from tessera.server.store.storage import Conflict

log = logging.getLogger("tessera.server.match.moves")

T = TypeVar("T")

ATTEMPTS = 3
"""How often a move is prepared again after the game changed under it, before it is refused (409)."""

LOOP_COMMIT_PATIENCE = 1.0
"""How long (s) a move to be stored on the event loop waits there while something else writes,
before it is handed to a worker thread (:meth:`MovePipeline._commit_when_free`)."""


def game_over(result: dict[str, Any] | None) -> str:
    """The refusal of a move in a finished game, saying how it ended (a keyed text)."""
    if not result:
        return GAME_OVER
    how = Text(result["key"], result["text"], **result.get("args", {})) if result.get("key") else result["text"]
    return Text("refusal.game_over_how", f"the game is over: {result['text']}", how=how)


@dataclass
class Prepared:
    """A move (or order) checked against a cached position, ready to be stored."""

    seat: int
    row: GameRow
    """The game's row after the move (its version is claimed when it is stored)."""
    state: State
    """The position after the move (the same position when an order is only sealed)."""
    record: MoveRow | None
    """The move to store (None: an order sealed, its turn still open)."""
    sealed: dict[int, str]
    """The sealed orders of the open simultaneous turn after this (empty once it resolved)."""
    order: str | None = None
    """The order to seal (None: a sequential move)."""


def checked_move(move: object, expected: int | None) -> tuple[str, int]:
    """The move text, stripped, and the move number it is for, if the request is well formed."""
    if not isinstance(move, str) or not move.strip():
        raise ServiceError(422, "the move is empty")
    if len(move) > MAX_MOVE_CHARS:
        raise ServiceError(422, f"the move is too long: {len(move)} characters (at most {MAX_MOVE_CHARS})")
    if expected is None:
        raise ServiceError(422, "expected (the move number the move is for) is required")
    return move.strip(), expected


def run_inline(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (the pipeline driven from a thread) on this thread."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("the move pipeline waited for something while driven from a thread")


class MovePipeline:
    """prepare → commit → publish."""

    def __init__(self, games: Games, views: Views, endings: Endings, events: Events) -> None:
        self.games = games
        self.storage = games.storage
        self.views = views
        self.endings = endings
        self.events = events

    # -- the drivers -----------------------------------------------------------------------
    def play(
        self,
        game_id: str,
        token: str | None,
        move: object,
        expected: int | None,
        *,
        view: bool = True,
        change: bool = False,
    ) -> Any:
        """Drive the pipeline from this thread (tests, the AI worker): every step runs here."""
        return run_inline(self.submit(game_id, token, move, expected, view=view, change=change, on_loop=False))

    async def _run(self, on_loop: bool, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)``: here when driven from a thread, else in a worker thread."""
        if not on_loop:
            return fn(*args)
        from anyio.to_thread import run_sync

        return await run_sync(partial(fn, *args))

    async def submit(
        self,
        game_id: str,
        token: str | None,
        move: object,
        expected: int | None,
        *,
        view: bool = True,
        change: bool = False,
        on_loop: bool = True,
    ) -> dict[str, Any]:
        """Submit a move (or at a simultaneous node, seal an order) for the token's seat; the answer
        is the seat's new view, or with ``view`` False only the acknowledgement (:meth:`Views.ack`),
        or with ``change`` the acknowledgement and ``change``: the change from the seat's view of
        the version the move was played on to its new view (:meth:`Views.change`; ``None`` for a
        move answered again as a duplicate).

        ``on_loop``: driven on the event loop (HTTP), where reads and slow writes are awaited in
        worker threads; else (:meth:`play`) every step runs on the calling thread."""
        text, number = checked_move(move, expected)
        live = self.games.cached(game_id)
        flag_stored = False
        attempt = 0
        while True:
            if live is None:
                live = await self._run(on_loop, self.games.reload, game_id)
            if live.row.clock is not None and flagged(live.row, time.time()):  # untimed: nothing to flag
                if flag_stored:
                    raise ServiceError(409, GAME_OVER)
                await self._run(on_loop, self.endings.flag, game_id)
                flag_stored = True
                live = await self._run(on_loop, self.games.current, game_id)
                if live.row.status != "active":
                    raise ServiceError(409, game_over(live.row.result))
                continue  # the flagged player resigned; the others play on
            try:
                prepared = self.prepare(live, token, text, number)
            except ServiceError:
                # a refusal is only given once the cached game is known to be the stored one
                if attempt == 0 and not await self._run(on_loop, self.games.fresh, live):
                    attempt += 1
                    live = None
                    continue
                raise
            if isinstance(prepared, int):  # a duplicate of what was accepted: answered again, nothing stored
                if change:
                    return {**self.views.ack(live, prepared), "change": None}
                return self.views.view(live, prepared) if view else self.views.ack(live, prepared)
            try:
                new = await self.commit(live, prepared, on_loop)
            except Stale:
                attempt += 1
                if attempt >= ATTEMPTS:
                    raise ServiceError(
                        409, Text("refusal.stale_changing", "stale move: the game kept changing; send it again")
                    ) from None
                live = None
                continue
            except Conflict as e:
                raise ServiceError(409, f"stale move: another move was stored first ({e})") from None
            event = changed_event(new.row)  # read while the walk is still in live.py (after Games.advance)
            if change:
                answer = {**self.views.ack(new, prepared.seat), "change": self.views.change(live, new, prepared.seat)}
            else:
                answer = self.views.view(new, prepared.seat) if view else self.views.ack(new, prepared.seat)
            self.events.publish(event)  # publish
            return answer

    # -- prepare ---------------------------------------------------------------------------
    def prepare(self, live: Live, token: str | None, move: str, expected: int) -> Prepared | int:
        """Check ``move`` against ``live`` without storing it: the move and its new position, or the
        sender's seat if it repeats what was just accepted (nothing to store)."""
        row, state = live.row, live.state
        seat = seat_of(row, token)  # authorise the seat
        assert seat is not None
        if expected == state.move_number() - 1 and is_retry(live.moves[: live.n_moves], seat, move):
            return seat
        if row.status != "active":
            raise ServiceError(409, game_over(row.result))
        n = state.move_number()
        cp = state.current_player()
        if expected != n:
            raise ServiceError(
                409,
                Text(
                    "refusal.stale_number",
                    f"stale move: it was sent for move number {expected}, but the game is at move {n}",
                    expected=expected,
                    n=n,
                ),
            )
        if cp == SIMULTANEOUS:
            return self._prepare_order(live, seat, move)
        if cp != seat:
            who = name_text(names(state.game)[cp])
            raise ServiceError(
                409,
                Text(
                    "refusal.not_your_seat",
                    f"it is not your turn: {who} (seat {cp}) is to move, you hold seat {seat}",
                    name=who,
                    to_move=cp,
                    seat=seat,
                ),
            )
        new = state.clone()
        try:
            action = state.string_to_action(move)  # parsed once
            new.apply_action(action)  # checked once
        except IllegalMove as e:
            raise ServiceError(400, e.text) from None  # a game's refusal: its key and args go with it
        nrow = copy_row(row)
        after_move(nrow, new, [cp], time.time())
        return Prepared(seat, nrow, new, MoveRow(n, cp, state.action_to_string(action)), {})

    def _prepare_order(self, live: Live, seat: int, order: str) -> Prepared | int:
        """Seal ``seat``'s order (resolving the turn once every order is in)."""
        row, state = live.row, live.state
        n = state.move_number()
        sealed = dict(live.sealed)
        if seat in sealed:
            if sealed[seat] == order:
                return seat  # the same order again: nothing changes
            raise ServiceError(409, Text("refusal.order_sealed", "your order for this turn is already sealed"))
        reason = state.why_illegal(order, seat)
        if reason is not None:
            raise ServiceError(400, reason)
        sealed[seat] = order
        now = time.time()
        nrow = copy_row(row)
        nrow.undo_request = None
        if nrow.draw_offer is not None and nrow.draw_offer != seat:
            nrow.draw_offer = None  # the offerer's opponent gave his order instead of answering: the offer lapses
        if nrow.clock is not None:
            clock_stop(nrow.clock, seat, now, turn_done=True)
        if len(sealed) < state.game.num_players:
            return Prepared(seat, nrow, state, None, sealed, order)
        new = state.clone()
        try:
            new.play_joint([sealed[p] for p in range(state.game.num_players)])
        except IllegalMove as e:  # each order was checked alone: a joint refusal would be a bug in the game
            # the message may quote the opponent's sealed order: it stays in the log, not in the answer
            log.error("game %s: sealed orders %r could not be resolved: %s", row.id, sealed, e)
            raise ServiceError(
                409, "the sealed orders could not be resolved together; the turn is still open"
            ) from None
        after_move(nrow, new, [], now)
        return Prepared(seat, nrow, new, MoveRow(n, SIMULTANEOUS, new.history()[-1][1]), {}, order)

    # -- commit ----------------------------------------------------------------------------
    async def commit(self, live: Live, p: Prepared, on_loop: bool) -> Live:
        """Store ``p`` (prepared against ``live``) and keep it in memory; ``Stale`` if the game
        changed since ``live``."""
        if not on_loop:
            return self.commit_in_thread(live, p)
        new: Live | None = None
        if p.order is None:
            try:
                if self.storage.writes_now:
                    new = self._commit_now(live, p)
                    if new is None:
                        new = await self._commit_when_free(self._commit_now_async, live, p)
                elif self.storage.loop_writer is not None:
                    new = await self._commit_when_free(self._commit_loop_writer, live, p)
            except _UseThread:
                new = None
        if new is None:
            new = await self._run(True, self.commit_in_thread, live, p)
        return new

    def commit_in_thread(self, live: Live, p: Prepared) -> Live:
        """Store ``p`` through a pooled connection, on the calling thread (one transaction)."""
        game_id = live.row.id
        row, nrow = live.row, p.row
        with self.games.locked(game_id):
            if self.games.cached(game_id) is not live:
                raise Stale
            with self.storage.transaction(write=True) as tx:
                if not tables.bump_version(tx, game_id, row.version, **columns(nrow)):
                    raise Stale
                if not nrow.seats[p.seat].claimed:
                    tables.claim_seat(tx, game_id, p.seat)
                    nrow.seats[p.seat].claimed = True
                if p.order is not None:
                    tables.insert_sealed(tx, game_id, live.state.move_number(), p.seat, p.order)
                if p.record is not None:
                    tables.insert_move(tx, game_id, p.record.index, p.record.player, p.record.move)
                    if p.order is not None:
                        tables.delete_sealed(tx, game_id)
                tx.changed(game_id)
            nrow.version += 1
            return self.games.advance(live, nrow, p.state, p.record, p.sealed)

    def _commit_now(self, live: Live, p: Prepared) -> Live | None:
        """Store a move on the calling thread (the event loop) through SQLite's own connection if
        nothing has to be waited for (:func:`tables.append_move_now`); None if something would."""
        game_id = live.row.id
        with self.games.locked_now(game_id) as got:
            if not got:
                return None
            if self.games.cached(game_id) is not live:
                raise Stale
            nrow = p.row
            claim = None if nrow.seats[p.seat].claimed else p.seat
            assert p.record is not None
            record = (p.record.index, p.record.player, p.record.move)
            done = tables.append_move_now(self.storage, game_id, live.row.version, columns(nrow), record, claim)
            if done is None:
                return None
            if not done:
                raise Stale
            if claim is not None:
                nrow.seats[claim].claimed = True
            nrow.version += 1
            return self.games.advance(live, nrow, p.state, p.record, p.sealed)

    async def _commit_now_async(self, live: Live, p: Prepared) -> Live | None:
        return self._commit_now(live, p)

    async def _commit_loop_writer(self, live: Live, p: Prepared) -> Live | None:
        """Store a move on the event loop with PostgreSQL's asynchronous driver (None: the game is
        busy in this process; ``_UseThread``: the driver could not, a worker thread stores it)."""
        writer = self.storage.loop_writer
        assert writer is not None and p.record is not None
        game_id = live.row.id
        with self.games.locked_now(game_id) as got:  # held across the await: other writers of the game wait
            if not got:
                return None
            if self.games.cached(game_id) is not live:
                raise Stale
            nrow = p.row
            claim = None if nrow.seats[p.seat].claimed else p.seat
            record = (p.record.index, p.record.player, p.record.move)
            done = await writer.append_move(game_id, live.row.version, columns(nrow), record, claim)
            if done is None:
                raise _UseThread
            if not done:
                raise Stale
            if claim is not None:
                nrow.seats[claim].claimed = True
            nrow.version += 1
            return self.games.advance(live, nrow, p.state, p.record, p.sealed)

    async def _commit_when_free(
        self, attempt: Callable[[Live, Prepared], Awaitable[Live | None]], live: Live, p: Prepared
    ) -> Live | None:
        """``attempt`` (a commit on the loop) again and again while something else writes the game
        or the database (another thread of this process: a new game, an AI move; or another
        process), waiting on the event loop between tries, longer and longer (0.25 ms doubling to
        8 ms), for at most :data:`LOOP_COMMIT_PATIENCE` seconds; None if it never could.

        Why not hand the move to a worker thread at once: a thread's transaction holds the write
        lock while it waits for the interpreter lock (GIL) several times, so it holds it for
        milliseconds under load, and every move that found the lock taken went to a thread too;
        measured: after a few seconds of load nearly every move took the thread path, at about
        twice the CPU per move."""
        wait, waited = 0.00025, 0.0
        while True:
            new = await attempt(live, p)
            if new is not None or waited >= LOOP_COMMIT_PATIENCE:
                return new
            await asyncio.sleep(wait)
            waited += wait
            wait = min(wait * 2, 0.008)


class _UseThread(Exception):
    """The loop's database driver could not store the move: a worker thread stores it."""
