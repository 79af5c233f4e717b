"""Evaluations learned by self-play (``tessera train``) and the agent that searches with them.

* :mod:`tessera.agents.learned.features` — compiled position features (Nume).
* :mod:`tessera.agents.learned.model` — the linear value ``tanh(w · φ)``, its weights file
  (shipped in this package as ``<game>-v<N>.json``) and :func:`load_weights`.
* :mod:`tessera.agents.learned.agent` — :class:`LearnedMCTSAgent`, level 5's search with
  the learned evaluation.

Training lives in :mod:`tessera.arena.train`.
"""

from tessera.agents.learned.agent import LearnedMCTSAgent
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
    "LearnedEvaluation",
    "LearnedMCTSAgent",
    "Weights",
    "WeightsError",
    "features",
    "hand_weights",
    "load_weights",
]
