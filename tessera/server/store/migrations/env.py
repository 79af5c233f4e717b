"""Alembic environment: runs on the connection the server passes in, or on ``-x url=...``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from tessera.server.store.storage import metadata

config = context.config
target_metadata = metadata


def run() -> None:
    """Run the migrations online (on a live connection)."""
    conn = config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///tessera.db upgrade head")
    engine = engine_from_config({"sqlalchemy.url": url}, prefix="sqlalchemy.", poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run()
