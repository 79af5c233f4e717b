"""The designer's lab HTTP API (``router``, included by ``create_app``; docs/http-api.md) and its page.

Studies belong to the signed-in account that asked for them (a session, or a token with the
``play`` scope); another account's study is a 404.  Every refusal is a 4xx with
``{"detail": "<the reason>"}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tessera.core.registry import list_games
from tessera.server.accounts import auth as A
from tessera.server.accounts.security import Refused
from tessera.server.accounts.stats import game_stats
from tessera.server.design.studies import AGENTS, MAX_GAMES, MAX_OPEN, MAX_VARIANTS, DesignStudies

router = APIRouter(tags=["design"])

WEB = Path(__file__).resolve().parents[2] / "web"


class StudyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    variants: list[str] = Field(
        min_length=1, max_length=MAX_VARIANTS, description="game strings of the variants, e.g. 'nume(size=4,komi=2)'"
    )
    agent: str = Field("level2", max_length=80, description=f"the agent in every seat: one of {', '.join(AGENTS)}")
    games: int = Field(20, ge=1, le=MAX_GAMES, description="self-play games per variant")


def studies_of(request: Request) -> DesignStudies:
    studies: DesignStudies = request.app.state.design
    return studies


def _game(game: str) -> str:
    """A game's name as registered (a 404 otherwise) — no game is built, so the answer never waits for a compile."""
    name = game.strip().lower()
    if name not in list_games():
        raise Refused(404, f"no game {game[:40]!r}", key="refusal.game.unknown", args={"game": game[:40]})
    return name


@router.get("/api/design/limits")
def limits() -> dict[str, Any]:
    """What a study may ask: the agents offered, games per variant, variants, unfinished studies."""
    return {"agents": list(AGENTS), "max_games": MAX_GAMES, "max_variants": MAX_VARIANTS, "max_open": MAX_OPEN}


@router.post("/api/design/{game}/studies", status_code=201)
async def create_study(game: str, body: StudyIn, request: Request) -> dict[str, Any]:
    """Ask for a self-play study of up to four variants; it runs on the server's AI pool."""
    auth = A.require(request, "play")
    name = _game(game)
    return await run_in_threadpool(
        studies_of(request).create, auth.user.id, name, body.variants, body.agent, body.games
    )


@router.get("/api/design/{game}/studies")
def my_studies(game: str, request: Request) -> dict[str, Any]:
    """The signed-in account's studies of ``game``, newest first."""
    auth = A.require(request, "play")
    return {"studies": studies_of(request).list(auth.user.id, _game(game))}


@router.get("/api/design/studies/{sid}")
def study(sid: str, request: Request) -> dict[str, Any]:
    """A study's status, progress and figures per variant, with people's rated results beside."""
    auth = A.require(request, "play")
    out = studies_of(request).get(auth.user.id, sid[:32])
    people = game_stats(request.app.state.storage, out["game"])["by_variant"]
    out["people"] = {v: people[v] for v in out["variants"] if v in people}
    return out


@router.post("/api/design/studies/{sid}/cancel")
def cancel_study(sid: str, request: Request) -> dict[str, Any]:
    """Stop a study; the games it played are kept."""
    auth = A.require(request, "play")
    return studies_of(request).cancel(auth.user.id, sid[:32])


@router.get("/api/design/studies/{sid}/record", response_class=PlainTextResponse)
def study_record(sid: str, request: Request, key: str = Query(max_length=20)) -> PlainTextResponse:
    """One game of the study (``key`` as in its figures' examples) as a text record."""
    auth = A.require(request, "play")
    return PlainTextResponse(studies_of(request).record(auth.user.id, sid[:32], key))


@router.get("/design/{game}", include_in_schema=False)
def design_page(game: str) -> FileResponse:
    """The designer's page."""
    _game(game)
    return FileResponse(WEB / "design.html")
