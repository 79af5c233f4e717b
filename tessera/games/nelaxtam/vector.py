# mypy: disable-error-code="arg-type, return-value, assignment"
"""Nelaxtam's vector engine: per-troop decisions as the adapters make them, turns resolved by Nelaxtam's kernels.

A turn is a queue of decisions (as the adapters make them): Black decides for each of his
troops in increasing number (the living ones with a token; in the invasion all of them),
then White for his; in battle turns of ``variant="quiet"`` each player makes one decision,
his whole order.  Row ``b`` of ``positions`` is game ``b``'s position (layout of
:mod:`tessera.games.nelaxtam.kernels`); ``queue[b, i]`` is the ``i``-th decision of the turn
(``player·(T+1) + troop + 1``, troop ``−1`` for a whole quiet order), ``head[b]`` the decision
to make now and ``pending[b, p, :]`` the tokens ``p`` has chosen this turn.  A token is
offered only if the order can still be completed legally: distinct end squares (a small
search over the later troops' end squares) and, in the invasion, at least ``by_sea`` troops
on the edge.  The last decision resolves the turn with the kernels' ``apply``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.vector import VectorGame, fresh_cache
from tessera.games.nelaxtam import kernels as xk
from tessera.games.nelaxtam.observation import layout_tables, token_end, write_planes

fresh_cache(
    __file__, "tessera.games.nelaxtam.kernels", "tessera.games.nelaxtam.observation"
)  # before any kernel here is loaded

_PHASE, _IDLE, _WINNER = xk.PHASE, xk.IDLE, xk.WINNER
_INVASION, _BATTLE, _OVER = xk.INVASION, xk.BATTLE, xk.OVER
_COLOUR, _EDGE, _MAX_OPTIONS = xk.COLOUR, xk.EDGE, xk.MAX_OPTIONS


@kernel
def _completable(ends: np.ndarray, n_ends: np.ndarray, first: int, last: int, claimed: np.ndarray) -> bool:
    """Whether the troops ``first … last−1`` can each pick one of their end squares (``ends[t, :n_ends[t]]``),
    all distinct and unclaimed (``claimed[s]``): a depth-first search, undone as it backs up."""
    if first >= last:
        return True
    choice = np.full(last - first, -1, np.int64)
    level = 0
    while level >= 0:
        t = first + level
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
        if level == last - first - 1:
            for u in range(level + 1):  # undo the marks
                claimed[ends[first + u, choice[u]]] = 0
            return True
        level += 1
    return False


@kernel
def _start_turn(st: np.ndarray, geo: np.ndarray, queue: np.ndarray, counts: np.ndarray, opts: np.ndarray) -> int:
    """Fill the decision queue of a new turn; its length."""
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
        xk.legal(st, geo, np.int64(p), opts, counts)
        if quiet:
            for i in range(t):
                if counts[i] > 0:
                    queue[n] = p * (t + 1)
                    n += 1
                    break
        else:
            for i in range(t):
                if counts[i] > 0:
                    queue[n] = p * (t + 1) + i + 1
                    n += 1
    return n


@kernel
def _write(
    st: np.ndarray,
    geo: np.ndarray,
    decision: int,
    pending: np.ndarray,
    n_pending: int,
    pos: np.ndarray,
    opts: np.ndarray,
    counts: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    claimed: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
) -> int:
    """Write the planes (flat: :func:`~tessera.games.nelaxtam.observation.write_planes`) and the mask of
    the decision to make now; return the deciding player."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    blk = geo[sq, 6]
    h = sq + 2 * t
    p = decision // (t + 1)
    troop = decision % (t + 1) - 1
    phase = st[h + _PHASE]
    write_planes(st, geo, pos, p, troop, pending, n_pending, obs)
    for c in range(sq):
        claimed[c] = 0
    edges = 0
    for j in range(n_pending):
        e = token_end(st, geo, np.int64(p), np.int64(pending[j]))
        if e >= 0:
            claimed[e] = 1
            edges += geo[e, _EDGE]
    for i in range(mask.shape[0]):
        mask[i] = False
    if phase == _INVASION:
        need = geo[sq, 3]
        later = t - 1 - troop
        base = troop * blk + 1 + 2 * sq
        for c in range(sq):
            if geo[c, _COLOUR] == p and not claimed[c] and edges + geo[c, _EDGE] + later >= need:
                mask[base + c] = True
        return p
    xk.legal(st, geo, np.int64(p), opts, counts)
    if troop < 0:  # a whole quiet order
        for i in range(t):
            for j in range(counts[i]):
                mask[opts[i, j]] = True
        return p
    for i in range(troop + 1, t):  # the later troops' end squares
        m = 0
        for j in range(counts[i]):
            e = token_end(st, geo, np.int64(p), np.int64(opts[i, j]))
            seen = False
            for u in range(m):
                if ends[i, u] == e:
                    seen = True
            if not seen:
                ends[i, m] = e
                m += 1
        n_ends[i] = m
    live = np.empty(t, np.int64)  # the later troops with a token (the dead have none)
    nl = 0
    for i in range(troop + 1, t):
        if counts[i] > 0:
            live[nl] = i
            nl += 1
    sub_ends = np.empty((nl, _MAX_OPTIONS), np.int64)
    sub_n = np.empty(nl, np.int64)
    for u in range(nl):
        sub_n[u] = n_ends[live[u]]
        for v in range(sub_n[u]):
            sub_ends[u, v] = ends[live[u], v]
    for j in range(counts[troop]):
        a = opts[troop, j]
        e = token_end(st, geo, np.int64(p), np.int64(a))
        if claimed[e]:
            continue
        claimed[e] = 1
        ok = _completable(sub_ends, sub_n, np.int64(0), np.int64(nl), claimed)
        claimed[e] = 0
        if ok:
            mask[a] = True
    return p


