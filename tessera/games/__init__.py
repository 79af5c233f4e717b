"""One folder per game, holding all of it; each registers itself on import.

A game's folder holds its rules (``game.py``), kernels, position, render, observation planes, and
what it declares to the rest of tessera through the hooks of :class:`tessera.core.game.Game`:
its vector engine, exact solver, lessons, level tuning, rules pages and client module
(docs/games.md).  :func:`tessera.list_games` lists the folders here without importing them.
"""
