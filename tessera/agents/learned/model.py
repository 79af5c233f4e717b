"""The learned evaluation: a linear value over a game's compiled position features, its weights file and
loader.  A game offers one through its ``learned()`` kit (:class:`tessera.core.kits.learned.LearnedKit`,
``games/<game>/learned.py``); nothing here names a game.

A weights file is small JSON (``weights-v<N>.json`` in the game's folder, when one is shipped)::

    {"format": "tessera-weights", "version": 1, "game": "nume", "model": "linear-tanh",
     "features": ["estimate", ...], "weights": [...], "training": {...}}

``value = tanh(w · φ)`` for the player asked about; the features are antisymmetric, so the value is
zero-sum without a bias.
:func:`load_weights` refuses a missing, unreadable or inconsistent file with
:class:`WeightsError`, naming the file and the problem.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from tessera.core.game import State
from tessera.core.kits.learned import LearnedKit
from tessera.core.registry import game_class, list_games

FORMAT = "tessera-weights"


class WeightsError(ValueError):
    """A weights file is missing, unreadable or does not fit the game's features."""


def _with_kits() -> list[str]:
    names = []
    for name in sorted(list_games()):
        try:
            if game_class(name).learned() is not None:
                names.append(name)
        except ValueError:
            continue
    return names


def kit(game: str) -> LearnedKit:
    """The learned evaluation ``game`` declares (:meth:`tessera.core.game.Game.learned`); WeightsError
    naming the games that have one when it has none."""
    try:
        found = game_class(game).learned()
    except ValueError as e:
        raise WeightsError(f"{game}: {e}") from None
    if found is None:
        raise WeightsError(f"{game}: no learned evaluation for this game (only {', '.join(_with_kits())})")
    return found


@dataclass
class Weights:
    """A game's learned weights (see the module docstring for the file)."""

    game: str
    w: np.ndarray
    training: dict[str, Any] = field(default_factory=dict)
    version: int = 1
    number_prior: np.ndarray | None = None
    """Nume: how often each number ``0 … cells`` is worth writing on a stone that starts a group (the
    smoothed distribution of final group sizes in self-play), for boards of ``len − 1`` cells; ``None``: none."""
    reach: int | None = None
    """Nibble: the blocks left where the leaf's random game stops and ``w`` scores (``None``: the default)."""
    stages: list[tuple[int, np.ndarray]] = field(default_factory=list)
    """Nibble: further ``(reach, weights)`` stages above ``reach``
    (the game's kit's ``leaf``)."""

    def as_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.reach is not None:
            extra["reach"] = self.reach
        if self.stages:
            extra["stages"] = [{"reach": r, "weights": [round(float(x), 6) for x in v]} for r, v in self.stages]
        return {
            "format": FORMAT,
            "version": self.version,
            "game": self.game,
            "model": "linear-tanh",
            "features": list(kit(self.game).features),
            "weights": [round(float(x), 6) for x in self.w],
            "number_prior": None if self.number_prior is None else [round(float(x), 6) for x in self.number_prior],
            **extra,
            "training": self.training,
        }

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(self.as_dict(), indent=1) + "\n", encoding="utf-8")
        return p


def hand_weights(game: str = "nume") -> Weights:
    """Generation 0: Nume and Nymbat, the weights that reproduce the hand-written evaluation exactly
    (``tanh(estimate)``, ``tanh(hand)``); Nibble, nearly (``tanh(hand)``, the hand evaluation's value as the
    argument)."""
    w = np.zeros(len(kit(game).features))
    w[0] = 1.0
    return Weights(game, w, {"generation": 0, "note": "the hand-written evaluation"})


