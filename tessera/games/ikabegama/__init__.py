"""Ikabegamá, one package of the shape every game has.

* ``game`` — the declaration (:data:`INFO`), the :class:`Game` and its :class:`State` (moves, notation,
  the sentences of refusals); its docstring is the rules;
* ``position`` — the position dictionary read back (``state_from_dict``);
* ``render`` — the render description (``render(state, player)``, behind ``State.render``);
* ``kernels`` — the compiled rules (numba) in the shared vocabulary (``legal``, ``check``, ``apply``,
  ``random_step``, ``evaluate``, ``rollouts``; refusal codes ``R_*``);
* ``observation`` — the observation planes of the research adapters (``Game.observation_spec``).

``Game`` and ``State`` name the same classes in every game's package.
"""

from tessera.games.ikabegama import kernels, observation
from tessera.games.ikabegama.game import (
    COLORS,
    DARK,
    INFO,
    LIGHT,
    NAMES,
    IkabegamaGame,
    IkabegamaState,
)

Game = IkabegamaGame
"""This game's :class:`~tessera.core.game.Game` (every game's package has the name)."""
State = IkabegamaState
"""This game's :class:`~tessera.core.game.State`."""

__all__ = [
    "COLORS",
    "DARK",
    "INFO",
    "LIGHT",
    "NAMES",
    "Game",
    "IkabegamaGame",
    "IkabegamaState",
    "State",
    "kernels",
    "observation",
]
