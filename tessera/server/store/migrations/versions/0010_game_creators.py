"""Who created each game: the lobby's per-creator cap and the cap on games whose every seat is an AI
hold across server processes and restarts, and the lobby orders open games by the creator's rating.

A new table only (``game_creators``): a game without a row (made before this revision) counts as
its own creator.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_creators",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("creator", sa.String(80), nullable=False),
        sa.Column("user_id", sa.String(32), nullable=True),
        sa.Column("all_ai", sa.Boolean, nullable=False),
    )
    op.create_index("ix_game_creators_creator", "game_creators", ["creator"])


def downgrade() -> None:
    op.drop_index("ix_game_creators_creator", table_name="game_creators")
    op.drop_table("game_creators")
