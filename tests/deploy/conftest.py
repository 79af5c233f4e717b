"""The deployment tests share the server tests' PostgreSQL cluster fixture."""

from tests.server.conftest import postgres_url

__all__ = ["postgres_url"]
