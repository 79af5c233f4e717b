"""What the accounts' stores share: the account (:class:`User`), the AI accounts' names, a seat's
result, a rating as the API shows it, and :class:`StoreBase` (reading an account).

:class:`~tessera.server.accounts.store.AccountStore` is built on it in three parts: reading
accounts (here), ratings and histories (:mod:`.history`), challenges (:mod:`.challenge_store`),
and the rest — creating, logging in, sessions, tokens, deleting, exporting, guest seats —
in :mod:`.store`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts import glicko2, security
from tessera.server.accounts.tables import (
    users_table,
)
from tessera.server.store.storage import Storage, Transaction

AI_LEVELS = range(1, 7)
"""The AI accounts: ``ai-level1`` … ``ai-level6`` (one account per level, a rating per game; level 6 plays
only the games that offer it, :mod:`tessera.server.ai.levels`)."""

DELETED_NAME = "Deleted player"
"""The neutral name a deleted account's seats are shown under."""

PAGE = 20
"""Games per page of a history."""

CHALLENGE_STATUSES = ("pending", "accepted", "declined", "cancelled")


@dataclass(frozen=True)
class User:
    """An account (never its password hash)."""

    id: str
    username: str
    is_bot: bool
    created_at: float
    deleted_at: float | None = None


def _user(r: Any) -> User:
    return User(r["id"], r["username"], bool(r["is_bot"]), r["created_at"], r["deleted_at"])


def ai_username(level: int) -> str:
    """The account of the AI at ``level`` (1 to 6)."""
    return f"ai-level{level}"


def seat_result(result: dict[str, Any] | None, seat: int) -> str:
    """``win``, ``loss``, ``draw`` or ``aborted`` for ``seat`` of a finished game (``returns``: a win is
    a return above every other seat's, a loss a return below another's)."""
    returns = (result or {}).get("returns")
    if not returns or seat >= len(returns):
        return "aborted"
    mine = returns[seat]
    others = [r for i, r in enumerate(returns) if i != seat]
    if all(mine > r for r in others):
        return "win"
    if any(r > mine for r in others):
        return "loss"
    return "draw"


def rating_public(r: glicko2.Rating, games: int) -> dict[str, Any]:
    """A rating as the API shows it."""
    return {"rating": round(r.rating), "rd": round(r.rd, 1), "provisional": r.provisional, "games": games}


class StoreBase:
    """Reading accounts: the part of :class:`~tessera.server.accounts.store.AccountStore` every other part uses."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # -- users -----------------------------------------------------------------------------
    def _get_user(self, tx: Transaction, **where: Any) -> User | None:
        q = sa.select(users_table)
        for k, v in where.items():
            q = q.where(users_table.c[k] == v)
        r = tx.conn.execute(q).mappings().first()
        return None if r is None else _user(r)

    def user(self, username: str, *, deleted: bool = False) -> User | None:
        """The account named ``username`` (any case); deleted accounts only with ``deleted``."""
        if not isinstance(username, str) or len(username) > 40:
            return None
        with self.storage.transaction() as tx:
            u = self._get_user(tx, username_key=security.username_key(username))
        if u is None or (u.deleted_at is not None and not deleted):
            return None
        return u

    def user_by_id(self, user_id: str) -> User | None:
        with self.storage.transaction() as tx:
            return self._get_user(tx, id=user_id)
