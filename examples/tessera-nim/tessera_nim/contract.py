"""Nim's kernel contract (``tessera.core.kits.contract``): the same six verbs as every built-in game.

Position ``s``: the layout of :mod:`tessera_nim.kernels` (heap, to move, over, winner) in an
``int32`` array.  Tables ``g``: ``(params,)`` with ``params = [stones, take]`` (``int64``).
The observation planes are those tessera reads off the render for a game that declares none
(``tessera.core.observation.render_spec``): the first ``stones`` cells, one stone a cell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tessera.core.game import TERMINAL
from tessera.core.kernels import I64, kernel
from tessera.core.kits.contract import ONGOING, OVER, REFUSED, KernelContract, Tables
from tessera.core.kits.stepper import define_stepper
from tessera.core.kits.vector import fresh_cache
from tessera_nim import kernels as _k

if TYPE_CHECKING:
    from tessera_nim.game import NimGame

fresh_cache(__file__, "tessera_nim.kernels", "tessera.core.kits.stepper")


@kernel
def init(s: np.ndarray, g: Tables, rs: np.ndarray) -> None:
    """A full heap, the first player to move."""
    s[_k.HEAP] = g[0][0]
    s[_k.TO_MOVE] = 0
    s[_k.OVER] = 0
    s[_k.WINNER] = -1


@kernel
def current(s: np.ndarray, g: Tables) -> int:
    return TERMINAL if s[_k.OVER] else I64(s[_k.TO_MOVE])


@kernel
def legal(s: np.ndarray, g: Tables, out: np.ndarray) -> int:
    """Ascending: ``a`` takes ``a + 1`` stones."""
    if s[_k.OVER]:
        return 0
    n = min(I64(g[0][1]), I64(s[_k.HEAP]))
    for a in range(n):
        out[a] = a
    return n


@kernel
def apply(s: np.ndarray, g: Tables, action: int, rs: np.ndarray) -> int:
    take = I64(g[0][1])
    if s[_k.OVER] or _k.check(s, take, action) != 0:
        return REFUSED
    _k.apply(s, take, action)
    return OVER if s[_k.OVER] else ONGOING


@kernel
def observe(s: np.ndarray, g: Tables, player: int, out: np.ndarray) -> None:
    """Plane 0, 1: each player's pieces (none); 2: a stone on each of the first ``heap`` cells; 3: all 1
    when ``player`` is to move."""
    width = g[0][0]
    for i in range(out.shape[0]):
        out[i] = 0.0
    for i in range(s[_k.HEAP]):
        out[2 * width + i] = 1.0
    if not s[_k.OVER] and s[_k.TO_MOVE] == player:
        for i in range(width):
            out[3 * width + i] = 1.0


@kernel
def returns(s: np.ndarray, g: Tables, out: np.ndarray) -> None:
    """+1 to who took the last stone, −1 to the other; 0 each while the game goes on."""
    out[0] = 0.0
    out[1] = 0.0
    if s[_k.OVER]:
        w = s[_k.WINNER]
        out[w] = 1.0
        out[1 - w] = -1.0


@kernel
def solve(
    s: np.ndarray,
    g: Tables,
    limit: int,
    out: np.ndarray,
    zob: np.ndarray,
    tkey: np.ndarray,
    tval: np.ndarray,
    tflag: np.ndarray,
    taux: np.ndarray,
    tmove: np.ndarray,
) -> int:
    """The exact result of ``s`` (the theory of :mod:`tessera_nim.solver`: the player to move loses exactly
    when the heap is a multiple of ``take + 1``): always 1, each player's return in ``out``.  Not one of the
    six verbs: the leaf solver of tessera's compiled search tree (``mcts_compiled(solve=N)``), which
    passes a node budget and a transposition table that Nim does not need."""
    p = I64(s[_k.TO_MOVE])
    loses = s[_k.HEAP] % (g[0][1] + 1) == 0
    out[p] = -1.0 if loses else 1.0
    out[1 - p] = -out[p]
    return 1


define_stepper(globals())  # contract_reset, contract_step: the generic vector engine's loop on these verbs


def build(game: NimGame) -> KernelContract:
    """Nim's contract."""
    stones, take = int(game.params["stones"]), int(game.params["take"])
    return KernelContract(
        game=game,
        tables=(np.array([stones, take], np.int64),),
        state_size=_k.SIZE,
        num_actions=take,
        num_players=2,
        obs_shape=game.observation_spec().shape,
        init=init,
        current=current,
        legal=legal,
        apply=apply,
        observe=observe,
        returns=returns,
    )
