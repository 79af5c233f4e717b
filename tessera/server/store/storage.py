"""The database behind one interface (SQLAlchemy 2: SQLite by default, PostgreSQL by URL): the engine,
migrations, transactions.

Every domain defines its tables in its own ``tables`` module on the one :data:`metadata` here (the
match domain's games, seats, moves and sealed orders in :mod:`tessera.server.match.tables`); the
tables are created by the Alembic migrations in ``tessera/server/store/migrations``.  This module
names no table and imports no domain.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from tessera.server.store.errors import Conflict

log = logging.getLogger("tessera.server.store.storage")

metadata = sa.MetaData()
"""The server's tables, each defined by its domain's ``tables`` module (Alembic's target)."""


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


class Transaction:
    """Reads and writes of one database transaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def changed(self, game_id: str) -> None:
        """Announce a change of the game to the other server processes when this transaction commits
        (PostgreSQL ``NOTIFY``, see tessera.server.store.bus; nothing on SQLite)."""
        if self.conn.dialect.name == "postgresql":
            from tessera.server.store.bus import CHANNEL, notice

            self.conn.execute(sa.select(sa.func.pg_notify(CHANNEL, notice(game_id))))


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

    def write_now(self, steps: Sequence[tuple[Any, dict[str, Any], bool, str | None]]) -> bool | None:
        """One transaction of ``steps``, begun and committed at once on the calling thread (the event
        loop, for a move: :func:`tessera.server.match.tables.append_move_now`).

        Each step is ``(statement, values, one_row, taken)``: a SQLAlchemy statement with its bound
        values by name; ``one_row``: the statement must change exactly one row (else nothing is
        written and the answer is False); ``taken``: the message of the ``Conflict`` raised when a
        unique key refuses the statement (None: the driver's error is raised as it is).  The steps run
        on one SQLite connection kept for this path, compiled once per statement, without
        SQLAlchemy's execution layer (which cost about three quarters of a move's transaction).  It
        begins only if nothing has to be waited for: :attr:`writes_now`, no other writer of this
        process holds the write lock, and no other process holds SQLite's (``BEGIN IMMEDIATE`` with no
        busy wait).  True: committed.  False: a ``one_row`` step changed no row.  None: it would have
        had to wait (the caller writes another way).  Nothing is written unless True.
        """
        import sqlite3

        if not self.writes_now or not self._write_lock.acquire(blocking=False):
            return None
        try:
            conn = self._now_connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # SQLITE_BUSY: another process is writing
                return None
            try:
                for stmt, values, one_row, taken in steps:
                    try:
                        done = conn.execute(*self._compiled(stmt, values))
                    except sqlite3.IntegrityError as e:
                        if taken is None:
                            raise
                        conn.execute("ROLLBACK")
                        raise Conflict(taken) from e
                    if one_row and done.rowcount != 1:
                        conn.execute("ROLLBACK")
                        return False
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

    @contextmanager
    def sole(self, key: int, local: threading.Lock) -> Iterator[bool]:
        """Whether the caller may now run a job that one process at a time runs (a wave of the seek
        pool, of the tournaments): ``local`` taken without waiting (one thread of this process), and on
        PostgreSQL the session advisory lock ``key`` (one process of those sharing the database).
        Yields False, holding nothing, while either is held elsewhere; both are released on leaving."""
        if not local.acquire(blocking=False):
            yield False
            return
        try:
            if self.engine.dialect.name != "postgresql":
                yield True
                return
            with self.engine.connect() as conn:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                got = bool(conn.execute(sa.select(sa.func.pg_try_advisory_lock(key))).scalar())
                try:
                    yield got
                finally:
                    if got:
                        conn.execute(sa.select(sa.func.pg_advisory_unlock(key)))
        finally:
            local.release()

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
