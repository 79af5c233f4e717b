"""The tournaments' tables (created by the migration ``0011_tournaments``), on the games' metadata.

``tournaments``: one row per event — ``kind`` (arena, swiss), ``name``, the game ``spec`` and its
rating ``pool``, ``seats`` per game, ``rated``, ``clock`` (its settings, JSON: ``{"initial",
"increment"}`` or ``{"days"}``), ``starts_at``, ``minutes`` (arena) or ``rounds`` (Swiss),
``round`` (the Swiss round being played, 0 before the first), ``round_ends`` (its deadline),
``status`` (created, started, finished), ``schedule`` (the recurring schedule that made it, if
any), who ``created_by`` it, and when it was created, changed and finished.

``tournament_players``: who joined — the ``rating`` taken when joining, ``withdrawn``, ``berserk``
(the player asked to berserk his next game), ``pairing_id`` (the pairing he is in now, None when
free: a player is claimed by one pairing at a time with one conditional update) and ``free_since``.

``tournament_pairings``: one row per game (or Swiss bye) — its ``round`` (arena: a running number),
``users`` (JSON list of account ids in seat order), ``berserk`` (JSON list of bools per seat),
``status`` (creating, playing, done, bye, void), the ``game_id`` and once over ``result`` (JSON:
``{"places": [...]}``, ``{"aborted": true}`` or ``{"lapsed": true}``) and ``ended_at``.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import metadata

tournaments_table = sa.Table(
    "tournaments",
    metadata,
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
    sa.Index("ix_tournaments_status_starts", "status", "starts_at"),
    sa.Index("ix_tournaments_schedule", "schedule", "starts_at", unique=True),
)

tournament_players_table = sa.Table(
    "tournament_players",
    metadata,
    sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("withdrawn", sa.Boolean, nullable=False),
    sa.Column("berserk", sa.Boolean, nullable=False),
    sa.Column("pairing_id", sa.String(32), nullable=True),
    sa.Column("free_since", sa.Float, nullable=False),
    sa.Column("joined_at", sa.Float, nullable=False),
    sa.Index("ix_tournament_players_user", "user_id"),
)

tournament_pairings_table = sa.Table(
    "tournament_pairings",
    metadata,
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
    sa.Index("ix_tournament_pairings_tournament", "tournament_id", "round"),
    sa.Index("ix_tournament_pairings_status", "status"),
    sa.Index("ix_tournament_pairings_game", "game_id"),
)
