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

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 interleaved rounds, 2026-11-29
(``benchmarks/contract_engine.py``): own 1 916 ns, generic 3 971 ns (+107 %): the contract's ``apply``
computes the decision's mask again to check the token and its ``legal`` allocates its scratch on every call.
``tests/vector/test_contract_engine.py`` checks both engines play the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.vector import VectorGame, fresh_cache
from tessera.games.nelaxtam import kernels as xk
from tessera.games.nelaxtam.contract import decision_mask, start_turn
from tessera.games.nelaxtam.observation import layout_tables, write_planes

fresh_cache(
    __file__, "tessera.games.nelaxtam.kernels", "tessera.games.nelaxtam.observation", "tessera.games.nelaxtam.contract"
)  # before any kernel here is loaded

_PHASE, _IDLE, _WINNER = xk.PHASE, xk.IDLE, xk.WINNER
_INVASION, _BATTLE, _OVER = xk.INVASION, xk.BATTLE, xk.OVER
_COLOUR, _EDGE, _MAX_OPTIONS = xk.COLOUR, xk.EDGE, xk.MAX_OPTIONS


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
    packed: np.ndarray,
    b: int,
    mask: np.ndarray,
) -> int:
    """Write game ``b``'s planes (flat: :func:`~tessera.games.nelaxtam.observation.write_planes`) straight
    into its ``uint8`` row (``packed`` has rows) or its ``float32`` row of ``obs``, and the mask of the
    decision to make now (:func:`~tessera.games.nelaxtam.contract.decision_mask`); return the deciding
    player.  (Bytes written directly, not ``float32`` packed afterwards by
    :func:`~tessera.core.kits.vector.pack_row`: 805 → 517 ns a position, 2026-11-30.)"""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    p = decision // (t + 1)
    troop = decision % (t + 1) - 1
    if packed.shape[0] > 0:
        write_planes(st, geo, pos, p, troop, pending, n_pending, packed[b], 255.0)
    else:
        write_planes(st, geo, pos, p, troop, pending, n_pending, obs[b], 1.0)
    decision_mask(
        st, geo, np.int64(p), np.int64(troop), pending, np.int64(n_pending), opts, counts, ends, n_ends, claimed, mask
    )
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
    packed: np.ndarray,
    b: int,
    mask: np.ndarray,
) -> int:
    state[0] = start_turn(st, geo, queue, counts, opts)
    state[1] = 0
    state[2] = 0
    state[3] = 0
    return _write(
        st, geo, np.int64(queue[0]), pending[0], np.int64(0), pos, opts, counts, ends, n_ends, claimed,
        obs, packed, b, mask,
    )  # fmt: skip


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
    packed: np.ndarray,
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
            st,
            geo,
            queues[b],
            states[b],
            pendings[b],
            pos,
            opts,
            counts,
            ends,
            n_ends,
            claimed,
            obs,
            packed,
            np.int64(b),
            mask[b],
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
    packed: np.ndarray,
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
                pos, opts, counts, ends, n_ends, claimed, obs, packed, np.int64(b), mask[b],
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
            st, geo, queue, state, pending, pos, opts, counts, ends, n_ends, claimed, obs, packed, np.int64(b), mask[b]
        )


class NelaxtamVector(VectorGame):
    """Nelaxtam, ``B`` games at once, one per-troop decision per game and step."""

    def __init__(self, adapted: Any, batch: int, seed: int, **formats: str) -> None:
        super().__init__(adapted, batch, seed, **formats)
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

    def _reset_all(self) -> None:
        _reset(
            self.positions, self.queues, self.states, self.pendings, self._init, self._geo, self._pos,
            self._obs_w, self._packed, self._mask_rows, self._player,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.positions, self.queues, self.states, self.pendings, actions, self._init, self._geo, self._pos,
            self._obs_w, self._packed, self._mask_rows, self._player, self._rewards, self._terminated,
        )  # fmt: skip
