"""Nibble's rules as compiled kernels (numba): the only implementation of the rules.

One file because the kernels call one another and numba's on-disk cache of a kernel is keyed by its
own source file only (:mod:`tessera.core.kernels`, "Cache caveat"): a helper kernel moved to a second
module could change without the kernels that call it being compiled again.

:mod:`tessera.games.nibble` keeps a position in one small ``int32`` array and calls
these kernels for everything the rules decide: which blocks are on a corner, whether
taking one splits the board, the legal steps, applying a step, instant and majority
wins, random playouts (one or many from a position) and the evaluation.

Arrays (all ``int32`` unless said otherwise):

``geo`` — the board, per game, shape ``(K + 1, 16)`` for ``K`` cells (cell ``i`` is
    action ``i``, label order).  Row ``i``: columns ``0 … D−1`` the neighbours in cyclic
    side order (square ``D = 4``: E, N, W, S; hex ``D = 6``: E, NE, NW, W, SW, SE),
    ``−1`` off the board; columns ``6 … 6+R−1`` the ring around the cell in cyclic
    order (square ``R = 8``: E, NE, N, NW, W, SW, S, SE; hex: the six neighbours).
    Row ``K`` is the header: ``K, colours, D, run, R, triple_need, majority``
    (``run``: exposed consecutive sides that make a corner, 2 or 3).
``deal`` — per dealt game (never changes while it is played, so clones share it):
    ``[0, n)`` the colour table; ``[n, 4n)`` for each colour the start (in the table)
    of up to three table-adjacent triples holding it, ``−1`` padded; ``[4n, 4n + n²)``
    for each colour the cells that held a block of it at the start, ``−1`` padded.
``s`` — the position (cloned with ``s.copy()``): ``[0, K)`` the colour of the block
    on each cell, ``−1`` if none; ``[K, K + 2n)`` ``taken[p][c]`` at ``K + p·n + c``;
    then the header at ``H = K + 2n``: to move, colour being taken (``−1``: none),
    over (0/1), winner (``−1``: none), blocks on the board, number of cached legal
    actions (``−1``: not computed); then the cached legal actions from ``H + 8``
    (``K + 1`` places); then from ``C = H + 8 + K + 1`` a flag per cell: 1 when the block on it
    is on a corner (kept by :func:`settle` and :func:`_apply`: a block once on a corner stays
    so, and a take can only expose its neighbours' sides).
``ws`` — scratch space of ``4K`` ints (any contents), allocated by each entry kernel
    (the kernels release the GIL, so none is shared between calls).
``rs`` — a ``uint64[1]`` random state for playouts (:func:`tessera.core.kernels.rng_state`).

Every kernel is a :func:`tessera.core.kernels.kernel` (``numba.njit(cache=True,
nogil=True)``): compiled on first use, then loaded from numba's on-disk cache.

Values passed from one kernel to another go through ``I64`` (one specialisation per kernel), and
arrays are copied by loops, not slice assignments (``work[:] = src``), whose shape-mismatch error
message numba compiles at ~1.5 CPU s of a cold start (docs/engine.md, the *Types* note).
"""

from __future__ import annotations

import numpy as np

from tessera.core.kernels import I64, below, kernel
from tessera.core.kits.rows import unowned

"""``np.int64``, for the values passed on to another kernel: int64, never int32 nor a literal constant, so
every kernel compiles exactly one specialisation (numba specialises a call on ``int32`` and on each literal)."""

TO_MOVE, TAKING, OVER, WINNER, ON_BOARD, N_LEGAL = 0, 1, 2, 3, 4, 5
"""Offsets of the header fields from ``H = K + 2·colours``."""
LEGAL = 8
"""Offset of the cached legal actions from ``H``."""
RING = 6
"""Column of ``geo`` where the ring around a cell starts."""


def state_size(k: int, colors: int) -> int:
    """Length of the position array ``s`` for ``k`` cells and ``colors`` colours."""
    return k + 2 * colors + LEGAL + k + 1 + k


@kernel
def on_corner(s: np.ndarray, geo: np.ndarray, i: int) -> bool:
    """Whether the block on cell ``i`` has ``run`` consecutive exposed sides (cyclically)."""
    k = geo.shape[0] - 1
    d = geo[k, 2]
    need = geo[k, 3]
    run = 0
    for j in range(d + need - 1):
        nb = geo[i, j % d]
        if nb < 0 or s[nb] < 0:
            run += 1
            if run >= need:
                return True
        else:
            run = 0
    return False


