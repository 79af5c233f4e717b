"""Ikabegamá's short races: a compiled search that proves a forced win (or loss) within a horizon.

Ikabegamá is played on an unbounded plane and may last hundreds of plies, so no position is
solved to its end the way a Nibble endgame is.  What *is* exact is a race: whether the player
to move can force a token onto the enemy nest within ``N`` plies whatever the opponent does
("forced win in N"), or whether every move of his lets the opponent do so ("lost with best
play").  This module proves those, and nothing else: a position that neither side wins within
the horizon is *unknown* (``None``), never a draw.

Rules
    Every node is played by the game's own kernels (:mod:`tessera.games.ikabegama.kernels`:
    ``moves_of``, ``apply``, ``settle``), so the solver and the game agree on every move, flip,
    pass and end.  Positions whose horizon would reach the game's ``max_plies`` safeguard are
    not taken (the safeguard's draw would depend on the ply count).
Bound
    A player's tokens come nearer the enemy nest only by his own moves: a move fills a hex at
    most two steps from one of his tokens and flips enemy tokens next to it, so the distance
    ``D`` from his nearest token to the enemy nest falls by at most 3 a move; the opponent's
    moves never bring it down.  A winning move fills the nest (a token at most 2 away) or a hex
    next to it while an enemy token stands on it (a token at most 3 away).  So a player needs at
    least ``1 + ceil((D − 3) / 3)`` moves (1 when ``D ≤ 3``) to win, and a node where neither side
    can win within the plies left is unknown (0) without a search — this bound is what makes a
    horizon of seven to eleven plies affordable on a board of dozens of tokens.  (On a bounded
    ``hexhex`` board a full board ends the game by counting tokens, so there the bound is not used:
    the search is plain alpha-beta.)
Values
    Negamax with fail-soft alpha-beta, iterative deepening one ply at a time.  A win ``d`` plies
    from the root scores ``WIN − d`` for the winner, a loss ``−(WIN − d)``, anything else 0 (not
    proved).  The first depth that proves a win gives the fastest win; the first that proves a
    loss gives the longest resistance.  The player to move wins at once whenever he can (checked
    before any move is listed); other moves are tried nearest to one of the two nests first (the
    attack's and the defence's), after the transposition table's move.
Transposition table
    Keys mix every token (hex, owner), the player to move and the passes in a row (SplitMix64 of
    each, exclusive-or); each slot keeps the key, a bound (exact, lower, upper) of the value
    relative to its node, the depth it was searched to and its best move.  A bound that proves a
    win or a loss holds at any depth; any other holds for the depth it was searched to.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tessera.core.kernels import I64, kernel
from tessera.core.kits.solver import (
    EXACT,
    LOWER,
    UPPER,
    EndgameSolver,
    Solution,
    check_budget,
    check_table_bits,
    mix64,
)
from tessera.games.ikabegama import kernels as ik

WIN = 10000
"""Value of a win at the root (a win ``d`` plies away scores ``WIN − d``)."""

MATE = WIN - 1000
"""Values beyond ``±MATE`` are proved wins or losses."""

HORIZON = 11
"""Most plies the levels let the solver look ahead."""

REACH = 3
"""A position is within reach when either player could win within this many of his own moves
(:func:`moves_needed`), i.e. his nearest token is at most 9 hexes from the enemy nest."""

# ctx (int64) fields
_NODES, _LIMIT, _ABORT, _DEPTH = range(4)


@kernel
def position_key(a: np.ndarray) -> np.uint64:
    """The position's key: its tokens (hex, owner), the player to move and the passes in a row."""
    own = ik.HEADER + a[ik.CAP]
    h = mix64(I64(a[ik.TO_MOVE]) + 4 * I64(a[ik.PASSES]) + 1)
    for i in range(a[ik.NTOK]):
        h ^= mix64(I64(a[ik.HEADER + i]) * 2 + I64(a[own + i]) + 64)
    return h


@kernel
def hex_distance(k: np.ndarray, h1: int, h2: int) -> int:
    """Hex distance between two hex ids of the game's window."""
    stride = k[ik.K_STRIDE]
    dq = h1 % stride - h2 % stride
    dr = h1 // stride - h2 // stride
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@kernel
def nearest(a: np.ndarray, k: np.ndarray, p: int) -> int:
    """The distance from player ``p``'s nearest token to the enemy nest (999 without tokens)."""
    target = k[ik.K_NEST0 + 1 - p]
    own = ik.HEADER + a[ik.CAP]
    d = 999
    for i in range(a[ik.NTOK]):
        if a[own + i] == p:
            x = hex_distance(k, I64(a[ik.HEADER + i]), target)
            if x < d:
                d = x
    return d


