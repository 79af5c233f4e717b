"""Nymbat, one package of the shape every game has.

* ``game`` — the declaration (:data:`INFO`) and the :class:`Game`; its docstring is the rules;
* ``board`` — the board, the seats' layouts, the action numbering and phases the modules share;
* ``state`` — the :class:`State` (the position array read back, steps, resigning, random play);
* ``notation`` — a step written and read; ``refusals`` — the sentences of refused steps;
* ``position`` — the position dictionary read back (``state_from_dict``);
* ``render`` — the render description (``render(state, player)``, behind ``State.render``);
* ``kernels`` — the compiled rules (numba) in the shared vocabulary (``legal``, ``check``, ``apply``,
  ``random_step``, ``evaluate``, ``rollouts``; refusal codes ``R_*``);
* ``observation`` — the observation planes of the research adapters (``Game.observation_spec``).

``Game`` and ``State`` name the same classes in every game's package.
"""

from tessera.games.nymbat import kernels, observation
from tessera.games.nymbat.game import (
    BLUE,
    BRING,
    CELLS,
    COLORS,
    DIST,
    END,
    FULL,
    GRID,
    HOME,
    INDEX,
    INFO,
    LABEL,
    LAST_ROW,
    LAYOUTS,
    LOSE_BASE,
    MOVE,
    MOVE_BASE,
    NAMES,
    NAMES4,
    NBR,
    NUM_ACTIONS,
    PASS,
    PENALTY,
    PHASE_NAMES,
    PLACE_BASE,
    RED,
    REMOVE_BASE,
    RESIGN,
    SETUP,
    START,
    Layout,
    N,
    NymbatGame,
    NymbatState,
)

Game = NymbatGame
"""This game's :class:`~tessera.core.game.Game` (every game's package has the name)."""
State = NymbatState
"""This game's :class:`~tessera.core.game.State`."""

__all__ = [
    "BLUE",
    "BRING",
    "CELLS",
    "COLORS",
    "DIST",
    "END",
    "FULL",
    "GRID",
    "HOME",
    "INDEX",
    "INFO",
    "LABEL",
    "LAST_ROW",
    "LAYOUTS",
    "LOSE_BASE",
    "MOVE",
    "MOVE_BASE",
    "NAMES",
    "NAMES4",
    "NBR",
    "NUM_ACTIONS",
    "PASS",
    "PENALTY",
    "PHASE_NAMES",
    "PLACE_BASE",
    "RED",
    "REMOVE_BASE",
    "RESIGN",
    "SETUP",
    "START",
    "Game",
    "Layout",
    "N",
    "NymbatGame",
    "NymbatState",
    "State",
    "kernels",
    "observation",
]
