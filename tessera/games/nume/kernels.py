# mypy: disable-error-code="arg-type"
# (kernels pass numpy int64 scalars where the hints say int: explicit casts keep one numba specialisation)
"""Nume's rule kernels (numba): placing a stone, legal placements, random rollouts, evaluation.

These functions ARE Nume's placement rules: :class:`tessera.games.nume.game.NumeState`
keeps its board in one int32 array laid out as below and calls them for every
placement, legality check, move list, rollout and evaluation (docs/engine.md).

Array layout, ``N`` cells (``a = np.zeros(size(N), np.int32)``), by offset:

* ``STONE·N + c`` colour on cell ``c`` (0 Black, 1 White, -1 empty);
* ``NUM·N + c`` number written on ``c`` (-1 none);
* ``GID·N + c`` group id of the stone on ``c`` (the cell of its founding stone);
* ``NEXT·N + c`` next member of the same group (circular list);
* ``GSIZE``, ``GMIN``, ``GMAX``, ``GPRICE`` ``·N + g``: size, smallest and largest
  number and price of the group whose id is ``g``;
* ``EMPTY·N + i`` the empty cells (``i < nempty``, in no order), ``EPOS·N + c`` the
  position of empty cell ``c`` in that list;
* ``HEAD·N + PRICE_B``, ``+ PRICE_W`` sum of the prices of Black's / White's groups,
  ``+ NEMPTY`` the number of empty cells.

``nbr`` is the game's int32 table ``[N, 6]`` of neighbour cells, padded with -1.
A placement's code ``k`` is 0 for a stone that joins its colour's groups and
``1 + number`` for a stone that starts a group (the action is ``cell·(N+2) + k``).

Values passed from one kernel to another are ``np.int64`` (one specialisation per kernel), and
arrays are copied by loops, not slice assignments (``work[:] = src``), whose shape-mismatch error
message numba compiles at ~1.5 CPU s of a cold start (docs/engine.md, the *Types* note).
"""

from __future__ import annotations

import math

import numpy as np

from tessera.core.kernels import I64, kernel, rand_below

STONE, NUM, GID, NEXT, GSIZE, GMIN, GMAX, GPRICE, EMPTY, EPOS, HEAD = range(11)
PRICE_B, PRICE_W, NEMPTY = 0, 1, 2
"""Header slots after ``HEAD·N``."""
HEADER = 3

OCCUPIED, JOINS, STARTS = 2, 1, 0
"""What a stone of a colour on a cell would do (:func:`status`)."""


def size(n: int) -> int:
    """Length of the state array for ``n`` cells."""
    return HEAD * n + HEADER


def empty_board(n: int) -> np.ndarray:
    """The state array of an empty board of ``n`` cells."""
    a = np.zeros(size(n), dtype=np.int32)
    a[STONE * n : STONE * n + n] = -1
    a[NUM * n : NUM * n + n] = -1
    a[GID * n : GID * n + n] = -1
    a[NEXT * n : NEXT * n + n] = np.arange(n, dtype=np.int32)
    a[EMPTY * n : EMPTY * n + n] = np.arange(n, dtype=np.int32)
    a[EPOS * n : EPOS * n + n] = np.arange(n, dtype=np.int32)
    a[HEAD * n + NEMPTY] = n
    return a


@kernel
def status(a: np.ndarray, nbr: np.ndarray, c: int, col: int) -> int:
    """``OCCUPIED`` if cell ``c`` holds a stone, else ``JOINS`` if it touches a stone of ``col``, else ``STARTS``."""
    if a[c] >= 0:
        return OCCUPIED
    for j in range(nbr.shape[1]):
        m = nbr[c, j]
        if m < 0:
            break
        if a[m] == col:
            return JOINS
    return STARTS


