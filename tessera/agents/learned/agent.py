"""The search of level 5 with a learned evaluation at its leaves (:class:`LearnedMCTSAgent`).

Nume's level 5 is UCT that scores each leaf with the game's hand-written ``evaluate``
(``mcts(c=0.7,rollout_cutoff=0,sample=8)``).  This agent is the same search with
:class:`~tessera.agents.learned.model.LearnedEvaluation` instead, both at the leaves and
for the candidate prior (``sample``); where the weights carry a learned number prior
(Nume: the distribution of final group sizes in self-play) the numbers of candidate steps
that start a group are drawn from it instead of uniformly from ``0 … cells``.  When its
weights cannot be loaded it says why in ``fallback`` and searches with the hand evaluation,
i.e. it plays exactly as level 5.

A game whose kit has a ``leaf`` (Nibble: level 5 is UCT with a random game to the end at each
leaf, ``mcts(c=0.7,rollout_cutoff=-1)``): the leaf's random game stops at the kit's ``reach``
and the learned value scores that position (one compiled call).  Without usable weights it plays
level 5's search exactly (random games to the end).

A game whose kit's first search is ``alphabeta`` (Nymbat, two players: level 5 is alpha-beta over the
hand-written ``evaluate``): :class:`LearnedAlphaBetaAgent` is the same search scoring its leaves (and
ordering its moves) with the learned value.  Without usable weights, or with more than two players,
it is level 5's search exactly.  :func:`learned_agent` picks the class from the game's kit (the
``learned`` agent spec).  ``search=turns`` (:class:`LearnedTurnAgent`, where the kit offers it):
four-player Nymbat's whole-turn search (levels 4–5, ``turns(limit=8|40)``) with the learned value
scoring the end of each rollout, an experiment (docs/training.md).

Each game's features, value and leaf live in its folder (``games/<game>/learned.py``) and reach
these searches through :meth:`tessera.core.game.Game.learned`.
"""

from __future__ import annotations

import random
from itertools import accumulate
from pathlib import Path
from typing import Any

from tessera.agents.alphabeta import AlphaBetaAgent
from tessera.agents.base import Agent
from tessera.agents.learned.model import LearnedEvaluation, Weights, WeightsError, kit, load_weights
from tessera.agents.mcts import MCTSAgent
from tessera.agents.turns import TurnAgent
from tessera.core.game import Action, State
from tessera.core.kits.learned import Leaf, LearnedKit, Value


def _kit_or_none(game: str) -> LearnedKit | None:
    try:
        return kit(game)
    except WeightsError:
        return None


def _value(game: str, weights: str | Path | Weights | None) -> Value:
    """The learned value of ``game`` with ``weights`` (WeightsError when unusable)."""
    declared = kit(game)
    w = weights if isinstance(weights, Weights) else load_weights(game, weights)
    if w.game != game:
        raise WeightsError(f"weights for {w.game}, not {game}")
    if declared.value is None:
        raise WeightsError(f"{game}: its learned value is a search leaf, not an evaluation")
    return declared.value(w.w)


class LearnedMCTSAgent(MCTSAgent):
    """UCT with the learned evaluation (module docstring); options as :class:`MCTSAgent`, plus ``weights``
    and ``prior`` (draw the numbers of candidate new groups from the weights' learned prior)."""

    def __init__(
        self,
        game: str = "nume",
        weights: str | Path | Weights | None = None,
        c: float = 0.7,
        rollout_cutoff: int = 0,
        sample: int | None = None,
        prior: bool = True,
        reach: int | None = None,
        guide: int = 1,
        name: str | None = None,
        **opts: Any,
    ) -> None:
        declared = _kit_or_none(game)
        if sample is None:
            sample = declared.sample if declared is not None else 8  # level 5's
        super().__init__(c=c, rollout_cutoff=rollout_cutoff, sample=sample, name=name or "learned", **opts)
        self.game = game
        self.fallback: str | None = None
        """Why the learned evaluation is not used (``None`` when it is)."""
        self.evaluation: LearnedEvaluation | None = None
        self.leaf: Leaf | None = None
        """The game's compiled leaf where its kit has one (random steps down to ``reach``, then the value)."""
        self._draw_prior = declared.draw if declared is not None else None
        self._cum: list[float] | None = None
        if reach is not None and (isinstance(reach, bool) or not isinstance(reach, int) or not 1 <= reach <= 200):
            raise ValueError(f"learned: reach must be an integer from 1 to 200 blocks, not {reach!r}")
        try:
            if declared is None:
                kit(game)  # raises, naming the games that have one
            assert declared is not None
            w = weights if isinstance(weights, Weights) else load_weights(game, weights)
            if declared.leaf is not None:
                last = reach if reach is not None else w.reach if w.reach is not None else declared.reach or 1
                stages = [(r, v) for r, v in w.stages if r > last]
                self.leaf = declared.leaf(w.w, last, stages, self.rng.randrange(2**62), guide)
                return
            self.evaluation = LearnedEvaluation(w)
            if prior and w.number_prior is not None:
                self._cum = list(accumulate(float(x) for x in w.number_prior))
        except WeightsError as e:
            self.fallback = f"{e}; searching with the hand-written evaluation (level 5)"
            if declared is not None and declared.leaf is not None:
                self.rollout_cutoff = -1  # level 5's random games to the end
                self.fallback = f"{e}; searching as level 5 (random games to the end)"

    def _draw(self, state: State, rng: random.Random) -> Action:
        """A random step whose number follows the learned prior where the weights carry one (the game's
        kit says how: Nume's number of a stone that starts a group); a uniform random step otherwise."""
        cum, draw = self._cum, self._draw_prior
        if cum is None or draw is None or self.evaluation is None or state.game.name != self.evaluation.game:
            return state.random_action(rng)
        return draw(state, rng, cum)

    def _leaf_value(self, state: State, player: int) -> float:
        leaf = self.leaf
        if leaf is not None and state.game.name == self.game:
            v0 = leaf.value(state)
            return v0 if player == 0 else -v0
        ev = self.evaluation
        if ev is None or state.game.name != ev.game:
            return state.evaluate(player)
        return ev.value(state, player)


