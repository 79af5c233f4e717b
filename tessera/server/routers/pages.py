"""The web client's pages (its scripts and styles are mounted under ``/static`` by the app)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

WEB = Path(__file__).resolve().parent.parent.parent / "web"

router = APIRouter(include_in_schema=False)


@router.get("/")
def index() -> FileResponse:
    return FileResponse(WEB / "index.html")


@router.get("/analysis")
def analysis_page() -> FileResponse:
    return FileResponse(WEB / "analysis.html")


@router.get("/g/{game_id}")
def game_page(game_id: str) -> FileResponse:
    return FileResponse(WEB / "game.html")


@router.get("/rules/{name}")
def rules_page(name: str) -> FileResponse:
    return FileResponse(WEB / "rules.html")


@router.get("/sw.js")
def service_worker() -> FileResponse:
    """The service worker of Web Push notifications, from the root so that its scope is the whole site."""
    return FileResponse(WEB / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/favicon.ico")
def favicon() -> Response:
    return Response(status_code=204)
