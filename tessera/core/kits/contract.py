"""The kernel contract: the same compiled verbs, with the same signatures, in every game.

A game declares its contract with ``Game.kernel_contract()`` (as it declares its vector engine
with ``Game.vector_engine()``); the contract's kernels live in ``tessera/games/<game>/contract.py``
and call the game's own rule kernels (``kernels.py``), so the contract adds no second copy of a
rule.  Every verb takes the game's position first and the game's constant tables second:

=========================================  ===================================================
verb                                       what it does
=========================================  ===================================================
``init(s, g, rs) -> None``                 write a new game into ``s`` (chance, e.g. Nibble's
                                           deal, drawn from ``rs``)
``current(s, g) -> int``                   the player to move, or ``TERMINAL`` (−4) once over
``legal(s, g, out) -> int``                write the legal actions (ascending, the ``State``'s
                                           numbering) into ``out[:n]``; return ``n`` (0 once over)
``apply(s, g, action, rs) -> int``         play ``action`` if legal: ``ONGOING`` (0), ``OVER``
                                           (1), or ``REFUSED`` (−1, ``s`` unchanged)
``observe(s, g, player, out) -> None``     ``player``'s observation planes (the adapters', flat
                                           ``C·H·W``) into ``out`` (``float32``)
``returns(s, g, out) -> None``             each player's return into ``out`` (``float64``,
                                           one per player; all 0 while the game goes on)
=========================================  ===================================================

* ``s`` — the position: one ``int32`` array of ``state_size`` entries (its layout is the game's,
  at the top of its ``contract.py``); a copy of ``s`` is a copy of the game.
* ``g`` — the game's constant tables, a tuple of arrays (neighbours, parameters, layouts, the
  pool of deals …) that no verb changes; the same ``g`` for every position of one game.
* ``rs`` — **the one way randomness enters**: a generator state (``uint64[1]``, made by
  :func:`tessera.core.kernels.rng_state`), advanced by the draws.  Same ``rs``, same game.
  A verb that draws nothing ignores it.
* ``out`` — a buffer the caller owns: ``int64[num_actions]`` for ``legal``, ``float32[C·H·W]``
  for ``observe``, ``float64[num_players]`` for ``returns``.

The verbs are :func:`tessera.core.kernels.kernel` functions (``numba.njit``): a batched loop,
a rollout or a solver written once in numba calls them for any game, and so does Python
(:class:`ContractGame` steps one position through them).  ``tests/conformance/test_kernel_contract.py``
checks every game's contract against its per-step ``State``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tessera.core.game import TERMINAL

Tables = tuple[np.ndarray, ...]
"""The type of ``g``: a game's constant tables."""

ONGOING = 0
"""``apply``: the action was played and the game goes on."""
OVER = 1
"""``apply``: the action was played and ended the game."""
REFUSED = -1
"""``apply``: the action is not legal now; nothing changed."""

VERBS: dict[str, tuple[str, ...]] = {
    "init": ("s", "g", "rs"),
    "current": ("s", "g"),
    "legal": ("s", "g", "out"),
    "apply": ("s", "g", "action", "rs"),
    "observe": ("s", "g", "player", "out"),
    "returns": ("s", "g", "out"),
}
"""Each verb of the contract and its parameters, in order (the same names in every game)."""


@dataclass(frozen=True)
class KernelContract:
    """One game's verbs (compiled kernels) and the sizes of what they read and write.

    ``tables`` is the ``g`` every verb takes; ``state_size`` the length of ``s`` (``int32``);
    ``num_actions`` the length ``legal`` may fill; ``obs_shape`` ``(C, H, W)`` of ``observe``.
    """

    game: Any
    """The game (a :class:`tessera.core.game.Game`) whose rules these are."""
    tables: Tables
    state_size: int
    num_actions: int
    num_players: int
    obs_shape: tuple[int, int, int]
    init: Any
    current: Any
    legal: Any
    apply: Any
    observe: Any
    returns: Any
    initial_seed: Callable[[np.ndarray], int | None] | None = None
    """For a game whose ``init`` draws chance (a deal): the ``seed`` of ``game.new_initial_state(seed)``
    that deals the game ``init`` wrote into ``s``; ``None`` for a game without chance."""

    def new_position(self) -> np.ndarray:
        """A zeroed position array (``int32[state_size]``) to pass to ``init``."""
        return np.zeros(self.state_size, np.int32)

    def verbs(self) -> dict[str, Any]:
        """The verbs by name (the keys of :data:`VERBS`)."""
        return {name: getattr(self, name) for name in VERBS}