@kernel
def apply(a: np.ndarray, nbr: np.ndarray, c: int, k: int, col: int) -> int:
    """Place a stone of ``col`` on ``c`` with code ``k`` if that is legal; the empty cells left, or -1 if illegal.

    Legal: ``c`` is empty, and ``k == 0`` exactly when the stone touches a stone of
    its colour (a joining stone carries no number, a new group's stone carries one).
    An illegal placement changes nothing.
    """
    n = nbr.shape[0]
    st = status(a, nbr, c, col)
    if st == OCCUPIED or (st == JOINS) != (k == 0):
        return -1
    price_slot = HEAD * n + col
    if k:  # a new group, founded by c
        v = k - 1
        a[NUM * n + c] = v
        a[GID * n + c] = c
        a[GSIZE * n + c] = 1
        a[GMIN * n + c] = v
        a[GMAX * n + c] = v
        p = v - 1 if v else 1
        a[GPRICE * n + c] = p
        a[price_slot] += p
    else:  # joins, and maybe merges, the friendly groups around c
        g0 = -1
        for j in range(nbr.shape[1]):
            m = nbr[c, j]
            if m < 0:
                break
            if a[m] != col:
                continue
            o = a[GID * n + m]
            if g0 < 0:
                g0 = o
                continue
            if o == g0:
                continue
            if a[GSIZE * n + o] > a[GSIZE * n + g0]:
                g0, o = o, g0
            x = o  # relabel the smaller group
            while True:
                a[GID * n + x] = g0
                x = a[NEXT * n + x]
                if x == o:
                    break
            t = a[NEXT * n + o]
            a[NEXT * n + o] = a[NEXT * n + g0]
            a[NEXT * n + g0] = t
            a[GSIZE * n + g0] += a[GSIZE * n + o]
            if a[GMIN * n + o] < a[GMIN * n + g0]:
                a[GMIN * n + g0] = a[GMIN * n + o]
            if a[GMAX * n + o] > a[GMAX * n + g0]:
                a[GMAX * n + g0] = a[GMAX * n + o]
            a[price_slot] -= a[GPRICE * n + o]
        a[GID * n + c] = g0
        a[NEXT * n + c] = a[NEXT * n + g0]
        a[NEXT * n + g0] = c
        s = a[GSIZE * n + g0] + 1
        a[GSIZE * n + g0] = s
        hi = a[GMAX * n + g0] - s
        lo = s - a[GMIN * n + g0]
        p = hi if hi > lo else lo
        a[price_slot] += p - a[GPRICE * n + g0]
        a[GPRICE * n + g0] = p
    a[c] = col
    left = a[HEAD * n + NEMPTY] - 1
    a[HEAD * n + NEMPTY] = left
    last = a[EMPTY * n + left]
    if last != c:
        i = a[EPOS * n + c]
        a[EMPTY * n + i] = last
        a[EPOS * n + last] = i
    return left


@kernel
def statuses(a: np.ndarray, nbr: np.ndarray, col: int) -> np.ndarray:
    """:func:`status` of every cell for a stone of ``col`` (the legal placements: ``JOINS`` cells take
    the joining stone, ``STARTS`` cells a new group with any number ``0 … N``)."""
    n = nbr.shape[0]
    out = np.empty(n, dtype=np.int8)
    for c in range(n):
        out[c] = status(a, nbr, c, col)
    return out


@kernel
def legal(a: np.ndarray, nbr: np.ndarray, col: int) -> np.ndarray:
    """The legal placements of ``col`` as codes in cell order: ``2·c`` the joining stone on empty cell
    ``c``, ``2·c + 1`` the new groups ``c=0 … c=N``; occupied cells have none."""
    n = nbr.shape[0]
    out = np.empty(np.int64(a[HEAD * n + NEMPTY]), dtype=np.int64)
    m = 0
    for c in range(n):
        st = status(a, nbr, c, col)
        if st == JOINS:
            out[m] = 2 * c
            m += 1
        elif st == STARTS:
            out[m] = 2 * c + 1
            m += 1
    return out[:m]


@kernel
def random_step(a: np.ndarray, nbr: np.ndarray, col: int, u_cell: float, u_number: float) -> int:
    """The random placement drawn from two uniform numbers in [0, 1): a cell uniformly among the empty
    ones, then — if the stone starts a group — a number uniformly from ``0 … N``."""
    n = nbr.shape[0]
    c = np.int64(a[EMPTY * n + int(u_cell * a[HEAD * n + NEMPTY])])
    if status(a, nbr, c, col) == JOINS:
        return c * (n + 2)
    return c * (n + 2) + 1 + int(u_number * (n + 1))


