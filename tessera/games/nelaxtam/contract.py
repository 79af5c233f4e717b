# mypy: disable-error-code="arg-type, return-value, no-any-return, assignment"
"""Nelaxtam's kernel contract (:mod:`tessera.core.kits.contract`): a turn as a sequence of decisions.

Nelaxtam's players order at once; the contract splits a turn as the adapters and the vector
engine do: Black decides for each of his troops in increasing number (the living ones with a
token; in the invasion all of them), then White for his; in battle turns of ``variant="quiet"``
each player makes one decision, his whole order.  ``current`` is the player deciding now, an
action one troop's token, and the turn's last decision resolves it with the kernels' ``apply``.
A token is offered only if the order can still be completed legally (:func:`decision_mask`).

Position ``s`` (``int32``): the position array of :mod:`tessera.games.nelaxtam.kernels`
(``P`` entries), then the turn's decision queue (``2T``: ``player·(T+1) + troop + 1``, troop
``−1`` for a whole quiet order), ``[queue length, head, Black's pending, White's pending]`` and
the tokens each player chose this turn (``2T``: Black's then White's, in troop order).
Tables ``g``: ``(geo, start, pos)`` — the board, the position of a new game, the observation
layout (:func:`~tessera.games.nelaxtam.observation.layout_tables`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tessera.core.game import TERMINAL
from tessera.core.kernels import kernel
from tessera.core.kits.contract import ONGOING, OVER, REFUSED, KernelContract, Tables
from tessera.core.kits.stepper import define_stepper
from tessera.core.kits.vector import fresh_cache
from tessera.games.nelaxtam import kernels as xk
from tessera.games.nelaxtam.observation import token_end, write_planes

if TYPE_CHECKING:
    from tessera.games.nelaxtam.game import NelaxtamGame

fresh_cache(
    __file__, "tessera.games.nelaxtam.kernels", "tessera.games.nelaxtam.observation", "tessera.core.kits.stepper"
)

_PHASE, _WINNER = xk.PHASE, xk.WINNER
_INVASION, _BATTLE, _OVER = xk.INVASION, xk.BATTLE, xk.OVER
_COLOUR, _EDGE, _MAX_OPTIONS = xk.COLOUR, xk.EDGE, xk.MAX_OPTIONS


@kernel
def _completable(
    ends: np.ndarray, n_ends: np.ndarray, live: np.ndarray, nl: int, claimed: np.ndarray, choice: np.ndarray
) -> bool:
    """Whether the troops ``live[:nl]`` can each pick one of their end squares (``ends[t, :n_ends[t]]``),
    all distinct and unclaimed (``claimed[s]``): a depth-first search, undone as it backs up
    (``choice``: scratch of at least ``nl`` entries)."""
    if nl <= 0:
        return True
    for u in range(nl):
        choice[u] = -1
    level = 0
    while level >= 0:
        t = live[level]
        c = choice[level]
        if c >= 0:
            claimed[ends[t, c]] = 0
        c += 1
        while c < n_ends[t] and claimed[ends[t, c]]:
            c += 1
        if c >= n_ends[t]:
            choice[level] = -1
            level -= 1
            continue
        choice[level] = c
        claimed[ends[t, c]] = 1
        if level == nl - 1:
            for u in range(level + 1):  # undo the marks
                claimed[ends[live[u], choice[u]]] = 0
            return True
        level += 1
    return False


@kernel
def start_turn(st: np.ndarray, geo: np.ndarray, queue: np.ndarray, counts: np.ndarray, opts: np.ndarray) -> int:
    """Fill the decision queue of a new turn; its length.  In a battle turn ``opts[p]``, ``counts[p]``
    (``int64 (2, T, MAX_OPTIONS)``, ``(2, T)``) receive each player's legal tokens (the kernels' ``legal``),
    which stay those of every decision of the turn."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    h = sq + 2 * t
    phase = st[h + _PHASE]
    if phase == _OVER:
        return 0
    quiet = phase == _BATTLE and geo[sq, 5] == 1
    n = 0
    for p in range(2):
        if phase == _INVASION:
            for i in range(t):
                queue[n] = p * (t + 1) + i + 1
                n += 1
            continue
        xk.legal(st, geo, np.int64(p), opts[p], counts[p])
        if quiet:
            for i in range(t):
                if counts[p, i] > 0:
                    queue[n] = p * (t + 1)
                    n += 1
                    break
        else:
            for i in range(t):
                if counts[p, i] > 0:
                    queue[n] = p * (t + 1) + i + 1
                    n += 1
    return n