@kernel
def splits(s: np.ndarray, geo: np.ndarray, i: int, ws: np.ndarray) -> bool:
    """Whether taking the block on cell ``i`` leaves the other blocks in two or more groups.

    Decided locally when the block's occupied neighbours are joined through the ring of
    cells around it (one arc of blocks holds them all); otherwise by one flood of the
    board without the block, stopped once it has reached every neighbour.
    """
    k = geo.shape[0] - 1
    d = geo[k, 2]
    rl = geo[k, 4]
    step = rl // d  # ring positions of the neighbours: every step-th
    count = 0
    first = -1
    for j in range(d):
        nb = geo[i, j]
        if nb >= 0 and s[nb] >= 0:
            count += 1
            if first < 0:
                first = nb
    if count <= 1:
        return False
    start = -1
    for p in range(rl):
        c = geo[i, RING + p]
        if c < 0 or s[c] < 0:
            start = p
            break
    if start < 0:  # the whole ring is occupied
        return False
    arcs = 0
    in_arc = False
    holds = False
    for q in range(1, rl + 1):
        p = (start + q) % rl
        c = geo[i, RING + p]
        if c >= 0 and s[c] >= 0:
            if not in_arc:
                in_arc = True
                holds = False
            if p % step == 0:
                holds = True
        elif in_arc:
            in_arc = False
            if holds:
                arcs += 1
    if arcs <= 1:
        return False
    # flood the board without cell i from the first neighbour
    seen = ws[:k]
    stack = ws[k : 2 * k]
    seen[:] = 0
    seen[i] = 1
    seen[first] = 1
    stack[0] = first
    top = 1
    reached = 1
    while top > 0:
        top -= 1
        c = stack[top]
        for j in range(d):
            nb = geo[c, j]
            if nb >= 0 and s[nb] >= 0 and seen[nb] == 0:
                seen[nb] = 1
                stack[top] = nb
                top += 1
                for m in range(d):
                    if geo[i, m] == nb:
                        reached += 1
                        if reached == count:
                            return False
                        break
    return True


@kernel
def scratch(geo: np.ndarray) -> np.ndarray:
    """Fresh scratch space ``ws`` for a board."""
    return np.empty(4 * (geo.shape[0] - 1), np.int32)


@kernel
def splits_now(s: np.ndarray, geo: np.ndarray, i: int) -> bool:
    """:func:`splits` with its own scratch space (for messages)."""
    return splits(s, geo, i, scratch(geo))


@kernel
def _fill_legal(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, ws: np.ndarray) -> int:
    """Compute the legal actions into the cache (ascending; ``end`` last) and return how many."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    h = k + 2 * n
    out = h + LEGAL
    m = 0
    corner = out + k + 1
    colour = s[h + TAKING]
    if colour < 0:
        for i in range(k):
            if s[corner + i] > 0 and s[i] >= 0 and not splits(s, geo, I64(i), ws):
                s[out + m] = i
                m += 1
    else:
        base = 4 * n + colour * n
        for j in range(n):
            i = int(deal[base + j])
            if i < 0:
                break
            if s[i] == colour and s[corner + i] > 0 and not splits(s, geo, I64(i), ws):
                s[out + m] = i
                m += 1
        s[out + m] = k
        m += 1
    s[h + N_LEGAL] = m
    return m


@kernel
def legal(s: np.ndarray, deal: np.ndarray, geo: np.ndarray) -> int:
    """Number of legal actions, computing the cache when needed (game not over)."""
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    m = s[h + N_LEGAL]
    if m >= 0:
        return m
    return _fill_legal(s, deal, geo, scratch(geo))


@kernel
def is_legal(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, a: int) -> bool:
    """Whether action ``a`` is legal now (game not over)."""
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    m = legal(s, deal, geo)
    for j in range(m):  # noqa: SIM110 (a plain loop compiles to the simplest code)
        if s[h + LEGAL + j] == a:
            return True
    return False


@kernel
def instant_win(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, p: int, colour: int) -> bool:
    """Whether ``p`` holds every block of a colour or ``need`` of three table-adjacent colours
    (only the colour ``colour`` and its triples, or every colour when ``colour < 0``)."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    need = geo[k, 5]
    mine = k + p * n
    lo, hi = (0, n) if colour < 0 else (colour, colour + 1)
    for c in range(lo, hi):
        if s[mine + c] >= n:
            return True
        for j in range(3):
            t = deal[n + 3 * c + j]
            if t < 0:
                break
            if s[mine + deal[t]] >= need and s[mine + deal[t + 1]] >= need and s[mine + deal[t + 2]] >= need:
                return True
    return False


