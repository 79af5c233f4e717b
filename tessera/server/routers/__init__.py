"""The HTTP routes, one router per resource; :func:`tessera.server.app.create_app` assembles them.

=================  ============================================================
:mod:`.catalog`    the games offered, their rules pages, the server's status
:mod:`.games`      creating, listing, viewing and joining games; replay positions
:mod:`.moves`      the move (the pipeline's HTTP door) and the seat's other actions
:mod:`.records`    game records out and in
:mod:`.analysis`   the analysis board
:mod:`.live`       the game WebSocket (run by the hub)
:mod:`.pages`      the web client's pages
:mod:`.learn`      rules in the player's language, rule diagrams and lessons
``accounts``       accounts, ratings, challenges (:mod:`tessera.server.accounts.routes`)
=================  ============================================================

Shared dependencies (the service, the hub, the seat token) are in :mod:`.deps`.
"""

from __future__ import annotations

from fastapi import APIRouter

from tessera.server.accounts.routes import router as accounts_router
from tessera.server.routers import analysis, catalog, games, learn, live, moves, pages, records

ROUTERS: tuple[APIRouter, ...] = (
    catalog.router,
    games.router,
    moves.router,
    records.router,
    analysis.router,
    live.router,
    accounts_router,
    learn.router,
    pages.router,
)
"""Every router, in the order the app includes them."""