def signature_problems(contract: KernelContract) -> list[str]:
    """What in ``contract`` departs from :data:`VERBS` (a verb that is not a compiled kernel, or
    other parameter names); an empty list when it conforms."""
    problems = []
    for name, params in VERBS.items():
        fn = getattr(contract, name)
        py = getattr(fn, "py_func", None)
        if py is None:
            problems.append(f"{name}: not a compiled kernel")
            continue
        got = tuple(inspect.signature(py).parameters)
        if got != params:
            problems.append(f"{name}({', '.join(got)}): expected {name}({', '.join(params)})")
    if not isinstance(contract.tables, tuple) or not all(isinstance(t, np.ndarray) for t in contract.tables):
        problems.append("tables: expected a tuple of numpy arrays")
    return problems


class ContractGame:
    """One position stepped through a contract from Python (tests, examples, tools).

    ``seed`` seeds the ``rs`` every draw comes from.  The methods are thin: each is one verb.
    """

    def __init__(self, contract: KernelContract, seed: int = 0) -> None:
        from tessera.core.kernels import rng_state

        self.contract = contract
        self.rs = rng_state(seed)
        self.s = contract.new_position()
        self._legal = np.zeros(max(1, contract.num_actions), np.int64)
        self._ret = np.zeros(contract.num_players, np.float64)
        self._obs = np.zeros(int(np.prod(contract.obs_shape)), np.float32)
        contract.init(self.s, contract.tables, self.rs)

    def current(self) -> int:
        return int(self.contract.current(self.s, self.contract.tables))

    def is_terminal(self) -> bool:
        return self.current() == TERMINAL

    def legal(self) -> np.ndarray:
        """The legal actions (a view of an internal buffer, overwritten by the next call)."""
        n = self.contract.legal(self.s, self.contract.tables, self._legal)
        return self._legal[:n]

    def apply(self, action: int) -> int:
        return int(self.contract.apply(self.s, self.contract.tables, int(action), self.rs))

    def returns(self) -> list[float]:
        self.contract.returns(self.s, self.contract.tables, self._ret)
        return [float(x) for x in self._ret]

    def rollouts(self, n: int, max_plies: int = -1) -> tuple[list[float], int]:
        """``n`` uniformly random games from this position (unchanged), drawn from ``rs``: each player's
        summed returns (games cut off after ``max_plies`` steps count 0) and the steps played, by the
        generic rollout loop compiled on the game's verbs (:mod:`tessera.core.kits.stepper`)."""
        c = self.contract
        module = __import__(c.init.py_func.__module__, fromlist=["contract_rollouts"])
        totals = np.zeros(c.num_players, np.float64)
        work = np.empty_like(self.s)
        plies = module.contract_rollouts(
            self.s, c.tables, int(n), self.rs, int(max_plies), totals, work, self._legal, self._ret
        )
        return [float(x) for x in totals], int(plies)

    def observe(self, player: int) -> np.ndarray:
        """``player``'s planes, shaped ``obs_shape`` (a view of an internal buffer)."""
        self.contract.observe(self.s, self.contract.tables, int(player), self._obs)
        return self._obs.reshape(self.contract.obs_shape)


__all__ = ["ONGOING", "OVER", "REFUSED", "VERBS", "ContractGame", "KernelContract", "Tables", "signature_problems"]
