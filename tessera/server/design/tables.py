"""The ``design_studies`` table (created by the migration ``0012_design``), on the games' metadata.

One row per study: ``id``; ``user_id`` (the account that asked); ``game`` (the game's name);
``variants`` (JSON list of game strings); ``agent`` (the spec playing every seat); ``games`` (per
variant); ``status`` (queued, running, done, cancelled, failed); ``results`` (JSON list of the
finished games' records, :class:`tessera.arena.play.GameResult` as dicts, appended one game at a
time); ``error`` (why a study failed); ``holder`` and ``lease_until`` (the server process playing it
and until when its claim holds: another process takes the study over once the lease has run out);
``created_at`` and ``updated_at``.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import metadata

design_studies_table = sa.Table(
    "design_studies",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("variants", sa.Text, nullable=False),
    sa.Column("agent", sa.String(80), nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("results", sa.Text, nullable=False),
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("holder", sa.String(32), nullable=True),
    sa.Column("lease_until", sa.Float, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Index("ix_design_studies_user_created", "user_id", "created_at"),
    sa.Index("ix_design_studies_status", "status"),
)
