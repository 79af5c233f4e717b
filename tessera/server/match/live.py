"""The match model: games as this process last stored or read them, and how a change is written.

Every active game this process touches is kept in memory (:class:`Live`: row, position, moves,
sealed orders) at the version stored in its ``games`` row.  A write claims the next version
with one conditional ``UPDATE … WHERE version = cached`` (plus one ``INSERT`` for a move) and
is kept in memory only after the commit; if another process wrote the game meanwhile the
update matches no row and the game is read again.  Reads check the stored version (one
indexed ``SELECT``) before trusting the cache.  Requests of one game in this process are
serialised by its lock (:meth:`Games.locked`).
"""

from __future__ import annotations

import copy
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import tessera
from tessera.core.game import SIMULTANEOUS, Game, State
from tessera.core.records import RESIGN
from tessera.server.events import Changed
from tessera.server.http.errors import ServiceError
from tessera.server.match import tables
from tessera.server.match.clocks import clock_start, clock_stop
from tessera.server.match.inputs import load_or_refuse
from tessera.server.match.knowledge import movers, replay_moves
from tessera.server.match.results import rules_result
from tessera.server.match.tables import GameRow, MoveRow, SeatRow
from tessera.server.store.storage import Storage, Transaction

CACHE_GAMES = 4096
"""How many games the service keeps in memory (the rest are read and replayed when next used)."""

REQUESTED_KEPT = 256
"""Game objects kept per form of a create request (a game name with its parameters)."""


@dataclass
class Live:
    """A game as this process last stored or read it, valid for ``row.version``.

    The position is kept, not rebuilt: a move costs one clone and one step,
    whatever the game's length.  Only changed under the game's lock.
    """

    row: GameRow
    state: State
    moves: list[MoveRow]
    sealed: dict[int, str]
    """Sealed orders of the current simultaneous turn, by player."""
    move_dicts: list[dict[str, Any]] = field(default_factory=list)
    """``moves`` as the views show them (appended to, never rebuilt)."""
    n_moves: int = -1
    """How many of ``moves``/``move_dicts`` belong to this version (the lists are shared with later
    versions, which append to them): a view built from this object while a later move is being
    stored shows this version's moves only."""

    def __post_init__(self) -> None:
        if not self.move_dicts:
            self.move_dicts = [{"index": m.index, "player": m.player, "move": m.move} for m in self.moves]
        if self.n_moves < 0:
            self.n_moves = len(self.moves)


@dataclass
class Work:
    """A write in progress (see :meth:`Games.write`): change ``row``/``state``/``moves``/``sealed``
    by assignment (``row`` and ``sealed`` are private copies; ``state`` and ``moves`` are shared)."""

    tx: Transaction
    row: GameRow
    state: State
    moves: list[MoveRow]
    sealed: dict[int, str]


class Stale(Exception):
    """The stored game changed since this process cached it (another request or process wrote it)."""


class Unchanged(Exception):
    """A write found nothing to change: its transaction is rolled back."""


@dataclass
class _GameLock:
    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


def copy_row(row: GameRow) -> GameRow:
    """A copy of ``row`` whose clock, result and seats may be changed freely.  (Field by field
    through ``__dict__``: ``dataclasses.replace`` runs ``__init__`` again, four times slower, and
    every move makes one.)"""
    new = object.__new__(GameRow)
    new.__dict__.update(row.__dict__)
    if row.clock is not None:
        new.clock = copy.deepcopy(row.clock)
    if row.result is not None:
        new.result = copy.deepcopy(row.result)
    seats = []
    for s in row.seats:
        seat = object.__new__(SeatRow)
        seat.__dict__.update(s.__dict__)
        seats.append(seat)
    new.seats = seats
    return new


def columns(row: GameRow) -> dict[str, Any]:
    """The columns a move may change."""
    return {
        "clock": row.clock,
        "status": row.status,
        "result": row.result,
        "undo_request": row.undo_request,
        "draw_offer": row.draw_offer,
    }


def seat_of(row: GameRow, token: str | None, *, required: bool = True) -> int | None:
    """The seat ``token`` holds in ``row`` (None: no token, a spectator, when not ``required``)."""
    if not token:
        if required:
            raise ServiceError(401, "a seat token is needed for this (you are watching as a spectator)")
        return None
    given = token.encode("utf-8", "surrogatepass")  # any text: compare_digest refuses non-ASCII str
    for s in row.seats:
        if secrets.compare_digest(s.token.encode("ascii"), given):
            return s.seat
    raise ServiceError(403, f"this token does not hold a seat in game {row.id}")


