"""Which AI levels the server offers in a game: 1–5 everywhere, 6 where the game's stored SPRT accepted its
level-6 agent against level 5 (:mod:`tessera.agents.evidence`).

The game form, the AI seats, the AI accounts' challenges and the seek pool's AI offer all ask here.  An
install without ``tessera.agents`` (the AI then plays random moves) offers levels 1–5.
"""

from __future__ import annotations

from tessera.server.ai.thinking import AGENTS_AVAILABLE
from tessera.server.http.errors import ServiceError

ALL_LEVELS = (1, 2, 3, 4, 5, 6)
"""Every AI level that exists somewhere (one AI account each, ``ai-level1`` … ``ai-level6``)."""

BASE_TOP = 5
"""The top level of a game without level 6."""


def offered_levels(game: str, players: int = 2) -> list[int]:
    """The AI levels offered in ``game`` (a game name) with ``players`` seats: ``[1, …, 5]`` or ``[1, …, 6]``."""
    if not AGENTS_AVAILABLE:
        return list(range(1, BASE_TOP + 1))
    from tessera.agents.evidence import offered_levels as _offered

    return _offered(game, players)


def top_level(game: str, players: int = 2) -> int:
    """The highest AI level offered in ``game`` with ``players`` seats (5 or 6)."""
    return offered_levels(game, players)[-1]


def check_ai_level(level: object, game: str, players: int = 2, *, field: str = "ai_level") -> int:
    """``level`` when it is an AI level offered in ``game`` with ``players`` seats, else ``ServiceError``
    422: not an integer from 1 to 6 (``refusal.game.ai_level``), or level 6 where the game's top is 5
    (``refusal.game.ai_level_top``, which names the game and its top level)."""
    if isinstance(level, bool) or not isinstance(level, int) or level not in ALL_LEVELS:
        raise ServiceError(
            422,
            f"{field} {str(level)[:40]!r} is not accepted: expected 1 to {ALL_LEVELS[-1]}",
            key="refusal.game.ai_level",
            args={"field": field, "level": str(level)[:40]},
        )
    top = top_level(game, players)
    if level > top:
        raise ServiceError(
            422,
            f"{field} {level} is not offered in {game}: its top level is {top} (level 6 is offered only where a "
            "sequential test showed it beats level 5)",
            key="refusal.game.ai_level_top",
            args={"field": field, "level": level, "game": game, "top": top},
        )
    return level


def public(game: str) -> dict[str, object]:
    """The catalogue's ``levels`` of ``game`` (a game name): the game's tuning as shown
    (``LevelTuning.as_dict``: ``measured``, ``note``, ``own_ladder``), plus ``offered`` (the levels offered
    with the default number of seats, two players), ``top`` (their highest) and ``level6`` (the SPRT that
    offers level 6, :meth:`tessera.agents.evidence.Evidence.public`, or ``None``)."""
    from tessera.core.registry import game_class

    out: dict[str, object] = dict(game_class(game).level_tuning().as_dict())
    offered = offered_levels(game, 2)
    evidence: dict[str, object] | None = None
    if AGENTS_AVAILABLE and offered[-1] > BASE_TOP:
        from tessera.agents.evidence import level6_evidence

        found = level6_evidence(game)
        evidence = None if found is None else found.public()
    out.update({"offered": offered, "top": offered[-1], "level6": evidence})
    return out


__all__ = ["ALL_LEVELS", "BASE_TOP", "check_ai_level", "offered_levels", "public", "top_level"]
