# mypy: disable-error-code="arg-type, return-value, assignment, no-untyped-call"
"""Nelaxtam's vector engine: per-troop decisions as the adapters make them, turns resolved by Nelaxtam's kernels.

A turn is a queue of decisions (as the adapters make them): Black decides for each of his
troops in increasing number (the living ones with a token; in the invasion all of them),
then White for his; in battle turns of ``variant="quiet"`` each player makes one decision,
his whole order.  Row ``b`` of ``positions`` is game ``b``'s position (layout of
:mod:`tessera.games.nelaxtam.kernels`); ``queue[b, i]`` is the ``i``-th decision of the turn
(``player·(T+1) + troop + 1``, troop ``−1`` for a whole quiet order), ``head[b]`` the decision
to make now and ``pending[b, p, :]`` the tokens ``p`` has chosen this turn.  A token is
offered only if the order can still be completed legally: distinct end squares (a small
search over the later troops' end squares, skipped when they can all hold) and, in the
invasion, at least ``by_sea`` troops on the edge.  The last decision resolves the turn with
the kernels' ``apply``.

The position does not change within a turn: each player's legal tokens and their end squares are
listed once a turn (:func:`~tessera.games.nelaxtam.contract.start_turn`,
:func:`~tessera.games.nelaxtam.contract.troop_ends`), and the planes are kept in the game's row of
the batch (``uint8`` or ``float32``) and rewritten only where they change
(:func:`~tessera.games.nelaxtam.observation.update_planes`): the same player's next decision moves
the troop's mark and adds his token's, the other player's first one swaps the territory planes and
moves the troops' marks, a resolved turn rewrites the squares that changed; the whole planes only
at the reset.  The mask's entries set for the last decision are cleared, not the whole row.

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 interleaved rounds, 2026-11-30
(``benchmarks/contract_engine.py``, 10 steps from a reset): own 1 015 ns, generic 3 270 ns (+222 %): the
contract's ``apply`` computes the decision's mask again to check the token, its ``legal`` lists the
player's tokens and allocates its scratch on every call and its ``observe`` writes every plane
(``benchmarks/vector_targets.py --profile``, ``uint8`` planes, flat actions, the engine's part of a step,
medians of 3 interleaved runs against the engine before: 1,550 ns before, 823 after).
``tests/vector/test_contract_engine.py`` checks both engines play the same games.

**No reference counts in the loop over the games.**  A row of a batch array (``opts[b]``) is a view that
numba counts (an atomic increment when made, a decrement when dropped), and so is every array a called
kernel receives; ``perf`` put 60 % of a step's CPU time in ``NRT_incref``/``NRT_decref``.  The rows are
therefore taken with :func:`_row` and the whole arrays passed down with :func:`_unowned`: the same arrays
without their meminfo, valid while the kernel's arguments are.  2026-11-30, ``benchmarks/vector_targets.py
--games nelaxtam --profile --seconds 0.5`` (B = 1,024, ``uint8``, flat), medians of 3 interleaved runs
against the engine before: engine 1,319 ns before, 795 after; the same games (observations, masks,
players, rewards, ends hashed over 64 × 3,000 and 1,024 × 200 steps, both formats, five variants).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.rows import row as _row
from tessera.core.kits.rows import unowned as _unowned
from tessera.core.kits.vector import VectorGame, fresh_cache
from tessera.games.nelaxtam import kernels as xk
from tessera.games.nelaxtam.contract import decision_tokens, start_turn, troop_ends
from tessera.games.nelaxtam.observation import layout_tables, token_end, update_planes, write_decision, write_planes

fresh_cache(
    __file__,
    "tessera.games.nelaxtam.kernels",
    "tessera.games.nelaxtam.observation",
    "tessera.games.nelaxtam.contract",
)  # before any kernel here is loaded

_PHASE, _WINNER = xk.PHASE, xk.WINNER
_INVASION, _BATTLE, _OVER = xk.INVASION, xk.BATTLE, xk.OVER
_MAX_OPTIONS = xk.MAX_OPTIONS


@kernel
def _show(
    st: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    shown: np.ndarray,
    state: np.ndarray,
    d: int,
    pending: np.ndarray,
    pend_ends: np.ndarray,
    opts: np.ndarray,
    counts: np.ndarray,
    tend: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    scratch: np.ndarray,
    claimed: np.ndarray,
    marks: np.ndarray,
    tokens: np.ndarray,
    row: np.ndarray,
    mask: np.ndarray,
    moved: bool,
    frac: float,
) -> int:
    """Bring a game's planes (its ``row``, showing position ``shown`` to player ``state[4]``) and its
    ``mask`` to decision ``d``, in place; return the deciding player.  The same player's next decision
    within a turn moves the troop's mark and adds his last token's; otherwise (the observer changes or
    the turn was resolved, ``moved``) the last three planes' entries (``marks``) are cleared and the
    other planes brought up to date (:func:`~tessera.games.nelaxtam.observation.update_planes`).  The
    mask's entries set before (``tokens[:state[6]]``) are cleared and the new ones set."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    p = d // (t + 1)
    troop = d % (t + 1) - 1
    n_pending = np.int64(state[2 + p])
    mine = _row(pending, p)
    if marks[0] >= 0:
        row[marks[0]] = 0
    if moved or state[4] != p:
        for j in range(state[5]):
            row[marks[1 + j]] = 0
        update_planes(st, geo, pos, shown, np.int64(state[4]), np.int64(p), row, frac)
        state[4] = p
        state[5] = write_decision(
            st, geo, pos, np.int64(p), np.int64(troop), mine, np.int64(0), n_pending, row, marks, np.int64(0)
        )  # fmt: skip
    else:  # his token just chosen is the only new one
        state[5] = write_decision(
            st, geo, pos, np.int64(p), np.int64(troop), mine, n_pending - 1, n_pending, row, marks,
            np.int64(state[5]),
        )  # fmt: skip
    for j in range(state[6]):
        mask[tokens[j]] = False
    n = decision_tokens(
        st, geo, np.int64(p), np.int64(troop), _row(pend_ends, p), n_pending, _row(opts, p), _row(counts, p),
        _row(tend, p), _row(ends, p), _row(n_ends, p), claimed, scratch, tokens,
    )  # fmt: skip
    for j in range(n):
        mask[tokens[j]] = True
    state[6] = n
    return p


