"""The match domain's queries for other domains: they call these, never the match tables.

Each takes a :class:`~tessera.server.store.storage.Storage` and answers plain values (ids,
numbers), so a caller needs neither the tables nor the rows of the match domain.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import Storage, seats_table


def human_seats(storage: Storage, tokens: list[str]) -> list[tuple[str, int]]:
    """The human seats the seat ``tokens`` hold, as ``(game id, seat)`` sorted; tokens of no seat
    (or of an AI seat) are left out; ``[]`` for no tokens (no query)."""
    if not tokens:
        return []
    with storage.transaction() as tx:
        rows = tx.conn.execute(
            sa.select(seats_table.c.game_id, seats_table.c.seat).where(
                seats_table.c.token.in_(tokens), seats_table.c.kind == "human"
            )
        )
        return sorted((str(r.game_id), int(r.seat)) for r in rows)
