"""The chat tables (created by the migration ``0008_chat``), on the games' metadata.

``chat_messages``
    one row per message of a game's chat: ``id`` (increasing: the order of the chat),
    ``game_id``, ``room`` (``player`` or ``spectator``), the author's ``seat`` (None: a
    spectator), ``user_id`` (None: a guest), ``name`` (the name shown when there is no account:
    the seat's name or ``Guest``), ``text`` and ``created_at``.  Deleted with the game; never part
    of the game's record.
``chat_mutes``
    a player's muted authors in one game: the muting ``seat`` and the ``target`` (``seat:N`` or
    ``user:<account id>``).
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.store.storage import metadata

chat_messages_table = sa.Table(
    "chat_messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    sa.Column("room", sa.String(16), nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("user_id", sa.String(32), nullable=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Index("ix_chat_messages_game_id", "game_id", "id"),
)

chat_mutes_table = sa.Table(
    "chat_mutes",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("target", sa.String(48), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
)
