"""Health checks for a process manager or a load balancer: ``/healthz`` (the process answers) and
``/readyz`` (the storage is reachable and its schema current)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz() -> dict[str, Any]:
    """Liveness: the process answers (on the event loop, without touching the storage)."""
    return {"status": "ok"}


@router.get("/readyz")
def readyz(request: Request) -> JSONResponse:
    """Readiness: the storage answers a query and its schema is at the newest migration (else 503)."""
    from tessera.server.http.storage_errors import STORAGE_ERRORS

    storage = request.app.state.storage
    try:
        current, head = storage.schema_versions()
    except STORAGE_ERRORS as e:
        return JSONResponse(
            {"status": "unavailable", "detail": f"the storage does not answer: {str(e).splitlines()[0][:200]}"},
            status_code=503,
            headers={"Retry-After": "2"},
        )
    if current != head:
        return JSONResponse(
            {"status": "migrating", "detail": f"the schema is at {current}, not {head}", "schema": current},
            status_code=503,
            headers={"Retry-After": "5"},
        )
    return JSONResponse({"status": "ready", "schema": current})
