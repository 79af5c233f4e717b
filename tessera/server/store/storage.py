"""Storage of games behind one interface (SQLAlchemy 2: SQLite by default, PostgreSQL by URL).

A game is stored as its parameters, seed and move list (the truth); the
position is always rebuilt by replaying the moves.  Tables (created by the
Alembic migrations in ``tessera/server/migrations``):

``games``
    one row per game: game name, one-string spec, parameters (JSON), seed,
    mode, status, result (JSON), clock (JSON), a pending undo request (and the
    seats that have agreed to it), a pending draw offer and a
    ``version`` counter that every writer bumps first, so that writers of one
    game are serialised (a row lock in PostgreSQL, the write lock in SQLite).
``seats``
    one row per seat: its unguessable token (unique), name, kind (``human`` or
    ``ai``), AI level and whether a person has claimed it.
``moves``
    one row per accepted move, primary key ``(game_id, move_index)``: two
    racing submissions for the same move index cannot both be stored.
``sealed_orders``
    Nelaxtam orders given but not yet resolved, primary key
    ``(game_id, move_index, player)``; never sent to anyone but their author.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from tessera.server.store.errors import Conflict

log = logging.getLogger("tessera.server.store.storage")

metadata = sa.MetaData()

games_table = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("spec", sa.Text, nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("mode", sa.String(16), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("public", sa.Boolean, nullable=False, default=False),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("clock", sa.Text, nullable=True),
    sa.Column("undo_request", sa.Integer, nullable=True),
    sa.Column("draw_offer", sa.Integer, nullable=True),
    sa.Column("undo_agreed", sa.Integer, nullable=True),
    sa.Column("version", sa.Integer, nullable=False, default=0),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

seats_table = sa.Table(
    "seats",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("token", sa.String(64), nullable=False, unique=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("level", sa.Integer, nullable=True),
    sa.Column("claimed", sa.Boolean, nullable=False, default=False),
)

moves_table = sa.Table(
    "moves",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("move_index", sa.Integer, primary_key=True),
    sa.Column("player", sa.Integer, nullable=False),
    sa.Column("move", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

sealed_table = sa.Table(
    "sealed_orders",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("move_index", sa.Integer, primary_key=True),
    sa.Column("player", sa.Integer, primary_key=True),
    sa.Column("order", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)


@dataclass
class SeatRow:
    """One seat of a stored game."""

    seat: int
    token: str
    name: str
    kind: str
    level: int | None
    claimed: bool


@dataclass
class GameRow:
    """One stored game (without its moves)."""

    id: str
    game: str
    spec: str
    params: dict[str, Any]
    seed: int
    mode: str
    status: str
    public: bool
    result: dict[str, Any] | None
    clock: dict[str, Any] | None
    undo_request: int | None
    version: int
    created_at: float
    updated_at: float
    seats: list[SeatRow] = field(default_factory=list)
    draw_offer: int | None = None
    """The seat whose draw offer waits for an answer (None: no offer)."""
    undo_agreed: int = 0
    """The seats that have accepted the pending undo request, as a bit mask (bit ``s``: seat ``s``)."""


@dataclass
class MoveRow:
    """One stored move; ``player`` is -2 (SIMULTANEOUS) for a joint move."""

    index: int
    player: int
    move: str


def default_database_url() -> str:
    """``TESSERA_DATABASE_URL`` if set, else an SQLite file in the user's data directory.

    The data directory is ``$XDG_DATA_HOME/tessera`` (``~/.local/share/tessera``);
    if it cannot be created, ``./tessera.db`` is used.
    """
    env = os.environ.get("TESSERA_DATABASE_URL")
    if env:
        return env
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "tessera"
    try:
        base.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{base / 'tessera.db'}"
    except OSError:
        return "sqlite:///tessera.db"


def sqlite_synchronous() -> str:
    """``TESSERA_SQLITE_SYNCHRONOUS``: ``NORMAL`` (default) or ``FULL``.

    In WAL mode both keep every committed transaction through a crash of the server process
    (``kill -9``): the commit has reached the operating system before it returns.  ``NORMAL``
    does not wait for the disk at each commit, so a power cut or a crash of the machine may
    lose the last transactions; ``FULL`` waits for the disk (an fsync per move: a few hundred
    moves/s at best).  A deployment that must survive power cuts without loss uses PostgreSQL
    (docs/deploy.md) or ``FULL``.
    """
    level = os.environ.get("TESSERA_SQLITE_SYNCHRONOUS", "NORMAL").strip().upper()
    if level not in ("NORMAL", "FULL"):
        raise ValueError(f"TESSERA_SQLITE_SYNCHRONOUS={level!r} is not accepted: expected NORMAL or FULL")
    return level


POOL_SIZE = 20
"""Database connections one process keeps open (plus ``POOL_OVERFLOW`` more under a burst): at least
the server's worker threads (``tessera.server.http.app.WORKER_THREADS``), so that no request waits for a
connection while holding a thread."""

POOL_OVERFLOW = 4


def make_engine(url: str, immediate: threading.local | None = None) -> Engine:
    """An engine for ``url``; SQLite gets a busy timeout, foreign keys on, WAL and the
    ``synchronous`` level of :func:`sqlite_synchronous`.  While ``immediate.on`` is true in a
    thread, its SQLite transactions begin ``IMMEDIATE`` (the write lock first)."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    if url.startswith("sqlite"):
        pool: dict[str, Any] = {}
        if ":memory:" not in url and url not in ("sqlite://", "sqlite:///"):
            pool = {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW}
        engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **pool)

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            # pysqlite's own transaction handling is disabled; SQLAlchemy emits BEGIN (its documented recipe)
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            if ":memory:" not in url and url not in ("sqlite://", "sqlite:///"):
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute(f"PRAGMA synchronous={sqlite_synchronous()}")
                # no checkpoint inside a commit (it waits for the disk while this process's writers
                # queue behind it): Storage's own thread checkpoints (Checkpointer)
                cur.execute("PRAGMA wal_autocheckpoint=0")
            cur.close()

        @sa.event.listens_for(engine, "begin")
        def _begin(conn: Any) -> None:
            conn.exec_driver_sql(
                "BEGIN IMMEDIATE" if immediate is not None and getattr(immediate, "on", False) else "BEGIN"
            )

        return engine
    return sa.create_engine(url, pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)


