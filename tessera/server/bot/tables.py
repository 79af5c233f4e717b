"""The bot API's table (created by the migration ``0005_bots``), on the games' metadata.

``bots``
    one row per account upgraded to a bot (``POST /api/bot/account/upgrade``): ``user_id``,
    ``upgraded_at``, and ``seen_at`` — the last time its event stream was open (written every
    few seconds while it is, on whichever server process holds it; 0 once it closes): the
    lobby's "online bots".  The account's ``users.is_bot`` is set too (the AI accounts
    ``ai-level1`` … have ``is_bot`` but no row here).
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import metadata

bots_table = sa.Table(
    "bots",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("upgraded_at", sa.Float, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False, default=0.0),
    sa.Index("ix_bots_seen_at", "seen_at"),
)