class LearnedAlphaBetaAgent(AlphaBetaAgent):
    """Alpha-beta (level 5's Nymbat search) with the learned value at its leaves and in its move ordering;
    options as :class:`AlphaBetaAgent`, plus ``weights`` (a file or :class:`Weights`; default the package's)."""

    def __init__(
        self,
        game: str = "nymbat",
        weights: str | Path | Weights | None = None,
        max_depth: int = 64,
        width: int = 0,
        sample: int = 0,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(max_depth=max_depth, width=width, sample=sample, seed=seed, name=name or "learned")
        self.game = game
        self.fallback: str | None = None
        """Why the learned evaluation is not used (``None`` when it is)."""
        self.value: Value | None = None
        try:
            if "alphabeta" not in kit(game).searches:
                raise WeightsError(f"{game}: its learned value is not for the alpha-beta search")
            self.value = _value(game, weights)
        except WeightsError as e:
            self.fallback = f"{e}; searching with the hand-written evaluation (level 5)"

    def _static(self, st: State, player: int, ply: int) -> float:
        value = self.value
        if value is None or self._me >= 0 or st.is_terminal() or st.game.name != self.game:
            return super()._static(st, player, ply)  # the hand evaluation; paranoid search (four players)
        return value.value(st, player)


class LearnedTurnAgent(TurnAgent):
    """``turns`` (four-player Nymbat's levels 4–5) whose rollouts end with the learned value of the mover
    instead of ``evaluate``; the candidate turns and the rollouts' greedy steps keep the hand evaluation.
    Options as :class:`TurnAgent`, plus ``weights``; without usable weights it is ``turns`` exactly."""

    def __init__(self, game: str = "nymbat", weights: str | Path | Weights | None = None, **opts: Any) -> None:
        super().__init__(**opts)
        self.fallback: str | None = None
        """Why the learned evaluation is not used (``None`` when it is)."""
        self.value: Value | None = None
        try:
            if "turns" not in kit(game).searches:
                raise WeightsError(f"{game}: its learned value is not for the whole-turn search")
            self.value = _value(game, weights)
        except WeightsError as e:
            self.fallback = f"{e}; searching with the hand-written evaluation"

    def _rollout(self, after: State, me: int, rng: random.Random) -> float:
        value = self.value
        if value is None:
            return super()._rollout(after, me, rng)
        return value.value(self._rollout_state(after, me, rng), me)


_ALPHABETA_OPTIONS = ("game", "weights", "max_depth", "width", "sample", "seed", "name")
_TURNS_OPTIONS = ("game", "weights", "width", "c", "limit", "seed", "name")


def learned_agent(game: str = "nume", search: str | None = None, **opts: Any) -> Agent:
    """The ``learned`` agent for ``game``, by its kit's searches: :class:`LearnedAlphaBetaAgent` where the first
    is ``alphabeta`` (Nymbat; ``search=turns``: :class:`LearnedTurnAgent`), :class:`LearnedMCTSAgent`
    otherwise; a search the game does not offer, or an option its search does not take, is a ``TypeError``."""
    declared = _kit_or_none(game)
    searches = tuple(declared.searches) if declared is not None else ("mcts",)
    if search not in (None, *searches) or search == "mcts":
        offered = " or ".join(s for s in searches if s != "mcts") or "none"
        raise TypeError(f"learned(game={game}): search must be one the game offers ({offered}), not {search!r}")
    if searches[0] == "alphabeta":
        kind, allowed = ("turns", _TURNS_OPTIONS) if search == "turns" else ("alpha-beta", _ALPHABETA_OPTIONS)
        bad = sorted(set(opts) - set(allowed))
        if bad:
            raise TypeError(f"learned(game={game}) is {kind}: it has no option {bad[0]!r}")
        if search == "turns":
            return LearnedTurnAgent(game, **opts)
        return LearnedAlphaBetaAgent(game, **opts)
    for k in ("max_depth", "width", "limit"):
        if k in opts:
            raise TypeError(f"learned(game={game}) is UCT: it has no option {k!r}")
    return LearnedMCTSAgent(game, **opts)


__all__ = ["LearnedAlphaBetaAgent", "LearnedMCTSAgent", "LearnedTurnAgent", "learned_agent"]
