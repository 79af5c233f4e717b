"""The designer's lab: self-play studies asked from the web page (``design_studies``).

A new table only.

Revision ID: 0012_design
Revises: 0011_tournaments
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_design"
down_revision = "0011_tournaments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "design_studies",
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
    )
    op.create_index("ix_design_studies_user_created", "design_studies", ["user_id", "created_at"])
    op.create_index("ix_design_studies_status", "design_studies", ["status"])


def downgrade() -> None:
    op.drop_index("ix_design_studies_status", table_name="design_studies")
    op.drop_index("ix_design_studies_user_created", table_name="design_studies")
    op.drop_table("design_studies")
