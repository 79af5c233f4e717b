"""Account security: usernames unique under a look-alike skeleton, known log-in devices and
addresses (the owner's way past a lock-out), and the client of a guest's push subscription.

``users.username_skeleton`` is filled for the accounts already there, oldest first; an account whose
skeleton an older one already holds (two look-alike names made before this revision) keeps its
name with no skeleton, so both still log in and no later name can look like either.

Revision ID: 0014_account_security
Revises: 0013_puzzles
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_account_security"
down_revision = "0013_puzzles"
branch_labels = None
depends_on = None

# The skeleton as this revision defines it, frozen here: a migration runs the rule of its own day, not
# whatever the accounts domain says later (a later change of the rule is a new revision that fills the
# column again), and the store imports no domain.  tests/server/accounts/test_attacks_auth.py checks that it is
# still the accounts domain's ``username_skeleton`` today.
_LETTERS = str.maketrans({"0": "o", "1": "l", "i": "l"})
_PAIRS = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def username_skeleton(name: str) -> str:
    """A username's look-alike skeleton (lower case, ``0``→``o``, ``1``/``i``→``l``, ``rn``→``m``,
    ``vv``→``w``, ``cl``→``d``): ``tessera.server.accounts.security.username_skeleton`` of 2026-11-29."""
    out = name.lower().translate(_LETTERS)
    for pair, letter in _PAIRS:
        out = out.replace(pair, letter)
    return out


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("username_skeleton", sa.String(32), nullable=True))
    users = sa.table(
        "users",
        sa.column("id", sa.String),
        sa.column("username", sa.String),
        sa.column("created_at", sa.Float),
        sa.column("username_skeleton", sa.String),
    )
    conn = op.get_bind()
    taken: set[str] = set()
    for uid, name in conn.execute(sa.select(users.c.id, users.c.username).order_by(users.c.created_at, users.c.id)):
        skeleton = username_skeleton(name)
        if skeleton in taken:
            continue
        taken.add(skeleton)
        conn.execute(users.update().where(users.c.id == uid).values(username_skeleton=skeleton))
    op.create_index("ux_users_username_skeleton", "users", ["username_skeleton"], unique=True)
    op.create_table(
        "known_logins",
        sa.Column("user_id", sa.String(32), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("last_seen", sa.Float, nullable=False),
    )
    with op.batch_alter_table("push_subscriptions") as batch:
        batch.add_column(sa.Column("client_key", sa.String(64), nullable=True))
    op.create_index("ix_push_subscriptions_client_key", "push_subscriptions", ["client_key"])


def downgrade() -> None:
    op.drop_index("ix_push_subscriptions_client_key", table_name="push_subscriptions")
    with op.batch_alter_table("push_subscriptions") as batch:
        batch.drop_column("client_key")
    op.drop_table("known_logins")
    op.drop_index("ux_users_username_skeleton", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("username_skeleton")
