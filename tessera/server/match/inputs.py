"""Checks of what a request brings (names, seeds, game specs, seat plans, move texts) and new ids.

Every check refuses with a :class:`ServiceError` (422) that says what is wrong; nothing here
touches storage.
"""

from __future__ import annotations

import secrets
import unicodedata
from typing import Any

import tessera
from tessera.core.game import Game
from tessera.server.http.errors import ServiceError, short

MODES = ("hotseat", "ai", "online")
"""hot-seat (one screen, every seat), against the AI, online between browsers."""

SEAT_KINDS = ("here", "invite", "ai")
"""Kinds of seat a new game can have (``create(seat_kinds=...)``)."""

MAX_MOVE_CHARS = 2000
"""The longest move or order text accepted (every game's longest legal move is far shorter)."""

SEED_RANGE = (-(2**63), 2**63 - 1)
"""Seeds are stored as 64-bit integers."""


MAX_NAME_CHARS = 80
"""The most characters a player's name keeps."""

MAX_MARKS = 3
"""The most combining marks a name may stack on one character: enough for any written language
(Vietnamese stacks two), too few to draw a streak across the page ("Zalgo" text)."""


def clean_name(name: object) -> str:
    """A player's name as printable text: control characters and lone surrogates are dropped,
    80 characters at most; a name that stacks more than :data:`MAX_MARKS` combining marks on one
    character (what it draws, not its length) is refused (``ServiceError`` 422)."""
    text = "".join(ch for ch in str(name) if ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF)
    run = most = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        most = max(most, run)
    if most > MAX_MARKS:
        raise ServiceError(
            422,
            f"a name may stack at most {MAX_MARKS} combining marks on one character; this one stacks {most}",
        )
    return text[:MAX_NAME_CHARS].strip()


def check_seed(seed: object) -> int:
    """A seed as a 64-bit integer; ``ServiceError`` (422) otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ServiceError(422, f"seed {seed!r} is not accepted: expected a whole number")
    if not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
        raise ServiceError(422, f"seed {seed} is out of range: expected a 64-bit integer (-2**63 to 2**63-1)")
    return seed


def load_checked(spec: str, params: dict[str, Any] | None = None) -> Game:
    """``tessera.load_game``, with every refusal of the name or parameters as a ``ValueError``."""
    if not isinstance(spec, str):
        raise ValueError(f"the game must be a name like 'nume' or 'nume(size=3)', not {spec!r}")
    if len(spec) > 500:
        raise ValueError(f"unknown game {short(spec, 60)!r}: a game name or spec is at most 500 characters")
    try:
        return tessera.load_game(spec, **(params or {}))
    except (TypeError, OverflowError, ArithmeticError) as e:  # a parameter value the game's checks did not foresee
        for name, value in (params or {}).items():
            try:
                tessera.load_game(spec, **{name: value})
            except (TypeError, OverflowError, ArithmeticError):
                raise ValueError(
                    f"{short(spec, 60)}: parameter {name}={short(repr(value), 60)} is not accepted ({e})"
                ) from None
            except ValueError:
                pass
        raise ValueError(f"{short(spec, 60)}: a parameter is not accepted ({e})") from None


def load_or_refuse(spec: str, params: dict[str, Any] | None = None) -> Game:
    """:func:`load_checked`, refusing with a ``ServiceError`` (422)."""
    try:
        return load_checked(spec, params)
    except ValueError as e:
        raise ServiceError(422, short(str(e), 1000)) from None


def new_token() -> str:
    """An unguessable seat credential (256 bits)."""
    return secrets.token_urlsafe(32)


def new_game_id() -> str:
    """A short random game id."""
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


def seat_plan(seat_kinds: Any) -> tuple[str, list[tuple[str, int | None, str]]]:
    """Check a list of seat choices; the mode they amount to and ``(kind, level, name)`` per seat."""
    if not isinstance(seat_kinds, list) or not seat_kinds or len(seat_kinds) > 16:
        raise ServiceError(422, "seats must be a list with one entry per seat")
    out: list[tuple[str, int | None, str]] = []
    for i, entry in enumerate(seat_kinds):
        if not isinstance(entry, dict):
            raise ServiceError(422, f"seats[{i}] must be an object such as {{'kind': 'ai', 'level': 3}}")
        extra = sorted(set(entry) - {"kind", "level", "name"})
        if extra:
            raise ServiceError(422, f"seats[{i}]: unknown key {short(str(extra[0]), 40)!r} (kind, level, name)")
        kind = entry.get("kind")
        if kind not in SEAT_KINDS:
            raise ServiceError(
                422,
                f"seats[{i}].kind {short(str(kind), 40)!r} is not accepted: expected one of {', '.join(SEAT_KINDS)}",
            )
        level = entry.get("level")
        if kind == "ai":
            if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 6:  # 6: where offered
                raise ServiceError(422, f"seats[{i}].level {short(str(level), 40)!r} is not accepted: expected 1 to 6")
        elif level is not None:
            raise ServiceError(422, f"seats[{i}]: only an AI seat has a level")
        name = entry.get("name") or ""
        if not isinstance(name, str):
            raise ServiceError(422, f"seats[{i}].name must be a string")
        out.append((kind, level if kind == "ai" else None, name))
    kinds = [k for k, _, _ in out]
    mode = "online" if "invite" in kinds else "ai" if "ai" in kinds else "hotseat"
    return mode, out
