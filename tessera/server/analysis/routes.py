"""The analysis board: a game's public moves, positions and our AI's evaluation off any move list,
records read without creating a game, and new games continued from a position."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from tessera.server.accounts.auth import accounts
from tessera.server.ai.scheduler import ANALYSIS, FairPool
from tessera.server.analysis import board as analysis
from tessera.server.http.deps import Service, created_answer
from tessera.server.http.edge import client_address, credential
from tessera.server.match.inputs import check_seed
from tessera.server.match.record_routes import record_body

router = APIRouter(tags=["analysis"])


class AnalysisIn(BaseModel):
    """``POST /api/analysis/…``: a position as a game spec, a seed and the moves played."""

    game: str = Field(max_length=500, description="game spec, e.g. 'nume(size=3)'")
    seed: int = 0
    moves: list[tuple[int, str]] = Field(default_factory=list, max_length=5000)
    seconds: float = 0.5
    mode: str = "hotseat"
    seat: int = 0
    ai_level: int = 3


@router.get("/api/games/{game_id}/analysis")
def analysis_source(game_id: str, service: Service, request: Request) -> dict[str, Any]:
    """A game's resolved moves for the analysis board: 403 to everyone while it is in progress
    between people (:func:`tessera.server.match.records.engine_refusal`)."""
    rated = bool(accounts(request).game_accounts(game_id)["rated"])
    return service.analysis_source(game_id, rated=rated)


@router.post("/api/analysis/position")
def analysis_position(body: AnalysisIn) -> dict[str, Any]:
    """The node's picture, with the legal moves of the player to move."""
    return analysis.position(body.game, check_seed(body.seed), [list(m) for m in body.moves])


@router.post("/api/analysis/evaluate")
async def analysis_evaluate(body: AnalysisIn, request: Request) -> dict[str, Any]:
    """Our AI on the node: value for the side to move and its best move (``seconds`` of thought).

    The search runs in the fair AI pool (tessera.server.ai.scheduler) under the analysis quota, charged
    to the client (its account when it sends one, else its address): 429 when it has too many waiting."""
    import asyncio

    pool: FairPool = request.app.state.pool
    cred = credential(request.scope)
    client = f"account:{cred}" if cred else client_address(request.scope)
    args = (body.game, check_seed(body.seed), [list(m) for m in body.moves], body.seconds)
    return dict(await asyncio.wrap_future(pool.submit(client, ANALYSIS, analysis.evaluate, *args, budget=body.seconds)))


@router.post("/api/analysis/continue", status_code=201)
def analysis_continue(body: AnalysisIn, service: Service) -> dict[str, Any]:
    """A new game from the node: hot-seat, or against the AI (``seat``, ``ai_level``)."""
    state = analysis.replay_list(body.game, check_seed(body.seed), [list(m) for m in body.moves])
    created = service.continue_from(
        str(state.game), body.seed, state.history(), mode=body.mode, seat=body.seat, ai_level=body.ai_level
    )
    return created_answer(created)


@router.post("/api/analysis/record")
async def analysis_record(request: Request, service: Service) -> dict[str, Any]:
    """A record (JSON or text, as for ``POST /api/records``) read for the analysis board: no game is created."""
    return dict(await run_in_threadpool(service.analysis_record, await record_body(request)))
