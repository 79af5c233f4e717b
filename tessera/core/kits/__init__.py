"""What games build on, written once: each kit is the generic half of a capability that a game
declares on its :class:`~tessera.core.game.Game` (the game's own half lives in its folder).

* :mod:`~tessera.core.kits.vector` — the vector engine's base class, batch and cache freshness
  (a game's half: ``games/<game>/vector.py``, declared by ``Game.vector_engine()``);
* :mod:`~tessera.core.kits.solver` — an exact solver's declaration and answer, the searches'
  shared table bounds, keys and budget checks (``games/<game>/solver.py``, ``Game.solver()``);
* :mod:`~tessera.core.kits.lessons` — rule diagrams and lessons as data, their checks and
  judge (``games/<game>/lessons.py``, ``Game.lessons()``);
* :mod:`~tessera.core.kits.levels` — a game's tuning of the strength levels (``Game.level_tuning()``);
* :mod:`~tessera.core.kits.rows` — rows of batch arrays inside kernels without reference counts (the
  vector engines' loops over their games);
* :mod:`~tessera.core.kits.ints` — legal lists made of ints built once (``Game.action_ints``).
"""
