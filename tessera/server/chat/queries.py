"""The chat domain's queries for other domains: they call these, never the chat tables.

Each reads within the caller's :class:`~tessera.server.store.storage.Transaction` and answers plain
values (a message as a dict of its stored columns: ``id``, ``game_id``, ``room``, ``seat``, ``user_id``,
``name``, ``text``, ``created_at`` in seconds since the epoch).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from tessera.server.chat.tables import chat_messages_table
from tessera.server.store.storage import Transaction


def message(tx: Transaction, game_id: str, message_id: int) -> dict[str, Any] | None:
    """The message ``message_id`` of the chat of ``game_id`` (None: no such message in that game)."""
    m = chat_messages_table.c
    r = tx.conn.execute(sa.select(chat_messages_table).where(m.id == message_id, m.game_id == game_id)).mappings()
    row = r.first()
    return None if row is None else dict(row)


def messages_by(tx: Transaction, user_id: str, limit: int) -> list[dict[str, Any]]:
    """The messages written by the account ``user_id`` in any game's chat: at most ``limit``, the newest
    first."""
    m = chat_messages_table.c
    q = sa.select(chat_messages_table).where(m.user_id == user_id).order_by(m.id.desc()).limit(limit)
    return [dict(r) for r in tx.conn.execute(q).mappings()]
