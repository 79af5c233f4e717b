"""``tessera serve`` (``server/cli.py``).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations


def test_serve_command_is_registered_with_its_options() -> None:
    """`tessera serve [--host] [--port] [--db URL]`; the printed database URL hides a password."""
    import argparse

    from tessera.server.cli import _safe, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--port", "9000", "--db", "sqlite:///x.db"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 9000, "sqlite:///x.db") and callable(args.func)
    assert _safe("postgresql+psycopg://bob:secret@db:5432/t") == "postgresql+psycopg://bob:***@db:5432/t"
