"""The vectorised engine: ``B`` games of one kind as numpy arrays, stepped by compiled kernels.

>>> import numpy as np, tessera.vector
>>> env = tessera.vector.make("nume(size=3)", batch=4, seed=0)
>>> batch = env.reset()
>>> batch.obs.shape, batch.mask.shape, batch.player.tolist()
((4, 10, 7, 7), (4, 1444), [0, 0, 0, 0])
>>> rng = np.random.default_rng(0)
>>> batch = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in batch.mask]))
>>> batch.player.tolist(), batch.terminated.tolist()
([1, 1, 1, 1], [False, False, False, False])

:func:`make` takes a game as the adapters do (:mod:`tessera.adapters.core`): the same
finite action numbering (an action is an *adapter action*) and the same observation planes,
seen by the player to move.  ``reset()`` and ``step(actions)`` return a :class:`Batch`
(``obs``, ``mask``, ``player``, ``rewards``, ``terminated``, ``truncated``); a game that
ends is reset at once (``terminated`` says so, ``rewards`` holds its returns, and ``obs``,
``mask`` and ``player`` are the new game's).  Everything is written by numba kernels in
one call per step, with no Python loop over the games.  The engine is declared by
``Game.vector_engine``: the generic one on the game's kernel contract
(:class:`tessera.core.kits.stepper.ContractVector`: Nymbat, and a plugin game such as the Nim
example), or a game's own (``tessera/games/<game>/vector.py``) where a benchmark shows the generic
one costs more than 10 %; both on the shared base (:mod:`tessera.core.kits.vector`).

* Nume without komi bidding; Nibble deals each new game from one of ``deals`` seeds
  (``0 … deals−1``, drawn uniformly from the engine's seed: the adapters' chance node),
  or always from ``deal``; Ikabegamá on the adapters' window; Nymbat with 2 or 4 players;
  Nelaxtam one per-troop decision per step, as the adapters make them (one whole order in
  quiet battle turns).
* Formats (docs/research.md): ``obs_dtype="uint8"`` (default: 0/1 on/off planes, ``round(255·x)``
  fractional ones; ``env.obs_scale`` gives the ``float32`` planes back) or ``"float32"``;
  ``actions="flat"`` (default: an adapter action per step, the full-width ``bool`` mask) or
  ``"factored"``: a move is a short sequence of decisions — Nume the cell, then the number; Nymbat
  the piece or group, then the destination; the other games one decision a move — with
  ``Batch.phase`` (0 when the next decision starts a move), ``Batch.decided`` (the first decision,
  −1 at phase 0) and ``mask`` the current decision's.
* An action that is not legal in its game, or input of the wrong shape or type, is
  refused (``IllegalMove`` / ``ValueError`` naming the slot) before any game changes.
* The arrays of a batch are the engine's buffers (read-only views), overwritten by the
  next call.  :func:`random_legal` draws one random legal action per game from a mask.
* ``gymnasium.make_vec("tessera/Nume-v0", num_envs=B)`` is a Gymnasium vector env on the
  engine (:mod:`tessera.vector.gymnasium`).
"""

from __future__ import annotations

from tessera.adapters.core import DEFAULT_DEALS, adapt
from tessera.core.game import Game
from tessera.core.kits.draw import random_legal
from tessera.core.kits.vector import Batch, Factoring, VectorGame


def make(
    spec: str | Game,
    batch: int = 1,
    seed: int = 0,
    *,
    window: int = 0,
    deal: int | None = None,
    deals: int = DEFAULT_DEALS,
    obs_dtype: str = "uint8",
    actions: str = "flat",
) -> VectorGame:
    """``batch`` games of ``spec`` (``"nume(size=3)"``, a ``Game`` …) side by side, seeded with ``seed``.

    ``window`` (Ikabegamá), ``deal`` and ``deals`` (Nibble) are the adapters' options.  ``obs_dtype``:
    ``"uint8"`` (default) or ``"float32"`` planes; ``actions``: ``"flat"`` (default: one adapter action
    per step, a full-width ``bool`` mask) or ``"factored"`` (a move as a short sequence of decisions,
    ``Batch.phase``).  ``ValueError`` for another value.
    """
    adapted = adapt(spec, window=window, deal=deal, deals=deals)
    engine = adapted.game.vector_engine()  # the game's own engine (games/<game>/vector.py), if it declares one
    if engine is None:
        raise ValueError(f"{adapted.name}: the vector engine has no kernels for this game")
    return engine(adapted, batch, seed, obs_dtype=obs_dtype, actions=actions)


__all__ = ["Batch", "Factoring", "VectorGame", "make", "random_legal"]