@kernel
def need_from(d: int) -> int:
    """The fewest moves that can win from a nearest token ``d`` hexes from the enemy nest (module docstring)."""
    if d >= 999:
        return 99
    if d <= 3:
        return 1
    return 1 + (d - 3 + 2) // 3


@kernel
def moves_needed(a: np.ndarray, k: np.ndarray, p: int) -> int:
    """A lower bound on the moves player ``p`` needs to win (module docstring); 99 without tokens."""
    return need_from(nearest(a, k, p))


@kernel
def _reaches(a: np.ndarray, k: np.ndarray, allowed: np.ndarray, p: int, x: int) -> int:
    """An action of ``p`` filling the empty on-board hex ``x`` (growth first), or -1."""
    for d in range(6):
        if ik.owner_at(a, x + k[ik.K_NBR + d]) == p:
            return x * 13
    for j in range(12):
        src = x - k[ik.K_RING + j]
        if ik.on_board(k, allowed, src) and ik.owner_at(a, src) == p:
            return x * 13 + j + 1
    return -1


@kernel
def winning_move(a: np.ndarray, k: np.ndarray, allowed: np.ndarray) -> int:
    """A move that wins at once for the player to move, or -1: onto the empty enemy nest, or next to
    it while an enemy token stands on it (the token flips)."""
    p = I64(a[ik.TO_MOVE])
    target = I64(k[ik.K_NEST0 + 1 - p])
    o = ik.owner_at(a, target)
    if o < 0:
        return _reaches(a, k, allowed, p, target)
    if o == p:
        return -1
    for d in range(6):
        x = target + k[ik.K_NBR + d]
        if ik.on_board(k, allowed, x) and ik.token_at(a, x) < 0:
            m = _reaches(a, k, allowed, p, I64(x))
            if m >= 0:
                return m
    return -1


@kernel
def _to_tt(v: int, ply: int) -> int:
    if v > MATE:
        return v + ply
    if v < -MATE:
        return v - ply
    return v


@kernel
def _from_tt(v: int, ply: int) -> int:
    if v > MATE:
        return v - ply
    if v < -MATE:
        return v + ply
    return v


