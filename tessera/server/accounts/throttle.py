"""Password checks and sign-ups, counted before the work is done.

An attempt is *reserved* first: in one write transaction its rows are written under each of its
throttle keys and the keys are counted; over a limit, the transaction is rolled back and the
attempt refused (429 with ``Retry-After``) before any Argon2 hash is computed.  Concurrent attempts
queue on the keys (SQLite: the write lock and ``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level
advisory lock per key, taken in a fixed order), so a burst of 40 guesses checks at most the
limit's worth of passwords.  When the password was right the reservation is taken back: only
failures are left to count.

Which keys a log-in counts under (docs/security.md says why):

``pair``
    the account *and* the address (:data:`ACCOUNT_FAILURES`): one address guessing one account;
``addr``
    the address (:data:`ADDRESS_FAILURES`): one address guessing many accounts;
``user``
    the account from devices and addresses it never logged in from (:data:`UNKNOWN_FAILURES`):
    many addresses guessing one account.  The owner, on a device or at an address where the
    account logged in before (:data:`KNOWN_FOR`), is not counted here and not stopped by it;
``device``
    the account on one known device (:data:`ACCOUNT_FAILURES`), instead of the three above.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tessera.server.accounts import security
from tessera.server.accounts.security import Refused
from tessera.server.accounts.tables import known_logins_table, login_failures_table
from tessera.server.store.storage import Storage, Transaction

WINDOW = 15 * 60.0
"""Attempts are counted over the last 15 minutes."""

ACCOUNT_FAILURES = 10
"""Failed password checks on one account from one address (or one known device) within the window."""

ADDRESS_FAILURES = 30
"""Failed password checks from one address within the window, over every account."""

UNKNOWN_FAILURES = 50
"""Failed password checks on one account from devices and addresses it never logged in from, within
the window (a guessing spread over many addresses)."""

KNOWN_FOR = 90 * 24 * 3600.0
"""A device or address stays known to an account this long after its last log-in there."""


@dataclass(frozen=True)
class Reservation:
    """The rows an attempt wrote (taken back with :meth:`Throttle.release`)."""

    ids: tuple[int, ...]


class Throttle:
    """The attempts of one database."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def reserve(self, limits: list[tuple[str, int]]) -> Reservation:
        """Count one attempt under each ``(key, limit)``; ``Refused`` (429, nothing written) if any key
        holds ``limit`` attempts in the window already."""
        now = time.time()
        since = now - WINDOW
        refusal: Refused | None = None
        with self.storage.transaction(write=True) as tx:
            self._lock(tx, sorted({k for k, _ in limits}))
            for key, limit in limits:
                rows = tx.conn.execute(
                    sa.select(login_failures_table.c.at)
                    .where(login_failures_table.c.key == key, login_failures_table.c.at > since)
                    .order_by(login_failures_table.c.at.desc())
                    .limit(limit)
                ).all()
                if len(rows) >= limit:
                    retry = max(1, int(rows[-1][0] + WINDOW - now) + 1)
                    refusal = Refused(
                        429,
                        f"too many attempts; try again in {retry} s",
                        {"Retry-After": str(retry)},
                        key="refusal.account.too_many_attempts",
                        args={"seconds": retry},
                    )
                    break
            if refusal is None:
                ids = []
                for key, _ in limits:
                    made = tx.conn.execute(login_failures_table.insert().values(key=key, at=now)).inserted_primary_key
                    assert made is not None
                    ids.append(int(made[0]))
                tx.conn.execute(login_failures_table.delete().where(login_failures_table.c.at < since))
        if refusal is not None:
            raise refusal
        return Reservation(tuple(ids))

    def release(self, reservation: Reservation) -> None:
        """Take an attempt back (its password was right, or nothing was checked)."""
        if reservation.ids:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(login_failures_table.delete().where(login_failures_table.c.id.in_(reservation.ids)))

    def _lock(self, tx: Transaction, keys: list[str]) -> None:
        """PostgreSQL: hold each key's advisory lock to the end of the transaction (SQLite's writers
        are one at a time already)."""
        if tx.conn.dialect.name != "postgresql":
            return
        for key in keys:
            tx.conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"), {"k": "throttle:" + key})

    # -- known devices and addresses -------------------------------------------------------------
    def known(self, user_id: str, keys: list[str]) -> set[str]:
        """Those of ``keys`` (:func:`device_key`, :func:`address_key`) the account logged in from lately."""
        if not keys:
            return set()
        k = known_logins_table.c
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(
                sa.select(k.key).where(k.user_id == user_id, k.key.in_(keys), k.last_seen > time.time() - KNOWN_FOR)
            ).scalars()
            return set(rows)

    def remember(self, user_id: str, keys: list[str]) -> None:
        """Note a log-in of the account from these device and address keys."""
        now = time.time()
        k = known_logins_table.c
        try:
            with self.storage.transaction(write=True) as tx:
                for key in keys:
                    done = tx.conn.execute(
                        known_logins_table.update().where(k.user_id == user_id, k.key == key).values(last_seen=now)
                    )
                    if not done.rowcount:
                        tx.conn.execute(known_logins_table.insert().values(user_id=user_id, key=key, last_seen=now))
                tx.conn.execute(known_logins_table.delete().where(k.last_seen < now - KNOWN_FOR))
        except IntegrityError:  # a log-in of the same device at the same moment noted it first
            pass


def device_key(user_id: str, device: str) -> str:
    """The stored key of a device cookie for an account (a hash: the table holds no cookie)."""
    return security.throttle_key("device", f"{user_id}:{device}")


def address_key(user_id: str, address: str) -> str:
    """The stored key of an address for an account (a hash: the table holds no address)."""
    return security.throttle_key("known-address", f"{user_id}:{address}")


def login_limits(account: str, address: str, *, device: str | None, known_address: bool) -> list[tuple[str, int]]:
    """The keys and limits a log-in to ``account`` (its lower-case name) is counted under: with a
    known ``device``, that device's own; from a known address, the account's with the address and
    the address's; else those and the account's from unknown places."""
    if device is not None:
        return [(security.throttle_key("device-login", f"{account}:{device}"), ACCOUNT_FAILURES)]
    limits = [
        (security.throttle_key("pair", f"{account}:{address}"), ACCOUNT_FAILURES),
        (security.throttle_key("addr", address), ADDRESS_FAILURES),
    ]
    if not known_address:
        limits.append((security.throttle_key("user", account), UNKNOWN_FAILURES))
    return limits