@kernel
def _decide(
    st: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    shown: np.ndarray,
    state: np.ndarray,
    d: int,
    pendings: np.ndarray,
    pend_ends: np.ndarray,
    opts: np.ndarray,
    counts: np.ndarray,
    tend: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    scratch: np.ndarray,
    claimed: np.ndarray,
    marks: np.ndarray,
    tokens: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    b: int,
    mask: np.ndarray,
    moved: bool,
) -> int:
    """:func:`_show` on game ``b`` (the batch's arrays and its rows ``st``, ``state``): its ``uint8`` row
    (``packed`` has rows) or its ``float32`` row of ``obs``."""
    pend, pe, op, co = _row(pendings, b), _row(pend_ends, b), _row(opts, b), _row(counts, b)
    te, en, ne, sh = _row(tend, b), _row(ends, b), _row(n_ends, b), _row(shown, b)
    mk, tk, ms = _row(marks, b), _row(tokens, b), _row(mask, b)
    if packed.shape[0] > 0:
        return _show(
            st, geo, pos, sh, state, d, pend, pe, op, co, te, en, ne, scratch, claimed, mk, tk, _row(packed, b), ms,
            moved, 255.0,
        )  # fmt: skip
    return _show(
        st, geo, pos, sh, state, d, pend, pe, op, co, te, en, ne, scratch, claimed, mk, tk, _row(obs, b), ms,
        moved, 1.0,
    )  # fmt: skip


