"""Exact Nibble endgames: a compiled alpha-beta solver with a transposition table.

Representation
    The solver copies a position into arrays of its own.  The ``n`` blocks left on the
    board (at most :data:`MAX_BLOCKS`) get local numbers ``0 … n−1``; the blocks still
    on the board are one ``uint64`` bit set.  For each block: its colour, its
    neighbours in cyclic side order (square: E, N, W, S; hex: E, NE, NW, W, SW, SE) as
    local numbers, ``−1`` where the side faces the edge or a cell that is already
    empty (such a side stays exposed for good), and the bit set of its neighbours.
    Both players' counts ``taken[p][c]`` are kept in one small array changed in place.
Steps
    One search node is one *step* of the State API, so the solver and the game agree
    on every move: at the start of a turn the legal steps are the blocks on a corner
    (``run`` consecutive exposed sides) whose removal leaves the rest connected (a
    flood over bit sets); in a turn the blocks of the colour being taken, plus
    ``end``.  After a take the game ends on an instant win of the mover (all blocks of
    that colour, or ``need`` of each of three table-adjacent colours holding it) or
    on an empty board (majority of majorities); else the turn goes on if another
    block of the colour can be taken, and passes otherwise.
Values
    Negamax with fail-soft alpha-beta.  A win ``d`` steps from the root scores
    ``WIN − d`` for the winner, a loss ``−(WIN − d)``, a draw 0; the player to move
    may move twice in a row (a turn of several steps), and then the child's value is
    not negated.  A null window around 0 proves only the result (win / draw / loss)
    and is much cheaper; the full window then finds the fastest win or the longest
    loss.
Transposition table
    Zobrist keys over (cell, colour) of each block on the board, ``taken[0][c]`` per
    colour (the board fixes ``taken[1]``), the player to move and the colour being
    taken; they depend only on the position, so the table stays valid from one call
    to the next in the same deal and colour table.  Each of ``2^bits`` slots keeps
    the key, a bound (exact, lower, upper) of the value stored relative to its node,
    and the best step (as a State-API action, valid in any call); a slot is always overwritten.
Budget
    A search stops after ``node_limit`` nodes and then stores nothing more (results
    already stored stay exact); :class:`NibbleSolver` calls it again with a doubled
    limit until it finishes or the time is up.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.solver import (
    EXACT,
    LOWER,
    SOLVER_SHARE,
    UPPER,
    EndgameSolver,
    Solution,
    check_budget,
    check_table_bits,
)

MAX_BLOCKS = 40
"""Most blocks left on the board that the solver accepts (bit sets are 64 bits wide; beyond ~24 blocks
a solve rarely finishes in seconds anyway)."""

REACH = 20
"""Blocks left on the board at or below which the levels try the solver first."""

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


_Z_SEED = 0x7E55E4A


class _Zobrist:
    """Random keys for one board size and number of colours."""

    def __init__(self, cells: int, colors: int) -> None:
        rng = np.random.default_rng(_Z_SEED)
        self.cell = rng.integers(0, 2**63, size=(cells, colors), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self.taken = rng.integers(0, 2**63, size=(colors, colors + 2), dtype=np.uint64)
        self.side = rng.integers(0, 2**63, size=32, dtype=np.uint64)


@dataclass
class _Position:
    mask: np.uint64
    p: int
    taking: int
    h: np.uint64
    col: np.ndarray
    nb: np.ndarray
    adj: np.ndarray
    zc: np.ndarray
    act: np.ndarray
    """State-API action of each local block, then ``end``."""
    taken: np.ndarray
    cells: list[int]
    """State-API action (cell index) of each local block."""
    end: int
    """The State API's ``end`` action."""


