"""The tessera web server: play every game in a browser (hot-seat, against the AI, online).

``create_app`` builds the FastAPI application; ``tessera serve`` runs it with
uvicorn.  Layers (docs/architecture.md): :mod:`storage` (SQLAlchemy + Alembic),
the match layer behind :mod:`service` (the move pipeline in :mod:`moves`, the
match model in :mod:`live`, views in :mod:`views`, …), :mod:`events` (the one
event interface), :mod:`hub` (WebSockets), :mod:`worker` and :mod:`ai`
(computer seats), :mod:`routers` (HTTP, one router per resource) assembled by
:mod:`app`.
"""

from __future__ import annotations

from typing import Any


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The FastAPI application (see :func:`tessera.server.app.create_app`)."""
    from tessera.server.app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
