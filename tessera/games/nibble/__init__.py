"""Nibble: the game (``game``) and its compiled rule kernels (``kernels``); the rules are ``game``'s docstring."""

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
    "NibbleGame",
    "NibbleState",
]