class NibbleSolver:
    """Solves Nibble positions with at most :data:`MAX_BLOCKS` blocks on the board; keeps its table between calls.

    The table is cleared when a position of another board, number of colours or colour table comes in.
    """

    def __init__(self, tt_bits: int = 21) -> None:
        size = check_table_bits(tt_bits)
        self.tkey = np.zeros(size, np.uint64)
        self.tval = np.zeros(size, np.int32)
        self.tflag = np.zeros(size, np.int8)
        self.tmove = np.zeros(size, np.int16)
        self._tag: tuple[Any, ...] | None = None
        self._zobrist: dict[tuple[int, int], _Zobrist] = {}

    def clear(self) -> None:
        """Forget every stored result."""
        self.tkey[:] = 0
        self.tflag[:] = 0

    # -- from the State API ----------------------------------------------------------------
    def _position(self, state: Any) -> tuple[_Position, np.ndarray, _Zobrist]:
        game = state.game
        if game.name != "nibble":
            raise ValueError(f"the Nibble solver takes Nibble positions, not {game.name}")
        d = state.to_dict()
        grid = game.grid
        colors = int(d["colors"])
        table = [int(c) for c in d["table"]]
        tag = (d["board"], colors, tuple(table))
        if tag != self._tag:
            self.clear()
            self._tag = tag
        zkey = (len(game.cells), colors)
        if zkey not in self._zobrist:
            self._zobrist[zkey] = _Zobrist(*zkey)
        z = self._zobrist[zkey]
        board: Mapping[str, int] = d["cells"]
        if len(board) > MAX_BLOCKS:
            raise ValueError(f"the solver takes at most {MAX_BLOCKS} blocks on the board, not {len(board)}")
        by_xy: dict[tuple[int, int], int] = {}
        index: list[int] = []
        colour: list[int] = []
        for lab, c in board.items():
            cell = grid.cell(lab)
            xy = grid.coords[cell]
            assert xy is not None
            by_xy[xy] = len(index)
            index.append(game.cells.index(cell))
            colour.append(int(c))
        square = grid.kind == "square"
        dirs = ((1, 0), (0, 1), (-1, 0), (0, -1)) if square else ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
        n = len(index)
        nb = np.full((max(n, 1), 6), -1, np.int64)
        adj = np.zeros(max(n, 1), np.uint64)
        for (x, y), j in by_xy.items():
            for t, (dx, dy) in enumerate(dirs):
                o = by_xy.get((x + dx, y + dy), -1)
                nb[j, t] = o
                if o >= 0:
                    adj[j] |= np.uint64(1) << np.uint64(o)
        col = np.array(colour or [0], np.int64)
        zc = np.array([z.cell[index[j], colour[j]] for j in range(n)] or [0], np.uint64)
        taken = np.array(d["taken"], np.int64)
        h = np.uint64(0)
        for j in range(n):
            h ^= zc[j]
        for c in range(colors):
            h ^= z.taken[c, taken[0, c]]
        trip = np.full((colors, 3, 3), -1, np.int64)
        for i in range(colors - 2):
            tri = table[i : i + 3]
            for c in tri:
                slot = int(np.count_nonzero(trip[c, :, 0] >= 0))
                trip[c, slot] = tri
        mask = np.uint64(0)
        for j in range(n):
            mask |= np.uint64(1) << np.uint64(j)
        taking = d.get("taking")
        pos = _Position(
            mask=mask,
            p=int(d["to_move"]),
            taking=-1 if taking is None else int(taking),
            h=h,
            col=col,
            nb=nb,
            adj=adj,
            zc=zc,
            act=np.array([*index, game.end_action], np.int64),
            taken=taken,
            cells=index,
            end=game.end_action,
        )
        return pos, trip, z

    def _run(self, pos: _Position, trip: np.ndarray, z: _Zobrist, ctx: np.ndarray, alpha: int, beta: int) -> int:
        return int(
            search_root(
                pos.mask,
                pos.p,
                pos.taking,
                alpha,
                beta,
                pos.h,
                pos.col,
                pos.nb,
                pos.adj,
                pos.zc,
                pos.act,
                pos.taken,
                trip,
                z.taken,
                z.side,
                self.tkey,
                self.tval,
                self.tflag,
                self.tmove,
                ctx,
            )
        )

    def _root_move(self, pos: _Position, z: _Zobrist) -> int:
        key = pos.h ^ z.side[pos.p * 16 + pos.taking + 1]
        slot = int(key & np.uint64(self.tkey.shape[0] - 1))
        if self.tkey[slot] != key:  # overwritten by a collision of slots: cannot happen at the root's last store
            raise RuntimeError("the solver lost its root entry")
        return int(self.tmove[slot])

    def solve(
        self,
        state: Any,
        seconds: float | None = None,
        *,
        nodes: int | None = None,
        exact: bool = True,
    ) -> Solution | None:
        """The game-theoretic value and a best step of the Nibble ``state``, or ``None`` if not proved in budget.

        ``seconds`` (search clock, :func:`tessera.core.clock.clock`) and/or ``nodes`` bound the work;
        with neither the search runs to the end.  The result is proved first (null window); with
        ``exact`` the remaining budget then finds the number of steps to the end with best play.
        """
        from tessera.core.clock import clock

        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to solve")
        check_budget(seconds, nodes)
        pos, trip, z = self._position(state)
        start = clock()
        deadline = None if seconds is None else start + seconds
        ctx = np.zeros(9, np.int64)
        square = state.game.grid.kind == "square"
        ctx[:6] = (
            len(pos.cells),
            len(trip),
            state.game.triple_need,
            state.game.majority,
            4 if square else 6,
            2 if square else 3,
        )
        spent = 0
        chunk = 20000

        def search(alpha: int, beta: int) -> int | None:
            nonlocal spent, chunk
            while True:
                limit = chunk if nodes is None else min(chunk, nodes - spent)
                now = clock()
                if deadline is not None and spent and now > start:  # never run far past the deadline
                    limit = min(limit, max(20000, int(spent / (now - start) * (deadline - now))))
                if limit <= 0:
                    return None
                ctx[_LIMIT] = limit
                v = self._run(pos, trip, z, ctx, alpha, beta)
                spent += int(min(ctx[_NODES], limit))
                if not ctx[_ABORT]:
                    return v
                if deadline is not None and clock() >= deadline:
                    return None
                chunk *= 2

        v = search(-1, 1)
        if v is None:
            return None
        value = 1 if v > 0 else -1 if v < 0 else 0
        move = self._root_move(pos, z)
        plies: int | None = None
        if exact and value != 0:
            chunk = max(chunk // 2, 20000)
            w = search(-WIN - 1, WIN + 1)
            if w is not None:
                plies = WIN - abs(w)
                move = self._root_move(pos, z)
        return Solution(value, move, plies, spent)


_LOCAL = threading.local()


def solve(state: Any, seconds: float | None = None) -> tuple[int, int, int | None] | None:
    """``(value, best_move, plies_to_end)`` of a Nibble ``state`` for the player to move, or ``None``.

    ``value`` is +1 (forced win), −1 (lost with best play) or 0 (draw); ``best_move`` an integer
    action; ``plies_to_end`` the steps to the end with best play (``None`` if the time only
    proved the result).  ``None`` when not proved within ``seconds`` (``None``: no limit) or
    when more than :data:`MAX_BLOCKS` blocks are left.  Each thread keeps one solver and its table.
    """
    if len(state.to_dict()["cells"]) > MAX_BLOCKS:
        return None
    solver = getattr(_LOCAL, "solver", None)
    if solver is None:
        solver = _LOCAL.solver = NibbleSolver()
    out = solver.solve(state, seconds)
    return None if out is None else (out.value, out.best_move, out.plies)


def blocks_left(state: Any) -> int:
    """Blocks on the board of a Nibble state."""
    return len(state.to_dict()["cells"])


def _within(state: Any, reach: int) -> bool:
    return len(state.to_dict()["cells"]) <= reach


SOLVER = EndgameSolver(NibbleSolver, _within, REACH, 24, SOLVER_SHARE, warm_up="nibble")
"""Nibble's solver as the levels and the analysis board use it (``NibbleGame.solver()``)."""


__all__ = ["MAX_BLOCKS", "REACH", "SOLVER", "WIN", "NibbleSolver", "Solution", "blocks_left", "solve"]
