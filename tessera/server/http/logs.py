"""Structured logs: one JSON line per event, and one per request.

:func:`configure` (``tessera serve`` calls it) sends every log record to standard error as a JSON
object: ``time``, ``level``, ``logger``, ``message`` and, inside a request, its ``request_id``,
``route``, ``game_id`` and ``client`` (:data:`CONTEXT`).  :class:`tessera.server.http.edge.Edge`
sets that context, writes one line per request with its ``status`` and ``duration`` (seconds), and
answers with the request's id in ``X-Request-ID``.  A traceback is written once per distinct error
(its type and where it was raised); later occurrences are counted (``repeat``) without the traceback.

No secret reaches a log line: a credential in a query string (``token=``, ``secret=``,
``password=``, ``session=``, ``key=``; uvicorn writes a WebSocket's whole URL) is written as
``[redacted]`` (:func:`redact`).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
import traceback
from typing import Any

SECRET_PARAMS = re.compile(r"(?i)\b(token|secret|password|session|key|t)=[^&\s\"'#]+")
"""A credential passed as a query parameter (the ``t`` of an invite link included)."""


def redact(text: str) -> str:
    """``text`` with the value of every credential-like query parameter replaced by ``[redacted]``."""
    return SECRET_PARAMS.sub(r"\1=[redacted]", text)


CONTEXT: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("tessera_request", default=None)
"""The current request's fields (request id, route, game id, client)."""


class JsonFormatter(logging.Formatter):
    """A log record as one JSON line; a traceback only the first time its error is seen."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[tuple[str, str, int], int] = {}

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        ctx = CONTEXT.get()
        if ctx:
            out.update(ctx)
        for field in ("status", "duration", "method"):
            if hasattr(record, field):
                out[field] = getattr(record, field)
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            tb = traceback.extract_tb(exc.__traceback__)
            key = (type(exc).__name__, tb[-1].filename, tb[-1].lineno or 0) if tb else (type(exc).__name__, "?", 0)
            n = self.seen.get(key, 0) + 1
            if len(self.seen) < 10_000 or key in self.seen:
                self.seen[key] = n
            out["error"] = redact(f"{type(exc).__name__}: {exc}"[:2000])
            out["repeat"] = n
            if n == 1:
                out["traceback"] = redact("".join(traceback.format_exception(*record.exc_info)))
        return json.dumps(out, default=str)


def configure(level: str = "info") -> None:
    """Every logger (ours, uvicorn's, asyncio's) writes JSON lines to standard error."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # the edge (http/edge.py) writes one line per request