@kernel
def _new_turn(
    st: np.ndarray,
    geo: np.ndarray,
    queue: np.ndarray,
    state: np.ndarray,
    opts: np.ndarray,
    counts: np.ndarray,
    tend: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    b: int,
) -> None:
    """A new turn's decisions of game ``b`` (the batch's arrays and its rows ``st``, ``queue``, ``state``),
    and in a battle turn each player's legal tokens (and, but in ``quiet``, their end squares), the same for
    every decision of the turn."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    state[0] = start_turn(st, geo, queue, _row(counts, b), _row(opts, b))
    state[1] = 0
    state[2] = 0
    state[3] = 0
    if st[sq + 2 * t + _PHASE] == _BATTLE and geo[sq, 5] == 0:
        for p in range(2):
            troop_ends(
                st, geo, np.int64(p), _row(_row(opts, b), p), _row(_row(counts, b), p), _row(_row(tend, b), p),
                _row(_row(ends, b), p), _row(_row(n_ends, b), p),
            )  # fmt: skip


@kernel
def _tables(
    geo: np.ndarray,
    pos: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    init: np.ndarray,
    scratch: np.ndarray,
    claimed: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The engine's tables, planes and scratch without reference counts (the loop's calls would count each)."""
    return (
        _unowned(geo),
        _unowned(pos),
        _unowned(obs),
        _unowned(packed),
        _unowned(init),
        _unowned(scratch),
        _unowned(claimed),
    )


@kernel
def _reset(
    positions: np.ndarray,
    shown: np.ndarray,
    queues: np.ndarray,
    states: np.ndarray,
    pendings: np.ndarray,
    pend_ends: np.ndarray,
    opts: np.ndarray,
    counts: np.ndarray,
    tend: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    marks: np.ndarray,
    tokens: np.ndarray,
    init: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    work_scratch: np.ndarray,
    work_claimed: np.ndarray,
    work_acts: np.ndarray,
) -> None:
    geo, pos, obs, packed, init, scratch, claimed = _tables(geo, pos, obs, packed, init, work_scratch, work_claimed)
    for b in range(positions.shape[0]):
        st = _row(positions, b)
        state = _row(states, b)
        for i in range(init.shape[0]):
            st[i] = init[i]
            shown[b, i] = init[i]
        for i in range(mask.shape[1]):
            mask[b, i] = False
        if packed.shape[0] > 0:  # the whole planes, seen by Black, no decision shown
            write_planes(st, geo, pos, np.int64(0), np.int64(-1), pendings[b, 0], np.int64(0), packed[b], 255.0)
        else:
            write_planes(st, geo, pos, np.int64(0), np.int64(-1), pendings[b, 0], np.int64(0), obs[b], 1.0)
        state[4] = 0
        state[5] = 0
        state[6] = 0
        marks[b, 0] = -1
        _new_turn(st, geo, _row(queues, b), state, opts, counts, tend, ends, n_ends, np.int64(b))
        player[b] = _decide(
            st, geo, pos, shown, state, np.int64(queues[b, 0]), pendings, pend_ends, opts, counts, tend, ends,
            n_ends, scratch, claimed, marks, tokens, obs, packed, np.int64(b), mask, True,
        )  # fmt: skip