@kernel
def _new_turn_and_write(
    st: np.ndarray,
    geo: np.ndarray,
    queue: np.ndarray,
    state: np.ndarray,
    pending: np.ndarray,
    pos: np.ndarray,
    opts: np.ndarray,
    counts: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    claimed: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
) -> int:
    state[0] = _start_turn(st, geo, queue, counts, opts)
    state[1] = 0
    state[2] = 0
    state[3] = 0
    return _write(
        st, geo, np.int64(queue[0]), pending[0], np.int64(0), pos, opts, counts, ends, n_ends, claimed, obs, mask
    )


@kernel
def _reset(
    positions: np.ndarray,
    queues: np.ndarray,
    states: np.ndarray,
    pendings: np.ndarray,
    init: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
) -> None:
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    opts = np.empty((t, _MAX_OPTIONS), np.int64)
    counts = np.empty(t, np.int64)
    ends = np.empty((t, _MAX_OPTIONS), np.int64)
    n_ends = np.zeros(t, np.int64)
    claimed = np.zeros(sq, np.uint8)
    for b in range(positions.shape[0]):
        st = positions[b]
        for i in range(init.shape[0]):
            st[i] = init[i]
        player[b] = _new_turn_and_write(
            st, geo, queues[b], states[b], pendings[b], pos, opts, counts, ends, n_ends, claimed, obs[b], mask[b]
        )


@kernel
def _step(
    positions: np.ndarray,
    queues: np.ndarray,
    states: np.ndarray,
    pendings: np.ndarray,
    actions: np.ndarray,
    init: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
) -> None:
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    h = sq + 2 * t
    opts = np.empty((t, _MAX_OPTIONS), np.int64)
    counts = np.empty(t, np.int64)
    ends = np.empty((t, _MAX_OPTIONS), np.int64)
    n_ends = np.zeros(t, np.int64)
    claimed = np.zeros(sq, np.uint8)
    acts = np.empty(2 * t, np.int64)
    for b in range(positions.shape[0]):
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            continue
        st = positions[b]
        queue = queues[b]
        state = states[b]  # queue length, head, pending of Black, pending of White
        pending = pendings[b]
        p = queue[state[1]] // (t + 1)
        pending[p, state[2 + p]] = actions[b]
        state[2 + p] += 1
        state[1] += 1
        if state[1] < state[0]:
            q = queue[state[1]] // (t + 1)
            player[b] = _write(
                st, geo, np.int64(queue[state[1]]), pending[q], np.int64(state[2 + q]),
                pos, opts, counts, ends, n_ends, claimed, obs[b], mask[b],
            )  # fmt: skip
            continue
        n0 = state[2]
        for i in range(n0):
            acts[i] = pending[0, i]
        for i in range(state[3]):
            acts[n0 + i] = pending[1, i]
        xk.apply(st, geo, acts[: n0 + state[3]], np.int64(n0))
        if st[h + _PHASE] == _OVER:
            w = st[h + _WINNER]
            if w >= 0:
                rewards[b, w] = 1.0
                rewards[b, 1 - w] = -1.0
            terminated[b] = True
            for i in range(init.shape[0]):
                st[i] = init[i]
        player[b] = _new_turn_and_write(
            st, geo, queue, state, pending, pos, opts, counts, ends, n_ends, claimed, obs[b], mask[b]
        )


class NelaxtamVector(VectorGame):
    """Nelaxtam, ``B`` games at once, one per-troop decision per game and step."""

    def __init__(self, adapted: Any, batch: int, seed: int) -> None:
        super().__init__(adapted, batch, seed)
        game = adapted.game
        lay = adapted.obs.layout
        self._geo = game.geo
        self._init = game.new_initial_state().a.copy()
        t = int(game.ntroops)
        self._pos = layout_tables(game, lay)
        self.positions = np.zeros((self.batch, self._init.shape[0]), np.int32)
        """Each game's position (layout of :mod:`tessera.games.nelaxtam.kernels`)."""
        self.queues = np.zeros((self.batch, 2 * t), np.int64)
        """Each game's decisions this turn: ``player·(T+1) + troop + 1`` (troop −1: a whole quiet order)."""
        self.states = np.zeros((self.batch, 4), np.int64)
        """Per game: queue length, the decision to make now, the tokens Black and White have chosen this turn."""
        self.pendings = np.zeros((self.batch, 2, t), np.int64)
        """Per game and player: the tokens chosen this turn, in troop order."""
        self._flat = self._obs.reshape(self.batch, -1)

    def _reset_all(self) -> None:
        _reset(
            self.positions, self.queues, self.states, self.pendings, self._init, self._geo, self._pos,
            self._flat, self._mask_rows, self._player,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.positions, self.queues, self.states, self.pendings, actions, self._init, self._geo, self._pos,
            self._flat, self._mask_rows, self._player, self._rewards, self._terminated,
        )  # fmt: skip
