"""Accounts, more: the invitees of a challenge to a game of more than two seats (four-player
Nymbat), and rematch offers made by a seat of a finished game (guests included).

New tables only: nothing stored before changes.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenge_invitees",
        sa.Column("challenge_id", sa.String(32), sa.ForeignKey("challenges.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_challenge_invitees_user_id", "challenge_invitees", ["user_id"])
    op.create_table(
        "rematch_offers",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("from_seat", sa.Integer, nullable=False),
        sa.Column("accepted", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("declined_by", sa.Integer, nullable=True),
        sa.Column("new_game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rematch_offers")
    op.drop_index("ix_challenge_invitees_user_id", table_name="challenge_invitees")
    op.drop_table("challenge_invitees")