@kernel
def _step(
    positions: np.ndarray,
    shown: np.ndarray,
    queues: np.ndarray,
    states: np.ndarray,
    pendings: np.ndarray,
    pend_ends: np.ndarray,
    opts: np.ndarray,
    counts: np.ndarray,
    tend: np.ndarray,
    ends: np.ndarray,
    n_ends: np.ndarray,
    marks: np.ndarray,
    tokens: np.ndarray,
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
    work_scratch: np.ndarray,
    work_claimed: np.ndarray,
    work_acts: np.ndarray,
) -> None:
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    h = sq + 2 * t
    geo, pos, obs, packed, init, scratch, claimed = _tables(geo, pos, obs, packed, init, work_scratch, work_claimed)
    acts = _unowned(work_acts)
    for b in range(positions.shape[0]):
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            continue
        st = _row(positions, b)
        queue = _row(queues, b)
        state = _row(states, b)  # queue length, head, pending of Black, of White, observer shown, marks, tokens
        pending = _row(pendings, b)
        p = queue[state[1]] // (t + 1)
        pending[p, state[2 + p]] = actions[b]
        pend_ends[b, p, state[2 + p]] = token_end(st, geo, np.int64(p), np.int64(actions[b]))
        state[2 + p] += 1
        state[1] += 1
        moved = False
        if state[1] >= state[0]:
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
            _new_turn(st, geo, queue, state, opts, counts, tend, ends, n_ends, np.int64(b))
            moved = True
        player[b] = _decide(
            st, geo, pos, shown, state, np.int64(queue[state[1]]), pendings, pend_ends, opts, counts, tend, ends,
            n_ends, scratch, claimed, marks, tokens, obs, packed, np.int64(b), mask, moved,
        )  # fmt: skip


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
        sq = int(game.num_squares)
        b = self.batch
        self.shown = self.positions.copy()
        """Each game's position as its planes show it (they are rewritten where the position changed)."""
        self.queues = np.zeros((b, 2 * t), np.int64)
        """Each game's decisions this turn: ``player·(T+1) + troop + 1`` (troop −1: a whole quiet order)."""
        self.states = np.zeros((b, 8), np.int64)
        """Per game: queue length, the decision to make now, the tokens Black and White have chosen this turn,
        the player the planes are seen by, how many entries of ``marks`` and of ``tokens`` are set."""
        self.pendings = np.zeros((b, 2, t), np.int64)
        """Per game and player: the tokens chosen this turn, in troop order."""
        self.pend_ends = np.zeros((b, 2, t), np.int64)
        """Per game and player: the squares his tokens of this turn end on (−1: none)."""
        self.opts = np.zeros((b, 2, t, _MAX_OPTIONS), np.int64)
        self.counts = np.zeros((b, 2, t), np.int64)
        """Per game and player, in a battle turn: each troop's legal tokens (``opts[b, p, i, :counts[b, p, i]]``)."""
        self.tend = np.zeros((b, 2, t, _MAX_OPTIONS), np.int64)
        self.ends = np.zeros((b, 2, t, _MAX_OPTIONS), np.int64)
        self.n_ends = np.zeros((b, 2, t), np.int64)
        """Per game and player, in a battle turn: the square each legal token ends on, each troop's distinct
        end squares."""
        self.marks = np.full((b, 2 * t + 1), -1, np.int64)
        """Per game: the entries of the last three planes set for the decision shown (the troop's, then
        the tokens')."""
        self.tokens = np.zeros((b, max(sq, _MAX_OPTIONS * t)), np.int64)
        """Per game: the legal tokens of the decision shown (the mask's entries set)."""
        self._scratch = np.zeros((3, max(t, _MAX_OPTIONS)), np.int64)
        self._claimed = np.zeros(sq, np.uint8)
        self._acts = np.zeros(2 * t, np.int64)
        """The kernels' scratch, kept between calls (``_claimed`` all 0 between them)."""

    def _reset_all(self) -> None:
        _reset(
            self.positions, self.shown, self.queues, self.states, self.pendings, self.pend_ends, self.opts,
            self.counts, self.tend, self.ends, self.n_ends, self.marks, self.tokens, self._init, self._geo,
            self._pos, self._obs_w, self._packed, self._mask_rows, self._player,
            self._scratch, self._claimed, self._acts,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.positions, self.shown, self.queues, self.states, self.pendings, self.pend_ends, self.opts,
            self.counts, self.tend, self.ends, self.n_ends, self.marks, self.tokens, actions, self._init,
            self._geo, self._pos, self._obs_w, self._packed, self._mask_rows, self._player, self._rewards,
            self._terminated, self._scratch, self._claimed, self._acts,
        )  # fmt: skip