@kernel
def search_root(
    root: np.ndarray,
    k: np.ndarray,
    allowed: np.ndarray,
    alpha_in: int,
    beta_in: int,
    tkey: np.ndarray,
    tval: np.ndarray,
    tflag: np.ndarray,
    tdepth: np.ndarray,
    tmove: np.ndarray,
    ctx: np.ndarray,
) -> int:
    """The root's value for the player to move within ``ctx[_DEPTH]`` plies, in window ``(alpha_in, beta_in)``.

    Iterative, one frame per ply (numba cannot cache a recursive function).  ``root`` must have room
    for a growth on every ply of the horizon.  ``ctx[_ABORT]`` says whether the node limit stopped
    the search; then the value means nothing.
    """
    horizon = ctx[_DEPTH]
    width = root.shape[0]
    frames = np.empty((horizon + 1, width), np.int32)
    for i in range(width):
        frames[0, i] = root[i]
    maxm = 18 * np.int64(root[ik.CAP]) + 1
    moves = np.empty((horizon + 1, maxm), np.int64)
    order = np.empty(maxm, np.int64)
    f_key = np.zeros(horizon + 1, np.uint64)
    f_int = np.zeros((horizon + 1, 7), np.int64)  # alpha, beta, alpha0, best, best move, count, next
    mask = np.uint64(tkey.shape[0] - 1)
    ctx[_ABORT] = 0
    ctx[_NODES] = 0
    ply = 0
    f_int[0, 0] = alpha_in
    f_int[0, 1] = beta_in
    entering = True
    value = 0
    while True:
        if entering:
            ctx[_NODES] += 1
            if ctx[_NODES] > ctx[_LIMIT]:
                ctx[_ABORT] = 1
                return 0
            a = frames[ply]
            depth = horizon - ply
            alpha = f_int[ply, 0]
            beta = f_int[ply, 1]
            done = False
            hint = -1
            if a[ik.OVER]:
                w = a[ik.WINNER]
                # the player who just moved is 1 - to_move; a win is scored for the player to move here
                done = True
                if w == ik.DRAW:
                    value = 0
                elif w == a[ik.TO_MOVE]:
                    value = WIN - ply
                else:
                    value = -(WIN - ply)
            elif depth == 0:
                done = True
                value = 0
            else:
                p = I64(a[ik.TO_MOVE])
                # on a bounded board a full board ends the game by counting tokens: no bound then
                near = nearest(a, k, p)
                can_win = k[ik.K_BOUNDED] != 0 or need_from(near) <= (depth + 1) // 2
                can_lose = k[ik.K_BOUNDED] != 0 or moves_needed(a, k, 1 - p) <= depth // 2
                if can_win and winning_move(a, k, allowed) >= 0:
                    done = True
                    value = WIN - ply - 1
                elif not can_lose and (not can_win or depth <= 2 or beta <= 0):
                    # nobody wins within the horizon (the only win, at once, is ruled out above),
                    # or the value is >= 0 and that is enough for the window
                    done = True
                    value = 0
                elif not can_win and alpha >= 0:
                    done = True
                    value = 0
            if not done:
                key = position_key(a)
                f_key[ply] = key
                slot = np.int64(key & mask)
                if tkey[slot] == key:
                    fl = tflag[slot]
                    v = _from_tt(int(tval[slot]), ply)
                    # a bound that proves a win or a loss holds at any depth
                    proof = (fl != UPPER and v > MATE) or (fl != LOWER and v < -MATE)
                    if tdepth[slot] >= depth or proof:
                        if fl == EXACT or (fl == LOWER and v >= beta) or (fl == UPPER and v <= alpha):
                            done = True
                            value = v
                        else:
                            if fl == LOWER and v > alpha:
                                alpha = v
                            if fl == UPPER and v < beta:
                                beta = v
                    hint = tmove[slot]
            if not done:
                legal = ik.moves_of(a, k, allowed)
                m = legal.shape[0]
                if m == 0:
                    moves[ply, 0] = k[ik.K_SIZE] * 13
                    m = 1
                else:
                    # nearest to either nest first: a counting sort by that distance
                    p = I64(a[ik.TO_MOVE])
                    att = I64(k[ik.K_NEST0 + 1 - p])
                    home = I64(k[ik.K_NEST0 + p])
                    # when the opponent cannot win within the horizon, only moves that may still win
                    # matter: a move filling x brings the nearest token to at best dist(x) - 1 (a flip)
                    useful = 999
                    if not can_lose and not k[ik.K_BOUNDED] and need_from(near) > (depth + 1) // 2 - 1:
                        useful = 3
                        while need_from(useful + 1) <= (depth + 1) // 2 - 1:
                            useful += 1
                        useful += 1  # dist(x) - 1 <= the farthest distance that can still win
                    kept = 0
                    for i in range(m):
                        dest = legal[i] // 13
                        da = hex_distance(k, dest, att)
                        if da <= useful:
                            legal[kept] = legal[i]
                            order[kept] = min(da, hex_distance(k, dest, home))
                            kept += 1
                    m = kept
                    n = 0
                    if hint >= 0:
                        for i in range(m):
                            if legal[i] == hint:
                                moves[ply, 0] = hint
                                order[i] = -1
                                n = 1
                                break
                    d = 0
                    while n < m:
                        for i in range(m):
                            if order[i] == d:
                                moves[ply, n] = legal[i]
                                n += 1
                        d += 1
                if m == 0:  # no move can still win, and the opponent cannot win: not proved either way
                    done = True
                    value = 0
                f_int[ply, 0] = alpha
                f_int[ply, 1] = beta
                f_int[ply, 2] = alpha
                f_int[ply, 3] = -WIN - 1
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
                value = -WIN - 2  # no child finished yet
        # -- at node ``ply``: take in the finished child's value (unless none), then the next move
        if value != -WIN - 2 and value > f_int[ply, 3]:
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
            tval[slot] = _to_tt(best, ply)
            tflag[slot] = fl
            tdepth[slot] = horizon - ply
            tmove[slot] = f_int[ply, 4]
            if ply == 0:
                return best
            ply -= 1
            value = -best
            continue
        f_int[ply, 6] = i + 1
        child = frames[ply + 1]
        parent = frames[ply]
        for t in range(width):
            child[t] = parent[t]
        ik.apply(child, k, moves[ply, i])
        f_int[ply + 1, 0] = -beta
        f_int[ply + 1, 1] = -alpha
        ply += 1
        entering = True


# -- Python side -----------------------------------------------------------------------------


def within_reach(state: Any, reach: int = REACH) -> bool:
    """Whether either player of the Ikabegamá ``state`` could win within ``reach`` of his moves (the bound)."""
    a = state._a
    k = state.game.kconst
    return min(int(moves_needed(a, k, 0)), int(moves_needed(a, k, 1))) <= reach


