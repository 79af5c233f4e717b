"""What a game offers a learned evaluation (``Game.learned()``): its features, its value, its weights.

The generic parts — the weights file and its loader, the searches that score their leaves with
the value (:mod:`tessera.agents.learned`), training (``tessera train``, :mod:`tessera.arena.train`,
which asks the kit how: :attr:`LearnedKit.training`) — reach a game only through this kit, declared
beside its rules in ``games/<game>/learned.py``.  A value is linear,
``tanh(w · φ)`` over the game's compiled features ``φ`` (:mod:`tessera.core.kits.fitting`), the
features antisymmetric so that the value is zero-sum without a bias.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class Value(Protocol):
    """A learned value: ``value(state, player)`` in [-1, 1] (the returns when the game is over)."""

    def value(self, state: Any, player: int) -> float: ...


class Leaf(Protocol):
    """A compiled leaf of a search (Nibble's): ``value(state)`` for player 0, in [-1, 1]."""

    def value(self, state: Any) -> float: ...


@dataclass(frozen=True)
class LearnedKit:
    """A game's learned evaluation (module docstring)."""

    features: tuple[str, ...]
    """The names of the features, in order (a weights file lists them too and must match)."""
    features_of: Callable[[Any, int], np.ndarray]
    """``features_of(state, player)``: the feature vector of a state that is not over, shape
    ``(len(features),)``, float64; ValueError when the game is over."""
    value: Callable[[np.ndarray], Value] | None = None
    """``value(w)``: the learned value with the weights ``w`` (shape ``(len(features),)``); ``None`` when
    the game's search uses a :attr:`leaf` instead."""
    weights: str | None = None
    """The weights file shipped in the game's folder (``weights-v<N>.json``), or ``None``: none shipped."""
    folder: str = ""
    """The game's package (``tessera.games.nume``): where :attr:`weights` is read from."""
    searches: Sequence[str] = ("mcts",)
    """The searches that use the value, the first the default: ``mcts`` (UCT scoring its leaves),
    ``alphabeta`` (the value at the horizon and in the move ordering), ``turns`` (whole-turn rollouts
    ended by the value, for more than two players)."""
    sample: int = 8
    """UCT's candidate steps per expansion as the game's level 5 uses it (1: every legal step)."""
    leaf: Callable[[np.ndarray, int, Sequence[tuple[int, np.ndarray]], int, int], Leaf] | None = None
    """``leaf(w, reach, stages, seed, guide)``: a compiled leaf (random steps down to ``reach``, then the
    value) that replaces UCT's rollout; ``None``: the search scores its leaves with :attr:`value`."""
    reach: int | None = None
    """The default ``reach`` of :attr:`leaf`."""
    draw: Callable[[Any, random.Random, list[float]], int] | None = None
    """``draw(state, rng, cumulative)``: a random action whose number follows a learned prior (Nume's
    number of a new group, the cumulative weights of ``0 … cells``), or ``None``: no prior."""
    sample_at: Callable[..., Any] | None = None
    """``sample_at(game, rng, reach, guided, guide)``: a position as the leaves of the search meet it
    (``guide(seed)`` makes the chooser of the guided steps), or ``None`` when not the game's way of training."""
    training: str | None = None
    """How ``tessera train`` trains the value (:mod:`tessera.arena.train`): ``"generations"`` (self-play
    generations of the search with the best value so far, each fit gated against it), ``"stages"`` (a
    :attr:`leaf`'s value fitted stage by stage, the first to :attr:`exact` labels, each further one to a
    search over the stages below), or ``None``: not trained by ``tessera train``."""
    finals: Callable[[Any], list[int]] | None = None
    """``finals(state)``: what a finished self-play game adds to the learned prior of :attr:`draw` (Nume:
    the sizes of its groups), or ``None``: the game has no prior to learn."""
    prior: Callable[[np.ndarray, Any], np.ndarray] | None = None
    """``prior(finals, game)``: the prior fitted to the :attr:`finals` of the last generations' games
    (int64, any length), shape ``(cells + 1,)``, float64, summing to 1; ``None`` with :attr:`finals`."""
    exact: Callable[..., tuple[np.ndarray, np.ndarray, dict[str, Any]]] | None = None
    """``exact(game, count, rng, guide, reach)``: ``count`` positions at ``reach`` (:attr:`sample_at`) with
    their features ``(count, len(features))`` float64 and player 0's exact result ``(count,)`` in {-1, 0, 1}
    (the game's solver), and figures (``rollout_mse``: one random game's squared error): the first stage of
    ``"stages"`` training."""


__all__ = ["Leaf", "LearnedKit", "Value"]
