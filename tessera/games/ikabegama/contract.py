# mypy: disable-error-code="arg-type, return-value, no-any-return"
"""Ikabegamá's kernel contract (:mod:`tessera.core.kits.contract`): the verbs on Ikabegamá's own kernels.

The contract needs a bounded board (``board="hexhex:N"``, or ``game.bounded(window)``, as the
adapters play it): its position ``s`` is the state array of :mod:`tessera.games.ikabegama.kernels`
with room for a token on every hex of the board, so it never grows.  Tables ``g``:
``(k, allowed, start, hpos, board)`` — the kernels' constants and board mask, the initial
position, and the observation layout (:func:`~tessera.games.ikabegama.observation.layout_tables`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tessera.core.game import TERMINAL
from tessera.core.kernels import I64, kernel
from tessera.core.kits.contract import ONGOING, OVER, REFUSED, KernelContract, Tables
from tessera.core.kits.stepper import define_stepper
from tessera.core.kits.vector import fresh_cache
from tessera.games.ikabegama import kernels as ik
from tessera.games.ikabegama.observation import write_planes
from tessera.games.ikabegama.solver import _ABORT as _S_ABORT
from tessera.games.ikabegama.solver import _DEPTH as _S_DEPTH
from tessera.games.ikabegama.solver import _LIMIT as _S_LIMIT
from tessera.games.ikabegama.solver import _NODES as _S_NODES
from tessera.games.ikabegama.solver import HORIZON as _HORIZON
from tessera.games.ikabegama.solver import MATE as _MATE
from tessera.games.ikabegama.solver import WIN as _WIN
from tessera.games.ikabegama.solver import search_root

if TYPE_CHECKING:
    from tessera.games.ikabegama.game import IkabegamaGame

fresh_cache(
    __file__,
    "tessera.games.ikabegama.kernels",
    "tessera.games.ikabegama.observation",
    "tessera.games.ikabegama.solver",
    "tessera.core.kits.stepper",
)

_TO_MOVE, _OVER, _WINNER, _DRAW = ik.TO_MOVE, ik.OVER, ik.WINNER, ik.DRAW


@kernel
def init(s: np.ndarray, g: Tables, rs: np.ndarray) -> None:
    """Each player's token on his nest, Light to move."""
    start = g[2]
    for i in range(s.shape[0]):
        s[i] = start[i]


@kernel
def current(s: np.ndarray, g: Tables) -> int:
    return TERMINAL if s[_OVER] else np.int64(s[_TO_MOVE])


@kernel
def legal(s: np.ndarray, g: Tables, out: np.ndarray) -> int:
    """Ascending: the growths and jumps of the player to move, or ``pass`` alone when he has none."""
    k, allowed = g[0], g[1]
    if s[_OVER]:
        return 0
    moves = ik.legal(s, k, allowed)
    if moves.shape[0] == 0:
        out[0] = k[ik.K_SIZE] * 13
        return 1
    for j in range(moves.shape[0]):
        out[j] = moves[j]
    return moves.shape[0]


@kernel
def apply(s: np.ndarray, g: Tables, action: int, rs: np.ndarray) -> int:
    k, allowed = g[0], g[1]
    if s[_OVER] or action < 0 or action > k[ik.K_SIZE] * 13:
        return REFUSED
    if ik.check(s, k, allowed, action) != ik.OK:
        return REFUSED
    return OVER if ik.apply(s, k, action) >= 0 else ONGOING


@kernel
def random_action(s: np.ndarray, g: Tables, rs: np.ndarray) -> int:
    """A uniformly random legal action drawn from ``rs`` as ``State.random_action`` draws it (the kernels'
    draw, without listing the moves), or -1 once the game is over.  Not one of the six verbs: the
    compiled search tree (:mod:`tessera.agents.compiled_mcts`) uses it where a game has it."""
    if s[_OVER]:
        return -1
    return ik._draw(s, g[0], g[1], rs)


