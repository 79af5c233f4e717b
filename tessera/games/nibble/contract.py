# mypy: disable-error-code="arg-type, return-value, no-any-return"
"""Nibble's kernel contract (:mod:`tessera.core.kits.contract`): the verbs on Nibble's own kernels.

Position ``s`` (``int32``): ``s[0]`` the deal (the seed of ``new_initial_state(seed)`` that dealt
this game), ``s[1 : 1 + D]`` its ``deal`` array and ``s[1 + D :]`` the position, both in the layouts
of :mod:`tessera.games.nibble.kernels`.  Tables ``g``: ``(geo, pool, pos, board)`` — the board,
the dealt games of the seeds ``0 … deals−1`` as whole contract positions (one row each), and the
observation layout (:func:`~tessera.games.nibble.observation.layout_tables`).  ``init`` draws
the deal uniformly from ``rs`` (the adapters' chance node: ``deals`` seeds).  ``legal`` and
``apply`` keep the kernels' cache of the legal actions inside ``s`` up to date (the position it
describes does not change).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from tessera.core.game import TERMINAL
from tessera.core.kernels import I64, kernel, rand_below
from tessera.core.kits.contract import ONGOING, OVER, REFUSED, KernelContract, Tables
from tessera.core.kits.stepper import define_stepper
from tessera.core.kits.vector import fresh_cache
from tessera.games.nibble import kernels as nk
from tessera.games.nibble.observation import write_planes
from tessera.games.nibble.search import _ABORT as _S_ABORT
from tessera.games.nibble.search import _LIMIT as _S_LIMIT
from tessera.games.nibble.search import search_root

if TYPE_CHECKING:
    from tessera.games.nibble.game import NibbleGame

fresh_cache(
    __file__,
    "tessera.games.nibble.kernels",
    "tessera.games.nibble.observation",
    "tessera.games.nibble.search",
    "tessera.core.kits.stepper",
)

_TO_MOVE, _OVER, _WINNER, _N_LEGAL, _LEGAL = nk.TO_MOVE, nk.OVER, nk.WINNER, nk.N_LEGAL, nk.LEGAL

DEALS = 1000
"""The seeds ``init`` deals from by default: as many as the adapters' chance node offers
(``DEFAULT_DEALS`` of the adapters' core module; the conformance test checks they agree)."""


@kernel
def _deal_len(geo: np.ndarray) -> int:
    n = np.int64(geo[geo.shape[0] - 1, 1])
    return 4 * n + n * n


@kernel
def init(s: np.ndarray, g: Tables, rs: np.ndarray) -> None:
    """A new game of a deal drawn uniformly from the pool."""
    pool = g[1]
    src = pool[rand_below(rs, np.int64(pool.shape[0]))]
    for i in range(s.shape[0]):
        s[i] = src[i]


@kernel
def current(s: np.ndarray, g: Tables) -> int:
    geo = g[0]
    k = geo.shape[0] - 1
    h = 1 + _deal_len(geo) + k + 2 * geo[k, 1]
    return TERMINAL if s[h + _OVER] else np.int64(s[h + _TO_MOVE])


@kernel
def legal(s: np.ndarray, g: Tables, out: np.ndarray) -> int:
    """Ascending: the cells whose block may be taken, then ``end`` (``K``) in the middle of a turn."""
    geo = g[0]
    d = _deal_len(geo)
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    pos = s[1 + d :]
    if pos[h + _OVER]:
        return 0
    m = nk.legal(pos, s[1 : 1 + d], geo)
    for j in range(m):
        out[j] = pos[h + _LEGAL + j]
    return m


@kernel
def apply(s: np.ndarray, g: Tables, action: int, rs: np.ndarray) -> int:
    geo = g[0]
    d = _deal_len(geo)
    st = nk.apply_checked(s[1 + d :], s[1 : 1 + d], geo, action)
    if st < 0:
        return REFUSED
    return OVER if st & 2 else ONGOING


@kernel
def rollout(s: np.ndarray, g: Tables, rs: np.ndarray, max_plies: int, out: np.ndarray) -> int:
    """Uniformly random steps on ``s`` (changed) until the game ends or ``max_plies`` steps (``< 0``: no
    limit), by the kernels' own rollout (:func:`tessera.games.nibble.kernels.rollout`: its list of corner
    blocks); each player's return into ``out`` (``returns``) and the steps played.  Not one of the six
    verbs: the compiled search tree's rollout where a game has it."""
    geo = g[0]
    d = _deal_len(geo)
    steps = 0
    if current(s, g) != TERMINAL:
        steps = nk.rollout(s[1 + d :], s[1 : 1 + d], geo, nk.scratch(geo), rs, max_plies)
    returns(s, g, out)
    return steps


@kernel
def observe(s: np.ndarray, g: Tables, player: int, out: np.ndarray) -> None:
    geo, pos, board = g[0], g[2], g[3]
    d = _deal_len(geo)
    write_planes(s[1 + d :], s[1 : 1 + d], geo, pos, board, player, out, 1.0)


@kernel
def returns(s: np.ndarray, g: Tables, out: np.ndarray) -> None:
    """+1 to the winner, −1 to the loser; 0 each for a draw or a game going on."""
    geo = g[0]
    k = geo.shape[0] - 1
    h = 1 + _deal_len(geo) + k + 2 * geo[k, 1]
    out[0] = 0.0
    out[1] = 0.0
    w = s[h + _WINNER]
    if s[h + _OVER] and w >= 0:
        out[w] = 1.0
        out[1 - w] = -1.0


LEAF_BLOCKS = 14
"""Blocks left on the board at or below which :func:`solve` tries the exact search.  Fewer than the levels'
``REACH`` (20, at the root with seconds to spend): a solver node costs about 0.6 µs and a whole simulation
of the tree about 25 µs, so a leaf's budget of a few hundred nodes costs several simulations; it decides
positions this small and wastes less on larger ones (at 20, searches with ``solve=300`` ran a fifth as many
simulations in some positions)."""


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
    """The exact result of ``s`` by the endgame solver's compiled search (:func:`tessera.games.nibble.search.
    search_root`, null window: win, draw or loss) within ``limit`` nodes: 1 with each player's return in
    ``out`` (+1 the winner, −1 the loser, 0 each for a draw), 0 when not decided (more than
    :data:`LEAF_BLOCKS` blocks, or the node limit reached).  ``zob``: :func:`solver_keys`; ``tkey``,
    ``tval``, ``tflag``, ``tmove``: a transposition table (``uint64``, ``int32``, ``int8``, ``int64``, one
    length, a power of two) valid for one deal; ``taux`` (``int8``) is not used here.  Not one of the six
    verbs: the compiled search tree's leaf solver."""
    geo = g[0]
    d = _deal_len(geo)
    k = geo.shape[0] - 1
    colors = I64(geo[k, 1])
    pos = s[1 + d :]
    deal = s[1 : 1 + d]
    h = k + 2 * colors
    if pos[h + _OVER] or pos[h + nk.ON_BOARD] > LEAF_BLOCKS or limit <= 0:
        return 0
    idx = np.empty(k, np.int64)
    loc = np.full(k, -1, np.int64)
    n = 0
    for i in range(k):
        if pos[i] >= 0:
            idx[n] = i
            loc[i] = n
            n += 1
    if n == 0:
        return 0
    sides = I64(geo[k, 2])
    col = np.empty(n, np.int64)
    nb = np.full((n, 6), -1, np.int64)
    adj = np.zeros(n, np.uint64)
    zc = np.zeros(n, np.uint64)
    act = np.empty(n + 1, np.int64)
    key = np.uint64(0)
    for j in range(n):
        i = idx[j]
        col[j] = pos[i]
        act[j] = i
        zc[j] = zob[i * colors + pos[i]]
        key ^= zc[j]
        for t in range(sides):
            o = geo[i, t]
            if o >= 0 and pos[o] >= 0:
                nb[j, t] = loc[o]
                adj[j] |= np.uint64(1) << np.uint64(loc[o])
    act[n] = k
    taken = np.empty((2, colors), np.int64)
    for p in range(2):
        for c in range(colors):
            taken[p, c] = pos[k + p * colors + c]
    zt = zob[k * colors : k * colors + colors * (colors + 2)].reshape((colors, colors + 2))
    zs = zob[k * colors + colors * (colors + 2) :]
    for c in range(colors):
        key ^= zt[c, taken[0, c]]
    trip = np.full((colors, 3, 3), -1, np.int64)
    for c in range(colors):
        for t in range(3):
            st = deal[colors + 3 * c + t]
            if st < 0:
                break
            for u in range(3):
                trip[c, t, u] = deal[st + u]
    mask = np.uint64(0)
    for j in range(n):
        mask |= np.uint64(1) << np.uint64(j)
    ctx = np.zeros(9, np.int64)
    ctx[0] = n
    ctx[1] = colors
    ctx[2] = geo[k, 5]
    ctx[3] = geo[k, 6]
    ctx[4] = sides
    ctx[5] = geo[k, 3]
    ctx[_S_LIMIT] = limit
    p = I64(pos[h + _TO_MOVE])
    taking = I64(pos[h + nk.TAKING])
    v = search_root(
        mask, p, taking, I64(-1), I64(1), key, col, nb, adj, zc, act, taken, trip, zt, zs, tkey, tval, tflag, tmove, ctx
    )
    if ctx[_S_ABORT]:
        return 0
    out[0] = 0.0
    out[1] = 0.0
    if v != 0:
        out[p] = 1.0 if v > 0 else -1.0
        out[1 - p] = -out[p]
    return 1


def solver_keys(contract: KernelContract) -> np.ndarray:
    """The Zobrist keys :func:`solve` hashes positions with, packed (``uint64``): each (cell, colour), each
    (colour, count player 0 took), then the side keys — the endgame solver's own keys for this board."""
    from tessera.games.nibble.solver import _Zobrist

    game = contract.game
    z = _Zobrist(len(game.cells), int(game.geo[-1, 1]))
    return np.concatenate([z.cell.ravel(), z.taken.ravel(), z.side]).astype(np.uint64)


define_stepper(globals())  # contract_reset, contract_step: the generic vector engine's loop on these verbs


def _seed_of(s: np.ndarray) -> int:
    return int(s[0])


@functools.lru_cache(maxsize=16)
def build(game: NibbleGame, seeds: tuple[int, ...] = ()) -> KernelContract:
    """Nibble's contract, dealing from ``seeds`` (default: ``0 … DEALS−1``, the adapters' pool)."""
    from tessera.games.nibble.observation import layout_tables

    rows = []
    for seed in seeds or range(DEALS):
        st = game.new_initial_state(seed=seed)
        rows.append(np.concatenate([np.array([seed], np.int32), st._deal.astype(np.int32), st.s]))
    pool = np.stack(rows)
    spec = game.observation_spec()
    pos, board = layout_tables(game, spec.layout)
    return KernelContract(
        game=game,
        tables=(game.geo, pool, pos, board),
        state_size=pool.shape[1],
        num_actions=game.num_distinct_actions(),
        num_players=2,
        obs_shape=spec.shape,
        init=init,
        current=current,
        legal=legal,
        apply=apply,
        observe=observe,
        returns=returns,
        initial_seed=_seed_of,
    )
