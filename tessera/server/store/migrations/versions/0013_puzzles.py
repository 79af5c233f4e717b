"""Puzzles: puzzle ratings, players' puzzle ratings and streaks, rated attempts
(see tessera/server/puzzles/tables.py).  New tables only.

Revision ID: 0013_puzzles
Revises: 0012_design
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_puzzles"
down_revision = "0012_design"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzle_ratings",
        sa.Column("puzzle_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
    )
    op.create_table(
        "puzzle_players",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("failed", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("puzzle_id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("viewed", sa.Boolean, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_puzzle_attempts_user_at", "puzzle_attempts", ["user_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_puzzle_attempts_user_at", table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_players")
    op.drop_table("puzzle_ratings")
