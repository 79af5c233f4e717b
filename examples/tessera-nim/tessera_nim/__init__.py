"""Nim with one heap: an example tessera game in a package of its own, with compiled rule kernels.

The package has the shape of every tessera game: ``game`` (the declaration, the ``Game`` and its
``State``; its docstring is the rules) and ``kernels`` (the rules, compiled).  The entry point
``nim = "tessera_nim:NimGame"`` in ``pyproject.toml`` makes tessera find it.
"""

from tessera_nim import kernels
from tessera_nim.game import INFO, NimGame, NimState

Game = NimGame
State = NimState

__all__ = ["INFO", "Game", "NimGame", "NimState", "State", "kernels"]