def parse_weights(data: Any, where: str) -> Weights:
    """Weights from a parsed file (``where`` names it in errors)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise WeightsError(f'{where}: not a tessera weights file (no "format": "{FORMAT}")')
    game = data.get("game")
    try:
        found = kit(game) if isinstance(game, str) else None
    except WeightsError:
        found = None
    if found is None or not isinstance(game, str):
        raise WeightsError(f"{where}: no learned evaluation for game {game!r}")
    names = data.get("features")
    if names != list(found.features):
        raise WeightsError(f"{where}: its features {names!r} are not this version's {list(found.features)!r}")
    w = data.get("weights")
    if (
        not isinstance(w, list)
        or len(w) != len(names)
        or not all(isinstance(x, int | float) and not isinstance(x, bool) and np.isfinite(x) for x in w)
    ):
        raise WeightsError(f'{where}: "weights" must be {len(names)} finite numbers')
    raw = data.get("training")
    training: dict[str, Any] = raw if isinstance(raw, dict) else {}
    prior = data.get("number_prior")
    if prior is not None and (
        not isinstance(prior, list)
        or len(prior) < 2
        or not all(isinstance(x, int | float) and not isinstance(x, bool) and np.isfinite(x) and x >= 0 for x in prior)
        or sum(prior) <= 0
    ):
        raise WeightsError(f'{where}: "number_prior" must be a list of non-negative numbers, not all zero')
    version = data.get("version", 1)
    out = Weights(game, np.array(w, dtype=np.float64), training, version if isinstance(version, int) else 1)
    reach = data.get("reach")
    if reach is not None:
        if isinstance(reach, bool) or not isinstance(reach, int) or reach < 1:
            raise WeightsError(f'{where}: "reach" must be a whole number of blocks, at least 1')
        out.reach = reach
    for stage in data.get("stages") or []:
        sw = stage.get("weights") if isinstance(stage, dict) else None
        sr = stage.get("reach") if isinstance(stage, dict) else None
        if (
            isinstance(sr, bool)
            or not isinstance(sr, int)
            or sr <= (out.reach or 1)
            or not isinstance(sw, list)
            or len(sw) != len(names)
            or not all(isinstance(x, int | float) and not isinstance(x, bool) and np.isfinite(x) for x in sw)
        ):
            raise WeightsError(
                f'{where}: each of "stages" must be {{"reach": blocks above "reach", '
                f'"weights": {len(names)} finite numbers}}'
            )
        out.stages.append((sr, np.array(sw, dtype=np.float64)))
    if prior is not None:
        out.number_prior = np.array(prior, dtype=np.float64) / float(sum(prior))
    return out


def load_weights(game: str = "nume", path: str | Path | None = None) -> Weights:
    """The weights in ``path``, or the package's shipped file for ``game``; :class:`WeightsError` if unusable."""
    if path is None:
        declared = kit(game)
        if declared.weights is None:
            raise WeightsError(f"{game}: no weights are shipped for this game (make them with tessera train)")
        src = resources.files(declared.folder).joinpath(declared.weights)
        where = f"package weights {declared.folder}/{declared.weights}"
        try:
            text = src.read_text(encoding="utf-8")
        except (OSError, FileNotFoundError) as e:
            raise WeightsError(f"{where}: cannot be read ({e.__class__.__name__})") from None
    else:
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise WeightsError(f"{where}: cannot be read ({e.strerror or e.__class__.__name__})") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise WeightsError(f"{where}: not valid JSON ({e})") from None
    out = parse_weights(data, where)
    if out.game != game:
        raise WeightsError(f"{where}: weights for {out.game}, not {game}")
    return out


def features(state: State, player: int) -> np.ndarray | None:
    """The feature vector of ``state`` for ``player`` as its game declares it (``None`` where the game has
    none: the end, Nume's komi bidding)."""
    if state.is_terminal():
        return None
    try:
        return kit(state.game.name).features_of(state, player)
    except ValueError:
        return None


class LearnedEvaluation:
    """``value(state, player)`` in [-1, 1] from :class:`Weights` (the hand evaluation in another game)."""

    def __init__(self, weights: Weights) -> None:
        declared = kit(weights.game)
        if declared.value is None:
            raise WeightsError(f"{weights.game}: its learned value is a search leaf, not an evaluation")
        self.weights = weights
        self.game = weights.game
        self._value = declared.value(np.ascontiguousarray(weights.w, dtype=np.float64))

    def value(self, state: State, player: int) -> float:
        if state.game.name != self.game:
            return float(state.returns()[player]) if state.is_terminal() else float(state.evaluate(player))
        return float(self._value.value(state, player))


__all__ = [
    "LearnedEvaluation",
    "Weights",
    "WeightsError",
    "features",
    "hand_weights",
    "kit",
    "load_weights",
    "parse_weights",
]
