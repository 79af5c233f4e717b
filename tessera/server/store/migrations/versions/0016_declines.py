"""Requests that belong to their moment: declined draw offers and takeback requests per seat and
game, so that a seat whose offer was declined may not offer again at once
(:mod:`tessera.server.match.declines`), and the one rematch challenge of a finished game between two
accounts (:mod:`tessera.server.accounts.rematch_once`).

New tables only (``request_declines``, ``rematch_challenges``): a game without rows has had
nothing declined and no rematch asked.

Revision ID: 0016_declines
Revises: 0015_moderation
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_declines"
down_revision = "0015_moderation"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "request_declines",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("at", sa.Integer, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_table(
        "rematch_challenges",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("challenge_id", sa.String(32), sa.ForeignKey("challenges.id", ondelete="CASCADE"), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rematch_challenges")
    op.drop_table("request_declines")