@kernel
def majorities(s: np.ndarray, geo: np.ndarray, p: int) -> int:
    """How many colours player ``p`` holds a majority of."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    m = geo[k, 6]
    out = 0
    for c in range(n):
        if s[k + p * n + c] >= m:
            out += 1
    return out


@kernel
def settle(s: np.ndarray, deal: np.ndarray, geo: np.ndarray) -> None:
    """Flag the blocks on a corner, and mark a fresh position over if a player already won (instant
    win, or an empty board)."""
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    corner = h + LEGAL + k + 1
    for i in range(k):
        s[corner + i] = 1 if s[i] >= 0 and on_corner(s, geo, I64(i)) else 0
    for p in range(2):
        if instant_win(s, deal, geo, I64(p), I64(-1)):
            s[h + OVER] = 1
            s[h + WINNER] = p
            return
    if s[h + ON_BOARD] == 0:
        _finish_by_majority(s, geo, I64(h))


@kernel
def _finish_by_majority(s: np.ndarray, geo: np.ndarray, h: int) -> None:
    a = majorities(s, geo, I64(0))
    b = majorities(s, geo, I64(1))
    s[h + OVER] = 1
    s[h + WINNER] = 0 if a > b else 1 if b > a else -1


@kernel
def status(s: np.ndarray, geo: np.ndarray) -> int:
    """The header packed in one int: to move, over, winner + 1, taking + 1 (bits 0, 1, 2–3, 4–)."""
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    return s[h + TO_MOVE] | (s[h + OVER] << 1) | ((s[h + WINNER] + 1) << 2) | ((s[h + TAKING] + 1) << 4)


@kernel
def apply(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, a: int) -> int:
    """Apply the legal action ``a`` (take the block on cell ``a``, or ``end`` = ``K``); returns :func:`status`."""
    return _apply(s, deal, geo, scratch(geo), a)


@kernel
def _apply(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, ws: np.ndarray, a: int) -> int:
    k = geo.shape[0] - 1
    n = geo[k, 1]
    h = k + 2 * n
    p = int(s[h + TO_MOVE])
    s[h + N_LEGAL] = -1
    if a == k:
        s[h + TAKING] = -1
        s[h + TO_MOVE] = 1 - p
        return status(s, geo)
    colour = int(s[a])
    s[a] = -1
    s[h + ON_BOARD] -= 1
    corner = h + LEGAL + k + 1
    s[corner + a] = 0
    for e in range(geo[k, 2]):
        nb = geo[a, e]
        if nb >= 0 and s[nb] >= 0 and s[corner + nb] == 0 and on_corner(s, geo, I64(nb)):
            s[corner + nb] = 1
    s[k + p * n + colour] += 1
    if instant_win(s, deal, geo, I64(p), I64(colour)):
        s[h + OVER] = 1
        s[h + WINNER] = p
        s[h + TAKING] = -1
    elif s[h + ON_BOARD] == 0:
        s[h + TAKING] = -1
        _finish_by_majority(s, geo, I64(h))
    else:
        s[h + TAKING] = colour
        if _fill_legal(s, deal, geo, ws) == 1:  # only end: the turn ends by itself
            s[h + TAKING] = -1
            s[h + TO_MOVE] = 1 - p
            s[h + N_LEGAL] = -1
    return status(s, geo)


@kernel
def apply_checked(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, a: int) -> int:
    """Apply action ``a`` if it is legal now and return :func:`status`; ``-1`` (nothing changed) if not."""
    ws = scratch(geo)
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    if not _legal_now(s, deal, geo, ws, h, a, -1):
        return -1
    return _apply(s, deal, geo, ws, a)


@kernel
def _legal_now(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, ws: np.ndarray, h: int, a: int, known: int) -> bool:
    """Whether ``a`` is legal now (``h``: the header's start; ``known``: as in :func:`apply_step`),
    the legal list filled from ``H + LEGAL`` if the header says none and ``known`` too."""
    k = geo.shape[0] - 1
    if s[h + OVER] or a < 0 or a > k:
        return False
    m = s[h + N_LEGAL]
    if m < 0:
        m = known
    if m < 0:
        m = _fill_legal(s, deal, geo, ws)
    for j in range(m):  # noqa: SIM110 - numba compiles the loop (a generator it does not)
        if s[h + LEGAL + j] == a:
            return True
    return False


@kernel
def apply_step(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, a: int, known: int) -> int:
    """:func:`apply_checked`, then the next position's legal actions listed (when not over), in one call.

    ``known``: how many legal actions of this position are listed from ``H + LEGAL`` when the
    header says none (``N_LEGAL`` is ``−1`` at a turn's start, as :func:`_apply` and the playouts
    leave it); ``−1``: none.  Returns ``−1`` (nothing changed) if ``a`` is not legal, else
    :func:`status` plus, from bit 8 on, the number of legal actions now listed from ``H + LEGAL``
    (0 once the game is over): the State API's one kernel call per step (its ``legal_actions()``
    then reads the list without another call).  The header is left as :func:`apply` leaves it.
    """
    return _apply_step(s, deal, geo, scratch(geo), a, known)


@kernel
def _apply_step(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, ws: np.ndarray, a: int, known: int) -> int:
    """:func:`apply_step` on its arguments taken without reference counts (:mod:`tessera.core.kits.rows`):
    the calls below would count each array they pass.  The State API's step 2.02 → 1.94 µs
    (``benchmarks/per_step.py --games nibble --seconds 0.5``, medians of 3 interleaved runs, 2026-11-30)."""
    s, deal, geo, ws = unowned(s), unowned(deal), unowned(geo), unowned(ws)
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    if not _legal_now(s, deal, geo, ws, h, a, known):
        return -1
    st = _apply(s, deal, geo, ws, a)
    if s[h + OVER]:
        return st
    m = s[h + N_LEGAL]
    if m < 0:
        m = _fill_legal(s, deal, geo, ws)
        s[h + N_LEGAL] = -1
    return st | (m << 8)


@kernel
def random_step(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, u: float) -> int:
    """The legal action at fraction ``u`` (``0 ≤ u < 1``) of the legal list: a uniform draw for a uniform ``u``."""
    m = legal(s, deal, geo)
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    return s[h + LEGAL + int(u * m)]


@kernel
def rollout(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, ws: np.ndarray, rs: np.ndarray, cutoff: int) -> int:
    """Uniformly random steps on ``s`` until the game ends or ``cutoff`` steps (``< 0``: no limit);
    returns the steps played.

    The blocks on a corner are kept in a list (``ws[2K:3K]``, positions in ``ws[3K:4K]``):
    a block once on a corner stays so, and only the neighbours of a taken block can
    become one.  At the start of a turn they are tried in random order and the first
    that does not split the board is taken (uniform over the legal blocks); within a
    turn a step is drawn from the legal steps :func:`_apply` listed.
    """
    k = geo.shape[0] - 1
    d = geo[k, 2]
    h = k + 2 * geo[k, 1]
    cl = ws[2 * k : 3 * k]
    pos = ws[3 * k : 4 * k]
    n = 0
    for i in range(k):
        pos[i] = -1
        if s[i] >= 0 and on_corner(s, geo, I64(i)):
            cl[n] = i
            pos[i] = n
            n += 1
    steps = 0
    while s[h + OVER] == 0 and (cutoff < 0 or steps < cutoff):
        m = int(s[h + N_LEGAL])
        if m < 0 and s[h + TAKING] >= 0:
            m = _fill_legal(s, deal, geo, ws)
        if m >= 0:
            a = int(s[h + LEGAL + below(rs, I64(m))])
        else:
            a = -1
            c = n
            while c > 0:
                j = below(rs, I64(c))
                i = int(cl[j])
                if not splits(s, geo, I64(i), ws):
                    a = i
                    break
                c -= 1  # move the refused block behind the ones still to try
                t = cl[c]
                cl[c] = i
                pos[i] = c
                cl[j] = t
                pos[t] = j
            if a < 0:
                return -1  # unreachable: a connected, non-empty board always has a block to take
        _apply(s, deal, geo, ws, I64(a))
        steps += 1
        if a < k:
            j = pos[a]
            n -= 1
            t = cl[n]
            cl[j] = t
            pos[t] = j
            pos[a] = -1
            for e in range(d):
                nb = int(geo[a, e])
                if nb >= 0 and s[nb] >= 0 and pos[nb] < 0 and on_corner(s, geo, I64(nb)):
                    cl[n] = nb
                    pos[nb] = n
                    n += 1
    return steps


@kernel
def win_progress(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, p: int) -> float:
    """How close ``p`` is to an instant win, 0…1 (module docstring of ``nibble``)."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    need = geo[k, 5]
    mine = k + p * n
    theirs = k + (1 - p) * n
    best = 0.0
    for c in range(n):
        if s[theirs + c] == 0:
            v = s[mine + c] / n
            if v > best:
                best = v
    for i in range(n - 2):
        ok = True
        low = need
        for j in range(3):
            c = deal[i + j]
            if s[theirs + c] > n - need:
                ok = False
                break
            low = min(low, s[mine + c])
        if ok:
            v = low / need
            if v > best:
                best = v
    return best


