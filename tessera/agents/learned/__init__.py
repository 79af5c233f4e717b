"""Evaluations learned by self-play (``tessera train``) and the agent that searches with them.

* Each game's compiled features, value (and Nibble's search leaf) live in its folder,
  ``games/<game>/learned.py``, declared by ``Game.learned()``
  (:class:`tessera.core.kits.learned.LearnedKit`); nothing here names a game.
* :mod:`tessera.agents.learned.model` — the linear value ``tanh(w · φ)``, its weights file (shipped in
  the game's folder as ``weights-v<N>.json``) and :func:`load_weights`.
* :mod:`tessera.agents.learned.agent` — :class:`LearnedMCTSAgent` and :class:`LearnedAlphaBetaAgent`,
  level 5's search with the learned evaluation, chosen by the game's kit.
* :mod:`tessera.agents.learned.training` — training data that plays games with agents.

Training lives in :mod:`tessera.arena.train`.
"""

from tessera.agents.learned.agent import LearnedAlphaBetaAgent, LearnedMCTSAgent, LearnedTurnAgent, learned_agent
from tessera.agents.learned.model import (
    LearnedEvaluation,
    Weights,
    WeightsError,
    features,
    hand_weights,
    kit,
    load_weights,
)

__all__ = [
    "LearnedAlphaBetaAgent",
    "LearnedEvaluation",
    "LearnedMCTSAgent",
    "LearnedTurnAgent",
    "Weights",
    "WeightsError",
    "features",
    "hand_weights",
    "kit",
    "learned_agent",
    "load_weights",
]
