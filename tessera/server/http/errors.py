"""The one error the match layer raises, and how long texts are shortened in its messages.

The match layer knows no HTTP: it raises :class:`ServiceError` with the status code and the
reason, which the web layer turns into ``{"detail": ...}``; a reason that is a keyed text
(:class:`tessera.core.texts.Text`: a game's refusal) adds its ``key`` and ``args`` beside the
English ``detail``, so that a client can say it in the player's language.
"""

from __future__ import annotations

from typing import Any

from tessera.core.texts import Text, json_args


class ServiceError(Exception):
    """A refused request: ``status`` (4xx), the reason shown to the person, and the reason's
    catalogue ``key`` and ``args`` where it has them."""

    def __init__(self, status: int, detail: str, key: str | None = None, args: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = str(detail)
        if key is None and isinstance(detail, Text):
            key, args = detail.key, json_args(detail.args)
        self.key = key
        self.args_ = args or {}

    def body(self) -> dict[str, Any]:
        """The JSON answer: ``{"detail"}``, with ``key`` and ``args`` when the reason has a key."""
        out: dict[str, Any] = {"detail": self.detail}
        if self.key is not None:
            out["key"] = self.key
            out["args"] = self.args_
        return out

    def __reduce__(self) -> tuple[type[ServiceError], tuple[int, str, str | None, dict[str, Any]]]:
        return (type(self), (self.status, self.detail, self.key, self.args_))  # raised in a worker process


def short(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"
