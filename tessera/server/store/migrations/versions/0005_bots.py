"""Bots: accounts upgraded to bots (the bot API), with when their event stream was last open.

A new table only (``users.is_bot`` exists since 0004: it is set on upgrade).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("upgraded_at", sa.Float, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
    )
    op.create_index("ix_bots_seen_at", "bots", ["seen_at"])


def downgrade() -> None:
    # the 0004 code knows no bots but the AI accounts: upgraded accounts become people again
    op.execute(sa.text("UPDATE users SET is_bot = :no WHERE id IN (SELECT user_id FROM bots)").bindparams(no=False))
    op.drop_index("ix_bots_seen_at", table_name="bots")
    op.drop_table("bots")