@kernel
def evaluate(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, player: int) -> float:
    """``tanh(1.2·M + 2·(T_me² − T_opp²))`` (module docstring of ``nibble``); ±1/0 once over."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    h = k + 2 * n
    if s[h + OVER]:
        w = s[h + WINNER]
        return 0.0 if w < 0 else (1.0 if w == player else -1.0)
    m = geo[k, 6]
    mine = k + player * n
    theirs = k + (1 - player) * n
    race = 0.0
    for c in range(n):
        a = s[mine + c]
        b = s[theirs + c]
        if a >= m:
            race += 1.0
        elif b >= m:
            race -= 1.0
        else:
            race += 0.5 * (a - b) / m
    race /= m
    t_me = win_progress(s, deal, geo, I64(player))
    t_op = win_progress(s, deal, geo, I64(1 - player))
    return np.tanh(1.2 * race + 2.0 * (t_me * t_me - t_op * t_op))


@kernel
def rollouts(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    rs: np.ndarray,
    cutoff: int,
    out: np.ndarray,
) -> int:
    """``len(out)`` random playouts from ``s`` (left unchanged), each to the end or ``cutoff`` steps;
    ``out[j]`` is player 0's value (±1/0 at the end, else :func:`evaluate`).  Returns the steps played."""
    work = np.empty_like(s)
    ws = scratch(geo)
    total = 0
    for j in range(out.shape[0]):
        for i in range(s.shape[0]):  # a loop, not work[:] = s (module docstring)
            work[i] = s[i]
        total += rollout(work, deal, geo, ws, rs, I64(cutoff))
        out[j] = evaluate(work, deal, geo, I64(0))
    return total


