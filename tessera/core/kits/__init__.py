"""What games build on, written once: each kit is the generic half of a capability that a game
declares on its :class:`~tessera.core.game.Game` (the game's own half lives in its folder).

* :mod:`~tessera.core.kits.vector` — the vector engine's base class, batch and cache
  (a game's half: ``games/<game>/vector.py``, declared by ``Game.vector_engine``).
"""
