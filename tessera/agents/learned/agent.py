"""The search of level 5 with a learned evaluation at its leaves (:class:`LearnedMCTSAgent`).

Nume's level 5 is UCT that scores each leaf with the game's hand-written ``evaluate``
(``mcts(c=0.7,rollout_cutoff=0,sample=8)``).  This agent is the same search with
:class:`~tessera.agents.learned.model.LearnedEvaluation` instead, both at the leaves and
for the candidate prior (``sample``); where the weights carry a learned number prior
(Nume: the distribution of final group sizes in self-play) the numbers of candidate steps
that start a group are drawn from it instead of uniformly from ``0 … cells``.  When its
weights cannot be loaded it says why in ``fallback`` and searches with the hand evaluation,
i.e. it plays exactly as level 5.

Nibble (``game=nibble``): level 5 is UCT with a random game to the end at each leaf
(``mcts(c=0.7,rollout_cutoff=-1)``); here the leaf's random game stops at
:data:`~tessera.agents.learned.nibble.REACH` blocks and the learned value scores that
position (:class:`~tessera.agents.learned.nibble.NibbleLeaf`, one compiled call).  Without
usable weights it plays level 5's search exactly (random games to the end).

Nymbat (``game=nymbat``, two players): level 5 is alpha-beta over the hand-written ``evaluate``;
:class:`LearnedAlphaBetaAgent` is the same search scoring its leaves (and ordering its moves)
with :class:`~tessera.agents.learned.nymbat.NymbatValue`.  Without usable weights, or with more
than two players, it is level 5's search exactly.  :func:`learned_agent` picks the class by game
(the ``learned`` agent spec).  ``search=turns`` (:class:`LearnedTurnAgent`): four-player Nymbat's
whole-turn search (levels 4–5, ``turns(limit=8|40)``) with the learned value scoring the end of
each rollout, an experiment (docs/training.md).
"""

from __future__ import annotations

import bisect
import random
from itertools import accumulate
from pathlib import Path
from typing import Any