@kernel
def rollout(s: np.ndarray, g: Tables, rs: np.ndarray, max_plies: int, out: np.ndarray) -> int:
    """:func:`random_action` then the move, on ``s`` (changed) until the game ends or ``max_plies`` were
    played (``< 0``: no limit), as the kernels' rollouts; each player's return into ``out`` (``returns``)
    and the moves played.  Not one of the six verbs: the compiled search tree's rollout."""
    k, allowed = g[0], g[1]
    steps = 0
    while s[_OVER] == 0 and (max_plies < 0 or steps < max_plies):
        ik.apply(s, k, ik._draw(s, k, allowed, rs))
        steps += 1
    returns(s, g, out)
    return steps


@kernel
def observe(s: np.ndarray, g: Tables, player: int, out: np.ndarray) -> None:
    write_planes(s, g[0], g[3], g[4], player, s[_OVER] == 0 and s[_TO_MOVE] == player, out)


@kernel
def returns(s: np.ndarray, g: Tables, out: np.ndarray) -> None:
    """+1 to the winner, −1 to the loser; 0 each for a draw or a game going on."""
    out[0] = 0.0
    out[1] = 0.0
    w = s[_WINNER]
    if s[_OVER] and w != _DRAW:
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
    """A forced win or loss of the player to move in ``s`` within the race solver's horizon
    (:func:`tessera.games.ikabegama.solver.search_root`, one depth at a time up to ``HORIZON`` plies and
    short of the ``max_plies`` safeguard) and ``limit`` nodes in all: 1 with each player's return in
    ``out`` (+1 the winner, −1 the loser), else 0 (not proved: never a draw).  ``tkey``, ``tval``,
    ``tflag``, ``taux`` (the depth each entry was searched to), ``tmove``: a transposition table
    (``uint64``, ``int32``, ``int8``, ``int8``, ``int64``, one length, a power of two); ``zob`` is not used
    (the solver keys positions by their tokens).  Not one of the six verbs: the compiled search tree's
    leaf solver."""
    k = g[0]
    if s[_OVER] or limit <= 0:
        return 0
    horizon = min(I64(_HORIZON), I64(k[ik.K_MAXPLY]) - I64(s[ik.PLY]) - 1)
    ctx = np.zeros(4, np.int64)
    spent = 0
    for depth in range(1, horizon + 1):
        ctx[_S_DEPTH] = depth
        ctx[_S_LIMIT] = limit - spent
        if ctx[_S_LIMIT] <= 0:
            return 0
        v = search_root(s, k, g[1], I64(-_WIN - 1), I64(_WIN + 1), tkey, tval, tflag, taux, tmove, ctx)
        spent += min(ctx[_S_NODES], ctx[_S_LIMIT])
        if ctx[_S_ABORT]:
            return 0
        if v > _MATE or v < -_MATE:
            p = I64(s[_TO_MOVE])
            out[p] = 1.0 if v > 0 else -1.0
            out[1 - p] = -out[p]
            return 1
    return 0


define_stepper(globals())  # contract_reset, contract_step: the generic vector engine's loop on these verbs


def build(game: IkabegamaGame) -> KernelContract:
    """Ikabegamá's contract (``ValueError`` on the unbounded plane: play it on a window)."""
    from tessera.games.ikabegama.observation import layout_tables

    if game.allowed is None:
        raise ValueError(
            "ikabegama: the kernel contract needs a bounded board (board=hexhex:N, or game.bounded(window))"
        )
    start = ik.new_array(len(game.allowed))
    ik.add_token(start, game.nest_ids[0], 0)
    ik.add_token(start, game.nest_ids[1], 1)
    ik.settle(start, game.kconst)
    spec = game.observation_spec()
    hpos, board = layout_tables(game, spec.layout)
    return KernelContract(
        game=game,
        tables=(game.kconst, game.allowed_mask, start, hpos, board),
        state_size=start.shape[0],
        num_actions=game.num_distinct_actions(),
        num_players=2,
        obs_shape=spec.shape,
        init=init,
        current=current,
        legal=legal,
        apply=apply,
        observe=observe,
        returns=returns,
    )