@kernel
def troop_ends(
    st: np.ndarray,
    geo: np.ndarray,
    p: int,
    opts: np.ndarray,
    counts: np.ndarray,
    tend: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
) -> None:
    """In a battle turn, from each troop's legal tokens ``opts[i, :counts[i]]``: the square each ends on
    (``tend[i, j]``) and the troop's distinct end squares (``ends[i, :n_ends[i]]``)."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    blk = geo[sq, 6]
    for i in range(t):
        m = 0
        here = st[sq + p * t + i]
        for j in range(counts[i]):
            local = opts[i, j] - i * blk  # a troop's own token (as token_end, without its division)
            e = local - 1 if 1 <= local <= sq else here
            tend[i, j] = e
            seen = False
            for u in range(m):
                if ends[i, u] == e:
                    seen = True
            if not seen:
                ends[i, m] = e
                m += 1
        n_ends[i] = m


@kernel
def decision_tokens(
    st: np.ndarray,
    geo: np.ndarray,
    p: int,
    troop: int,
    pend_ends: np.ndarray,
    n_pending: int,
    opts: np.ndarray,
    counts: np.ndarray,
    tend: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    claimed: np.ndarray,
    scratch: np.ndarray,
    out: np.ndarray,
) -> int:
    """The tokens ``p`` may choose for ``troop`` (−1: a whole quiet order) after his pending tokens of this
    turn, which end on ``pend_ends[:n_pending]`` (−1: none), into ``out`` (at least ``max(S,
    MAX_OPTIONS·T)`` entries); how many.  Those that leave his order completable — distinct end squares
    (a small search over the later troops' end squares) and, in the invasion, at least ``by_sea`` troops
    on the edge.  In a battle turn ``opts``, ``counts``: his legal tokens (the kernels' ``legal``), ``tend``,
    ``ends``, ``n_ends``: their end squares (:func:`troop_ends`); ``claimed``: ``uint8 (S,)``, all 0 on
    entry and on return; ``scratch``: ``int64 (3, max(T, MAX_OPTIONS))``.

    When every later troop can hold (its first token), on its own square, all these squares distinct and
    none claimed, a token ending elsewhere unclaimed is completable without a search."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    blk = geo[sq, 6]
    h = sq + 2 * t
    phase = st[h + _PHASE]
    edges = 0
    for j in range(n_pending):
        e = pend_ends[j]
        if e >= 0:
            claimed[e] = 1
            edges += geo[e, _EDGE]
    n = 0
    if phase == _INVASION:
        need = geo[sq, 3]
        later = t - 1 - troop
        base = troop * blk + 1 + 2 * sq
        for c in range(sq):
            if geo[c, _COLOUR] == p and not claimed[c] and edges + geo[c, _EDGE] + later >= need:
                out[n] = base + c
                n += 1
    elif troop < 0:  # a whole quiet order
        for i in range(t):
            for j in range(counts[i]):
                out[n] = opts[i, j]
                n += 1
    else:
        live = scratch[0]  # the later troops with a token (the dead have none)
        choice = scratch[1]
        defer = scratch[2]
        nl = 0
        free = True  # every later troop holds on its own square, distinct and unclaimed
        for i in range(troop + 1, t):
            if counts[i] > 0:
                live[nl] = i
                nl += 1
                e = tend[i, 0]
                if opts[i, 0] != i * blk or claimed[e] != 0:
                    free = False
                else:
                    claimed[e] = 2
        nd = 0
        for j in range(counts[troop]):
            e = tend[troop, j]
            if claimed[e] == 1:
                continue
            if free and claimed[e] == 0:
                out[n] = opts[troop, j]
                n += 1
            else:
                defer[nd] = j
                nd += 1
        for u in range(nl):  # the holds' marks undone
            e = tend[live[u], 0]
            if claimed[e] == 2:
                claimed[e] = 0
        for v in range(nd):
            j = defer[v]
            e = tend[troop, j]
            claimed[e] = 1
            ok = _completable(ends, n_ends, live, np.int64(nl), claimed, choice)
            claimed[e] = 0
            if ok:
                out[n] = opts[troop, j]
                n += 1
    for j in range(n_pending):
        e = pend_ends[j]
        if e >= 0:
            claimed[e] = 0
    return n


@kernel
def decision_mask(
    st: np.ndarray,
    geo: np.ndarray,
    p: int,
    troop: int,
    pending: np.ndarray,
    n_pending: int,
    opts: np.ndarray,
    counts: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    claimed: np.ndarray,
    mask: np.ndarray,
) -> None:
    """:func:`decision_tokens` after ``p``'s tokens ``pending[:n_pending]`` as ``mask[action]`` (``bool``,
    every other entry cleared), his legal tokens listed here.  ``opts``, ``counts``, ``ends``, ``n_ends``,
    ``claimed``: scratch (``int64 (T, MAX_OPTIONS)``, ``int64 (T,)``, the same, ``int64 (T,)``, ``uint8
    (S,)`` all 0)."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    h = sq + 2 * t
    for i in range(mask.shape[0]):
        mask[i] = False
    tend = np.empty((t, _MAX_OPTIONS), np.int64)
    if st[h + _PHASE] != _INVASION:
        xk.legal(st, geo, np.int64(p), opts, counts)
        troop_ends(st, geo, np.int64(p), opts, counts, tend, ends, n_ends)
    pend_ends = np.empty(t, np.int64)
    for j in range(n_pending):
        pend_ends[j] = token_end(st, geo, np.int64(p), np.int64(pending[j]))
    out = np.empty(sq + _MAX_OPTIONS * t, np.int64)
    scratch = np.empty((3, max(t, _MAX_OPTIONS)), np.int64)
    n = decision_tokens(
        st, geo, p, troop, pend_ends, n_pending, opts, counts, tend, ends, n_ends, claimed, scratch, out
    )  # fmt: skip
    for j in range(n):
        mask[out[j]] = True


@kernel
def _offsets(s: np.ndarray, g: Tables) -> tuple[int, int, int, int]:
    """``(P, T, start of the queue's header, start of the pending tokens)``."""
    start = g[1]
    geo = g[0]
    p0 = np.int64(start.shape[0])
    t = np.int64(geo[geo.shape[0] - 1, 2])
    return p0, t, p0 + 2 * t, p0 + 2 * t + 4


@kernel
def _new_turn(s: np.ndarray, g: Tables) -> None:
    geo = g[0]
    p0, t, meta, _ = _offsets(s, g)
    opts = np.empty((2, t, _MAX_OPTIONS), np.int64)
    counts = np.empty((2, t), np.int64)
    s[meta] = start_turn(s[:p0], geo, s[p0:meta], counts, opts)
    s[meta + 1] = 0
    s[meta + 2] = 0
    s[meta + 3] = 0


@kernel
def init(s: np.ndarray, g: Tables, rs: np.ndarray) -> None:
    """The position before the invasion, and its first turn's decisions."""
    start = g[1]
    for i in range(s.shape[0]):
        s[i] = 0
    for i in range(start.shape[0]):
        s[i] = start[i]
    _new_turn(s, g)


@kernel
def current(s: np.ndarray, g: Tables) -> int:
    p0, t, meta, _ = _offsets(s, g)
    if s[p0 - 4 + _PHASE] == _OVER or s[meta] == 0:
        return TERMINAL
    return np.int64(s[p0 + s[meta + 1]]) // (t + 1)


@kernel
def _mask_now(s: np.ndarray, g: Tables, mask: np.ndarray) -> None:
    """The current decision's tokens as a mask (cleared where not legal)."""
    geo = g[0]
    p0, t, meta, pend = _offsets(s, g)
    d = np.int64(s[p0 + s[meta + 1]])
    p = d // (t + 1)
    troop = d % (t + 1) - 1
    sq = geo.shape[0] - 1
    decision_mask(
        s[:p0], geo, p, troop, s[pend + p * t : pend + p * t + t], np.int64(s[meta + 2 + p]),
        np.empty((t, _MAX_OPTIONS), np.int64), np.empty(t, np.int64), np.empty((t, _MAX_OPTIONS), np.int64),
        np.zeros(t, np.int64), np.zeros(sq, np.uint8), mask,
    )  # fmt: skip


@kernel
def _num_actions(g: Tables) -> int:
    geo = g[0]
    sq = geo.shape[0] - 1
    return np.int64(geo[sq, 2]) * np.int64(geo[sq, 6])


@kernel
def legal(s: np.ndarray, g: Tables, out: np.ndarray) -> int:
    """Ascending: the tokens of the decision to make now that keep the order completable."""
    if current(s, g) == TERMINAL:
        return 0
    mask = np.empty(_num_actions(g), np.bool_)
    _mask_now(s, g, mask)
    n = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            out[n] = a
            n += 1
    return n


@kernel
def apply(s: np.ndarray, g: Tables, action: int, rs: np.ndarray) -> int:
    """Record the deciding player's token; the turn's last decision resolves the turn."""
    if current(s, g) == TERMINAL or action < 0 or action >= _num_actions(g):
        return REFUSED
    mask = np.empty(_num_actions(g), np.bool_)
    _mask_now(s, g, mask)
    if not mask[action]:
        return REFUSED
    geo = g[0]
    p0, t, meta, pend = _offsets(s, g)
    p = np.int64(s[p0 + s[meta + 1]]) // (t + 1)
    s[pend + p * t + s[meta + 2 + p]] = action
    s[meta + 2 + p] += 1
    s[meta + 1] += 1
    if s[meta + 1] < s[meta]:
        return ONGOING
    n0 = np.int64(s[meta + 2])
    n1 = np.int64(s[meta + 3])
    acts = np.empty(n0 + n1, np.int64)
    for i in range(n0):
        acts[i] = s[pend + i]
    for i in range(n1):
        acts[n0 + i] = s[pend + t + i]
    xk.apply(s[:p0], geo, acts, n0)
    if s[p0 - 4 + _PHASE] == _OVER:
        for i in range(4):
            s[meta + i] = 0
        return OVER
    _new_turn(s, g)
    return ONGOING


@kernel
def observe(s: np.ndarray, g: Tables, player: int, out: np.ndarray) -> None:
    """``player``'s planes, with his own decisions of this turn (his troop deciding now, if he is)."""
    p0, t, meta, pend = _offsets(s, g)
    troop = -1
    if s[meta] > 0 and s[p0 - 4 + _PHASE] != _OVER:
        d = np.int64(s[p0 + s[meta + 1]])
        if d // (t + 1) == player:
            troop = d % (t + 1) - 1
    n = np.int64(s[meta + 2 + player])
    write_planes(s[:p0], g[0], g[2], player, troop, s[pend + player * t : pend + player * t + t], n, out, 1.0)


@kernel
def returns(s: np.ndarray, g: Tables, out: np.ndarray) -> None:
    """+1 to the winner, −1 to the loser; 0 each for a draw or a game going on."""
    p0 = np.int64(g[1].shape[0])
    out[0] = 0.0
    out[1] = 0.0
    w = s[p0 - 4 + _WINNER]
    if s[p0 - 4 + _PHASE] == _OVER and w >= 0:
        out[w] = 1.0
        out[1 - w] = -1.0


define_stepper(globals())  # contract_reset, contract_step: the generic vector engine's loop on these verbs


def build(game: NelaxtamGame) -> KernelContract:
    """Nelaxtam's contract."""
    from tessera.games.nelaxtam.observation import layout_tables

    spec = game.observation_spec()
    start = game.new_initial_state().a.copy()
    t = int(game.ntroops)
    return KernelContract(
        game=game,
        tables=(game.geo, start, layout_tables(game, spec.layout)),
        state_size=start.shape[0] + 4 * t + 4,
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