from tessera.agents.alphabeta import AlphaBetaAgent
from tessera.agents.base import Agent
from tessera.agents.learned.model import LearnedEvaluation, Weights, WeightsError, load_weights
from tessera.agents.learned.nibble import GAME as NIBBLE
from tessera.agents.learned.nibble import REACH, NibbleLeaf
from tessera.agents.learned.nymbat import GAME as NYMBAT
from tessera.agents.learned.nymbat import NymbatValue
from tessera.agents.mcts import MCTSAgent
from tessera.agents.turns import TurnAgent
from tessera.core.game import Action, State


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
        if sample is None:
            sample = 1 if game == NIBBLE else 8  # level 5's (Nibble: every legal step a candidate)
        super().__init__(c=c, rollout_cutoff=rollout_cutoff, sample=sample, name=name or "learned", **opts)
        self.fallback: str | None = None
        """Why the learned evaluation is not used (``None`` when it is)."""
        self.evaluation: LearnedEvaluation | None = None
        self.leaf: NibbleLeaf | None = None
        """Nibble: the compiled leaf (random steps down to ``reach`` blocks, then the learned value)."""
        self._cum: list[float] | None = None
        if reach is not None and (isinstance(reach, bool) or not isinstance(reach, int) or not 1 <= reach <= 200):
            raise ValueError(f"learned: reach must be an integer from 1 to 200 blocks, not {reach!r}")
        try:
            w = weights if isinstance(weights, Weights) else load_weights(game, weights)
            if w.game == NIBBLE:
                last = reach if reach is not None else w.reach if w.reach is not None else REACH
                stages = [(r, v) for r, v in w.stages if r > last]
                self.leaf = NibbleLeaf(w.w, last, self.rng.randrange(2**62), stages, guide)
                return
            self.evaluation = LearnedEvaluation(w)
            if prior and w.number_prior is not None:
                self._cum = list(accumulate(float(x) for x in w.number_prior))
        except WeightsError as e:
            self.fallback = f"{e}; searching with the hand-written evaluation (level 5)"
            if game == NIBBLE:
                self.rollout_cutoff = -1  # level 5's random games to the end
                self.fallback = f"{e}; searching as level 5 (random games to the end)"

    def _draw(self, state: State, rng: random.Random) -> Action:
        """A random step whose number, when it starts a group, follows the learned prior (if any)."""
        a = state.random_action(rng)
        cum = self._cum
        st: Any = state
        game: Any = state.game
        if cum is None or self.evaluation is None or game.name != self.evaluation.game:
            return a
        if st._colors is None or game.cells + 1 != len(cum):  # the prior is over the numbers of a Nume game
            return a
        K = game.cells + 2
        if a >= game.cells * K or a % K == 0:  # a bid, or a joining stone
            return a
        k = min(len(cum) - 1, bisect.bisect_right(cum, rng.random() * cum[-1]))
        return (a // K) * K + 1 + k

    def _leaf_value(self, state: State, player: int) -> float:
        leaf = self.leaf
        if leaf is not None and state.game.name == NIBBLE:
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
        game: str = NYMBAT,
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
        self.value: NymbatValue | None = None
        try:
            if game != NYMBAT:
                raise WeightsError(f"{game}: the learned alpha-beta search is for nymbat only")
            w = weights if isinstance(weights, Weights) else load_weights(game, weights)
            if w.game != NYMBAT:
                raise WeightsError(f"weights for {w.game}, not {NYMBAT}")
            self.value = NymbatValue(w.w)
        except WeightsError as e:
            self.fallback = f"{e}; searching with the hand-written evaluation (level 5)"

    def _static(self, st: State, player: int, ply: int) -> float:
        value = self.value
        if value is None or self._me >= 0 or st.is_terminal() or st.game.name != NYMBAT:
            return super()._static(st, player, ply)  # the hand evaluation; paranoid search (four players)
        return value.value(st, player)


class LearnedTurnAgent(TurnAgent):
    """``turns`` (four-player Nymbat's levels 4–5) whose rollouts end with the learned value of the mover
    instead of ``evaluate``; the candidate turns and the rollouts' greedy steps keep the hand evaluation.
    Options as :class:`TurnAgent`, plus ``weights``; without usable weights it is ``turns`` exactly."""

    def __init__(self, game: str = NYMBAT, weights: str | Path | Weights | None = None, **opts: Any) -> None:
        super().__init__(**opts)
        self.fallback: str | None = None
        """Why the learned evaluation is not used (``None`` when it is)."""
        self.value: NymbatValue | None = None
        try:
            if game != NYMBAT:
                raise WeightsError(f"{game}: the learned whole-turn search is for nymbat only")
            w = weights if isinstance(weights, Weights) else load_weights(game, weights)
            self.value = NymbatValue(w.w)
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
    """The ``learned`` agent for ``game``: :class:`LearnedAlphaBetaAgent` for Nymbat (level 5 is alpha-beta
    there; ``search=turns``: :class:`LearnedTurnAgent`), :class:`LearnedMCTSAgent` otherwise; an option the
    game's search does not take is a ``TypeError``."""
    if search not in (None, "alphabeta", "turns") or (search == "turns" and game != NYMBAT):
        raise TypeError(f"learned: search must be alphabeta or turns (nymbat only), not {search!r}")
    if game == NYMBAT:
        kind, allowed = ("turns", _TURNS_OPTIONS) if search == "turns" else ("alpha-beta", _ALPHABETA_OPTIONS)
        bad = sorted(set(opts) - set(allowed))
        if bad:
            raise TypeError(f"learned(game=nymbat) is {kind}: it has no option {bad[0]!r}")
        if search == "turns":
            return LearnedTurnAgent(game, **opts)
        return LearnedAlphaBetaAgent(game, **opts)
    for k in ("max_depth", "width", "limit"):
        if k in opts:
            raise TypeError(f"learned(game={game}) is UCT: it has no option {k!r}")
    return LearnedMCTSAgent(game, **opts)


__all__ = ["LearnedAlphaBetaAgent", "LearnedMCTSAgent", "LearnedTurnAgent", "learned_agent"]
