"""Game records: the JSON record and the text move list of a game, and importing a record."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from tessera.server.http.deps import Service, created_answer
from tessera.server.http.errors import ServiceError

router = APIRouter(tags=["records"])


async def record_body(request: Request) -> Any:
    """A record body: JSON (application/json) or UTF-8 text."""
    raw = await request.body()  # http/edge.py: Limits caps it at MAX_RECORD_BYTES (413) before it is read whole
    if "json" in request.headers.get("content-type", ""):
        try:
            return json.loads(raw or b"null")
        except ValueError as e:
            raise ServiceError(422, f"the record is not valid JSON: {e}") from None
        except RecursionError:
            raise ServiceError(422, "the record is not valid JSON: nested too deeply") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ServiceError(422, "a text record must be UTF-8") from None


@router.get("/api/games/{game_id}/record")
def record(game_id: str, service: Service) -> dict[str, Any]:
    """The JSON game record (docs/records.md)."""
    return service.record(game_id)


@router.get("/api/games/{game_id}/record.txt")
def record_text(game_id: str, service: Service) -> PlainTextResponse:
    """The plain-text move list (docs/records.md)."""
    return PlainTextResponse(service.text(game_id))


@router.post("/api/records", status_code=201)
async def import_record(request: Request, service: Service) -> dict[str, Any]:
    """Import a JSON record (application/json) or a text record (text/plain) as a new hot-seat game."""
    created = await run_in_threadpool(service.import_record, await record_body(request))
    return created_answer(created)
