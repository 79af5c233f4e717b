"""Nelaxtam, one package of the shape every game has.

* ``game`` — the declaration (:data:`INFO`) and the :class:`Game`; its docstring is the rules;
* ``state`` — the :class:`State` (the position, sealed orders, a turn resolved, the position written out),
  on ``orders`` — its order language (tokens, an order checked, each troop's choices, random orders);
* ``refusals`` — the sentences of refused orders; ``constants`` — the names the modules share;
* ``position`` — the position dictionary read back (``state_from_dict``);
* ``render`` — the render description (``render(state, player)``, behind ``State.render``);
* ``kernels`` — the compiled rules (numba) in the shared vocabulary (``legal``, ``check``, ``apply``,
  ``random_step``, ``evaluate``, ``rollouts``; refusal codes ``R_*``);
* ``observation`` — the observation planes of the research adapters (``Game.observation_spec``).

``Game`` and ``State`` name the same classes in every game's package.
"""

from tessera.games.nelaxtam import kernels, observation
from tessera.games.nelaxtam.game import (
    BATTLE,
    BLACK,
    COLORS,
    DESTROY,
    HIDDEN,
    HOLD,
    INFO,
    INVASION,
    MOVE,
    NAMES,
    OVER,
    PHASES,
    PLACE,
    SEA_FILL,
    TERRITORY_FILL,
    WHITE,
    NelaxtamGame,
    NelaxtamState,
)

Game = NelaxtamGame
"""This game's :class:`~tessera.core.game.Game` (every game's package has the name)."""
State = NelaxtamState
"""This game's :class:`~tessera.core.game.State`."""

__all__ = [
    "BATTLE",
    "BLACK",
    "COLORS",
    "DESTROY",
    "HIDDEN",
    "HOLD",
    "INFO",
    "INVASION",
    "MOVE",
    "NAMES",
    "OVER",
    "PHASES",
    "PLACE",
    "SEA_FILL",
    "TERRITORY_FILL",
    "WHITE",
    "Game",
    "NelaxtamGame",
    "NelaxtamState",
    "State",
    "kernels",
    "observation",
]
