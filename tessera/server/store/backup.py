"""``tessera admin backup`` and ``tessera admin restore``: a consistent copy of a live database.

- **SQLite**: SQLite's online backup API (``sqlite3.Connection.backup``) copies the database page by
  page while the server keeps writing; the copy is one consistent state of it (the backup restarts
  when another connection writes a copied page, and the last pass holds the read lock).
- **PostgreSQL**: ``pg_dump --format=custom`` reads every table in one repeatable-read snapshot, so
  the dump holds exactly the transactions committed when it began; ``pg_restore`` loads it into an
  empty database. The password goes to the tools through ``PGPASSWORD``, never on their command line.

A restore refuses a database that already holds tables: it never mixes a backup into live data.
"""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""

PG_DUMP_MAGIC = b"PGDMP"
"""The first bytes of a ``pg_dump --format=custom`` archive."""

SQLITE_PAGES_PER_STEP = 1024
"""Pages copied per step of the online backup (the server may write between steps)."""


class BackupError(RuntimeError):
    """A backup or restore that could not be made; the message says why and what to do."""


@dataclass(frozen=True)
class Made:
    """What a backup or restore did."""

    kind: str
    """``"sqlite"`` or ``"postgresql"``."""
    path: Path
    """The backup file."""
    size: int
    """The backup file's size in bytes."""


def _kind(url: str) -> str:
    if url.startswith("sqlite"):
        return "sqlite"
    if url.startswith("postgresql"):
        return "postgresql"
    raise BackupError(
        f"cannot back up {url.split(':', 1)[0]!r} databases: expected sqlite:/// or postgresql+psycopg://"
    )


def sqlite_path(url: str) -> Path:
    """The file of an ``sqlite:///PATH`` URL (an in-memory database has none)."""
    import sqlalchemy as sa

    database = sa.engine.make_url(url).database
    if not database or database == ":memory:":
        raise BackupError(f"{url!r} is not an SQLite file")
    return Path(database)


def postgres_tool(name: str) -> str:
    """``pg_dump`` or ``pg_restore``: the newest PostgreSQL's (it must not be older than the server), else PATH's."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    exe = found[-1] if found else shutil.which(name)
    if not exe:
        raise BackupError(
            f"{name} was not found: install PostgreSQL's client programs (apt-get install postgresql-client)"
        )
    return exe


def libpq_environment(url: str) -> dict[str, str]:
    """The connection of a SQLAlchemy PostgreSQL URL as libpq's variables (``PGHOST``, ``PGPASSWORD`` …)."""
    import sqlalchemy as sa

    u = sa.engine.make_url(url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    parts = {
        "PGHOST": u.host,
        "PGPORT": u.port,
        "PGUSER": u.username,
        "PGPASSWORD": u.password,
        "PGDATABASE": u.database,
    }
    env.update({k: str(v) for k, v in parts.items() if v is not None})
    host = u.query.get("host")  # a Unix socket folder: postgresql+psycopg://user@/db?host=/run/postgresql
    if isinstance(host, str):
        env["PGHOST"] = host
    return env


def backup(url: str, path: str | os.PathLike[str]) -> Made:
    """Write a consistent copy of the database at ``url`` to ``path`` (which must not exist) while it is in use."""
    target = Path(path)
    if target.exists():
        raise BackupError(f"{target} already exists: choose a new file name (a backup never overwrites a file)")
    if not target.parent.is_dir():
        raise BackupError(f"the folder {target.parent} does not exist")
    kind = _kind(url)
    partial = target.with_name(target.name + ".partial")
    try:
        if kind == "sqlite":
            source = sqlite_path(url)
            if not source.exists():
                raise BackupError(f"the database file {source} does not exist")
            src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
            dst = sqlite3.connect(partial)
            try:
                src.execute("PRAGMA busy_timeout = 10000")
                src.backup(dst, pages=SQLITE_PAGES_PER_STEP)
                dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            finally:
                dst.close()
                src.close()
        else:
            done = subprocess.run(
                [postgres_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", f"--file={partial}"],
                env=libpq_environment(url),
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise BackupError(f"pg_dump failed: {done.stderr.strip()}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return Made(kind, target, target.stat().st_size)


def _has_tables(url: str) -> list[str]:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        return sorted(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def restore(path: str | os.PathLike[str], url: str) -> Made:
    """Load the backup file ``path`` into the empty database at ``url`` (a new SQLite file, or an empty
    PostgreSQL database made with ``createdb``)."""
    source = Path(path)
    if not source.is_file():
        raise BackupError(f"the backup file {source} does not exist")
    with open(source, "rb") as f:
        head = f.read(16)
    kind = _kind(url)
    made = "sqlite" if head == SQLITE_MAGIC else "postgresql" if head.startswith(PG_DUMP_MAGIC) else None
    if made is None:
        raise BackupError(f"{source} is not a tessera backup (neither an SQLite file nor a pg_dump archive)")
    if made != kind:
        raise BackupError(f"{source} is a backup of an {made} database; it cannot be restored into {kind}")
    if kind == "sqlite":
        target = sqlite_path(url)
        if target.exists() and target.stat().st_size > 0:
            raise BackupError(f"{target} already exists: restore into a new file (a restore never overwrites data)")
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = WAL")  # as the server keeps it
        finally:
            dst.close()
            src.close()
        return Made(kind, source, source.stat().st_size)
    present = _has_tables(url)
    if present:
        raise BackupError(
            f"the database already holds tables ({', '.join(present[:5])}…): restore into an empty database "
            "(createdb NAME), never over live data"
        )
    env = libpq_environment(url)
    options = ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction"]
    done = subprocess.run(
        [postgres_tool("pg_restore"), *options, f"--dbname={env.get('PGDATABASE', '')}", str(source)],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise BackupError(f"pg_restore failed (nothing was restored): {done.stderr.strip()}")
    return Made(kind, source, source.stat().st_size)
