"""The search of level 5 with a learned evaluation at its leaves (:class:`LearnedMCTSAgent`).

Nume's level 5 is UCT that scores each leaf with the game's hand-written ``evaluate``
(``mcts(c=0.7,rollout_cutoff=0,sample=8)``).  This agent is the same search with
:class:`~tessera.agents.learned.model.LearnedEvaluation` instead, both at the leaves and
for the candidate prior (``sample``).  When its weights cannot be loaded it says why in
``fallback`` and searches with the hand evaluation, i.e. it plays exactly as level 5.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tessera.agents.learned.model import LearnedEvaluation, Weights, WeightsError, load_weights
from tessera.agents.mcts import MCTSAgent
from tessera.core.game import State


class LearnedMCTSAgent(MCTSAgent):
    """UCT with the learned evaluation (module docstring); options as :class:`MCTSAgent`, plus ``weights``."""

    def __init__(
        self,
        game: str = "nume",
        weights: str | Path | Weights | None = None,
        c: float = 0.7,
        rollout_cutoff: int = 0,
        sample: int = 8,
        name: str | None = None,
        **opts: Any,
    ) -> None:
        super().__init__(c=c, rollout_cutoff=rollout_cutoff, sample=sample, name=name or "learned", **opts)
        self.fallback: str | None = None
        """Why the learned evaluation is not used (``None`` when it is)."""
        self.evaluation: LearnedEvaluation | None = None
        try:
            w = weights if isinstance(weights, Weights) else load_weights(game, weights)
            self.evaluation = LearnedEvaluation(w)
        except WeightsError as e:
            self.fallback = f"{e}; searching with the hand-written evaluation (level 5)"

    def _leaf_value(self, state: State, player: int) -> float:
        ev = self.evaluation
        if ev is None or state.game.name != ev.game:
            return state.evaluate(player)
        return ev.value(state, player)


__all__ = ["LearnedMCTSAgent"]