MIGRATION_LOCK = 0x7E55E4A
"""The PostgreSQL advisory lock key held while migrating."""


def run_migrations(engine: Engine) -> None:
    """Bring the database schema up to date (``alembic upgrade head``).

    On PostgreSQL the upgrade holds an advisory lock: server processes starting together
    migrate one after the other (the others then find the schema up to date).  A database whose
    revision is already the scripts' head (:func:`script_head`) is left alone without importing
    alembic (about 0.1 s of CPU at each start-up).
    """
    head = script_head()
    if head is not None:
        try:
            with engine.connect() as conn:
                current = [str(v) for v in conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars()]
        except sa.exc.DBAPIError:  # a new database: no version table yet
            current = []
        if current == [head]:
            return
    from alembic import command
    from alembic.config import Config

    here = Path(__file__).parent
    cfg = Config(str(here / "alembic.ini"))
    cfg.set_main_option("script_location", str(here / "migrations"))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


_HEAD: list[str] = []

_REVISION = re.compile(r"^revision\s*=\s*['\"]([^'\"]+)['\"]", re.M)
_DOWN = re.compile(r"^down_revision\s*=\s*(.*)$", re.M)


def script_head() -> str | None:
    """The newest migration's revision read from the scripts' text (cheap: no alembic); None when the
    scripts do not show exactly one head (alembic then decides)."""
    revisions: set[str] = set()
    downs: set[str] = set()
    for path in (Path(__file__).parent / "migrations" / "versions").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        rev, down = _REVISION.search(text), _DOWN.search(text)
        if rev is None or down is None:
            return None
        revisions.add(rev.group(1))
        downs.update(re.findall(r"['\"]([^'\"]+)['\"]", down.group(1)))
    heads = revisions - downs
    return heads.pop() if len(heads) == 1 else None


def schema_head() -> str:
    """The newest migration's revision (read once from the migration scripts)."""
    if not _HEAD:
        from alembic.config import Config
        from alembic.script import ScriptDirectory

        here = Path(__file__).parent
        cfg = Config(str(here / "alembic.ini"))
        cfg.set_main_option("script_location", str(here / "migrations"))
        _HEAD.append(str(ScriptDirectory.from_config(cfg).get_current_head()))
    return _HEAD[0]