@kernel
def group_room(a: np.ndarray, nbr: np.ndarray, g: int, mark: np.ndarray) -> int:
    """The empty cells next to group ``g`` (``g`` its id cell), each counted once: ``mark`` is
    scratch of one int a cell, where the cells counted get ``g + 1``."""
    n = nbr.shape[0]
    room = 0
    x = g
    while True:
        for j in range(nbr.shape[1]):
            m = nbr[x, j]
            if m < 0:
                break
            if a[m] < 0 and mark[m] != g + 1:
                mark[m] = g + 1
                room += 1
        x = a[NEXT * n + x]
        if x == g:
            break
    return room


@kernel
def estimates(a: np.ndarray, nbr: np.ndarray) -> tuple[float, float]:
    """Black's and White's estimated final prices (no komi): per group the mean of its price
    and its best price if it grew by up to its liberties towards the middle of its numbers."""
    n = nbr.shape[0]
    mark = np.zeros(n, dtype=np.int32)
    est_b = 0.0
    est_w = 0.0
    for g in range(n):
        col = a[g]
        if col < 0 or a[GID * n + g] != g:
            continue
        room = group_room(a, nbr, I64(g), mark)
        s = float(a[GSIZE * n + g])
        lo = float(a[GMIN * n + g])
        hi = float(a[GMAX * n + g])
        target = min(max(s, (lo + hi) / 2), s + room)
        best = max(hi - target, target - lo)
        e = 0.5 * (a[GPRICE * n + g] + best)
        if col == 0:
            est_b += e
        else:
            est_w += e
    return est_b, est_w


@kernel
def evaluate(a: np.ndarray, nbr: np.ndarray, komi_b: float, komi_w: float, mine: int) -> float:
    """Evaluation in [-1, 1] for the holder of colour ``mine`` of a position with empty cells:
    ``tanh((opponent's estimate − own estimate) / max(2, √empty))``, komi included."""
    n = nbr.shape[0]
    est_b, est_w = estimates(a, nbr)
    est_b += komi_b
    est_w += komi_w
    scale = max(2.0, math.sqrt(a[HEAD * n + NEMPTY]))
    d = est_w - est_b if mine == 0 else est_b - est_w
    return math.tanh(d / scale)


@kernel
def outcome(a: np.ndarray, nbr: np.ndarray, komi_b: float, komi_w: float, mine: int) -> float:
    """Result for the holder of colour ``mine`` of a full board: +1 lower score, -1 higher, 0 equal."""
    n = nbr.shape[0]
    sb = a[HEAD * n + PRICE_B] + komi_b
    sw = a[HEAD * n + PRICE_W] + komi_w
    if sb == sw:
        return 0.0
    black_wins = sb < sw
    return 1.0 if black_wins == (mine == 0) else -1.0


@kernel
def rollouts(
    a: np.ndarray,
    nbr: np.ndarray,
    col: int,
    count: int,
    rs: np.ndarray,
    max_plies: int,
    komi_b: float,
    komi_w: float,
    mine: int,
) -> tuple[float, int]:
    """``count`` random games from ``a`` with ``col`` to place (``a`` unchanged): the summed value for
    the holder of colour ``mine`` (``outcome`` at a full board, else ``evaluate`` after ``max_plies``
    placements; ``max_plies < 0``: to the end) and the placements played."""
    n = nbr.shape[0]
    work = np.empty_like(a)
    total = 0.0
    plies = 0
    for _ in range(count):
        for i in range(a.shape[0]):  # a loop, not work[:] = a (module docstring)
            work[i] = a[i]
        c_col = np.int64(col)
        steps = 0
        left = np.int64(work[HEAD * n + NEMPTY])
        while left > 0 and (max_plies < 0 or steps < max_plies):
            c = np.int64(work[EMPTY * n + rand_below(rs, left)])
            if status(work, nbr, c, c_col) == JOINS:
                k = 0
            else:
                k = 1 + rand_below(rs, n + 1)
            left = np.int64(apply(work, nbr, c, k, c_col))
            c_col = 1 - c_col
            steps += 1
        plies += steps
        if left == 0:
            total += outcome(work, nbr, komi_b, komi_w, mine)
        else:
            total += evaluate(work, nbr, komi_b, komi_w, mine)
    return total, plies


__all__ = [
    "apply",
    "empty_board",
    "estimates",
    "evaluate",
    "legal",
    "outcome",
    "random_step",
    "rollouts",
    "size",
    "status",
    "statuses",
]