class IkabegamaSolver:
    """Proves forced wins and losses of Ikabegamá positions within a horizon; keeps its table between calls."""

    def __init__(self, tt_bits: int = 20) -> None:
        size = check_table_bits(tt_bits)
        self.tkey = np.zeros(size, np.uint64)
        self.tval = np.zeros(size, np.int32)
        self.tflag = np.zeros(size, np.int8)
        self.tdepth = np.zeros(size, np.int8)
        self.tmove = np.zeros(size, np.int64)
        self._tag: tuple[Any, ...] | None = None

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
        horizon: int = HORIZON,
        exact: bool = True,
    ) -> Solution | None:
        """A forced win or loss of the player to move within ``horizon`` plies, or ``None`` (not proved).

        ``seconds`` (search clock, :func:`tessera.core.clock.clock`) and/or ``nodes`` bound the work;
        with neither, every depth up to ``horizon`` is searched.  ``exact`` is accepted for the
        solvers' common signature: the depths are searched one by one, so a proof always comes with
        its number of plies (the fastest win, the longest loss).
        """
        from tessera.core.clock import clock

        game = state.game
        if game.name != "ikabegama":
            raise ValueError(f"the Ikabegamá solver takes Ikabegamá positions, not {game.name}")
        if state.is_terminal():
            raise ValueError("the game is over: there is nothing to solve")
        check_budget(seconds, nodes)
        if isinstance(horizon, bool) or not isinstance(horizon, int) or not 1 <= horizon <= 40:
            raise ValueError(f"horizon must be an integer from 1 to 40 plies, not {horizon!r}")
        k = game.kconst
        tag = (tuple(int(x) for x in k), game.params["board"])
        if tag != self._tag:
            self.clear()
            self._tag = tag
        a = state._a
        horizon = min(horizon, int(k[ik.K_MAXPLY]) - int(a[ik.PLY]) - 1)
        if horizon < 1:
            return None  # the safeguard is within the horizon: its draw depends on the ply count
        root = ik.grown(a, int(a[ik.NTOK]) + horizon + 1)
        ctx = np.zeros(4, np.int64)
        start = clock()
        deadline = None if seconds is None else start + seconds
        spent = 0
        for depth in range(1, horizon + 1):
            ctx[_DEPTH] = depth
            while True:  # the depth, in chunks of nodes sized to the time left (the table keeps their work)
                limit = 1 << 62 if nodes is None else nodes - spent
                if limit <= 0 or (deadline is not None and clock() >= deadline):
                    return None
                if deadline is not None:
                    now = clock()
                    rate = spent / (now - start) if spent and now > start else 0.0
                    # half the time left at the rate measured so far (the first chunk: 20,000 nodes)
                    limit = min(limit, max(20_000, int(0.5 * rate * (deadline - now))))
                ctx[_LIMIT] = limit
                v = int(
                    search_root(
                        root,
                        k,
                        game.allowed_mask,
                        -WIN - 1,
                        WIN + 1,
                        self.tkey,
                        self.tval,
                        self.tflag,
                        self.tdepth,
                        self.tmove,
                        ctx,
                    )
                )
                spent += int(min(ctx[_NODES], limit))
                if not ctx[_ABORT]:
                    break
            if v > MATE or v < -MATE:
                return Solution(1 if v > 0 else -1, self._root_move(root, state), WIN - abs(v), spent)
        return None

    def _root_move(self, root: np.ndarray, state: Any) -> int:
        key = position_key(root)
        slot = int(key & np.uint64(self.tkey.shape[0] - 1))
        if self.tkey[slot] == key:
            return int(self.tmove[slot])
        move = int(winning_move(root, state.game.kconst, state.game.allowed_mask))
        if move < 0:  # the root's entry is stored last, so it cannot have been overwritten
            raise RuntimeError("the solver lost its root entry")
        return move


_LOCAL = threading.local()


def solve(state: Any, seconds: float | None = None, horizon: int = HORIZON) -> tuple[int, int, int] | None:
    """``(value, best_move, plies)`` of an Ikabegamá ``state`` for the player to move, or ``None``.

    ``value`` is +1 (a forced win within ``plies``) or −1 (lost with best play within ``plies``); ``None``
    when neither is proved within ``horizon`` plies and ``seconds``.  Each thread keeps one solver.
    """
    solver = getattr(_LOCAL, "solver", None)
    if solver is None:
        solver = _LOCAL.solver = IkabegamaSolver()
    out = solver.solve(state, seconds, horizon=horizon)
    return None if out is None else (out.value, out.best_move, out.plies or 0)


SOLVER = EndgameSolver(IkabegamaSolver, within_reach, REACH, REACH, 0.25, warm_up="ikabegama(distance=2)")
"""Ikabegamá's solver as the levels and the analysis board use it (``IkabegamaGame.solver()``): a race it
cannot prove costs the search its share, so a smaller share than Nibble's."""


__all__ = [
    "HORIZON",
    "REACH",
    "SOLVER",
    "WIN",
    "IkabegamaSolver",
    "hex_distance",
    "moves_needed",
    "position_key",
    "solve",
    "winning_move",
    "within_reach",
]
