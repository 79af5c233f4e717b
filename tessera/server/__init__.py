"""The tessera web server: play every game in a browser (hot-seat, against the AI, online).

``create_app`` builds the FastAPI application; ``tessera serve`` runs it with
uvicorn.  Layers: :mod:`storage` (SQLAlchemy + Alembic), :mod:`service` (the
authoritative match service), :mod:`hub` (WebSockets), :mod:`worker` and
:mod:`ai` (computer seats), :mod:`app` (HTTP routes and the static client).
"""

from __future__ import annotations

from typing import Any


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The FastAPI application (see :func:`tessera.server.app.create_app`)."""
    from tessera.server.app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
