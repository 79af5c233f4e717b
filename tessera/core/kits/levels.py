"""A game's tuning of the strength levels (``Game.level_tuning()``): which agent its search levels use.

The levels themselves (:func:`tessera.agents.spec.level`) are generic: 1 a noisy greedy, 2 greedy,
3–5 a search agent at 0.3, 1 and 3 s; level 6, where a game declares one, its own agent at 3 s, offered only
where a stored sequential test shows it beats level 5 (:mod:`tessera.agents.evidence`).  A game whose matches
chose another search than the default declares it here, beside its rules; the figures behind each choice are
in docs/agents.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LevelTuning:
    """What a game changes in the levels (every field empty: the default levels)."""

    search: str | None = None
    """The agent spec of the search levels 3–5 (``None``: the default search)."""
    level5: str | None = None
    """Level 5's agent where it is another algorithm than levels 3–4 (``None``: ``search``)."""
    many_players: Mapping[int, str] = field(default_factory=dict)
    """All five levels (level -> agent spec) of the variants of more than two players, where the game has
    a ladder of its own (empty: levels 3–5 there use the default search)."""
    measured: Mapping[str, int | str] = field(default_factory=dict)
    """How strong the levels were measured to be (docs/agents.md), shown beside the level choice:
    ``vs4``, ``vs3`` (level 5's score % against levels 4 and 3), ``games`` (games a pair),
    ``vs2`` (the search of levels 3–5 against level 2, win %); empty: not measured."""
    level6: str | None = None
    """The agent spec of level 6 (``None``: no level 6).  It plays at level 5's time and is offered only where
    the stored SPRT named by ``level6_sprt`` accepted it against level 5 (:mod:`tessera.agents.evidence`)."""
    level6_sprt: str | None = None
    """The folder of ``studies/sprt/`` whose ``results.jsonl`` is the sequential test of ``level6`` (agent A)
    against ``level5`` (agent B); ``None``: level 6 is never offered."""
    note: str | None = None
    """The key of a sentence (web catalogue) said about the search levels 3–5 of this game, or ``None``."""

    def as_dict(self) -> dict[str, object]:
        """What the web client shows of it (the catalogue's ``levels``)."""
        return {"measured": dict(self.measured), "note": self.note, "own_ladder": bool(self.many_players)}


__all__ = ["LevelTuning"]
