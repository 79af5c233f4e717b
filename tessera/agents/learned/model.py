"""The learned evaluation: a linear value over compiled position features, its weights file and loader.

A weights file is small JSON (``tessera/agents/learned/<game>-v<N>.json`` in the package)::

    {"format": "tessera-weights", "version": 1, "game": "nume", "model": "linear-tanh",
     "features": ["estimate", ...], "weights": [...], "training": {...}}

``value = tanh(w · φ)`` for the player asked about; the features are antisymmetric
(:mod:`tessera.agents.learned.features`), so the value is zero-sum without a bias.
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

from tessera.agents.learned.features import NUME_FEATURES, linear_value, nume_features
from tessera.agents.learned.nibble import NIBBLE_FEATURES
from tessera.agents.learned.nymbat import NYMBAT_FEATURES
from tessera.core.game import State

FORMAT = "tessera-weights"
FEATURES = {"nume": NUME_FEATURES, "nibble": NIBBLE_FEATURES, "nymbat": NYMBAT_FEATURES}
"""The games with a learned evaluation and their feature names."""

SHIPPED = {"nume": "nume-v2.json", "nymbat": "nymbat-v1.json"}
"""The weights file shipped in the package for each game."""


class WeightsError(ValueError):
    """A weights file is missing, unreadable or does not fit the game's features."""


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
    (:class:`~tessera.agents.learned.nibble.NibbleLeaf`)."""

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
            "features": list(FEATURES[self.game]),
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
    if game not in FEATURES:
        raise WeightsError(f"{game}: no learned evaluation for this game (only {', '.join(FEATURES)})")
    w = np.zeros(len(FEATURES[game]))
    w[0] = 1.0
    return Weights(game, w, {"generation": 0, "note": "the hand-written evaluation"})


def parse_weights(data: Any, where: str) -> Weights:
    """Weights from a parsed file (``where`` names it in errors)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise WeightsError(f'{where}: not a tessera weights file (no "format": "{FORMAT}")')
    game = data.get("game")
    if game not in FEATURES:
        raise WeightsError(f"{where}: no learned evaluation for game {game!r}")
    names = data.get("features")
    if names != list(FEATURES[game]):
        raise WeightsError(f"{where}: its features {names!r} are not this version's {list(FEATURES[game])!r}")
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
        if game not in SHIPPED:
            raise WeightsError(f"{game}: no learned evaluation for this game (only {', '.join(SHIPPED)})")
        src = resources.files("tessera.agents.learned").joinpath(SHIPPED[game])
        where = f"package weights {SHIPPED[game]}"
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
    """The feature vector of a Nume ``state`` for ``player`` (``None`` during komi bidding or at the end)."""
    st: Any = state
    if state.is_terminal() or st._colors is None:
        return None
    mine = st._colors[player]
    kb, kw = st._komis()
    out = np.empty(len(NUME_FEATURES))
    nume_features(st._a, state.game.nbr, kb, kw, mine, 1 if st._col == mine else 0, out)  # type: ignore[attr-defined]
    return out


class LearnedEvaluation:
    """``value(state, player)`` in [-1, 1] from :class:`Weights` (the hand evaluation where no feature applies)."""

    def __init__(self, weights: Weights) -> None:
        self.weights = weights
        self.game = weights.game
        self._w = np.ascontiguousarray(weights.w, dtype=np.float64)
        self._phi = np.empty(len(weights.w))

    def value(self, state: State, player: int) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        st: Any = state
        if state.game.name != self.game or st._colors is None:
            return float(state.evaluate(player))
        mine = st._colors[player]
        kb, kw = st._komis()
        nume_features(st._a, state.game.nbr, kb, kw, mine, 1 if st._col == mine else 0, self._phi)  # type: ignore[attr-defined]
        return float(linear_value(self._phi, self._w))


__all__ = [
    "FEATURES",
    "SHIPPED",
    "LearnedEvaluation",
    "Weights",
    "WeightsError",
    "features",
    "hand_weights",
    "load_weights",
    "parse_weights",
]
