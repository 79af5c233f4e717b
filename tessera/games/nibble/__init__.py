"""Nibble, one package of the shape every game has.

* ``game`` — the declaration (:data:`INFO`) and the :class:`Game` (the board, the deal); its docstring is
  the rules;
* ``state`` — the :class:`State` (moves, notation, the sentences of refusals, evaluation);
* ``constants`` — the names the modules share (players, block colours, winning counts);
* ``solver`` — the exact endgame solver, on ``search`` — its compiled search;
* ``position`` — the position dictionary read back (``state_from_dict``);
* ``render`` — the render description (``render(state, player)``, behind ``State.render``);
* ``kernels`` — the compiled rules (numba) in the shared vocabulary (``legal``, ``check``, ``apply``,
  ``random_step``, ``evaluate``, ``rollouts``; refusal codes ``R_*``);
* ``observation`` — the observation planes of the research adapters (``Game.observation_spec``).

``Game`` and ``State`` name the same classes in every game's package.
"""

from tessera.games.nibble import kernels, observation
from tessera.games.nibble.game import (
    EMPTY_FILL,
    INFO,
    INSTANT_TRIPLE,
    MAJORITY,
    NAMES,
    PALETTE,
    PLAYER_COLORS,
    SWAPS_PER_CELL,
    SYMBOLS,
    NibbleGame,
    NibbleState,
)

Game = NibbleGame
"""This game's :class:`~tessera.core.game.Game` (every game's package has the name)."""
State = NibbleState
"""This game's :class:`~tessera.core.game.State`."""

__all__ = [
    "EMPTY_FILL",
    "INFO",
    "INSTANT_TRIPLE",
    "MAJORITY",
    "NAMES",
    "PALETTE",
    "PLAYER_COLORS",
    "SWAPS_PER_CELL",
    "SYMBOLS",
    "Game",
    "NibbleGame",
    "NibbleState",
    "State",
    "kernels",
    "observation",
]
