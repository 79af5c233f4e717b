"""The tessera web server: play every game in a browser (hot-seat, against the AI, online).

``create_app`` builds the FastAPI application; ``tessera serve`` runs it with
uvicorn.  One folder per domain (docs/architecture.md): :mod:`store` (engine,
transactions, migrations: imports no domain), :mod:`events` (the one event interface,
domain-free), :mod:`match` (the move pipeline, the games in play, views, clocks, records
and their routes, behind the facade :mod:`match.service`), :mod:`push` (the hub:
WebSockets), :mod:`ai` (computer seats, the search pool), :mod:`chat`, :mod:`accounts`,
:mod:`notify`, :mod:`bot`, :mod:`seeks`, :mod:`tournaments`, :mod:`puzzles`,
:mod:`moderation`, :mod:`design`, :mod:`analysis`, :mod:`catalog`; :mod:`http`
assembles them (:func:`tessera.server.http.app.create_app`).
"""

from __future__ import annotations

from typing import Any


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The FastAPI application (see :func:`tessera.server.http.app.create_app`)."""
    from tessera.server.http.app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
