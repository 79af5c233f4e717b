# mypy: disable-error-code="arg-type, return-value, assignment"
"""Ikabegamá's vector engine, on the adapters' window: ``B`` positions stepped by Ikabegamá's kernels.

Row ``b`` of ``positions`` is game ``b``'s state array (layout of
:mod:`tessera.games.ikabegama.kernels`) with room for a token on every hex of the window, so
a growth never finds the list full; the kernels' ``apply`` plays every move.  Beside it the engine
keeps each game's tokens as two bit boards (one per player, over the board's bounding box: see
:func:`_bit_tables`), updated after each move from the hexes it may have changed, read back from the
position.  Adapter actions (``13·i + k`` on the ``i``-th hex of the window, ``13·cells`` pass) are
turned into the kernels' actions through the adapters' own table; the mask is written from the bit
boards (each of the mover's tokens reads the 5 × 5 cells around it in five runs of bits), and the
planes straight into the game's row of the batch (``uint8`` or ``float32``), only where they changed:
the token planes of the last step swapped (the other player looks) and the move's cells rewritten,
the constant planes when their value changes, the board and "I am to move" at the reset.

**No reference counts in the loop over the games.**  Each game's rows (``positions``, the bit boards,
the planes, the mask) are taken with :func:`~tessera.core.kits.rows.row` and the arrays the kernels pass
down (the tables ``g``, the initial position, the scratch ``x`` and ``changed``, now kept on the engine,
not allocated per call) with :func:`~tessera.core.kits.rows.unowned`: numba's atomic counts on every
view and every array a called kernel receives were about a third of a step's CPU time (``perf``).
``benchmarks/vector_targets.py --games ikabegama --profile --seconds 0.5``, ``uint8`` planes, B = 1,024,
the engine's CPU ns per game and decision, medians of 3 runs interleaved with the previous commit,
2026-11-30: flat 984 → 581, factored 1,014 → 559.

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 interleaved rounds, 2026-11-30
(``benchmarks/contract_engine.py``, 10 steps from a reset): own 620 ns, generic 1 705 ns (+175 %): the
contract's ``legal`` lists and sorts the moves through the position's hash table and its ``observe``
writes every plane in ``float32``, where this engine reads the bit boards and writes what changed
(the previous engine, which probed the hash table for each destination: 900 ns in the same run;
``benchmarks/vector_targets.py --profile``, ``uint8`` planes, flat actions, the engine's part of a step,
medians of 3 interleaved runs: 2,897 ns before, 873 after).  ``tests/vector/test_contract_engine.py`` checks
both engines play the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from tessera.core.kernels import I64, kernel
from tessera.core.kits.rows import row as _row
from tessera.core.kits.rows import unowned as _unowned
from tessera.core.kits.vector import VectorGame, fresh_cache
from tessera.games.ikabegama import kernels as ik
from tessera.games.ikabegama.observation import layout_tables

fresh_cache(
    __file__, "tessera.games.ikabegama.kernels", "tessera.games.ikabegama.observation"
)  # before any kernel here is loaded

_HEADER, _CAP, _NTOK, _PLY, _PASSES, _TO_MOVE, _OVER, _WINNER = (
    ik.HEADER, ik.CAP, ik.NTOK, ik.PLY, ik.PASSES, ik.TO_MOVE, ik.OVER, ik.WINNER,
)  # fmt: skip
_K_NBR, _K_RING, _K_MAXPLY, _K_NEST0, _K_SIZE, _K_STRIDE, _K_BOUNDED = (
    ik.K_NBR, ik.K_RING, ik.K_MAXPLY, ik.K_NEST0, ik.K_SIZE, ik.K_STRIDE, ik.K_BOUNDED,
)  # fmt: skip

trailing_zeros: Any = _trailing_zeros
"""numba's ``cttz`` (the index of a word's lowest set bit), typed for mypy."""


@kernel
def _fill(obs: np.ndarray, start: int, count: int, value: np.float32) -> None:
    """``obs[start : start + count] = value``, ``value`` converted to the planes' type once (in the first
    cell, read back): a conversion per cell from ``float32`` to bytes costs more than the copies."""
    obs[start] = value
    v = obs[start]
    obs[start : start + count] = v


@kernel
def _write(
    a: np.ndarray,
    g: tuple[np.ndarray, ...],
    occ: np.ndarray,
    x: np.ndarray,
    changed: np.ndarray,
    n: int,
    obs: np.ndarray,
    mask: np.ndarray,
    frac: float,
    fresh: bool,
) -> int:
    """Write the planes and the mask of position ``a`` (its bit boards ``occ``) for the player to move;
    return that player.

    ``obs`` is the game's own row of the batch's planes: ``float32`` (``frac = 1``) or ``uint8`` (``frac =
    255``: the fractional plane as ``round(255·x)``, the bytes :func:`~tessera.core.kits.vector.pack_row`
    makes of the ``float32`` planes of :func:`~tessera.games.ikabegama.observation.write_planes`).  The row
    keeps what the game's last write left there: the planes that never change in a batch (the board, "I am
    to move") are written only when ``fresh`` (the batch's reset), the constant ones only when their value
    changed, the nests' cells only where the player to move changed them; the token planes are those of
    the game's last step swapped (the other player looks) with the cells the move changed rewritten
    (``changed[:n]``, bits), or (``n < 0``: a new game) written whole.

    ``x``: scratch, the board's empty cells between ``pad`` zero words on each side, so that the runs around
    a token read no word out of range.
    """
    k, hpos, board, _, boardbits, act, cellobs, win, move, _, hexes = g
    p = np.int64(a[_TO_MOVE])
    hw = board.shape[0]
    nw = boardbits.shape[0]
    pad = (x.shape[0] - 1 - nw) // 2
    one = np.uint64(1)
    # the planes
    if fresh:
        obs[:] = 0
        for i in range(hw):
            obs[4 * hw + i] = board[i]
        _fill(obs, 5 * hw, hw, np.float32(1.0))
    if n < 0:  # a new game: the tokens from the bit boards
        obs[: 2 * hw] = 0
        for o in range(2):
            base = (0 if o == p else 1) * hw
            for w in range(nw):
                t = occ[o, w]
                while t:
                    obs[base + cellobs[(w << 6) + trailing_zeros(t)]] = 1
                    t &= t - one
    else:  # the other player's view of the last position (the two token planes swapped), then the move's cells
        for i in range(hw):
            v = obs[i]
            obs[i] = obs[hw + i]
            obs[hw + i] = v
        for i in range(n):
            c = changed[i]
            w = c >> 6
            s = np.uint64(c & 63)
            obs[cellobs[c]] = (occ[p, w] >> s) & one
            obs[hw + cellobs[c]] = (occ[1 - p, w] >> s) & one
    mine, theirs = hpos[k[_K_NEST0 + p]], hpos[k[_K_NEST0 + 1 - p]]
    obs[2 * hw + theirs] = 0
    obs[2 * hw + mine] = 1
    obs[3 * hw + mine] = 0
    obs[3 * hw + theirs] = 1
    ply = np.float32(a[_PLY] / np.float64(k[_K_MAXPLY]))
    if frac > 1.0:
        ply = ply * np.float32(255.0) + np.float32(0.5)
    _refill(obs, 6 * hw, hw, ply, fresh)
    _refill(obs, 7 * hw, hw, np.float32(1.0 if a[_PASSES] else 0.0), fresh)
    # the mask: each of the mover's tokens reads the empty cells of the 5 × 5 cells around it (five
    # 5-bit runs of the board's empty cells, one a row) and marks the moves onto those of its 18 destinations
    # (a growth's destination may be marked by several tokens: the same entry)
    mask[:] = False
    for w in range(nw):
        x[pad + w] = boardbits[w] & ~(occ[0, w] | occ[1, w])
    width = win[5] - win[0]
    start = (pad << 6) - 2 - 2 * width
    five = np.uint64(31)
    r63 = np.uint64(63)
    moves = False
    for w in range(nw):
        t = occ[p, w]
        while t:
            c = (w << 6) + trailing_zeros(t)
            t &= t - one
            around = np.uint64(0)
            for d in range(5):
                at = start + c + d * width
                i = at >> 6
                s = np.uint64(at & 63)
                run = (x[i] >> s) | ((x[i + 1] << one) << (r63 - s))
                around |= (run & five) << np.uint64(5 * d)
            around &= hexes[0]
            moves |= around != 0
            while around:
                m = trailing_zeros(around)
                mask[act[c + win[m]] + move[m]] = True
                around &= around - one
    if not moves:
        mask[act[act.shape[0] - 1]] = True  # pass
    return p


@kernel
def _refill(obs: np.ndarray, start: int, count: int, value: np.float32, fresh: bool) -> None:
    """:func:`_fill` unless the plane already holds ``value`` (in the planes' type)."""
    old = obs[start]
    obs[start] = value
    if fresh or obs[start] != old:
        _fill(obs, start, count, value)


def _scratch(g: tuple[np.ndarray, ...]) -> np.ndarray:
    """:func:`_write`'s ``x``: the board's words between ``pad`` zero words, ``pad`` words covering two rows
    and two cells (``pad`` = ``(x.shape[0] − 1 − words) // 2``; one more word at the end for the last run)."""
    nw = g[4].shape[0]
    width = g[7][5] - g[7][0]
    pad = ((2 * width + 2) >> 6) + 1
    return np.zeros(int(nw + 2 * pad + 1), np.uint64)


@kernel
def _unowned_g(g: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """The tables ``g`` as views without reference counts (:func:`~tessera.core.kits.rows.unowned`): valid
    while ``g`` is (the top-level kernel's argument)."""
    return (
        _unowned(g[0]), _unowned(g[1]), _unowned(g[2]), _unowned(g[3]), _unowned(g[4]), _unowned(g[5]),
        _unowned(g[6]), _unowned(g[7]), _unowned(g[8]), _unowned(g[9]), _unowned(g[10]),
    )  # fmt: skip


@kernel
def _new_game(a: np.ndarray, init: np.ndarray, occ: np.ndarray, occ0: np.ndarray) -> None:
    for i in range(init.shape[0]):
        a[i] = init[i]
    for o in range(2):
        for w in range(occ0.shape[1]):
            occ[o, w] = occ0[o, w]


@kernel
def _reset(
    positions: np.ndarray,
    occ: np.ndarray,
    init: np.ndarray,
    g: tuple[np.ndarray, ...],
    obs: np.ndarray,
    packed: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    x: np.ndarray,
    changed: np.ndarray,
) -> None:
    init, x, changed = _unowned(init), _unowned(x), _unowned(changed)
    g = _unowned_g(g)
    u8 = packed.shape[0] > 0
    for b in range(positions.shape[0]):
        a, bits = _row(positions, b), _row(occ, b)
        _new_game(a, init, bits, g[9])
        if u8:
            player[b] = _write(a, g, bits, x, changed, I64(-1), _row(packed, b), _row(mask, b), 255.0, True)
        else:
            player[b] = _write(a, g, bits, x, changed, I64(-1), _row(obs, b), _row(mask, b), 1.0, True)


@kernel
def _step(
    positions: np.ndarray,
    occ: np.ndarray,
    actions: np.ndarray,
    init: np.ndarray,
    g: tuple[np.ndarray, ...],
    to_t: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    x: np.ndarray,
    changed: np.ndarray,
) -> None:
    init, to_t, x, changed = _unowned(init), _unowned(to_t), _unowned(x), _unowned(changed)
    g = _unowned_g(g)
    u8 = packed.shape[0] > 0
    k, cellof = g[0], g[3]
    size = k[_K_SIZE]
    one = np.uint64(1)
    for b in range(positions.shape[0]):
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            for q in range(rewards.shape[1]):
                rewards[b, q] = 0.0
            terminated[b] = False
            continue
        a = _row(positions, b)
        bits = _row(occ, b)
        t = to_t[actions[b]]
        ik.apply(a, k, t)
        n = 0
        if t != size * 13:
            # the bit boards follow the hexes the move may have changed: the destination, its neighbours
            # (the flips) and a jump's origin, each read back from the position
            dest = t // 13
            j = t - dest * 13
            for d in range(8 if j else 7):
                h = dest + k[_K_NBR + d] if d < 6 else dest if d == 6 else dest - k[_K_RING + j - 1]
                c = cellof[h]
                if c < 0:
                    continue
                i = c >> 6
                bit = one << np.uint64(c & 63)
                o = ik.owner_at(a, h)
                bits[0, i] &= ~bit
                bits[1, i] &= ~bit
                if o >= 0:
                    bits[o, i] |= bit
                changed[n] = c
                n += 1
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        if a[_OVER]:
            w = a[_WINNER]
            if w == 0 or w == 1:
                rewards[b, w] = 1.0
                rewards[b, 1 - w] = -1.0
            terminated[b] = True
            _new_game(a, init, bits, g[9])
            n = -1
        if u8:
            player[b] = _write(a, g, bits, x, changed, n, _row(packed, b), _row(mask, b), 255.0, False)
        else:
            player[b] = _write(a, g, bits, x, changed, n, _row(obs, b), _row(mask, b), 1.0, False)


def _bit_tables(
    k: np.ndarray, allowed: np.ndarray, from_t: np.ndarray, hpos: np.ndarray, init: np.ndarray
) -> tuple[np.ndarray, ...]:
    """The bit boards' tables for :func:`_write`.

    A bit board numbers the cells of the board's bounding box row by row, ``row·(columns + 2) + column``:
    the two spare columns after each row are never on the board, so the cells two columns before or after
    any cell of a row are off the board or of that row, and the 5 × 5 cells around a cell are five runs of
    five bits.  Tables: each window hex's bit (``cellof``, −1 off the board), the board's bits
    (``boardbits``), the adapter action of the growth onto each bit (``act[bit]``: move ``j`` onto it is
    ``act[bit] + j``; then ``pass``), each bit's cell in a plane (``cellobs``), the offset in bits of each
    of the 25 cells around a cell (``win``) and the move onto it from the cell (``move``: the jump ``1 …
    12``, the growth ``0``, −1 for the 7 that are no destination; ``hexes``: the 18 as bits), and the
    initial position's boards (``occ0``)."""
    assert k[_K_BOUNDED], "the vector engine plays a bounded board"
    stride = int(k[_K_STRIDE])
    on = np.flatnonzero(allowed)
    rows, cols = on // stride, on % stride
    r0, c0 = int(rows.min()), int(cols.min())
    nr, nc = int(rows.max()) - r0 + 1, int(cols.max()) - c0 + 1
    assert c0 >= 2 and c0 + nc + 2 <= stride  # no destination wraps around the window's sides
    width = nc + 2
    nw = -(-(nr * width) // 64)
    cellof = np.full(allowed.shape[0], -1, np.int64)
    cellof[on] = (rows - r0) * width + cols - c0
    boardbits = np.zeros(nw, np.uint64)
    act = np.full(nw * 64 + 1, -1, np.int64)
    cellobs = np.full(nw * 64, -1, np.int64)
    for h in on:
        c = int(cellof[h])
        boardbits[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
        act[c] = from_t[h * 13]
        assert (from_t[h * 13 : h * 13 + 13] == act[c] + np.arange(13)).all()
        cellobs[c] = hpos[h]
    act[-1] = from_t[int(k[_K_SIZE]) * 13]
    win = np.array([(m // 5 - 2) * width + m % 5 - 2 for m in range(25)], np.int64)
    move = np.full(25, -1, np.int64)
    for j in range(18):
        off = int(k[_K_RING + j] if j < 12 else k[_K_NBR + j - 12])
        dr = round(off / stride)
        dc = off - dr * stride
        assert abs(dr) <= 2 and abs(dc) <= 2
        move[(dr + 2) * 5 + dc + 2] = j + 1 if j < 12 else 0
    hexes = np.array([sum(1 << int(m) for m in np.flatnonzero(move >= 0))], np.uint64)  # the 18 of the 25
    occ0 = np.zeros((2, nw), np.uint64)
    own = ik.HEADER + int(init[_CAP])
    for i in range(int(init[_NTOK])):
        c = int(cellof[init[ik.HEADER + i]])
        occ0[int(init[own + i]), c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    return cellof, boardbits, act, cellobs, win, move, occ0, hexes


class IkabegamaVector(VectorGame):
    """Ikabegamá on the adapters' window, ``B`` positions at once."""

    def __init__(self, adapted: Any, batch: int, seed: int, **formats: str) -> None:
        super().__init__(adapted, batch, seed, **formats)
        game = adapted.game
        window = adapted.window
        assert window is not None and adapted._to_tessera is not None
        w = game.window
        lay = adapted.obs.layout
        self._k = game.kconst
        self._allowed = game.allowed_mask
        self._to_t = np.array(adapted._to_tessera, np.int64)
        self._from_t = np.full(w.size * 13 + 1, -1, np.int64)
        for i, t in enumerate(adapted._to_tessera):
            if t >= 0:
                self._from_t[t] = i
        hpos, board = layout_tables(game, lay)
        init = ik.new_array(window.cells)
        for h, owner in ((game.nest_ids[0], 0), (game.nest_ids[1], 1)):
            ik.add_token(init, h, owner)
        ik.settle(init, self._k)
        self._init = init
        self.positions = np.zeros((self.batch, init.shape[0]), np.int32)
        """Each game's state array (layout of :mod:`tessera.games.ikabegama.kernels`)."""
        self._g = (self._k, hpos, board, *_bit_tables(self._k, self._allowed, self._from_t, hpos, init))
        self._occ = np.zeros((self.batch, 2, self._g[4].shape[0]), np.uint64)
        """Each game's tokens as bit boards, one per player (see :func:`_bit_tables`)."""
        self._x = _scratch(self._g)
        """:func:`_write`'s scratch ``x`` (kept here, not allocated per call; its ``pad`` words stay zero)."""
        self._changed = np.empty(8, np.int64)
        """The step's changed cells (scratch)."""

    def _reset_all(self) -> None:
        _reset(
            self.positions, self._occ, self._init, self._g, self._obs_w, self._packed, self._mask_rows, self._player,
            self._x, self._changed,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.positions, self._occ, actions, self._init, self._g, self._to_t, self._obs_w, self._packed,
            self._mask_rows, self._player, self._rewards, self._terminated, self._x, self._changed,
        )  # fmt: skip
