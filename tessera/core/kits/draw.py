# mypy: disable-error-code="arg-type, assignment"
"""The random legal action of each game of a batch, drawn in a kernel (:func:`random_legal`): what a
user's loop, the benchmarks and the Gymnasium env's opponents draw from an engine's masks.

A batch's own mask is read eight actions at a time (its rows are padded to whole ``uint64`` words of
0/1 bytes); any other mask row by row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core import types
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros
from numba.extending import intrinsic

from tessera.core.kernels import kernel, rand_below
from tessera.core.kits.cache import fresh_cache
from tessera.core.kits.rows import row as _row

fresh_cache(__file__)  # before any kernel here is loaded


@kernel
def _random_legal_bytes(mask: np.ndarray, rs: np.ndarray, out: np.ndarray) -> None:
    """One byte per action: count each row's legal actions, draw ``r``, find the ``r``-th."""
    for b in range(mask.shape[0]):
        row = _row(mask, b)
        count = np.int64(0)
        for a in range(row.shape[0]):
            count += np.int64(row[a])
        if count == 0:
            out[b] = -1
            continue
        r = rand_below(rs, count)
        for a in range(row.shape[0]):
            if row[a]:
                if r == 0:
                    out[b] = a
                    break
                r -= 1


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    """LLVM's ``ctpop`` of a ``uint64`` (the number of its set bits): one instruction."""
    sig = types.uint64(types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.call(builder.module.declare_intrinsic("llvm.ctpop", [args[0].type]), args)

    return sig, codegen


popcount: Callable[[np.uint64], int] = _ctpop  # typed for mypy as a plain function (called inside kernels)
trailing_zeros: Callable[[np.uint64], int] = _trailing_zeros


@kernel
def _random_legal_words(words: np.ndarray, rs: np.ndarray, out: np.ndarray) -> None:
    """The same over the mask read eight actions at a time (``uint64`` words of 0/1 bytes, padded rows):
    a word's legal actions are counted by the number of its set bits (each byte is 0 or 1), and the
    ``r``-th found in the word that holds it by clearing its lowest set bits — no branch per action.
    A wide row (512 words and more: Nume's and Nymbat's flat masks) is counted by blocks of 64 words, so
    the search for the ``r``-th reads one block, not half the row again (:func:`_draw_wide`).  Measured
    2026-11-30, CPU ns a row at B = 1,024, the same draws: counting by a product per non-zero word was
    5–40 % slower; the blocks take Nymbat's flat row 2,755 → 961 ns and Nume's 398 → 246, and would cost a
    narrow row a third more."""
    if words.shape[1] >= 512:
        _draw_wide(words, rs, out)
        return
    for b in range(words.shape[0]):
        row = _row(words, b)
        count = np.int64(0)
        for i in range(row.shape[0]):
            count += np.int64(popcount(row[i]))
        if count == 0:
            out[b] = -1
            continue
        out[b] = _rth(row, 0, rand_below(rs, count))


@kernel
def _rth(row: np.ndarray, start: int, r: int) -> int:
    """The action of the ``r``-th legal action (from 0) counted from word ``start`` of a mask row."""
    one = np.uint64(1)
    for i in range(start, row.shape[0]):
        w = row[i]
        c = np.int64(popcount(w))
        if r < c:
            for _ in range(r):
                w &= w - one
            return 8 * i + (trailing_zeros(w) >> 3)
        r -= c
    return -1


@kernel
def _draw_wide(words: np.ndarray, rs: np.ndarray, out: np.ndarray) -> None:
    """:func:`_random_legal_words` of rows counted by blocks of 64 words (the same draws)."""
    n = words.shape[1]
    full = n >> 6
    blk = np.empty(full + 1, np.int64)
    for b in range(words.shape[0]):
        row = _row(words, b)
        count = np.int64(0)
        for k in range(full):
            block = row[k << 6 : (k + 1) << 6]
            c = np.int64(0)
            for i in range(64):
                c += np.int64(popcount(block[i]))
            blk[k] = c
            count += c
        tail = np.int64(0)
        for i in range(full << 6, n):
            tail += np.int64(popcount(row[i]))
        blk[full] = tail
        count += tail
        if count == 0:
            out[b] = -1
            continue
        r = rand_below(rs, count)
        k = 0
        while r >= blk[k]:
            r -= blk[k]
            k += 1
        out[b] = _rth(row, k << 6, r)


def random_legal(mask: np.ndarray, rs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``−1`` for a row with none), drawn in a kernel.

    ``rs`` is a random state (:func:`tessera.core.kernels.rng_state`), advanced; ``out`` an
    ``int64`` array of one entry per row to fill (default: a new one).  A batch's own mask is
    read eight actions at a time (its rows are padded to whole words), any other row by row.
    """
    # the kernels index these arrays unchecked: refuse what they cannot read or write
    if not isinstance(mask, np.ndarray) or mask.ndim != 2 or mask.dtype not in (np.bool_, np.uint8, np.int8):
        raise ValueError("mask must be a 2-D array of bool (or 0/1 int8/uint8), one row per game")
    if not isinstance(rs, np.ndarray) or rs.dtype != np.uint64 or rs.shape != (1,) or not rs.flags.writeable:
        raise ValueError("rs must be a random state: a writeable uint64 array of shape (1,) (rng_state(seed))")
    if out is None:
        out = np.empty(mask.shape[0], np.int64)
    elif (
        not isinstance(out, np.ndarray)
        or out.dtype != np.int64
        or out.shape != (mask.shape[0],)
        or not out.flags.writeable
    ):
        raise ValueError(f"out must be a writeable int64 array of shape ({mask.shape[0]},), one entry per row of mask")
    base = mask.base
    if (
        isinstance(base, np.ndarray)
        and base.dtype == np.bool_
        and base.ndim == 2
        and base.flags.c_contiguous
        and base.shape[0] == mask.shape[0]
        and base.shape[1] % 8 == 0
        and base.shape[1] - 8 < mask.shape[1] <= base.shape[1]
        and mask.strides == base.strides
        and mask.__array_interface__["data"][0] == base.__array_interface__["data"][0]
        and base.__array_interface__["data"][0] % 8 == 0
    ):
        _random_legal_words(base.view(np.uint64), rs, out)
    else:
        _random_legal_bytes(np.ascontiguousarray(mask).view(np.uint8), rs, out)
    return out


__all__ = ["random_legal"]
