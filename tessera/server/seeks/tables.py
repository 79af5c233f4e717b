"""The ``seeks`` table (created by the migration ``0006_seeks``), on the games' metadata.

One row per seek: ``id``; ``secret_hash`` (SHA-256 of the secret the seeker's browser holds);
``user_id`` (None for a guest); ``client`` (whose seek it is: ``user:<id>`` or a digest of a
guest's address); the game ``spec`` and rating ``pool``; ``rated``; ``clock`` (its settings,
JSON); ``kind`` (what must match for two seeks to pair: spec, rated, clock); the seeker's
``rating`` and ``rd`` when the seek was made; ``status`` (open, pairing, paired, ai,
cancelled, expired); once paired the ``game_id``, the seeker's ``seat`` and seat ``token``;
``created_at``, ``seen_at`` (last time the seeker was heard from) and ``updated_at``.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import metadata

seeks_table = sa.Table(
    "seeks",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("secret_hash", sa.String(64), nullable=False),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
    sa.Column("client", sa.String(64), nullable=False),
    sa.Column("spec", sa.Text, nullable=False),
    sa.Column("pool", sa.String(32), nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("clock", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("token", sa.String(64), nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Index("ix_seeks_status_created", "status", "created_at"),
    sa.Index("ix_seeks_client_status", "client", "status"),
    sa.Index("ix_seeks_user_updated", "user_id", "updated_at"),
)
