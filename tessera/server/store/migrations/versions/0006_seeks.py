"""The seek pool: one table of seeks (see tessera/server/seeks/tables.py).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
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
    )
    op.create_index("ix_seeks_status_created", "seeks", ["status", "created_at"])
    op.create_index("ix_seeks_client_status", "seeks", ["client", "status"])
    op.create_index("ix_seeks_user_updated", "seeks", ["user_id", "updated_at"])


def downgrade() -> None:
    op.drop_table("seeks")
