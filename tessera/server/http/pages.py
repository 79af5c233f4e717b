"""The web client's pages (its scripts and styles are mounted under ``/static`` by the app)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, Response

from tessera.core.registry import game_class

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


@router.get("/games/{name}/client.js")
def game_client_module(name: str) -> FileResponse:
    """A game's client module (``Game.client_module``, a file of the game's own folder), for the pages that
    load it because the catalogue says the game has one."""
    try:
        path = game_class(name).client_module_path()
    except ValueError as e:
        raise HTTPException(404, str(e)) from None
    if path is None:
        raise HTTPException(404, f"{name} declares no client module")
    return FileResponse(path, media_type="text/javascript")


@router.get("/sw.js")
def service_worker() -> FileResponse:
    """The service worker of Web Push notifications, from the root so that its scope is the whole site."""
    return FileResponse(WEB / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/favicon.ico")
def favicon() -> Response:
    return Response(status_code=204)
