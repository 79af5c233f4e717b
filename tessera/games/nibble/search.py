"""The compiled search of the Nibble endgame solver (:mod:`tessera.games.nibble.solver`, whose docstring
describes the representation, the steps, the values, the transposition table and the budget): negamax
with alpha-beta over bit sets, one kernel call per search (:func:`search_root`)."""

from __future__ import annotations

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.solver import EXACT, LOWER, UPPER

WIN = 10000
"""Value of a win at the root (a win ``d`` steps away scores ``WIN − d``)."""


# ctx (int64) fields
_N, _COLORS, _NEED, _MAJ, _SIDES, _RUN, _NODES, _LIMIT, _ABORT = range(9)


@kernel
def _bit(j: int) -> np.uint64:
    return np.uint64(1) << np.uint64(j)


@kernel
def _on_corner(mask: np.uint64, nb: np.ndarray, j: int, sides: int, run: int) -> bool:
    count = 0
    for t in range(sides + run - 1):
        x = nb[j, t % sides]
        if x < 0 or (mask >> np.uint64(x)) & np.uint64(1) == np.uint64(0):
            count += 1
            if count >= run:
                return True
        else:
            count = 0
    return False


@kernel
def _connected(rest: np.uint64, adj: np.ndarray, n: int) -> bool:
    """Whether the blocks of bit set ``rest`` form one group (an empty set does)."""
    if rest == np.uint64(0):
        return True
    first = 0
    while (rest >> np.uint64(first)) & np.uint64(1) == np.uint64(0):
        first += 1
    reach = _bit(first)
    frontier = reach
    while frontier != np.uint64(0):
        grow = np.uint64(0)
        for j in range(n):
            if (frontier >> np.uint64(j)) & np.uint64(1):
                grow |= adj[j]
        frontier = grow & rest & ~reach
        reach |= frontier
    return reach == rest


@kernel
def _takeable(mask: np.uint64, nb: np.ndarray, adj: np.ndarray, j: int, n: int, sides: int, run: int) -> bool:
    if not _on_corner(mask, nb, j, sides, run):
        return False
    rest = mask & ~_bit(j)
    near = adj[j] & rest
    if near & (near - np.uint64(1)) == np.uint64(0):  # at most one neighbour: never a cut
        return True
    return _connected(rest, adj, n)


@kernel
def _any_takeable(mask: np.uint64, col: np.ndarray, nb: np.ndarray, adj: np.ndarray, c: int, ctx: np.ndarray) -> bool:
    n = ctx[_N]
    for j in range(n):
        if (
            col[j] == c
            and (mask >> np.uint64(j)) & np.uint64(1)
            and _takeable(mask, nb, adj, j, n, ctx[_SIDES], ctx[_RUN])
        ):
            return True
    return False


@kernel
def _instant(taken: np.ndarray, p: int, c: int, trip: np.ndarray, ctx: np.ndarray) -> bool:
    colors = ctx[_COLORS]
    need = ctx[_NEED]
    if taken[p, c] >= colors:
        return True
    for t in range(3):
        a = trip[c, t, 0]
        if a < 0:
            break
        if taken[p, a] >= need and taken[p, trip[c, t, 1]] >= need and taken[p, trip[c, t, 2]] >= need:
            return True
    return False


@kernel
def _majority_winner(taken: np.ndarray, ctx: np.ndarray) -> int:
    colors = ctx[_COLORS]
    maj = ctx[_MAJ]
    a = 0
    b = 0
    for c in range(colors):
        if taken[0, c] >= maj:
            a += 1
        if taken[1, c] >= maj:
            b += 1
    return 0 if a > b else 1 if b > a else -1


@kernel
def _to_tt(v: int, ply: int) -> int:
    if v > 0:
        return v + ply
    if v < 0:
        return v - ply
    return v


@kernel
def _from_tt(v: int, ply: int) -> int:
    if v > 0:
        return v - ply
    if v < 0:
        return v + ply
    return v


