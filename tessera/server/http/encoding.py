"""JSON encoding of what the server sends most: views (answers and WebSocket pushes).

A view carries the whole render description (a 216-cell Nume board is about 22 KB of JSON),
and every move is answered with one and pushed to the game's viewers as another, so encoding
is a large share of a move's cost.  orjson encodes it several times faster than the standard
library; a value orjson refuses (an integer beyond 64 bits) falls back to :mod:`json`.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency of the server extra
    orjson = None  # type: ignore[assignment]


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON (what Starlette's ``JSONResponse`` would write)."""
    if orjson is not None:
        try:
            return orjson.dumps(value)  # (twice as fast as with OPT_NON_STR_KEYS on a view)
        except TypeError:  # a key that is not a string, an int beyond 64 bits …
            pass
        try:
            return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:
            pass
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def loads(data: bytes | str) -> Any:
    """JSON text (as :func:`dumps` writes it) read back."""
    if orjson is not None:
        return orjson.loads(data)
    return json.loads(data)


def dumps_text(value: Any) -> str:
    """:func:`dumps` as text (a WebSocket text frame)."""
    return dumps(value).decode("utf-8")


class FastJSONResponse(JSONResponse):
    """A ``JSONResponse`` encoded by :func:`dumps`."""

    def render(self, content: Any) -> bytes:
        return dumps(content)
