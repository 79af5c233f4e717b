"""Evaluations learned by self-play (``tessera train``) and the agent that searches with them.

* :mod:`tessera.agents.learned.features` — compiled position features (Nume); Nibble's and Nymbat's
  are in :mod:`tessera.agents.learned.nibble` and :mod:`tessera.agents.learned.nymbat`.
* :mod:`tessera.agents.learned.model` — the linear value ``tanh(w · φ)``, its weights file
  (shipped in this package as ``<game>-v<N>.json``) and :func:`load_weights`.
* :mod:`tessera.agents.learned.agent` — :class:`LearnedMCTSAgent` (Nume, Nibble) and
  :class:`LearnedAlphaBetaAgent` (Nymbat), level 5's search with the learned evaluation.

Training lives in :mod:`tessera.arena.train`.
"""

from tessera.agents.learned.agent import LearnedAlphaBetaAgent, LearnedMCTSAgent, LearnedTurnAgent, learned_agent
from tessera.agents.learned.model import (
    FEATURES,
    SHIPPED,
    LearnedEvaluation,
    Weights,
    WeightsError,
    features,
    hand_weights,
    load_weights,
)

__all__ = [
    "FEATURES",
    "SHIPPED",
    "LearnedAlphaBetaAgent",
    "LearnedEvaluation",
    "LearnedMCTSAgent",
    "LearnedTurnAgent",
    "Weights",
    "WeightsError",
    "features",
    "hand_weights",
    "learned_agent",
    "load_weights",
]