def undo_waiting(row: GameRow, moves: list[MoveRow]) -> list[int]:
    """The seats whose answer the pending undo request still needs: every human seat other than
    the requester's that is taken, has not resigned and has not accepted yet."""
    if row.undo_request is None:
        return []
    resigned = {m.player for m in moves if m.move == RESIGN}
    return [
        s.seat
        for s in row.seats
        if s.kind == "human"
        and s.claimed
        and s.seat != row.undo_request
        and s.seat not in resigned
        and not row.undo_agreed >> s.seat & 1
    ]


def changed_event(row: GameRow) -> Changed:
    """The event announcing this process's change of the game ``row`` (stored)."""
    return Changed(
        row.id, True, any(s.kind == "ai" for s in row.seats), row.clock is not None, row.status == "finished", row.mode
    )


def after_move(row: GameRow, new: State, stepped: list[int], now: float) -> None:
    """Clocks, result and status after an accepted move (``row`` is changed; the caller stores it)."""
    if row.clock is not None:
        nxt = movers(new)
        for p in stepped:
            clock_stop(row.clock, p, now, turn_done=p not in nxt)
        if new.is_terminal():
            for p in range(len(row.clock["since"])):
                clock_stop(row.clock, p, now, turn_done=False)
        elif all(s.claimed for s in row.seats) or row.clock.get("from_creation"):
            clock_start(row.clock, nxt, now)
    if not stepped or any(row.seats[p].kind != "ai" for p in stepped):
        row.undo_request = None  # a move lets a pending undo request lapse (an AI seat's move does not)
    if row.draw_offer is not None and any(p != row.draw_offer for p in stepped or [SIMULTANEOUS]):
        row.draw_offer = None  # the offerer's opponent moved (or a joint turn was resolved): the offer lapses
    if new.is_terminal():
        row.status = "finished"
        row.result = rules_result(new)