@kernel
def search_root(
    mask0: np.uint64,
    p0: int,
    taking0: int,
    alpha_in: int,
    beta_in: int,
    h0: np.uint64,
    col: np.ndarray,
    nb: np.ndarray,
    adj: np.ndarray,
    zc: np.ndarray,
    act: np.ndarray,
    taken_in: np.ndarray,
    trip: np.ndarray,
    zt: np.ndarray,
    zs: np.ndarray,
    tkey: np.ndarray,
    tval: np.ndarray,
    tflag: np.ndarray,
    tmove: np.ndarray,
    ctx: np.ndarray,
) -> int:
    """The root's value for the player to move in window ``(alpha_in, beta_in)`` (fail-soft negamax).

    Iterative, with one frame per ply (numba cannot load a cached recursive function); ``ctx[_ABORT]``
    says whether the node limit stopped it, and then the value means nothing.
    """
    n = ctx[_N]
    sides = ctx[_SIDES]
    run = ctx[_RUN]
    depth = 2 * n + 4
    moves = np.empty((depth, n + 1), np.int64)
    f_mask = np.zeros(depth, np.uint64)
    f_h = np.zeros(depth, np.uint64)
    f_key = np.zeros(depth, np.uint64)
    f_int = np.zeros((depth, 10), np.int64)  # p, taking, alpha, beta, alpha0, best, best move, count, next, sign
    taken = taken_in.copy()
    ctx[_ABORT] = 0
    ctx[_NODES] = 0
    ply = 0
    f_mask[0] = mask0
    f_h[0] = h0
    f_int[0, 0] = p0
    f_int[0, 1] = taking0
    f_int[0, 2] = alpha_in
    f_int[0, 3] = beta_in
    entering = True
    value = 0  # the value being passed up when not entering
    while True:
        if entering:
            # -- enter the node at ``ply``
            ctx[_NODES] += 1
            if ctx[_NODES] > ctx[_LIMIT]:
                ctx[_ABORT] = 1
                return 0
            mask = f_mask[ply]
            p = f_int[ply, 0]
            taking = f_int[ply, 1]
            alpha = f_int[ply, 2]
            beta = f_int[ply, 3]
            key = f_h[ply] ^ zs[p * 16 + taking + 1]
            f_key[ply] = key
            slot = np.int64(key & np.uint64(tkey.shape[0] - 1))
            hint = -1
            done = False
            if tkey[slot] == key:
                fl = tflag[slot]
                v = _from_tt(int(tval[slot]), ply)
                if fl == EXACT or (fl == LOWER and v >= beta) or (fl == UPPER and v <= alpha):
                    done = True
                    value = v
                else:
                    if fl == LOWER and v > alpha:
                        alpha = v
                    if fl == UPPER and v < beta:
                        beta = v
                    hint = int(tmove[slot])
            if not done:
                m = 0
                for j in range(n):
                    if (
                        (mask >> np.uint64(j)) & np.uint64(1)
                        and (taking < 0 or col[j] == taking)
                        and _takeable(mask, nb, adj, j, n, sides, run)
                    ):
                        moves[ply, m] = j
                        m += 1
                if taking >= 0:
                    moves[ply, m] = n  # end
                    m += 1
                if hint >= 0:
                    for i in range(m):
                        if act[moves[ply, i]] == hint:
                            j = moves[ply, i]
                            moves[ply, i] = moves[ply, 0]
                            moves[ply, 0] = j
                            break
                f_int[ply, 2] = alpha
                f_int[ply, 3] = beta
                f_int[ply, 4] = alpha
                f_int[ply, 5] = -WIN - 1
                f_int[ply, 6] = moves[ply, 0]
                f_int[ply, 7] = m
                f_int[ply, 8] = 0
            entering = False
            if done:
                # -- pass ``value`` up
                if ply == 0:
                    return value
                ply -= 1
                j = moves[ply, f_int[ply, 8] - 1]
                if j < n:
                    taken[f_int[ply, 0], col[j]] -= 1
                value = value * f_int[ply, 9]
                # fall through to "a child is done" below with ``value``
            else:
                value = -WIN - 2  # no child finished yet: go to the first step
        # -- at node ``ply``: take in the finished child's ``value`` (unless none), then the next step
        if value != -WIN - 2 and value > f_int[ply, 5]:
            f_int[ply, 5] = value
            f_int[ply, 6] = moves[ply, f_int[ply, 8] - 1]
            if value > f_int[ply, 2]:
                f_int[ply, 2] = value
        p = f_int[ply, 0]
        alpha = f_int[ply, 2]
        beta = f_int[ply, 3]
        i = f_int[ply, 8]
        if alpha >= beta or i >= f_int[ply, 7]:
            # -- the node is done: store it and pass its value up
            best = f_int[ply, 5]
            fl = EXACT
            if best <= f_int[ply, 4]:
                fl = UPPER
            elif best >= beta:
                fl = LOWER
            slot = np.int64(f_key[ply] & np.uint64(tkey.shape[0] - 1))
            tkey[slot] = f_key[ply]
            tval[slot] = _to_tt(best, ply)
            tflag[slot] = fl
            tmove[slot] = act[f_int[ply, 6]]
            if ply == 0:
                return best
            ply -= 1
            j = moves[ply, f_int[ply, 8] - 1]
            if j < n:
                taken[f_int[ply, 0], col[j]] -= 1
            value = best * f_int[ply, 9]
            continue
        j = moves[ply, i]
        f_int[ply, 8] = i + 1
        mask = f_mask[ply]
        if j == n:  # end the turn
            f_int[ply, 9] = -1
            f_mask[ply + 1] = mask
            f_h[ply + 1] = f_h[ply]
            f_int[ply + 1, 0] = 1 - p
            f_int[ply + 1, 1] = -1
            f_int[ply + 1, 2] = -beta
            f_int[ply + 1, 3] = -alpha
            ply += 1
            entering = True
            continue
        c = col[j]
        nmask = mask & ~_bit(j)
        nh = f_h[ply] ^ zc[j]
        if p == 0:
            nh ^= zt[c, taken[0, c]] ^ zt[c, taken[0, c] + 1]
        taken[p, c] += 1
        terminal = True
        if _instant(taken, p, c, trip, ctx):
            value = WIN - ply - 1
        elif nmask == np.uint64(0):
            w = _majority_winner(taken, ctx)
            value = 0 if w < 0 else (WIN - ply - 1 if w == p else -(WIN - ply - 1))
        else:
            terminal = False
        if terminal:
            taken[p, c] -= 1
            continue
        f_mask[ply + 1] = nmask
        f_h[ply + 1] = nh
        if _any_takeable(nmask, col, nb, adj, c, ctx):
            f_int[ply, 9] = 1
            f_int[ply + 1, 0] = p
            f_int[ply + 1, 1] = c
            f_int[ply + 1, 2] = alpha
            f_int[ply + 1, 3] = beta
        else:
            f_int[ply, 9] = -1
            f_int[ply + 1, 0] = 1 - p
            f_int[ply + 1, 1] = -1
            f_int[ply + 1, 2] = -beta
            f_int[ply + 1, 3] = -alpha
        ply += 1
        entering = True


# -- Python side -----------------------------------------------------------------------------
