"""Tournaments: arenas and Swiss events (see tessera/server/tournaments/tables.py).

Revision ID: 0011_tournaments
Revises: 0010
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_tournaments"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("pool", sa.String(32), nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("clock", sa.Text, nullable=False),
        sa.Column("starts_at", sa.Float, nullable=False),
        sa.Column("minutes", sa.Integer, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("round_ends", sa.Float, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("schedule", sa.String(80), nullable=True),
        sa.Column("created_by", sa.String(32), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
    )
    op.create_index("ix_tournaments_status_starts", "tournaments", ["status", "starts_at"])
    op.create_index("ix_tournaments_schedule", "tournaments", ["schedule", "starts_at"], unique=True)
    op.create_table(
        "tournament_players",
        sa.Column(
            "tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("berserk", sa.Boolean, nullable=False),
        sa.Column("pairing_id", sa.String(32), nullable=True),
        sa.Column("free_since", sa.Float, nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
    )
    op.create_index("ix_tournament_players_user", "tournament_players", ["user_id"])
    op.create_table(
        "tournament_pairings",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("users", sa.Text, nullable=False),
        sa.Column("berserk", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=True),
    )
    op.create_index("ix_tournament_pairings_tournament", "tournament_pairings", ["tournament_id", "round"])
    op.create_index("ix_tournament_pairings_status", "tournament_pairings", ["status"])
    op.create_index("ix_tournament_pairings_game", "tournament_pairings", ["game_id"])


def downgrade() -> None:
    op.drop_table("tournament_pairings")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
