"""The moderation tables (created by the migration ``0015_moderation``), on the games' metadata.

``moderation_accounts``
    an account's standing with the moderators (a row only once something was set): ``is_admin``
    (the admin role: ``tessera admin grant NAME``), ``chat_muted`` (its chat lines are refused),
    ``engine`` (marked as an engine user: left out of the leaderboards), ``warnings`` (how many),
    ``updated_at``.
``blocks``
    ``user_id`` blocks ``blocked_id``: the blocked account's challenges, chat lines and seeks do not
    reach the blocker.
``reports``
    a player's report of an account or of a chat line: ``reporter_id``, ``target_id``, ``reason``
    (one of :data:`tessera.server.moderation.store.REASONS`), the reporter's ``text``, the evidence
    kept at the time of the report (``game_id``, ``message_id`` and ``evidence``: JSON with the
    chat line's text or the profile as it was), ``status`` open or closed, ``created_at``,
    ``closed_at``, ``closed_by``.
``moderation_log``
    every moderator's action: ``at``, ``moderator_id`` (None: the operator's command line),
    ``target_id``, ``action``, ``note``, ``report_id`` (the report it closed, if any).
``engine_signals``
    the engine-use signal of an account, as last computed: ``moves`` of its own examined in rated
    games, ``matches`` (those equal to the top move of the fixed-budget search), ``share``,
    ``games``, ``iterations`` (the search's budget) and ``computed_at``.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import metadata

moderation_accounts_table = sa.Table(
    "moderation_accounts",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("is_admin", sa.Boolean, nullable=False, default=False),
    sa.Column("chat_muted", sa.Boolean, nullable=False, default=False),
    sa.Column("engine", sa.Boolean, nullable=False, default=False),
    sa.Column("warnings", sa.Integer, nullable=False, default=0),
    sa.Column("updated_at", sa.Float, nullable=False),
)

blocks_table = sa.Table(
    "blocks",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("blocked_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Index("ix_blocks_blocked", "blocked_id"),
)

reports_table = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("reporter_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("target_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("reason", sa.String(16), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("game_id", sa.String(32), nullable=True),
    sa.Column("message_id", sa.Integer, nullable=True),
    sa.Column("evidence", sa.Text, nullable=False),
    sa.Column("status", sa.String(8), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("closed_at", sa.Float, nullable=True),
    sa.Column("closed_by", sa.String(32), nullable=True),
    sa.Index("ix_reports_status", "status", "created_at"),
    sa.Index("ix_reports_target", "target_id"),
)

moderation_log_table = sa.Table(
    "moderation_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("moderator_id", sa.String(32), nullable=True),
    sa.Column("target_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("action", sa.String(16), nullable=False),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("report_id", sa.Integer, nullable=True),
    sa.Index("ix_moderation_log_target", "target_id", "at"),
)

engine_signals_table = sa.Table(
    "engine_signals",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("moves", sa.Integer, nullable=False),
    sa.Column("matches", sa.Integer, nullable=False),
    sa.Column("share", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("iterations", sa.Integer, nullable=False),
    sa.Column("computed_at", sa.Float, nullable=False),
)
