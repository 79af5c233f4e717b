"""The puzzle tables (created by the migration ``0013_puzzles``), on the games' metadata.

``puzzle_ratings``: one row per puzzle that has been played rated — its Glicko-2 ``rating``, ``rd``,
``vol``, ``plays`` and ``wins`` (a puzzle without a row has its file's starting rating).
``puzzle_players``: one row per account and game — the account's puzzle rating (``rating``, ``rd``,
``vol``), its current ``streak`` of puzzles solved in a row and its ``best_streak``, ``solved``,
``failed``, ``updated_at``.
``puzzle_attempts``: one row per account and puzzle, its first finished attempt (the rated one) —
``won``, whether the solution was ``viewed``, the account's rating before and after, ``at``.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import metadata

puzzle_ratings_table = sa.Table(
    "puzzle_ratings",
    metadata,
    sa.Column("puzzle_id", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("plays", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
)

puzzle_players_table = sa.Table(
    "puzzle_players",
    metadata,
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

puzzle_attempts_table = sa.Table(
    "puzzle_attempts",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("puzzle_id", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("viewed", sa.Boolean, nullable=False),
    sa.Column("rating_before", sa.Float, nullable=False),
    sa.Column("rating_after", sa.Float, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Index("ix_puzzle_attempts_user_at", "user_id", "at"),
)