@kernel
def fill_deal(deal: np.ndarray, col: np.ndarray, n: int) -> None:
    """Fill the ``deal`` array (``−1`` everywhere but the table ``deal[:n]``): each colour's
    triples of table-adjacent colours and its cells in ``col`` (colour by cell, ascending)."""
    for i in range(n - 2):
        for j in range(3):
            c = deal[i + j]
            for u in range(3):
                if deal[n + 3 * c + u] < 0:
                    deal[n + 3 * c + u] = i
                    break
    used = np.zeros(n, np.int64)
    for i in range(col.shape[0]):
        c = col[i]
        if c >= 0:
            deal[4 * n + c * n + used[c]] = i
            used[c] += 1


@kernel
def deal_swaps(col: np.ndarray, nbr: np.ndarray, colors: int, draws: np.ndarray) -> None:
    """The deal's swap phase on ``col`` (colour by cell): for each draw ``r``, cells ``r // K`` and
    ``r % K`` swap colours unless a block would get a neighbour of its new colour.

    ``nbr`` holds each cell's neighbours (``−1`` padded); a running count of each cell's
    neighbour colours (3 bits per colour) makes each check O(1).
    """
    k = col.shape[0]
    w = nbr.shape[1]
    around = np.empty((k, w), np.int64)  # the neighbours, with k (a cell no block is on) for padding
    cnt = np.zeros(k + 1, np.int64)
    for i in range(k):
        for j in range(w):
            x = nbr[i, j]
            around[i, j] = x if x >= 0 else k
            if x >= 0:
                cnt[i] += np.int64(1) << (3 * col[x])
    seven = np.int64(7)
    inv = 1.0 / k
    for t in range(draws.shape[0]):
        r = draws[t]
        a = np.int64(r * inv)  # r // k without an integer division (0 <= r < k²), corrected below
        while a * k > r:
            a -= 1
        while (a + 1) * k <= r:
            a += 1
        b = r - a * k
        ca = I64(col[a])
        cb = I64(col[b])
        # Whether the swap is played, as 0 or 1, and the swap played times it: no branch on a draw's
        # outcome, which no predictor can guess (a deal took 29 µs of mispredictions, 11 without).
        ok = I64(ca != cb) & I64((cnt[a] >> (3 * cb)) & seven == 0) & I64((cnt[b] >> (3 * ca)) & seven == 0)
        d = (cb - ca) * ok
        col[a] = ca + d
        col[b] = cb - d
        delta = ((np.int64(1) << (3 * cb)) - (np.int64(1) << (3 * ca))) * ok
        for j in range(w):
            cnt[around[a, j]] += delta
            cnt[around[b, j]] -= delta


