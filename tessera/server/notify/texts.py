"""The server's own words for notifications (push and e-mail), in the reader's language: the
``notify`` catalogue of the web client (``web/locales/<lang>/notify.json``), keys ``push.*`` and
``mail.*``, with i18next's ``{{name}}`` placeholders; English where a language lacks a key."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

LOCALES = Path(__file__).resolve().parent.parent.parent / "web" / "locales"
LANGUAGES = ("en", "ko", "es", "de", "fr")
FALLBACK = "en"


def language(lang: Any) -> str:
    """One of :data:`LANGUAGES` (the base of ``lang``, else English)."""
    base = str(lang or "").lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else FALLBACK


@cache
def _catalogue(lang: str) -> dict[str, Any]:
    try:
        return dict(json.loads((LOCALES / lang / "notify.json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def _lookup(cat: dict[str, Any], key: str) -> str | None:
    node: Any = cat
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, str) else None


def text(lang: str, key: str, **values: Any) -> str:
    """The text of ``key`` (``push.turn_title``) in ``lang`` with its placeholders filled."""
    found = _lookup(_catalogue(language(lang)), key) or _lookup(_catalogue(FALLBACK), key) or key
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: str(values.get(m.group(1), m.group(0))), found)
