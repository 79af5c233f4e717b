"""Ikabegamá: the game (``game``) and its compiled rule kernels (``kernels``); the rules are ``game``'s docstring."""

from tessera.games.ikabegama.game import (
    COLORS,
    DARK,
    INFO,
    LIGHT,
    NAMES,
    IkabegamaGame,
    IkabegamaState,
)

__all__ = [
    "COLORS",
    "DARK",
    "INFO",
    "LIGHT",
    "NAMES",
    "IkabegamaGame",
    "IkabegamaState",
]
