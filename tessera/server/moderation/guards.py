"""What other domains ask of moderation, inside their own transactions: blocks between accounts, a
muted account's chat, and the accounts marked as engine users.  Each is one query on the moderation
tables and imports no other domain."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.queries import seat_holders_of
from tessera.server.accounts.security import Refused
from tessera.server.moderation.tables import blocks_table, moderation_accounts_table


def blockers_of(tx: Any, sender_id: str, receiver_ids: Iterable[str]) -> set[str]:
    """Those of ``receiver_ids`` who block ``sender_id``."""
    ids = [r for r in receiver_ids if r]
    if not ids:
        return set()
    b = blocks_table
    rows = tx.conn.execute(sa.select(b.c.user_id).where(b.c.blocked_id == sender_id, b.c.user_id.in_(ids)))
    return {r[0] for r in rows}


def refuse_blocked_challenge(tx: Any, sender_id: str, receiver_ids: Iterable[str]) -> None:
    """Refuse (403) a challenge from ``sender_id`` to an account that blocks him."""
    if blockers_of(tx, sender_id, receiver_ids):
        raise Refused(
            403, "this player does not accept challenges from you", key="refusal.moderation.challenge_blocked"
        )


def blocked_pairs(tx: Any, user_ids: Iterable[str]) -> set[frozenset[str]]:
    """The pairs among ``user_ids`` where one blocks the other (seeks never pair them)."""
    ids = sorted({u for u in user_ids if u})
    if len(ids) < 2:
        return set()
    b = blocks_table
    rows = tx.conn.execute(sa.select(b.c.user_id, b.c.blocked_id).where(b.c.user_id.in_(ids), b.c.blocked_id.in_(ids)))
    return {frozenset(r) for r in rows}


def blocked_by(tx: Any, user_ids: Iterable[str]) -> dict[str, set[str]]:
    """For each of ``user_ids``: the accounts it blocks."""
    ids = [u for u in user_ids if u]
    if not ids:
        return {}
    b = blocks_table
    out: dict[str, set[str]] = {}
    for uid, blocked in tx.conn.execute(sa.select(b.c.user_id, b.c.blocked_id).where(b.c.user_id.in_(ids))):
        out.setdefault(uid, set()).add(blocked)
    return out


def refuse_muted_chat(tx: Any, user_id: str) -> None:
    """Refuse (403) a chat line of an account the moderators muted."""
    m = moderation_accounts_table
    muted = tx.conn.execute(sa.select(m.c.chat_muted).where(m.c.user_id == user_id)).scalar()
    if muted:
        raise Refused(403, "your chat has been muted by the moderators", key="refusal.moderation.chat_muted")


def engine_marked() -> sa.Select[Any]:
    """The ids of accounts marked as engine users (a subquery: the leaderboards leave them out)."""
    m = moderation_accounts_table
    return sa.select(m.c.user_id).where(m.c.engine.is_(True))


def blocked_at_seats(tx: Any, game_id: str, seats: Iterable[int]) -> dict[int | None, set[str]]:
    """For each of a game's ``seats`` held by an account: the accounts that account blocks (their
    chat lines do not reach that seat)."""
    holders = seat_holders_of(tx, game_id, seats)
    blocks = blocked_by(tx, holders.values())
    return {seat: blocks[uid] for seat, uid in holders.items() if uid in blocks}
