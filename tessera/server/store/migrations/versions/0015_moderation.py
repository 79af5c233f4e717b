"""Moderation: the admin role and account standing, blocks, reports, the moderators' log, engine-use
signals (see tessera/server/moderation/tables.py).  New tables only.

Revision ID: 0015_moderation
Revises: 0014_account_security
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_moderation"
down_revision = "0014_account_security"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "moderation_accounts",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("is_admin", sa.Boolean, nullable=False),
        sa.Column("chat_muted", sa.Boolean, nullable=False),
        sa.Column("engine", sa.Boolean, nullable=False),
        sa.Column("warnings", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "blocks",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("blocked_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_blocks_blocked", "blocks", ["blocked_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("target_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("message_id", sa.Integer, nullable=True),
        sa.Column("evidence", sa.Text, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("closed_at", sa.Float, nullable=True),
        sa.Column("closed_by", sa.String(32), nullable=True),
    )
    op.create_index("ix_reports_status", "reports", ["status", "created_at"])
    op.create_index("ix_reports_target", "reports", ["target_id"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("moderator_id", sa.String(32), nullable=True),
        sa.Column("target_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("report_id", sa.Integer, nullable=True),
    )
    op.create_index("ix_moderation_log_target", "moderation_log", ["target_id", "at"])
    op.create_table(
        "engine_signals",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("share", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("iterations", sa.Integer, nullable=False),
        sa.Column("computed_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("engine_signals", "moderation_log", "reports", "blocks", "moderation_accounts"):
        op.drop_table(name)