# -- the deal: Python's ``random.Random(seed)`` (MT19937) reproduced in a kernel ------------------------

_MT_N = 624
_MT_WORDS = 2 * _MT_N + 1
"""A generator's array (``uint32``): the 624 words of MT19937's state, then the 624 tempered words of the
last twist, then the index of the next tempered word to hand out."""


@kernel
def _mt_seed(key: np.ndarray) -> np.ndarray:
    """The generator of ``random.Random(seed)`` for an int ``seed`` whose ``abs`` has the 32-bit words
    ``key`` (least significant first; ``[0]`` for 0): CPython's ``init_by_array``, in the array
    layout of :data:`_MT_WORDS` (no word handed out yet).  Products and sums are stored into
    ``uint32`` cells, which keeps their low 32 bits as the C code's ``& 0xffffffff`` does."""
    g = np.empty(_MT_WORDS, np.uint32)
    mt = g[:_MT_N]
    mt[0] = 19650218
    for i in range(1, _MT_N):
        x = np.uint64(mt[i - 1])
        mt[i] = np.uint64(1812433253) * (x ^ (x >> np.uint64(30))) + np.uint64(i)
    i = 1
    j = 0
    n = key.shape[0]
    for _ in range(max(_MT_N, n)):
        x = np.uint64(mt[i - 1])
        mix = (x ^ (x >> np.uint64(30))) * np.uint64(1664525)
        mt[i] = (np.uint64(mt[i]) ^ mix) + np.uint64(key[j]) + np.uint64(j)
        i += 1
        j += 1
        if i >= _MT_N:
            mt[0] = mt[_MT_N - 1]
            i = 1
        if j >= n:
            j = 0
    for _ in range(_MT_N - 1):
        x = np.uint64(mt[i - 1])
        mt[i] = (np.uint64(mt[i]) ^ ((x ^ (x >> np.uint64(30))) * np.uint64(1566083941))) - np.uint64(i)
        i += 1
        if i >= _MT_N:
            mt[0] = mt[_MT_N - 1]
            i = 1
    mt[0] = 0x80000000
    g[2 * _MT_N] = _MT_N
    return g