def _dump(v: Any) -> str | None:
    return None if v is None else json.dumps(v, separators=(",", ":"))


def _load(v: str | None) -> Any:
    return None if v is None else json.loads(v)


_INSERT_MOVE = moves_table.insert()
"""Built once: SQLAlchemy then finds its compiled form by the statement's cached key."""

_BUMPS: dict[tuple[str, ...], sa.Update] = {}


def _bump_statement(columns: tuple[str, ...]) -> sa.Update:
    """``UPDATE games SET version = :b_next, <columns> WHERE id = :b_id AND version = :b_version``, built
    once per set of columns (building and keying a statement per move cost more than running it)."""
    stmt = _BUMPS.get(columns)
    if stmt is None:
        stmt = _BUMPS[columns] = (
            games_table.update()
            .where(games_table.c.id == sa.bindparam("b_id"), games_table.c.version == sa.bindparam("b_version"))
            .values(version=sa.bindparam("b_next"), **{c: sa.bindparam("b_" + c) for c in columns})
        )
    return stmt


def _bump_params(game_id: str, version: int, values: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The columns and bound values of :func:`_bump_statement` for :meth:`Transaction.bump_version`."""
    for key in ("result", "clock", "params"):
        if key in values:
            values[key] = _dump(values[key])
    values["updated_at"] = time.time()
    params = {"b_id": game_id, "b_version": version, "b_next": version + 1}
    params.update(("b_" + k, v) for k, v in values.items())
    return tuple(sorted(values)), params


_CLAIM_SEAT = (
    seats_table.update()
    .where(seats_table.c.game_id == sa.bindparam("c_game_id"), seats_table.c.seat == sa.bindparam("c_seat"))
    .values(claimed=True)
)


class Transaction:
    """Reads and writes of one database transaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    # -- games ---------------------------------------------------------------------------
    def insert_game(self, row: GameRow) -> None:
        """Store a new game and its seats."""
        self.conn.execute(
            games_table.insert().values(
                id=row.id,
                game=row.game,
                spec=row.spec,
                params=_dump(row.params),
                seed=row.seed,
                mode=row.mode,
                status=row.status,
                public=row.public,
                result=_dump(row.result),
                clock=_dump(row.clock),
                undo_request=row.undo_request,
                draw_offer=row.draw_offer,
                undo_agreed=row.undo_agreed,
                version=0,
                created_at=row.created_at,
                updated_at=row.updated_at,
            )
        )
        for s in row.seats:
            self.conn.execute(
                seats_table.insert().values(
                    game_id=row.id,
                    seat=s.seat,
                    token=s.token,
                    name=s.name,
                    kind=s.kind,
                    level=s.level,
                    claimed=s.claimed,
                )
            )

    def lock_game(self, game_id: str) -> GameRow | None:
        """Bump the game's version (serialising writers of this game) and read it."""
        res = self.conn.execute(
            games_table.update().where(games_table.c.id == game_id).values(version=games_table.c.version + 1)
        )
        if res.rowcount == 0:
            return None
        return self.get_game(game_id)

    def changed(self, game_id: str) -> None:
        """Announce a change of the game to the other server processes when this transaction commits
        (PostgreSQL ``NOTIFY``, see tessera.server.store.bus; nothing on SQLite)."""
        if self.conn.dialect.name == "postgresql":
            from tessera.server.store.bus import CHANNEL, notice

            self.conn.execute(sa.select(sa.func.pg_notify(CHANNEL, notice(game_id))))

    def version(self, game_id: str) -> int | None:
        """The game's stored version (None: no such game) — one indexed read."""
        v = self.conn.execute(sa.select(games_table.c.version).where(games_table.c.id == game_id)).scalar()
        return None if v is None else int(v)

    def bump_version(self, game_id: str, version: int, **values: Any) -> bool:
        """Claim the next version if the stored one is still ``version``, writing ``values`` with it.

        One ``UPDATE … WHERE id = ? AND version = ?``: False (nothing written) if another writer
        got there first.  Like :meth:`lock_game` it serialises writers of the game.
        """
        columns, params = _bump_params(game_id, version, values)
        res = self.conn.execute(_bump_statement(columns), params)
        return res.rowcount == 1

    def get_game(self, game_id: str) -> GameRow | None:
        """The game with its seats, or None."""
        r = self.conn.execute(sa.select(games_table).where(games_table.c.id == game_id)).mappings().first()
        if r is None:
            return None
        seats = [
            SeatRow(s["seat"], s["token"], s["name"], s["kind"], s["level"], bool(s["claimed"]))
            for s in self.conn.execute(
                sa.select(seats_table).where(seats_table.c.game_id == game_id).order_by(seats_table.c.seat)
            ).mappings()
        ]
        return GameRow(
            id=r["id"],
            game=r["game"],
            spec=r["spec"],
            params=_load(r["params"]),
            seed=int(r["seed"]),
            mode=r["mode"],
            status=r["status"],
            public=bool(r["public"]),
            result=_load(r["result"]),
            clock=_load(r["clock"]),
            undo_request=r["undo_request"],
            draw_offer=r["draw_offer"],
            undo_agreed=r["undo_agreed"] or 0,
            version=r["version"],
            created_at=r["created_at"],
            updated_at=r["updated_at"],
            seats=seats,
        )

    def update_game(self, game_id: str, **values: Any) -> None:
        """Update columns of a game (``result`` and ``clock`` are given as JSON-able values)."""
        for key in ("result", "clock", "params"):
            if key in values:
                values[key] = _dump(values[key])
        values["updated_at"] = time.time()
        self.conn.execute(games_table.update().where(games_table.c.id == game_id).values(**values))

    def claim_seat(self, game_id: str, seat: int) -> None:
        """Mark a seat as taken by a person."""
        self.conn.execute(_CLAIM_SEAT, {"c_game_id": game_id, "c_seat": seat})

    def list_games(self, *, status: str | None = None, public_only: bool = True, limit: int = 50) -> list[GameRow]:
        """Recent games, newest first."""
        q = sa.select(games_table.c.id).order_by(games_table.c.updated_at.desc()).limit(limit)
        if status is not None:
            q = q.where(games_table.c.status == status)
        if public_only:
            q = q.where(games_table.c.public.is_(True))
        out = []
        for (gid,) in self.conn.execute(q):
            g = self.get_game(gid)
            if g is not None:
                out.append(g)
        return out

    def open_games(self, *, limit: int = 50, offset: int = 0) -> list[GameRow]:
        """Public games in progress with a human seat nobody has taken, newest first: selected as open
        in the query itself (other games, however many, never crowd them out of a page)."""
        free_seat = (
            sa.select(seats_table.c.game_id)
            .where(seats_table.c.game_id == games_table.c.id)
            .where(seats_table.c.kind == "human")
            .where(seats_table.c.claimed.is_(False))
            .exists()
        )
        q = (
            sa.select(games_table.c.id)
            .where(games_table.c.status == "active")
            .where(games_table.c.public.is_(True))
            .where(free_seat)
            .order_by(games_table.c.created_at.desc(), games_table.c.id)
            .limit(limit)
            .offset(offset)
        )
        out = []
        for (gid,) in self.conn.execute(q):
            g = self.get_game(gid)
            if g is not None:
                out.append(g)
        return out

    # -- moves ---------------------------------------------------------------------------
    def moves(self, game_id: str) -> list[MoveRow]:
        """Every stored move in order."""
        rows = self.conn.execute(
            sa.select(moves_table.c.move_index, moves_table.c.player, moves_table.c.move)
            .where(moves_table.c.game_id == game_id)
            .order_by(moves_table.c.move_index)
        )
        return [MoveRow(i, p, m) for i, p, m in rows]

    def insert_move(self, game_id: str, index: int, player: int, move: str) -> None:
        """Store one move; ``Conflict`` if that move index is taken (the transaction is then void)."""
        try:
            self.conn.execute(
                _INSERT_MOVE,
                {"game_id": game_id, "move_index": index, "player": player, "move": move, "created_at": time.time()},
            )
        except IntegrityError as e:
            raise Conflict(f"move {index} of game {game_id} is already stored") from e

    def delete_moves_from(self, game_id: str, index: int) -> None:
        """Take back every move from ``index`` on."""
        self.conn.execute(
            moves_table.delete().where(moves_table.c.game_id == game_id, moves_table.c.move_index >= index)
        )

    # -- sealed orders -------------------------------------------------------------------
    def sealed(self, game_id: str, index: int) -> dict[int, str]:
        """The sealed orders for move ``index``, by player."""
        rows = self.conn.execute(
            sa.select(sealed_table.c.player, sealed_table.c.order).where(
                sealed_table.c.game_id == game_id, sealed_table.c.move_index == index
            )
        )
        return {p: o for p, o in rows}

    def insert_sealed(self, game_id: str, index: int, player: int, order: str) -> None:
        """Seal a player's order; ``Conflict`` if he already gave one for this move."""
        try:
            self.conn.execute(
                sealed_table.insert().values(
                    game_id=game_id, move_index=index, player=player, order=order, created_at=time.time()
                )
            )
        except IntegrityError as e:
            raise Conflict(f"player {player} has already sealed an order for move {index}") from e

    def delete_sealed(self, game_id: str) -> None:
        """Forget every sealed order of a game (after resolution or undo)."""
        self.conn.execute(sealed_table.delete().where(sealed_table.c.game_id == game_id))


CHECKPOINT_SECONDS = 1.0
"""How often an SQLite file's write-ahead log is copied back into the database (:class:`Checkpointer`)."""


class Checkpointer:
    """A thread that checkpoints an SQLite file's write-ahead log every ``CHECKPOINT_SECONDS``.

    SQLite's automatic checkpoint runs inside the commit that fills the log past 1,000 pages and
    waits for the disk there (``fsync``), while every other writer of the process queues behind
    that commit: a tail of hundreds of milliseconds every few hundred moves on a busy disk.  A
    ``PASSIVE`` checkpoint on a connection of its own blocks no writer and no reader; committed
    transactions are safe in the log meanwhile (it is replayed after a crash).
    """

    def __init__(self, path: str, every: float = CHECKPOINT_SECONDS) -> None:
        self.path = path
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tessera-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import sqlite3

        try:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        except sqlite3.Error:
            return
        try:
            while not self._stop.wait(self.every):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as e:  # e.g. the file went away; try again later
                    log.debug("checkpoint of %s failed: %s", self.path, e)
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:
            pass
        finally:
            conn.close()

    def stop(self) -> None:
        """Checkpoint once more and stop the thread."""
        self._stop.set()
        self._thread.join(10)


class Storage:
    """The database: run migrations once, then hand out transactions."""

    def __init__(self, url: str | None = None, *, migrate: bool = True) -> None:
        self.url = url or default_database_url()
        self.sqlite = self.url.startswith("sqlite")
        self._immediate = threading.local()
        self._write_lock = threading.Lock()
        self.engine = make_engine(self.url, self._immediate)
        self._checkpointer: Checkpointer | None = None
        self._now_conn: Any = None
        self._sql: dict[Any, tuple[str, tuple[str, ...], dict[str, Any]]] = {}
        self.loop_writer: Any = None
        """PostgreSQL: a :class:`tessera.server.store.pg_loop.LoopWriter` (moves stored on the event loop)."""
        if self.engine.dialect.name == "postgresql":
            from tessera.server.store.pg_loop import LoopWriter

            self.loop_writer = LoopWriter(self.url)
        if migrate:
            run_migrations(self.engine)
        path = self.engine.url.database if self.sqlite else None
        if path and path != ":memory:" and not path.startswith("file:"):
            self._checkpointer = Checkpointer(path)
        self.writes_now = self._checkpointer is not None and sqlite_synchronous() == "NORMAL"
        """Whether :meth:`append_move_now` may write on the calling thread: an SQLite file with
        ``synchronous=NORMAL``, where a commit is a write into the log without waiting for the disk
        (measured: 0.05 ms median, 0.1 ms p99 for a move's transaction)."""

    @contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[Transaction]:
        """One transaction: committed when the block ends, rolled back on an exception.

        ``write``: the transaction will write.  On SQLite this process's writers then queue on a
        lock of their own and begin ``IMMEDIATE``, instead of meeting in SQLite's busy handler
        (which sleeps and retries: long tails under load).  Readers never wait (WAL).
        """
        if not (write and self.sqlite):
            with self.engine.begin() as conn:
                yield Transaction(conn)
            return
        with self._write_lock:
            self._immediate.on = True
            try:
                with self.engine.begin() as conn:
                    self._immediate.on = False
                    yield Transaction(conn)
            finally:
                self._immediate.on = False

    def append_move_now(
        self,
        game_id: str,
        version: int,
        values: dict[str, Any],
        move: tuple[int, int, str],
        claim_seat: int | None = None,
    ) -> bool | None:
        """A move's whole transaction, begun and committed at once on the calling thread (the
        event loop): :meth:`Transaction.bump_version` from ``version`` with ``values``, the seat
        claimed if ``claim_seat`` is given, :meth:`Transaction.insert_move` of ``move``
        (index, player, text).

        The same statements as :meth:`Transaction.bump_version`, ``claim_seat`` and
        ``insert_move`` (compiled once from the same SQLAlchemy statements), run on one SQLite
        connection kept for this path, without SQLAlchemy's execution layer (which cost about
        three quarters of the transaction).  It begins only if nothing has to be waited for:
        :attr:`writes_now`, no other writer of this process holds the write lock, and no other
        process holds SQLite's (``BEGIN IMMEDIATE`` with no busy wait).  True: committed.
        False: the stored version was not ``version``.  None: it would have had to wait (the
        caller tries again later on the loop, or writes in a worker thread with
        :meth:`transaction`).  ``Conflict``: the move index is taken.  Nothing is written unless
        True.
        """
        import sqlite3

        if not self.writes_now or not self._write_lock.acquire(blocking=False):
            return None
        try:
            conn = self._now_connection()
            columns, params = _bump_params(game_id, version, values)
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # SQLITE_BUSY: another process is writing
                return None
            try:
                if conn.execute(*self._compiled(_bump_statement(columns), params)).rowcount != 1:
                    conn.execute("ROLLBACK")
                    return False
                if claim_seat is not None:
                    conn.execute(*self._compiled(_CLAIM_SEAT, {"c_game_id": game_id, "c_seat": claim_seat}))
                index, player, text = move
                row = {"game_id": game_id, "move_index": index, "player": player, "move": text}
                row["created_at"] = time.time()
                try:
                    conn.execute(*self._compiled(_INSERT_MOVE, row))
                except sqlite3.IntegrityError as e:
                    conn.execute("ROLLBACK")
                    raise Conflict(f"move {index} of game {game_id} is already stored") from e
                conn.execute("COMMIT")
                return True
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        finally:
            self._write_lock.release()

    def _now_connection(self) -> Any:
        """The SQLite connection of :meth:`append_move_now` (opened on first use, with the pragmas
        of :func:`make_engine` and no busy wait: a busy database sends the move to a thread)."""
        conn = self._now_conn
        if conn is None:
            import sqlite3

            conn = sqlite3.connect(self.engine.url.database or "", isolation_level=None, check_same_thread=False)
            for pragma in (
                "foreign_keys=ON",
                f"synchronous={sqlite_synchronous()}",
                "wal_autocheckpoint=0",
                "busy_timeout=0",
            ):
                conn.execute(f"PRAGMA {pragma}")
            self._now_conn = conn
        return conn

    def _compiled(self, stmt: Any, params: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        """``stmt`` as SQLite text with its positional values (the compiled form kept per statement)."""
        c = self._sql.get(stmt)
        if c is None:
            comp = stmt.compile(dialect=self.engine.dialect)
            c = self._sql[stmt] = (
                comp.string,
                tuple(comp.positiontup or ()),
                {k: v for k, v in comp.params.items() if v is not None},
            )
        fixed = c[2]  # values written into the statement itself (e.g. ``claimed=True``)
        return c[0], tuple(params[k] if k in params else fixed[k] for k in c[1])

    def schema_versions(self) -> tuple[str | None, str]:
        """The database's migration revision (None: not migrated) and the newest one; raises the
        driver's error when the database does not answer."""
        with self.engine.connect() as conn:
            row = conn.exec_driver_sql("SELECT version_num FROM alembic_version").first()
        return (None if row is None else str(row[0])), schema_head()

    def dispose(self) -> None:
        """Close every pooled connection (and stop the SQLite checkpoint thread)."""
        if self.loop_writer is not None:
            self.loop_writer.close()
        if self._now_conn is not None:
            self._now_conn.close()
            self._now_conn = None
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        self.engine.dispose()
