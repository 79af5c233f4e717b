"""Nume, one package of the shape every game has.

* ``game`` — the declaration (:data:`INFO`) and the :class:`Game`; its docstring is the rules;
* ``state`` — the :class:`State` (moves, notation, the sentences of refusals, groups, evaluation);
* ``constants`` — the names the modules share (colours, phases, komi bounds, board sizes);
* ``position`` — the position dictionary read back (``state_from_dict``);
* ``render`` — the render description (``render(state, player)``, behind ``State.render``);
* ``kernels`` — the compiled rules (numba) in the shared vocabulary (``legal``, ``check``, ``apply``,
  ``random_step``, ``evaluate``, ``rollouts``; refusal codes ``R_*``);
* ``observation`` — the observation planes of the research adapters (``Game.observation_spec``).

``Game`` and ``State`` name the same classes in every game's package.
"""

from tessera.games.nume import kernels, observation
from tessera.games.nume.game import (
    BID,
    BLACK,
    CHOOSE,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    COLOUR_WORDS,
    COLOURS,
    FIRST_MOVE_EDGE,
    HEX_SIZES,
    INFO,
    KOMI_MAX,
    NO_COLOUR,
    PLAY,
    SQUARE_SIZES,
    WHITE,
    NumeGame,
    NumeState,
)

Game = NumeGame
"""This game's :class:`~tessera.core.game.Game` (every game's package has the name)."""
State = NumeState
"""This game's :class:`~tessera.core.game.State`."""

__all__ = [
    "BID",
    "BLACK",
    "CHOOSE",
    "COLOURS",
    "COLOUR_LETTERS",
    "COLOUR_NAMES",
    "COLOUR_WORDS",
    "FIRST_MOVE_EDGE",
    "HEX_SIZES",
    "INFO",
    "KOMI_MAX",
    "NO_COLOUR",
    "PLAY",
    "SQUARE_SIZES",
    "WHITE",
    "Game",
    "NumeGame",
    "NumeState",
    "State",
    "kernels",
    "observation",
]