@kernel
def _mt_refill(g: np.ndarray) -> None:
    """Twist the state and temper all 624 new words at once (CPython's ``genrand_uint32`` word by word,
    as two loops without branches that the compiler vectorises: 3,240 words in 1.5 µs instead of 11)."""
    mt = g[:_MT_N]
    upper = np.uint32(0x80000000)
    lower = np.uint32(0x7FFFFFFF)
    matrix = np.uint32(0x9908B0DF)
    one = np.uint32(1)
    zero = np.uint32(0)
    for kk in range(227):
        y = (mt[kk] & upper) | (mt[kk + 1] & lower)
        mt[kk] = mt[kk + 397] ^ (y >> one) ^ ((zero - (y & one)) & matrix)
    for kk in range(227, _MT_N - 1):
        y = (mt[kk] & upper) | (mt[kk + 1] & lower)
        mt[kk] = mt[kk - 227] ^ (y >> one) ^ ((zero - (y & one)) & matrix)
    y = (mt[_MT_N - 1] & upper) | (mt[0] & lower)
    mt[_MT_N - 1] = mt[396] ^ (y >> one) ^ ((zero - (y & one)) & matrix)
    out = g[_MT_N : 2 * _MT_N]
    for i in range(_MT_N):
        y = mt[i]
        y ^= y >> np.uint32(11)
        y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
        y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
        y ^= y >> np.uint32(18)
        out[i] = y
    g[2 * _MT_N] = 0


@kernel
def _mt_next(g: np.ndarray) -> int:
    """The next 32-bit word of the generator ``g`` (CPython's ``genrand_uint32``), as an ``int64``."""
    if g[2 * _MT_N] >= _MT_N:
        _mt_refill(g)
    i = I64(g[2 * _MT_N])
    g[2 * _MT_N] = i + 1
    return I64(g[_MT_N + i])


@kernel
def _mt_fill(g: np.ndarray, out: np.ndarray) -> None:
    """The next ``len(out)`` words of the generator ``g`` into ``out`` (``int64``), as :func:`_mt_next`
    would give them one by one (a run of words costs a copy: the index stays in a register)."""
    n = out.shape[0]
    i = 0
    pos = I64(g[2 * _MT_N])
    while i < n:
        if pos >= _MT_N:
            _mt_refill(g)
            pos = 0
        m = min(_MT_N - pos, n - i)
        for j in range(m):
            out[i + j] = g[_MT_N + pos + j]
        i += m
        pos += m
    g[2 * _MT_N] = pos


@kernel
def _mt_random(g: np.ndarray) -> float:
    """``rng.random()``: 53 bits from two words."""
    a = _mt_next(g) >> 5
    b = _mt_next(g) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)  # from int64: no unsigned conversion


@kernel
def _mt_below(g: np.ndarray, n: int) -> int:
    """``rng._randbelow(n)`` for ``2 ≤ n < 2**32``: ``getrandbits(n.bit_length())`` until below ``n``."""
    bits = 0
    while (1 << bits) <= n:
        bits += 1
    shift = 32 - bits
    while True:
        r = _mt_next(g) >> shift
        if r < n:
            return r


@kernel
def _mt_shuffle(g: np.ndarray, x: np.ndarray) -> None:
    """``rng.shuffle(x)``."""
    for i in range(x.shape[0] - 1, 0, -1):
        j = _mt_below(g, I64(i + 1))
        t = x[i]
        x[i] = x[j]
        x[j] = t


@kernel
def deal(
    key: np.ndarray, base: np.ndarray, nbr: np.ndarray, colors: int, swaps: int, shuffle_table: bool, table: np.ndarray
) -> np.ndarray:
    """The deal of a seed (``key``: :func:`_mt_seed`), by ``random.Random(seed)``'s numbers: the
    colours permuted (``rng.shuffle``), ``swaps`` swap draws ``int(rng.random() · K²)`` played by
    :func:`deal_swaps`, then the table shuffled (when ``shuffle_table``) into ``table``.  Returns
    the colours by cell index."""
    mt = _mt_seed(key)
    perm = np.arange(colors)
    _mt_shuffle(mt, perm)
    k = base.shape[0]
    col = np.empty(k, np.int32)
    for i in range(k):
        col[i] = perm[base[i]]
    words = np.empty(2 * swaps, np.int64)
    _mt_fill(mt, words)  # each draw is rng.random(): two words
    draws = np.empty(swaps, np.int64)
    kk = k * k
    for t in range(swaps):
        x = ((words[2 * t] >> 5) * 67108864.0 + (words[2 * t + 1] >> 6)) * (1.0 / 9007199254740992.0)
        draws[t] = np.int64(x * kk)
    deal_swaps(col, nbr, I64(colors), draws)
    for i in range(colors):
        table[i] = i
    if shuffle_table:
        _mt_shuffle(mt, table)
    return col
