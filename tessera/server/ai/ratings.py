"""The AI levels' measured ratings: what each AI account (``ai-level1`` … ``ai-level6``) starts with in
a game's rating pool, what the seek pool offers ("about 1400") and what the lobby's form shows.

Each game may keep its levels' ratings beside its rules, in ``tessera/games/<game>/levels.json``
(written by ``studies/ai_ratings/fit.py`` from the matches of ``studies/ai_ratings/run.sh``)::

    {"anchor": "level 1 = 800", "method": "...", "levels": {"1": {"rating": 800, "rd": 60,
     "low": 800, "high": 800, "games": 8}, "2": {...}, ...}}

``rating`` is on the Glicko scale of the players' pools, fitted by Bradley–Terry with level 1 held at
:data:`ANCHOR`; ``low``/``high`` its 95 % interval; ``games`` the match games it rests on; ``rd`` the
starting deviation of the AI account (the interval's half width, at least :data:`MIN_RD`).  A game
without the file (or a level missing from it) takes :data:`NOMINAL`.  The file is read once per
process.
"""

from __future__ import annotations

import functools
import json
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tessera.core.registry import game_class
from tessera.server.ai.thinking import AGENTS_AVAILABLE

log = logging.getLogger("tessera.server.ai.ratings")

ANCHOR = 800.0
"""Level 1's rating in every game: the anchor of the fitted scale (docs/agents.md)."""

NOMINAL = {1: 800.0, 2: 1100.0, 3: 1400.0, 4: 1700.0, 5: 2000.0}
"""A level's rating in a game that has not measured its levels (no ``levels.json``)."""

NOMINAL_RD = 150.0
"""The starting deviation of an AI account whose rating is nominal, not measured."""

MIN_RD = 60.0
"""The smallest starting deviation given to a measured AI rating (the AI's strength varies with
the machine's speed and the position: its rating should still move with its games)."""

MAX_RD = 350.0
"""The largest starting deviation (a level measured on very few games)."""

FILE = "levels.json"


@dataclass(frozen=True)
class LevelRating:
    """One AI level's starting rating in one game's pool."""

    rating: float
    """Glicko-scale rating (1500-centred)."""
    rd: float
    """Starting rating deviation."""
    low: float | None = None
    """Lower end of the 95 % interval of the measurement (``None``: nominal)."""
    high: float | None = None
    """Upper end of the 95 % interval."""
    games: int = 0
    """Match games the measurement rests on (0: nominal)."""

    @property
    def measured(self) -> bool:
        return self.games > 0


def levels_file(game: str) -> Path | None:
    """The ``levels.json`` of game ``game`` (beside its module), or ``None`` for an unknown game."""
    try:
        module = sys.modules[game_class(game).__module__]
    except (ValueError, KeyError):
        return None
    if not getattr(module, "__file__", None):
        return None
    return Path(str(module.__file__)).parent / FILE


def _parse(data: dict[str, Any]) -> dict[int, LevelRating]:
    out: dict[int, LevelRating] = {}
    for key, v in dict(data.get("levels", {})).items():
        level = int(key)
        rating = float(v["rating"])
        rd = min(MAX_RD, max(MIN_RD, float(v.get("rd", NOMINAL_RD))))
        low = float(v["low"]) if v.get("low") is not None else None
        high = float(v["high"]) if v.get("high") is not None else None
        out[level] = LevelRating(rating, rd, low, high, int(v.get("games", 0)))
    return out


@functools.cache
def level_ratings(game: str) -> dict[int, LevelRating]:
    """Each AI level's starting rating in game ``game``'s pool (``{1: LevelRating, …, 5: …}``, and ``6`` where
    the game offers level 6: :func:`level6_rating`): measured where the game's ``levels.json`` says, else
    :data:`NOMINAL` (deviation :data:`NOMINAL_RD`).
    A file that cannot be read is logged and the nominal ratings are used."""
    out = {lv: LevelRating(r, NOMINAL_RD) for lv, r in NOMINAL.items()}
    path = levels_file(game)
    if path is not None and path.is_file():
        try:
            out.update(_parse(json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, KeyError, TypeError) as e:
            log.error("the AI level ratings of %s (%s) cannot be read: %s; nominal ratings used", game, path, e)
    six = level6_rating(game, out[5])
    if six is None:
        out.pop(6, None)  # a level 6 the game does not offer has no rating in its pool
    elif 6 not in out:
        out[6] = six
    return out


def level6_rating(game: str, level5: LevelRating) -> LevelRating | None:
    """Level 6's starting rating in ``game``'s pool where the game offers it (else ``None``), anchored on
    level 5's: level 5's rating plus the Elo of the SPRT's H1 (``elo1``, the advantage the test accepted;
    Glicko and the logistic Elo share the 400-point scale), with level 5's deviation widened to at least
    :data:`NOMINAL_RD` (one hypothesis, not a fit).  A ``levels.json`` that measured level 6 takes
    precedence (:func:`level_ratings`)."""
    if not AGENTS_AVAILABLE:
        return None
    from tessera.agents.evidence import level6_evidence

    try:
        ev = level6_evidence(game)
    except ValueError:
        return None
    if ev is None:
        return None
    return LevelRating(level5.rating + ev.test.elo1, max(level5.rd, NOMINAL_RD))


def level_rating(game: str, level: int) -> LevelRating:
    """Level ``level``'s starting rating in game ``game``'s pool (see :func:`level_ratings`)."""
    return level_ratings(game)[level]


def public(game: str) -> dict[str, dict[str, Any]]:
    """The levels' ratings as the catalogue gives them: ``{"1": {"rating": 800, "low", "high",
    "games", "measured"}, …}`` (ratings rounded to whole points)."""
    return {
        str(lv): {
            "rating": round(r.rating),
            "low": None if r.low is None else round(r.low),
            "high": None if r.high is None else round(r.high),
            "games": r.games,
            "measured": r.measured,
        }
        for lv, r in sorted(level_ratings(game).items())
    }
