"""Storage failures a client can act on: the database unreachable, full or read-only.

They are answered ``503`` with ``Retry-After`` and a JSON ``detail`` (never a plain-text 500):
a retry a moment later (a database restarting, a lock released) usually succeeds, and a move's
expected move number makes its retry safe.
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa

STORAGE_ERRORS: tuple[type[Exception], ...] = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
    sqlite3.OperationalError,
)
"""The exception classes that mean "the storage cannot serve now" (not a bad request)."""

try:
    import psycopg

    STORAGE_ERRORS += (psycopg.OperationalError,)
except ImportError:  # SQLite only
    pass


def storage_trouble(exc: BaseException) -> tuple[str, int]:
    """What to tell the client about a storage failure, and how many seconds it should wait."""
    text = str(getattr(exc, "orig", None) or exc).lower()
    if "readonly" in text or "read-only" in text or "read only" in text:
        return "the server's storage is read-only for now: nothing was changed; try again later", 30
    if "full" in text or "no space" in text:
        return "the server's storage is full for now: nothing was changed; try again later", 30
    if "locked" in text or "busy" in text:
        return "the server's storage is busy: nothing was changed; try again in a moment", 1
    return "the server's storage is unavailable for a moment: nothing was changed; try again shortly", 2
