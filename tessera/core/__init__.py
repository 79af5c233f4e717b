"""The core: game protocol, registry, geometry, notation helpers and render descriptions.

Imports point one way: ``core`` ← ``games`` ← ``agents`` ← ``arena``; the server,
adapters and CLI sit on top.  Nothing in ``core`` knows any particular game.
"""

from tessera.core.game import (
    SIMULTANEOUS,
    TERMINAL,
    Action,
    Game,
    GameInfo,
    IllegalMove,
    Move,
    Param,
    ParamRule,
    State,
)
from tessera.core.registry import game_class, list_games, load_game, register

__all__ = [
    "SIMULTANEOUS",
    "TERMINAL",
    "Action",
    "Game",
    "GameInfo",
    "IllegalMove",
    "Move",
    "Param",
    "ParamRule",
    "State",
    "game_class",
    "list_games",
    "load_game",
    "register",
]
