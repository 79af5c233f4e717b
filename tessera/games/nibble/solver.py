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

from tessera.core.kits.solver import (
    SOLVER_SHARE,
    EndgameSolver,
    Solution,
    check_budget,
    check_table_bits,
)
from tessera.games.nibble.search import _ABORT, _LIMIT, _NODES, WIN, search_root

MAX_BLOCKS = 40
"""Most blocks left on the board that the solver accepts (bit sets are 64 bits wide; beyond ~24 blocks
a solve rarely finishes in seconds anyway)."""

REACH = 20
"""Blocks left on the board at or below which the levels try the solver first."""


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
