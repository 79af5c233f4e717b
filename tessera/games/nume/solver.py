# mypy: disable-error-code="arg-type,assignment"
# (numba kernels: numpy int64 scalars stand where the hints say int, as in the games' kernel modules)
"""Nume's last empty cells: a compiled alpha-beta that solves the end of the game exactly.

A Nume game ends when the board is full, so a position with ``E`` empty cells ends exactly
``E`` placements later; the solver finds its result with best play (win, draw, loss for the
player to move) and a best placement.

Rules
    Every node is played by the game's own placement kernel
    (:func:`tessera.games.nume.kernels.apply`) on a copy of the board array, and the leaves
    are scored by :func:`~tessera.games.nume.kernels.outcome` (prices plus komi, the lower
    total wins), so the solver and the game agree on every group, merge and price.
Numbers
    A stone that starts a group may carry any number ``0 … N``, which is what makes the end of
    Nume branch so widely.  Only a few matter: a group's final size ``s`` is at least 1, and at
    most ``1 + min(e, m) + o`` where ``e`` counts the empty cells and ``o`` the stones of the
    mover's colour that the new stone's cell reaches through empty cells and his own stones, and
    ``m`` the placements he still has after this one.  A number ``v`` below 1 (that is, 0) gives
    a price ``|v − s|`` larger than 1 does whatever the final size, and one above that bound a
    larger price than the bound itself, in every continuation (a group's price is the largest
    ``|number − size|`` of its numbered stones, so the others do not change this); the number
    changes nothing else.  So the numbers ``1 … bound`` are the only ones tried, and the value
    found is the value of the game.
Values
    Negamax alpha-beta over results (+1 win, 0 draw, −1 loss for the player to move).  Moves
    are tried after the transposition table's move, joining stones first, then new groups with
    small numbers first (a group started this late rarely grows much).
Transposition table
    Keys mix each placement made by the search (cell, colour, number: SplitMix64, exclusive-or,
    so the order they were made in does not matter); the table serves one root and is cleared
    for the next (:class:`NumeSolver` does it).  Each slot keeps the key, a bound (exact, lower,
    upper) and the best move.
Budget
    A search stops after ``ctx[_LIMIT]`` nodes; :class:`NumeSolver` runs it again with a larger
    limit until it finishes or its time is up.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tessera.core.kernels import I64, kernel
from tessera.core.kits.solver import (
    EXACT,
    LOWER,
    SOLVER_SHARE,
    UPPER,
    EndgameSolver,
    Solution,
    check_budget,
    check_table_bits,
    mix64,
)
from tessera.games.nume import kernels as nk

REACH = 14
"""Empty cells at or below which the levels try the solver first (a tenth of a CPU second, typically)."""

ANALYSIS_REACH = 18
"""Empty cells at or below which the analysis board tries it (a second or two, typically)."""

MAX_EMPTY = 30
"""Most empty cells the solver accepts."""

# ctx (int64) fields
_NODES, _LIMIT, _ABORT = range(3)


@kernel
def number_bound(a: np.ndarray, nbr: np.ndarray, c: int, col: int, mine_left: int, seen: np.ndarray) -> int:
    """The largest final size a group started on empty cell ``c`` by ``col`` can reach (module docstring).

    ``seen`` is scratch of one int a cell; ``mine_left`` the placements ``col`` has after this one."""
    n = nbr.shape[0]
    for i in range(n):
        seen[i] = 0
    stack = np.empty(n, np.int64)
    top = 0
    stack[0] = c
    top = 1
    seen[c] = 1
    empty = 0
    own = 0
    while top > 0:
        top -= 1
        x = stack[top]
        for j in range(nbr.shape[1]):
            m = nbr[x, j]
            if m < 0:
                break
            if seen[m] or (a[m] >= 0 and a[m] != col):
                continue
            seen[m] = 1
            if a[m] < 0:
                empty += 1
            else:
                own += 1
            stack[top] = m
            top += 1
    return 1 + min(empty, mine_left) + own


@kernel
def search_root(
    root: np.ndarray,
    nbr: np.ndarray,
    col0: int,
    komi_b: float,
    komi_w: float,
    alpha_in: int,
    beta_in: int,
    tkey: np.ndarray,
    tval: np.ndarray,
    tflag: np.ndarray,
    tmove: np.ndarray,
    ctx: np.ndarray,
) -> int:
    """The result (+1 / 0 / −1) for the player to move (colour ``col0``) of a position with empty cells.

    Moves are codes ``cell·(N+2) + k`` as in the game's actions (``k`` 0 a joining stone, ``1 + v`` a
    new group numbered ``v``).  Iterative, one frame per placement (numba cannot cache a recursive
    function); ``ctx[_ABORT]`` says whether the node limit stopped it, and then the value means nothing.
    """
    n = nbr.shape[0]
    kk = n + 2
    empties = np.int64(root[nk.HEAD * n + nk.NEMPTY])
    width = root.shape[0]
    frames = np.empty((empties + 1, width), np.int32)
    for i in range(width):
        frames[0, i] = root[i]
    maxm = empties * (n + 1) + 1
    moves = np.empty((empties + 1, maxm), np.int64)
    seen = np.zeros(n, np.int64)
    f_key = np.zeros(empties + 1, np.uint64)
    f_int = np.zeros((empties + 1, 7), np.int64)  # alpha, beta, alpha0, best, best move, count, next
    mask = np.uint64(tkey.shape[0] - 1)
    ctx[_ABORT] = 0
    ctx[_NODES] = 0
    ply = 0
    f_int[0, 0] = alpha_in
    f_int[0, 1] = beta_in
    f_key[0] = np.uint64(0)
    entering = True
    value = 0
    while True:
        if entering:
            ctx[_NODES] += 1
            if ctx[_NODES] > ctx[_LIMIT]:
                ctx[_ABORT] = 1
                return 0
            a = frames[ply]
            col = col0 if ply % 2 == 0 else 1 - col0
            done = False
            alpha = f_int[ply, 0]
            beta = f_int[ply, 1]
            hint = -1
            if ply == empties:
                done = True
                value = np.int64(nk.outcome(a, nbr, komi_b, komi_w, col))
            else:
                key = f_key[ply]
                slot = np.int64(key & mask)
                if ply > 0 and tkey[slot] == key:
                    fl = tflag[slot]
                    v = np.int64(tval[slot])
                    if fl == EXACT or (fl == LOWER and v >= beta) or (fl == UPPER and v <= alpha):
                        done = True
                        value = v
                    else:
                        if fl == LOWER and v > alpha:
                            alpha = v
                        if fl == UPPER and v < beta:
                            beta = v
                        hint = tmove[slot]
                elif ply == 0 and tkey[slot] == key and tflag[slot] != 0:
                    hint = tmove[slot]
            if not done:
                mine_left = (empties - ply - 1) // 2
                m = 0
                if hint >= 0:
                    hc = hint // kk
                    st = nk.status(a, nbr, hc, I64(col))
                    if st != nk.OCCUPIED and (st == nk.JOINS) == (hint % kk == 0):  # (a key collision aside)
                        moves[ply, 0] = hint
                        m = 1
                # joining stones first, then new groups (numbers from the middle of their range out)
                for i in range(empties - ply):
                    c = np.int64(a[nk.EMPTY * n + i])
                    if nk.status(a, nbr, c, I64(col)) == nk.JOINS:
                        mv = c * kk
                        if mv != hint:
                            moves[ply, m] = mv
                            m += 1
                for i in range(empties - ply):
                    c = np.int64(a[nk.EMPTY * n + i])
                    if nk.status(a, nbr, c, I64(col)) != nk.STARTS:
                        continue
                    hi = min(number_bound(a, nbr, c, I64(col), I64(mine_left), seen), n)
                    for v in range(1, hi + 1):  # small numbers first: a new group this late stays small
                        mv = c * kk + 1 + v
                        if mv != hint:
                            moves[ply, m] = mv
                            m += 1
                f_int[ply, 0] = alpha
                f_int[ply, 1] = beta
                f_int[ply, 2] = alpha
                f_int[ply, 3] = -2
                f_int[ply, 4] = moves[ply, 0]
                f_int[ply, 5] = m
                f_int[ply, 6] = 0
            entering = False
            if done:
                if ply == 0:
                    return value
                ply -= 1
                value = -value
            else:
                value = -3  # no child finished yet
        if value != -3 and value > f_int[ply, 3]:
            f_int[ply, 3] = value
            f_int[ply, 4] = moves[ply, f_int[ply, 6] - 1]
            if value > f_int[ply, 0]:
                f_int[ply, 0] = value
        alpha = f_int[ply, 0]
        beta = f_int[ply, 1]
        i = f_int[ply, 6]
        if alpha >= beta or i >= f_int[ply, 5]:
            best = f_int[ply, 3]
            fl = EXACT
            if best <= f_int[ply, 2]:
                fl = UPPER
            elif best >= beta:
                fl = LOWER
            slot = np.int64(f_key[ply] & mask)
            tkey[slot] = f_key[ply]
            tval[slot] = best
            tflag[slot] = fl
            tmove[slot] = f_int[ply, 4]
            if ply == 0:
                return best
            ply -= 1
            value = -best
            continue
        f_int[ply, 6] = i + 1
        mv = moves[ply, i]
        child = frames[ply + 1]
        parent = frames[ply]
        for t in range(width):
            child[t] = parent[t]
        col = col0 if ply % 2 == 0 else 1 - col0
        cell = mv // kk
        nk.apply(child, nbr, I64(cell), I64(mv % kk), I64(col))
        f_key[ply + 1] = f_key[ply] ^ mix64(mv * 2 + col + 1)
        f_int[ply + 1, 0] = -beta
        f_int[ply + 1, 1] = -alpha
        ply += 1
        entering = True


# -- Python side -----------------------------------------------------------------------------


def empty_cells(state: Any) -> int:
    """Empty cells of a Nume state."""
    return int(state._nempty())


def within_reach(state: Any, reach: int = REACH) -> bool:
    """Whether the Nume ``state`` is placing stones with at most ``reach`` empty cells left."""
    return bool(state._placing) and empty_cells(state) <= reach


class NumeSolver:
    """Solves Nume positions with at most :data:`MAX_EMPTY` empty cells (its table serves one position a call)."""

    def __init__(self, tt_bits: int = 20) -> None:
        size = check_table_bits(tt_bits)
        self.tkey = np.zeros(size, np.uint64)
        self.tval = np.zeros(size, np.int8)
        self.tflag = np.zeros(size, np.int8)
        self.tmove = np.zeros(size, np.int64)

    def clear(self) -> None:
        """Forget every stored result."""
        self.tkey[:] = 0
        self.tflag[:] = 0

    def solve(
        self,
        state: Any,
        seconds: float | None = None,
        *,
        nodes: int | None = None,
        exact: bool = True,
    ) -> Solution | None:
        """The result with best play (+1 / 0 / −1 for the player to move) and a best placement, or ``None``.

        ``seconds`` (search clock, :func:`tessera.core.clock.clock`) and/or ``nodes`` bound the work;
        with neither the search runs to the end.  The game ends when the board is full, so ``plies``
        is always the number of empty cells (``exact`` is accepted for the solvers' common signature).
        """
        from tessera.core.clock import clock

        game = state.game
        if game.name != "nume":
            raise ValueError(f"the Nume solver takes Nume positions, not {game.name}")
        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to solve")
        if not state._placing:
            raise ValueError("the solver takes positions where stones are placed, not the komi bidding")
        check_budget(seconds, nodes)
        e = empty_cells(state)
        if e > MAX_EMPTY:
            raise ValueError(f"the solver takes at most {MAX_EMPTY} empty cells, not {e}")
        kb, kw = state._komis()
        col = int(state._col)
        start = clock()
        deadline = None if seconds is None else start + seconds
        ctx = np.zeros(3, np.int64)
        spent = 0
        chunk = 50_000
        self.clear()  # keys are relative to the root: a table serves one position
        while True:
            limit = (1 << 62 if deadline is None else chunk) if nodes is None else min(nodes - spent, 1 << 62)
            if deadline is not None and spent:
                now = clock()
                if now >= deadline:
                    return None
                rate = spent / max(now - start, 1e-6)
                limit = min(limit, max(20_000, int(rate * (deadline - now))))
            if limit <= 0:
                return None
            ctx[_LIMIT] = limit
            v = int(
                search_root(state._a, game.nbr, col, kb, kw, -2, 2, self.tkey, self.tval, self.tflag, self.tmove, ctx)
            )
            spent += int(min(ctx[_NODES], limit))
            if not ctx[_ABORT]:
                slot = 0  # the root's key is 0
                return Solution(v, int(self.tmove[slot]), e, spent)
            if nodes is not None and spent >= nodes:
                return None
            if deadline is not None and clock() >= deadline:
                return None
            chunk *= 2


_LOCAL = threading.local()


def solve(state: Any, seconds: float | None = None) -> tuple[int, int, int] | None:
    """``(value, best_move, plies)`` of a Nume ``state`` for the player to move, or ``None`` (not in time).

    Each thread keeps one solver."""
    solver = getattr(_LOCAL, "solver", None)
    if solver is None:
        solver = _LOCAL.solver = NumeSolver()
    out = solver.solve(state, seconds)
    return None if out is None else (out.value, out.best_move, out.plies or 0)


SOLVER = EndgameSolver(NumeSolver, within_reach, REACH, ANALYSIS_REACH, SOLVER_SHARE, warm_up="nume(size=2)")
"""Nume's solver as the levels and the analysis board use it (``NumeGame.solver()``)."""


__all__ = [
    "ANALYSIS_REACH",
    "MAX_EMPTY",
    "REACH",
    "SOLVER",
    "NumeSolver",
    "empty_cells",
    "number_bound",
    "solve",
    "within_reach",
]
