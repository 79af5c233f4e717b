"""The notification tables (created by the migration ``0007_notify``), on the games' metadata.

``notify_secrets``
    secrets the server makes once and keeps with its data: ``vapid`` (the Web Push key pair:
    ``value`` the private key in PEM, ``public`` the public key as the browser's
    ``applicationServerKey``, URL-safe base64) and ``unsubscribe`` (the key of the e-mails'
    one-click unsubscribe links).  The first process to need one inserts it; the others read it.
``push_subscriptions``
    a browser's Web Push subscription: ``id`` (SHA-256 of its ``endpoint``), the endpoint and its
    keys (``p256dh``, ``auth``), the account it belongs to (``user_id``, None for a guest's), the
    ``lang`` its notifications are written in, the ``kinds`` it wants (JSON list of ``turn``,
    ``challenge``, ``end``), ``created_at``, ``last_sent`` and consecutive ``failures``;
    ``client_key`` (migration ``0014_account_security``): a hash of the address that subscribed, by which guests'
    subscriptions are capped per client.
``push_seats``
    a guest's subscription tied to seats (``game_id``, ``seat``): the seats whose tokens the
    browser showed when it subscribed (the tokens themselves are not kept).
``notify_email``
    an account's e-mail address (``email``; ``verified_at`` once its link was followed), the digest
    interval in hours (``digest_hours``: 0 off, 12, 24), ``last_digest_at``, the ``lang`` and the
    site's ``base_url`` the e-mails link to (as the address was given from).
``email_tokens``
    verification links sent: only the SHA-256 of the random token is kept (``token_hash``), with
    the account, the address it verifies, ``expires_at`` and ``used_at``.
"""

from __future__ import annotations

import sqlalchemy as sa

import tessera.server.accounts.tables  # noqa: F401  (the users table, referred to below)
from tessera.server.store.storage import metadata

secrets_table = sa.Table(
    "notify_secrets",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("public", sa.Text, nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
)

subscriptions_table = sa.Table(
    "push_subscriptions",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("endpoint", sa.Text, nullable=False),
    sa.Column("p256dh", sa.String(200), nullable=False),
    sa.Column("auth", sa.String(100), nullable=False),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True, index=True),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("kinds", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("last_sent", sa.Float, nullable=True),
    sa.Column("failures", sa.Integer, nullable=False, default=0),
    sa.Column("client_key", sa.String(64), nullable=True, index=True),
)

push_seats_table = sa.Table(
    "push_seats",
    metadata,
    sa.Column(
        "subscription_id",
        sa.String(64),
        sa.ForeignKey("push_subscriptions.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Index("ix_push_seats_game_seat", "game_id", "seat"),
)

email_table = sa.Table(
    "notify_email",
    metadata,
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("email", sa.String(254), nullable=True),
    sa.Column("verified_at", sa.Float, nullable=True),
    sa.Column("digest_hours", sa.Integer, nullable=False, default=0),
    sa.Column("last_digest_at", sa.Float, nullable=True),
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("base_url", sa.Text, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

email_tokens_table = sa.Table(
    "email_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("email", sa.String(254), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Column("used_at", sa.Float, nullable=True),
)

ALL = (secrets_table, subscriptions_table, push_seats_table, email_table, email_tokens_table)
