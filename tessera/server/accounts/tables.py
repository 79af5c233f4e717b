"""The accounts tables (created by the migration ``0004_accounts``), on the games' metadata.

``users``
    one row per account: ``id``, ``username`` as chosen, ``username_key`` (its lower case,
    unique: names are unique without regard to case), ``username_skeleton`` (migration ``0014_account_security``:
    its look-alike skeleton, unique: ``aIice1`` cannot join ``alice1``), the Argon2id ``password_hash`` (None for
    the AI accounts and deleted accounts), ``is_bot`` (AI accounts, and the bot API later),
    ``created_at`` and ``deleted_at``.  A deleted account keeps its row (its name stays taken);
    its games show it under a neutral name.
``sessions``
    a browser's log-in: only the SHA-256 of the random id in the cookie is stored
    (``id_hash``), with ``created_at``, ``last_seen`` and ``revoked_at``.
``api_tokens``
    personal API tokens: a public ``id`` (to list and revoke), the SHA-256 of the secret
    (``token_hash``), ``scopes`` (JSON list), ``created_at``, ``last_used``, ``revoked_at``.
``ratings``
    one Glicko-2 rating per account and pool (``pool``: the game's name): ``rating``, ``rd``,
    ``vol``, ``games``.
``rating_history``
    one row per account and rated game: the rating before and after (with rd and vol).
``challenges``
    ``from_user`` asks ``to_user`` for a game (``spec`` and ``params``, ``rated``, ``clock``
    JSON, the challenger's ``seat`` or None for a random one); ``status`` pending, accepted,
    declined or cancelled, a decline ``reason``, and the ``game_id`` once accepted.
``seat_accounts``
    a game's seats bound to accounts (``game_id``, ``seat``, ``user_id``).
``account_games``
    a game made through accounts: ``rated``, the rating ``pool`` and ``rated_at`` (when its
    ratings were applied: once only).
``login_failures``
    password checks and sign-ups, by throttle key (a hash of the account name, the address, or
    both, never the name or address itself) and time: each attempt is written before its password
    is checked, and taken back when the password was right (:mod:`.throttle`).
``known_logins`` (migration ``0014_account_security``)
    where an account logged in before: ``key`` a hash of a device cookie or of an address with the
    account, and ``last_seen``.  A log-in from a known device or address is not stopped by the
    failures others piled on the account.
``challenge_invitees`` (migration ``0009``)
    the players a challenge to a game of more than two seats names (four-player Nymbat):
    ``challenge_id``, ``position`` (0, 1, 2 in the order named), ``user_id`` (None: an open
    seat, taken by invite link), ``status`` pending, accepted or declined, and ``updated_at``.
    The challenge's ``to_user`` is the first one named.
``rematch_offers`` (migration ``0009``)
    a rematch asked by a seat of a finished game (guests, or any game that is not between two
    accounts): ``game_id`` (the finished game), ``from_seat``, ``accepted`` (JSON list of the
    seats that said yes, the asker's first), ``status`` pending, accepted, declined or
    cancelled, ``declined_by`` (a seat), ``new_game_id`` once made, ``created_at``, ``updated_at``.
"""

from __future__ import annotations

import sqlalchemy as sa

import tessera.server.match.tables  # noqa: F401  (the games table its foreign keys name, in the same metadata)
from tessera.server.store.storage import metadata

users_table = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("username", sa.String(32), nullable=False),
    sa.Column("username_key", sa.String(32), nullable=False, unique=True),
    sa.Column("password_hash", sa.Text, nullable=True),
    sa.Column("is_bot", sa.Boolean, nullable=False, default=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("deleted_at", sa.Float, nullable=True),
    sa.Column("username_skeleton", sa.String(32), nullable=True),
    sa.Index("ux_users_username_skeleton", "username_skeleton", unique=True),
)

sessions_table = sa.Table(
    "sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    sa.Column("revoked_at", sa.Float, nullable=True),
)

tokens_table = sa.Table(
    "api_tokens",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("scopes", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("last_used", sa.Float, nullable=True),
    sa.Column("revoked_at", sa.Float, nullable=True),
)

ratings_table = sa.Table(
    "ratings",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("pool", sa.String(32), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Index("ix_ratings_pool_rating", "pool", "rating"),
)

history_table = sa.Table(
    "rating_history",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("pool", sa.String(32), nullable=False),
    sa.Column("before", sa.Float, nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("rd", sa.Float, nullable=False),
    sa.Column("vol", sa.Float, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Index("ix_rating_history_user_pool", "user_id", "pool", "created_at"),
)

challenges_table = sa.Table(
    "challenges",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("from_user", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("to_user", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("spec", sa.Text, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("clock", sa.Text, nullable=True),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

seat_accounts_table = sa.Table(
    "seat_accounts",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
)

account_games_table = sa.Table(
    "account_games",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("pool", sa.String(32), nullable=False),
    sa.Column("rated_at", sa.Float, nullable=True),
)

known_logins_table = sa.Table(
    "known_logins",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("last_seen", sa.Float, nullable=False),
)

login_failures_table = sa.Table(
    "login_failures",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key", sa.String(64), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    sa.Index("ix_login_failures_key_at", "key", "at"),
)

challenge_invitees_table = sa.Table(
    "challenge_invitees",
    metadata,
    sa.Column("challenge_id", sa.String(32), sa.ForeignKey("challenges.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True, index=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

rematch_offers_table = sa.Table(
    "rematch_offers",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("from_seat", sa.Integer, nullable=False),
    sa.Column("accepted", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("declined_by", sa.Integer, nullable=True),
    sa.Column("new_game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="SET NULL"), nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

ALL = (
    users_table,
    sessions_table,
    tokens_table,
    ratings_table,
    history_table,
    challenges_table,
    seat_accounts_table,
    account_games_table,
    login_failures_table,
    known_logins_table,
    challenge_invitees_table,
    rematch_offers_table,
)

rematch_challenges_table = sa.Table(
    "rematch_challenges",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("challenge_id", sa.String(32), sa.ForeignKey("challenges.id", ondelete="CASCADE"), nullable=False),
)
"""The rematch challenge of a finished game (one at most)."""