class Games:
    """The games of this process: their locks, the in-memory cache and the storage behind it."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._locks: dict[str, _GameLock] = {}  # only games with a request in flight
        self._locks_guard = threading.Lock()
        self._cache: OrderedDict[str, Live] = OrderedDict()  # most recently used last
        self.guard = threading.Lock()
        """Guards the cache (and the views' render cache)."""
        self._games: dict[str, Game] = {}
        self._requested: OrderedDict[tuple[Any, ...], Game] = OrderedDict()

    # -- locks ---------------------------------------------------------------------------
    @contextmanager
    def locked(self, game_id: str) -> Iterator[None]:
        """Serialise this process's requests for one game (the lock is dropped when nobody holds or awaits it)."""
        with self._locks_guard:
            entry = self._locks.get(game_id)
            if entry is None:
                entry = self._locks[game_id] = _GameLock()
            entry.users += 1
        try:
            with entry.lock:
                yield
        finally:
            with self._locks_guard:
                entry.users -= 1
                if entry.users == 0:
                    del self._locks[game_id]

    @contextmanager
    def locked_now(self, game_id: str) -> Iterator[bool]:
        """:meth:`locked` without waiting: yields False (and holds nothing) if someone holds the game."""
        with self._locks_guard:
            entry = self._locks.get(game_id)
            if entry is None:
                entry = self._locks[game_id] = _GameLock()
            entry.users += 1
        got = entry.lock.acquire(blocking=False)
        try:
            yield got
        finally:
            if got:
                entry.lock.release()
            with self._locks_guard:
                entry.users -= 1
                if entry.users == 0:
                    del self._locks[game_id]

    def changed(self, game_id: str) -> Changed:
        """The event announcing this process's change of ``game_id`` (its flags read from memory)."""
        live = self.cached(game_id)
        if live is None:
            return Changed(game_id)
        return changed_event(live.row)

    def in_flight(self) -> int:
        """How many games have a request in flight (their locks are kept)."""
        return len(self._locks)

    # -- the cache -----------------------------------------------------------------------
    def game(self, spec: str, loaded: Game | None = None) -> Game:
        """The game object of a stored spec (shared: games are immutable; their geometry is computed once)."""
        g = self._games.get(spec)
        if g is None:
            g = self._games[spec] = loaded if loaded is not None else tessera.load_game(spec)
        return g

    def requested(self, spec: Any, params: dict[str, Any] | None = None) -> Game:
        """The game a request names (:func:`~tessera.server.match.inputs.load_or_refuse`: a refusal is a 422),
        kept per form of the request, so that creating a game does not build its board again (a Nume
        board of 216 cells is thousands of objects, all soon garbage)."""
        try:
            # (with each value's type: ``size=True`` or ``size=8.0`` is not ``size=8`` to a game's checks)
            key = (type(spec), spec, *sorted((k, type(v).__name__, v) for k, v in (params or {}).items()))
            hash(key)
        except TypeError:  # an unhashable parameter value: refused or accepted by the game's own checks
            return load_or_refuse(spec, params)
        with self.guard:
            g = self._requested.get(key)
            if g is not None:
                self._requested.move_to_end(key)
                return g
        loaded = load_or_refuse(spec, params)
        with self.guard:
            g = self.game(str(loaded), loaded)
            self._requested[key] = g
            while len(self._requested) > REQUESTED_KEPT:
                self._requested.popitem(last=False)
        return g

    def read(self, tx: Transaction, game_id: str, row: GameRow | None = None) -> Live:
        """The game as stored (the only place a position is rebuilt from its moves)."""
        row = row if row is not None else tables.get_game(tx, game_id)
        if row is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        moves = tables.moves(tx, game_id)
        state = replay_moves(self.game(row.spec), row.seed, moves)
        sealed = tables.sealed(tx, game_id, state.move_number()) if state.current_player() == SIMULTANEOUS else {}
        return Live(row, state, moves, sealed)

    def install(self, live: Live) -> None:
        """Keep ``live`` as the game's current version."""
        with self.guard:
            self._cache[live.row.id] = live
            self._cache.move_to_end(live.row.id)
            while len(self._cache) > CACHE_GAMES:
                self._cache.popitem(last=False)

    def cached(self, game_id: str) -> Live | None:
        """The game in memory (None: not there), without any check or lock."""
        with self.guard:
            live = self._cache.get(game_id)
            if live is not None:
                self._cache.move_to_end(game_id)
            return live

    def live(self, game_id: str, *, check: bool = True) -> Live:
        """The game (call under its lock): from memory, checked against the stored version when ``check``."""
        live = self.cached(game_id)
        if live is not None and not check:
            return live
        with self.storage.transaction() as tx:
            if live is not None:
                stored = tables.version(tx, game_id)
                if stored == live.row.version:
                    return live
                if stored is None:
                    raise ServiceError(404, f"there is no game {game_id!r}")
            live = self.read(tx, game_id)
        self.install(live)
        return live

    def current(self, game_id: str, *, check: bool = False) -> Live:
        """:meth:`live` under the game's lock."""
        with self.locked(game_id):
            return self.live(game_id, check=check)

    def reload(self, game_id: str) -> Live:
        """The game checked against the stored version (read again if it changed), under its lock."""
        return self.current(game_id, check=True)

    def fresh(self, live: Live) -> bool:
        """Whether ``live`` is still the stored version."""
        with self.storage.transaction() as tx:
            return tables.version(tx, live.row.id) == live.row.version

    def version(self, game_id: str) -> int:
        """The game's stored version (``ServiceError`` 404 if there is no such game)."""
        with self.storage.transaction() as tx:
            v = tables.version(tx, game_id)
        if v is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        return v

    def stored(self, game_id: str) -> tuple[GameRow, list[MoveRow]]:
        """The stored game and its moves (records read the database, never the cache)."""
        with self.storage.transaction() as tx:
            row = tables.get_game(tx, game_id)
            if row is None:
                raise ServiceError(404, f"there is no game {game_id!r}")
            return row, tables.moves(tx, game_id)

    # -- writing -------------------------------------------------------------------------
    @contextmanager
    def write(self, game_id: str) -> Iterator[Work]:
        """One change of a game, under its lock: the stored version is claimed first (from the cached
        version, or by reading the game again if another process changed it); the block changes the
        ``Work``; the new state is kept in memory only once the transaction has committed."""
        with self.locked(game_id):
            live = self.cached(game_id)
            with self.storage.transaction(write=True) as tx:
                if live is not None and tables.bump_version(tx, game_id, live.row.version):
                    row = copy_row(live.row)
                    row.version += 1
                else:
                    locked = tables.lock_game(tx, game_id)  # bumps the version: serialises writers of this game
                    if locked is None:
                        raise ServiceError(404, f"there is no game {game_id!r}")
                    live = self.read(tx, game_id, locked)
                    row = copy_row(live.row)
                work = Work(tx, row, live.state, live.moves, dict(live.sealed))
                yield work
                tx.changed(game_id)
            self.install(Live(work.row, work.state, work.moves, work.sealed))

    def advance(self, live: Live, row: GameRow, state: State, record: MoveRow | None, sealed: dict[int, str]) -> Live:
        """Keep a committed move in memory (call under the game's lock): the moves lists grow in place
        (``live`` keeps showing its own ``n_moves``), unless ``live`` is not their latest version (then
        they are copied)."""
        moves, dicts = live.moves, live.move_dicts
        if len(moves) != live.n_moves or len(dicts) != live.n_moves:
            moves, dicts = moves[: live.n_moves], dicts[: live.n_moves]
        if record is not None:
            moves.append(record)
            dicts.append({"index": record.index, "player": record.player, "move": record.move})
        new = Live(row, state, moves, sealed, dicts)
        self.install(new)
        return new
