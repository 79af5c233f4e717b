"""The HTTP routes, one router per resource; :func:`tessera.server.http.app.create_app` assembles them.

=================  ============================================================
:mod:`.catalog`    the games offered, their rules pages, the server's status
:mod:`.games`      creating, listing, viewing and joining games; replay positions
:mod:`.moves`      the move (the pipeline's HTTP door) and the seat's other actions
:mod:`.records`    game records out and in
:mod:`.chat`       a game's chat (tessera.server.chat.rooms)
:mod:`.analysis`   the analysis board
:mod:`.live`       the game WebSocket (run by the hub)
:mod:`.pages`      the web client's pages
:mod:`.health`     ``/healthz`` and ``/readyz``
=================  ============================================================

Shared dependencies (the service, the hub, the seat token) are in :mod:`.deps`.
"""

from __future__ import annotations

from fastapi import APIRouter

from tessera.server.analysis import routes as analysis
from tessera.server.catalog import routes as catalog
from tessera.server.chat import routes as chat
from tessera.server.http import health, pages
from tessera.server.match import game_routes as games
from tessera.server.match import move_routes as moves
from tessera.server.match import record_routes as records
from tessera.server.push import routes as live

ROUTERS: tuple[APIRouter, ...] = (
    moves.router,
    games.router,
    live.router,
    records.router,
    health.router,
    catalog.router,
    chat.router,
    analysis.router,
    pages.router,
)
"""Every router, in the order the app includes them: the most asked first, as a request is matched
against the routes in order (about 1 µs each: a move matched after 70 routes spent a tenth of its
time there). No path is claimed by two routers, so the order changes no answer
(``tests/server/test_routes.py``)."""
