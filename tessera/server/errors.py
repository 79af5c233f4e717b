"""The one error the match layer raises, and how long texts are shortened in its messages.

The match layer knows no HTTP: it raises :class:`ServiceError` with the status code and the
reason, which the web layer turns into ``{"detail": ...}``.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A refused request: ``status`` (4xx) and the reason shown to the person."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail

    def __reduce__(self) -> tuple[type[ServiceError], tuple[int, str]]:
        return (type(self), (self.status, self.detail))  # raised in a worker process, re-raised here


def short(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"
