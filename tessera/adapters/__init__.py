"""Research adapters: tessera games in OpenSpiel, PettingZoo and Gymnasium.

The frameworks are optional extras (``tessera[openspiel]``, ``tessera[rl]``);
importing :mod:`tessera.adapters` itself needs only NumPy.

* :mod:`tessera.adapters.core` — the framework-neutral layer every adapter
  uses: a finite, numbered action space per game (Ikabegamá on a declared
  window, Nelaxtam's simultaneous orders as per-troop decisions), action
  masks, AlphaZero-style observation planes, a deal as a chance event.
* :mod:`tessera.adapters.openspiel` — ``import`` it to register
  ``tessera_nume`` … with ``pyspiel.register_game``.
* :mod:`tessera.adapters.openspiel_agents` — OpenSpiel's MCTS as a tessera
  agent (``openspiel-mcts`` in ``tessera match``).
* :mod:`tessera.adapters.pettingzoo` — ``env(...)`` (AEC) and ``parallel_env(...)``.
* :mod:`tessera.adapters.gymnasium` — ``import`` it to register ``tessera/Nume-v0`` ….

Nothing in ``tessera.core``, ``tessera.games`` or ``tessera.agents`` imports
this package.  See docs/research.md.
"""

from tessera.adapters.core import AdaptedGame, AdaptedState, adapt

__all__ = ["AdaptedGame", "AdaptedState", "adapt"]
