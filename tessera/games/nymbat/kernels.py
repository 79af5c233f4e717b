"""Nymbat's rules as compiled kernels (numba): the only implementation of the rules.

One file because the kernels call one another and numba's on-disk cache of a kernel is keyed by its
own source file only (:mod:`tessera.core.kernels`, "Cache caveat"): a helper kernel moved to a second
module could change without the kernels that call it being compiled again.

:mod:`tessera.games.nymbat` keeps a position in one small ``int32`` array and calls
these kernels for everything the rules decide: the legal steps, the check of a step
(a code that Python turns into the sentence), applying a step (attacks, breakthroughs,
retreat and delay, the penalty, the next turn and the end of the game), the random
step, resigning, the evaluation and batches of random playouts.  Two and four
players go through the same kernels; the layout array ``geo`` says who sits where.

Cells are the compact indices ``0 … 168`` of the hexagon of side 8 (label order).

``geo`` — the board and the game's parameters, ``int32``, shape ``(N + 9, 32)``:
    row ``c < N``: columns ``0 … 5`` the neighbours of ``c`` (``−1`` after the last);
    column ``6 + p`` whether ``c`` is in player ``p``'s setup area; column ``14 + p``
    the lines between ``c`` and ``p``'s opponent home row (his distance); column
    ``18 + p`` whether ``c`` is on ``p``'s opponent home row.  Row ``N``: players,
    reserve, first_limit, delay_period, max_turns.  Row ``N + 1 + p``: the number of
    cells of ``p``'s opponent home row, then those cells; row ``N + 5 + p``: the same
    for ``p``'s setup area.
``s`` — the position (cloned with ``s.copy()``): ``[0, N)`` the owner of the piece on
    each cell (``−1``: empty); ``[N, 2N)`` its number (0: empty); ``[2N, 3N)`` flags of
    the turn in progress (1: a piece of the chosen group that may still move, 2: where
    a piece of the group, as at the start of the turn, now stands); then the header
    at ``H = 3N`` (offsets below): player to move, completed turns, last mover
    (``−1``: nobody), phase, placed this turn, the group's speed, its start distance,
    whether it captured, the breakthrough (cell, budget, defender; cell ``−1``: none),
    over, winner (``−1``: none or a draw); from ``H + 16`` four reserves, from
    ``H + 20`` four delay counts, from ``H + 24`` four "first turn done" flags,
    from ``H + 28`` four "resigned" flags.
``ws`` — scratch space (``WS_SIZE`` ints, all zero between uses of the marks),
    allocated by each entry kernel (the kernels release the GIL, so none is shared).
``rs`` — a ``uint64[1]`` random state (:func:`tessera.core.kernels.rng_state`).

The legal list works on bit boards made at the start of each listing (:func:`_occupancy`, one
pass over the cells; nothing is kept in ``s``): the hexes as bits of a padded 15 × 16 grid in four
``uint64`` words, where a hex's neighbours are the bits ±1, ±16, ±17 away (:func:`_padded`), so a
reach (:func:`_reach_bits`) or a group grows a whole level at a time by shifts.  The other
searches (the check, whether a step is left, the random step) keep :func:`_reach`'s queue.

Entry kernels (called from Python): :func:`apply` (checked or not), :func:`apply_step`
(the State's move: check, apply and the next legal steps in one call), :func:`check`,
:func:`legal`, :func:`random_step`, :func:`rollouts`, :func:`evaluate`,
:func:`resign` and :func:`query`.  Every kernel is a
:func:`tessera.core.kernels.kernel` (``numba.njit(cache=True, nogil=True)``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba.core import types
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros
from numba.extending import intrinsic

from tessera.core.kernels import I64, below, kernel, rand_next

"""``np.int64``, for the values passed on to another kernel: int64, never int32 nor a literal constant, so
every kernel compiles exactly one specialisation (numba specialises a call on ``int32`` and on each literal)."""

trailing_zeros: Callable[[np.uint64], int] = _trailing_zeros  # type: ignore[assignment]
"""The position of a word's lowest set bit (the word not 0): numba's intrinsic, one instruction, typed
for mypy as a plain function (it is called inside kernels only)."""


@intrinsic
def _frozen_intrinsic(typingctx: object, arr: types.Array) -> tuple[object, Callable[..., object]] | None:
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        context.nrt.incref(builder, sig.args[0], args[0])
        return args[0]

    return arr.copy(readonly=True)(arr), codegen


_frozen: Callable[[np.ndarray], np.ndarray] = _frozen_intrinsic  # type: ignore[assignment]
"""The same array typed read-only (no copy): Python receives it with ``writeable`` False, as numba boxes
a read-only array, without the cost of setting the flag from Python (the lists :func:`legal` and
:func:`apply_step` return).  Typed for mypy as a plain function (called inside kernels only)."""


N = 169
"""Cells of the board."""
OWNER, NUM, FLAG, H = 0, N, 2 * N, 3 * N
"""Sections of the position array."""
UNMOVED, TRACKED = 1, 2
"""Flags of the turn in progress."""
TO_MOVE, TURN, LAST, PHASE, PLACED, SPEED, START_DIST, CAPTURED = 0, 1, 2, 3, 4, 5, 6, 7
BRK_CELL, BRK_BUDGET, BRK_OWNER, OVER, WINNER = 8, 9, 10, 11, 12
RES, DEL, FIRST, RESIGNED = 16, 20, 24, 28
"""Offsets of the header fields from ``H``; the last four start four per-player values."""
SIZE = H + 32
"""Length of the position array."""

SETUP_COL, DIST_COL, TARGET_COL = 6, 14, 18
"""Columns of ``geo``."""
G_PLAYERS, G_RESERVE, G_FIRST_LIMIT, G_DELAY_PERIOD, G_MAX_TURNS = 0, 1, 2, 3, 4
"""Columns of ``geo``'s parameter row ``N``."""
TARGET_ROW, SETUP_ROW = N + 1, N + 5
GEO_SHAPE = (N + 9, 32)

START, BRING, MOVE, PENALTY = 0, 1, 2, 3
PLACE_BASE = N * N
REMOVE_BASE = PLACE_BASE + 6 * N
LOSE_BASE = REMOVE_BASE + N
END = LOSE_BASE + N
PASS = END + 1
NUM_ACTIONS = PASS + 1
FAR = 14
"""The distance of a side without pieces in the evaluation (the last row index)."""

K_BRING, K_MOVE, K_PASS = 0, 1, 2
"""How a turn ended (:func:`_finish_turn`)."""

SEEN, QUEUE, AUX, DEST, LIST = 0, N, 2 * N, 3 * N, 4 * N
"""Regions of ``ws``: marks (kept zero), a flood/search queue, a group, destinations, a list."""
WS_SIZE = 5 * N

Q_ALLOWANCE, Q_GROUP_SPEED, Q_HAS_STEP, Q_REMOVABLE, Q_SETTLE = 0, 1, 2, 3, 4
"""What :func:`query` answers."""


# -- small helpers -------------------------------------------------------------------------


@kernel
def _unit(rs: np.ndarray) -> float:
    """A uniform float in ``[0, 1)`` (53 random bits)."""
    return float(rand_next(rs) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def status(s: np.ndarray) -> int:
    """The header packed for Python: ``to_move + 4·over + 8·(winner + 1)``."""
    return int(s[H + TO_MOVE]) + 4 * int(s[H + OVER]) + 8 * (int(s[H + WINNER]) + 1)


@kernel
def _sort(a: np.ndarray, lo: int, hi: int) -> None:
    """Sort ``a[lo:hi]`` ascending in place (insertion sort: the lists are short)."""
    for i in range(lo + 1, hi):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@kernel
def _flood(s: np.ndarray, geo: np.ndarray, start: int, who: int, skip: int, ws: np.ndarray) -> int:
    """The pieces of ``who`` connected to ``start`` (which holds one), not through ``skip`` (``−1``: none).

    Lists them at ``ws[AUX:AUX + count]`` (search order) and returns ``count``; the marks are cleared.
    """
    q = AUX
    ws[SEEN + start] = 1
    if skip >= 0:
        ws[SEEN + skip] = 1
    ws[q] = start
    head = 0
    tail = 1
    while head < tail:
        c = ws[q + head]
        head += 1
        for j in range(6):
            nb = geo[c, j]
            if nb < 0:
                break
            if ws[SEEN + nb] == 0 and s[OWNER + nb] == who:
                ws[SEEN + nb] = 1
                ws[q + tail] = nb
                tail += 1
    for i in range(tail):
        ws[SEEN + ws[q + i]] = 0
    if skip >= 0:
        ws[SEEN + skip] = 0
    return tail


@kernel
def _group_speed(s: np.ndarray, geo: np.ndarray, src: int, ws: np.ndarray) -> int:
    """The lowest number in the group of the piece on ``src`` (its owner's contiguous pieces)."""
    k = _flood(s, geo, src, I64(s[OWNER + src]), I64(-1), ws)
    lo = 7
    for i in range(k):
        v = s[NUM + ws[AUX + i]]
        if v < lo:
            lo = v
    return lo


@kernel
def _reach(s: np.ndarray, geo: np.ndarray, src: int, speed: int, p: int, ws: np.ndarray, any_only: int) -> int:
    """Where the piece of ``p`` on ``src`` may end with ``speed``: listed at ``ws[DEST:DEST + count]``.

    Up to ``speed`` steps through empty or own hexes, ending on an empty hex or (an
    attack) on another player's piece, never passing through one.  ``any_only`` (1): stop
    at the first destination (returns 0 or 1).  The marks are cleared.
    """
    ws[SEEN + src] = 1
    ws[QUEUE] = src
    head = 0
    tail = 1
    k = 0
    done = False
    for _level in range(speed):
        level_end = tail
        if head == level_end:
            break
        while head < level_end and not done:
            c = ws[QUEUE + head]
            head += 1
            for j in range(6):
                nb = geo[c, j]
                if nb < 0:
                    break
                if ws[SEEN + nb]:
                    continue
                ws[SEEN + nb] = 1
                o = s[OWNER + nb]
                if o < 0:
                    ws[DEST + k] = nb
                    k += 1
                    ws[QUEUE + tail] = nb
                    tail += 1
                elif o == p:
                    ws[QUEUE + tail] = nb
                    tail += 1
                else:
                    ws[DEST + k] = nb
                    k += 1
                if any_only and k:
                    done = True
                    break
        if done:
            break
    for i in range(tail):
        ws[SEEN + ws[QUEUE + i]] = 0
    for i in range(k):
        ws[SEEN + ws[DEST + i]] = 0
    return k


@kernel
def _allowance(s: np.ndarray, geo: np.ndarray) -> int:
    """The largest number that may be placed now (0: none)."""
    p = I64(s[H + TO_MOVE])
    a = I64(s[H + RES + p])
    if not s[H + FIRST + p]:
        a = min(a, I64(geo[N, G_FIRST_LIMIT]) - I64(s[H + PLACED]))
    return max(0, min(a, 6))


@kernel
def _free_setup(s: np.ndarray, geo: np.ndarray, p: int, ws: np.ndarray) -> int:
    """The empty hexes of ``p``'s setup area, ascending, at ``ws[LIST:]``; their count."""
    out = LIST
    row = SETUP_ROW + p
    k = 0
    for i in range(int(geo[row, 0])):
        c = geo[row, 1 + i]
        if s[OWNER + c] < 0:
            ws[out + k] = c
            k += 1
    return k


@kernel
def _can_place(s: np.ndarray, geo: np.ndarray) -> bool:
    """Whether a piece can be brought in now: an allowance left and an empty hex in the setup area."""
    if _allowance(s, geo) <= 0:
        return False
    row = SETUP_ROW + s[H + TO_MOVE]
    for i in range(int(geo[row, 0])):  # noqa: SIM110 (a plain loop compiles to the simplest code)
        if s[OWNER + geo[row, 1 + i]] < 0:
            return True
    return False


@kernel
def _removable_count(s: np.ndarray, geo: np.ndarray) -> int:
    """How many pieces an open breakthrough may still remove."""
    b = s[H + BRK_CELL]
    if b < 0:
        return 0
    k = 0
    for j in range(6):
        nb = geo[b, j]
        if nb < 0:
            break
        if s[OWNER + nb] == s[H + BRK_OWNER] and s[NUM + nb] <= s[H + BRK_BUDGET]:
            k += 1
    return k


@kernel
def _removable_list(s: np.ndarray, geo: np.ndarray, ws: np.ndarray) -> int:
    """The pieces an open breakthrough may still remove, ascending at ``ws[LIST:]``; their count."""
    b = s[H + BRK_CELL]
    if b < 0:
        return 0
    k = 0
    for j in range(6):
        nb = geo[b, j]
        if nb < 0:
            break
        if s[OWNER + nb] == s[H + BRK_OWNER] and s[NUM + nb] <= s[H + BRK_BUDGET]:
            ws[LIST + k] = nb
            k += 1
    _sort(ws, I64(LIST), I64(LIST + k))
    return k


@kernel
def _has_step(s: np.ndarray, geo: np.ndarray, ws: np.ndarray) -> bool:
    """Whether a step other than ``end`` is legal (bring and move phases)."""
    if s[H + PHASE] == BRING:
        return _can_place(s, geo)
    if _removable_count(s, geo):
        return True
    p = I64(s[H + TO_MOVE])
    speed = I64(s[H + SPEED])
    flags = 0
    for c in range(N):  # no branch (vectorised): is any piece left to move at all?
        flags |= s[FLAG + c]
    if speed < 1 or not flags & UNMOVED:
        return False
    for c in range(N):
        if s[FLAG + c] & UNMOVED:
            for j in range(6):  # a neighbour empty or another player's: a step at once, no search
                nb = geo[c, j]
                if nb < 0:
                    break
                if s[OWNER + nb] != p:
                    return True
            if _reach(s, geo, c, speed, p, ws, I64(1)):
                return True
    return False


@kernel
def _on_target(s: np.ndarray, geo: np.ndarray, who: int, p: int) -> bool:
    """Whether ``who`` has a piece on ``p``'s opponent home row."""
    row = TARGET_ROW + p
    for i in range(int(geo[row, 0])):  # noqa: SIM110 (a plain loop compiles to the simplest code)
        if s[OWNER + geo[row, 1 + i]] == who:
            return True
    return False


@kernel
def _threatens(s: np.ndarray, geo: np.ndarray, p: int) -> bool:
    """Whether ``p`` stands on his opponent home row while the player opposite him does not."""
    n = I64(geo[N, G_PLAYERS])
    return _on_target(s, geo, p, p) and not _on_target(s, geo, I64((p + n // 2) % n), p)


# -- turns ---------------------------------------------------------------------------------


@kernel
def _settle(s: np.ndarray, geo: np.ndarray) -> None:
    """At the start of a turn: the last player left, the home-row win, the empty-board win, the safeguard."""
    n = I64(geo[N, G_PLAYERS])
    p = I64(s[H + TO_MOVE])
    alive = 0
    last = -1
    for q in range(n):
        if not s[H + RESIGNED + q]:
            alive += 1
            last = q
    if alive == 1:
        s[H + OVER] = 1
        s[H + WINNER] = last
        return
    if _threatens(s, geo, p):
        s[H + OVER] = 1
        s[H + WINNER] = p
        return
    empty = True
    for q in range(n):
        if s[H + RES + q]:
            empty = False
    if empty:
        for c in range(N):
            if s[OWNER + c] >= 0:
                empty = False
                break
    if empty:
        s[H + OVER] = 1
        s[H + WINNER] = s[H + LAST]
        return
    if s[H + TURN] >= geo[N, G_MAX_TURNS]:
        s[H + OVER] = 1
        s[H + WINNER] = -1


@kernel
def _reset_turn(s: np.ndarray) -> None:
    """A fresh turn: start phase, nothing placed or chosen, no breakthrough."""
    s[H + PHASE] = START
    s[H + PLACED] = 0
    s[H + SPEED] = 0
    s[H + START_DIST] = 0
    s[H + CAPTURED] = 0
    s[H + BRK_CELL] = -1
    s[H + BRK_BUDGET] = 0
    s[H + BRK_OWNER] = -1
    s[FLAG : FLAG + N] = 0


@kernel
def _next_turn(s: np.ndarray, geo: np.ndarray, moved: int) -> None:
    """The turn of the player to move is over (``moved``: he counts as the last mover); resigned players pass."""
    n = I64(geo[N, G_PLAYERS])
    p = I64(s[H + TO_MOVE])
    _reset_turn(s)
    s[H + FIRST + p] = 1
    if moved:
        s[H + LAST] = p
    s[H + TO_MOVE] = (p + 1) % n
    s[H + TURN] += 1
    _settle(s, geo)
    while not s[H + OVER] and s[H + RESIGNED + s[H + TO_MOVE]]:
        q = I64(s[H + TO_MOVE])
        s[H + FIRST + q] = 1
        s[H + TO_MOVE] = (q + 1) % n
        s[H + TURN] += 1
        _settle(s, geo)


@kernel
def _finish_turn(s: np.ndarray, geo: np.ndarray, kind: int) -> None:
    """Retreat/delay accounting and the penalty, then the next turn (or the ``lose`` step)."""
    p = I64(s[H + TO_MOVE])
    cost = 0
    delay = kind == K_PASS
    if kind == K_MOVE and not s[H + CAPTURED]:
        end = 99
        for c in range(N):
            if s[FLAG + c] & TRACKED:
                d = geo[c, DIST_COL + p]
                if d < end:
                    end = d
        if end < 99:
            if end > s[H + START_DIST]:
                cost = 1
            elif end == s[H + START_DIST]:
                delay = True
    if delay:
        s[H + DEL + p] += 1
        if s[H + DEL + p] % geo[N, G_DELAY_PERIOD] == 0:
            cost = 1
    _reset_turn(s)
    if cost:
        if s[H + RES + p] > 0:
            s[H + RES + p] -= 1
        else:
            for c in range(N):
                if s[OWNER + c] == p:
                    s[H + PHASE] = PENALTY
                    return
    _next_turn(s, geo, I64(1))


# -- steps ---------------------------------------------------------------------------------


@kernel
def _apply_move(s: np.ndarray, geo: np.ndarray, src: int, dst: int, ws: np.ndarray) -> None:
    """Move the piece on ``src`` to ``dst`` (a legal step): the group chosen at the first step, attacks,
    breakthroughs; the turn ends by itself when nothing but ``end`` is left."""
    p = I64(s[H + TO_MOVE])
    if s[H + PHASE] == START:
        k = _flood(s, geo, src, p, I64(-1), ws)
        lo = 7
        near = 99
        for i in range(k):
            c = ws[AUX + i]
            s[FLAG + c] = UNMOVED | TRACKED
            if s[NUM + c] < lo:
                lo = s[NUM + c]
            if geo[c, DIST_COL + p] < near:
                near = geo[c, DIST_COL + p]
        s[H + SPEED] = lo
        s[H + START_DIST] = near
        s[H + CAPTURED] = 0
        s[H + PHASE] = MOVE
    s[H + BRK_CELL] = -1
    s[H + BRK_OWNER] = -1
    n = s[NUM + src]
    s[FLAG + src] = 0
    s[OWNER + src] = -1
    s[NUM + src] = 0
    o = I64(s[OWNER + dst])
    if o >= 0 and o != p:
        defence = s[NUM + dst]
        for j in range(6):
            nb = geo[dst, j]
            if nb < 0:
                break
            if s[OWNER + nb] == o:
                defence += s[NUM + nb]
        whole = _flood(s, geo, dst, o, I64(-1), ws)
        split = False
        if whole > 1:
            for j in range(6):
                nb = geo[dst, j]
                if nb < 0:
                    break
                if s[OWNER + nb] == o:
                    split = _flood(s, geo, I64(nb), o, dst, ws) < whole - 1
                    break
        s[OWNER + dst] = -1
        s[NUM + dst] = 0
        s[H + CAPTURED] = 1
        if n > defence:
            s[OWNER + dst] = p
            s[NUM + dst] = n
            s[FLAG + dst] = TRACKED
        if split:
            s[H + BRK_CELL] = dst
            s[H + BRK_BUDGET] = n
            s[H + BRK_OWNER] = o
            if not _removable_count(s, geo):
                s[H + BRK_CELL] = -1
                s[H + BRK_OWNER] = -1
    else:
        s[OWNER + dst] = p
        s[NUM + dst] = n
        s[FLAG + dst] = TRACKED
    if not _has_step(s, geo, ws):
        _finish_turn(s, geo, I64(K_MOVE))


@kernel
def _apply(s: np.ndarray, geo: np.ndarray, a: int, ws: np.ndarray) -> None:
    """Apply a legal step of the player to move."""
    p = I64(s[H + TO_MOVE])
    if a < PLACE_BASE:
        _apply_move(s, geo, a // N, a % N, ws)
    elif a < REMOVE_BASE:
        c = (a - PLACE_BASE) // 6
        k = (a - PLACE_BASE) % 6 + 1
        s[OWNER + c] = p
        s[NUM + c] = k
        s[H + RES + p] -= k
        s[H + PLACED] += k
        s[H + PHASE] = BRING
        if not _has_step(s, geo, ws):
            _finish_turn(s, geo, I64(K_BRING))
    elif a < LOSE_BASE:
        c = a - REMOVE_BASE
        s[H + BRK_BUDGET] -= s[NUM + c]
        s[OWNER + c] = -1
        s[NUM + c] = 0
        if not _removable_count(s, geo):
            s[H + BRK_CELL] = -1
            s[H + BRK_OWNER] = -1
        if not _has_step(s, geo, ws):
            _finish_turn(s, geo, I64(K_MOVE))
    elif a < END:
        c = a - LOSE_BASE
        s[OWNER + c] = -1
        s[NUM + c] = 0
        _next_turn(s, geo, I64(1))
    elif a == END:
        _finish_turn(s, geo, I64(K_BRING if s[H + PHASE] == BRING else K_MOVE))
    else:
        _finish_turn(s, geo, I64(K_PASS))


# -- refusal codes of :func:`check` (the game's sentence table matches these names) ------------------
R_PENALTY_DUE = 1
"""A penalty is due: only 'lose' is legal."""
R_MOVE_WHILE_BRINGING = 2
"""A move while bringing in."""
R_MOVE_ON_FIRST_TURN = 3
"""A move on a first turn."""
R_NO_OWN_PIECE = 4
"""No own piece on the source."""
R_PIECE_HAS_MOVED = 5
"""The piece has moved this turn."""
R_NOT_OF_GROUP = 6
"""The piece is not of the chosen group."""
R_NO_MOVEMENT = 7
"""A move that stays on its hex."""
R_ONTO_OWN_PIECE = 8
"""A move onto an own piece."""
R_OUT_OF_REACH = 9
"""Out of the group's reach."""
R_PLACE_WHILE_MOVING = 10
"""A placement while moving."""
R_OUTSIDE_SETUP = 11
"""A placement outside the setup area."""
R_ONTO_A_PIECE = 12
"""A placement onto a piece."""
R_OVER_RESERVE = 13
"""Over the reserve."""
R_OVER_FIRST_LIMIT = 14
"""Over the first-turn limit."""
R_NO_BREAKTHROUGH = 15
"""A removal without a breakthrough."""
R_NOT_NEXT_TO_ATTACK = 16
"""A removal of a piece not the defender's next to the attacked hex."""
R_OVER_BUDGET = 17
"""A removal over the breakthrough budget."""
R_NO_PENALTY_DUE = 18
"""'lose' with no penalty due."""
R_LOSE_NOT_OWN = 19
"""'lose' of a piece not one's own."""
R_END_FIRST = 20
"""'end' before any step."""
R_PASS_AFTER_STEPS = 21
"""'pass' after other steps."""
R_PASS_ON_FIRST_TURN = 22
"""'pass' on a first turn that can bring in."""


@kernel
def _check(s: np.ndarray, geo: np.ndarray, a: int, ws: np.ndarray) -> int:
    """0 if step ``a`` (``0 <= a < NUM_ACTIONS``) is legal now, else its refusal code (``R_...``, above;
    the game's sentence table matches the same names)."""
    p = I64(s[H + TO_MOVE])
    phase = s[H + PHASE]
    if phase == PENALTY and not LOSE_BASE <= a < END:
        return R_PENALTY_DUE
    if a < PLACE_BASE:
        src = a // N
        dst = a % N
        if phase == BRING:
            return R_MOVE_WHILE_BRINGING
        if phase == START and not s[H + FIRST + p]:
            return R_MOVE_ON_FIRST_TURN
        if s[OWNER + src] != p:
            return R_NO_OWN_PIECE
        if phase == START:
            speed = _group_speed(s, geo, src, ws)
        else:
            if not s[FLAG + src] & UNMOVED:
                return R_PIECE_HAS_MOVED if s[FLAG + src] & TRACKED else R_NOT_OF_GROUP
            speed = I64(s[H + SPEED])
        if src == dst:
            return R_NO_MOVEMENT
        if s[OWNER + dst] == p:
            return R_ONTO_OWN_PIECE
        k = _reach(s, geo, src, speed, p, ws, I64(0))
        for i in range(k):
            if ws[DEST + i] == dst:
                return 0
        return R_OUT_OF_REACH
    if a < REMOVE_BASE:
        c = (a - PLACE_BASE) // 6
        k = (a - PLACE_BASE) % 6 + 1
        if phase == MOVE:
            return R_PLACE_WHILE_MOVING
        if not geo[c, SETUP_COL + p]:
            return R_OUTSIDE_SETUP
        if s[OWNER + c] >= 0:
            return R_ONTO_A_PIECE
        if k > s[H + RES + p]:
            return R_OVER_RESERVE
        if not s[H + FIRST + p] and s[H + PLACED] + k > geo[N, G_FIRST_LIMIT]:
            return R_OVER_FIRST_LIMIT
        return 0
    if a < LOSE_BASE:
        c = a - REMOVE_BASE
        b = I64(s[H + BRK_CELL])
        if b < 0:
            return R_NO_BREAKTHROUGH
        adjacent = False
        for j in range(6):
            if geo[b, j] == c:
                adjacent = True
        if not adjacent or s[OWNER + c] != s[H + BRK_OWNER]:
            return R_NOT_NEXT_TO_ATTACK
        if s[NUM + c] > s[H + BRK_BUDGET]:
            return R_OVER_BUDGET
        return 0
    if a < END:
        if phase != PENALTY:
            return R_NO_PENALTY_DUE
        if s[OWNER + a - LOSE_BASE] != p:
            return R_LOSE_NOT_OWN
        return 0
    if a == END:
        return R_END_FIRST if phase == START else 0
    if phase != START:
        return R_PASS_AFTER_STEPS
    if not s[H + FIRST + p] and _can_place(s, geo):
        return R_PASS_ON_FIRST_TURN
    return 0


@kernel
def apply(s: np.ndarray, geo: np.ndarray, a: int, checked: bool) -> int:
    """Apply step ``a``: the packed :func:`status`, or (``checked`` and illegal) ``−code``, nothing changed."""
    ws = np.zeros(WS_SIZE, np.int32)
    if checked:
        code = _check(s, geo, a, ws)
        if code:
            return -code
    _apply(s, geo, a, ws)
    return status(s)


@kernel
def apply_step(s: np.ndarray, geo: np.ndarray, a: int, legal_now: np.ndarray) -> tuple[int, np.ndarray]:
    """Check and apply step ``a``, then list the next position's legal steps, in one call.

    ``legal_now`` is the :func:`legal` list of this position, or empty when not known (a position not
    over has a legal step): a step found in it needs no other check; any other step is decided by
    :func:`_check`.  Returns ``(status, legal)``: the packed :func:`status` and the new position's
    legal steps, read-only (empty once the game is over), or ``(−code, empty)`` with nothing changed
    when ``a`` is illegal.  The State API's one kernel call per step.
    """
    ws = np.empty(WS_SIZE, np.int32)  # only the marks need be zero: every other region is written first
    ws[SEEN : SEEN + N] = 0
    found = False
    for i in range(legal_now.shape[0]):
        if legal_now[i] == a:
            found = True
            break
    if not found:
        code = _check(s, geo, a, ws)
        if code:
            return -code, _frozen(np.empty(0, np.int64))
    _apply(s, geo, a, ws)
    st = status(s)
    if s[H + OVER]:
        return st, _frozen(np.empty(0, np.int64))
    return st, _frozen(_legal(s, geo, ws))


@kernel
def check(s: np.ndarray, geo: np.ndarray, a: int) -> int:
    """0 if step ``a`` is legal now, else the code of the reason (:func:`_check`)."""
    return _check(s, geo, a, np.zeros(WS_SIZE, np.int32))


def _padded() -> tuple[np.ndarray, np.ndarray]:
    """The hexes as bits of a 15 × 16 grid (four ``uint64`` words, four rows a word): row ``r``'s
    hex ``i`` is bit ``16·r + i + max(0, r − 7)``, so the six neighbours of a bit are ±1, ±16, ±17
    and column 15 (where a row's last hex ± 1 lands) is never a hex.  Label order is bit order.
    Returns the bit of each cell and the cell of each bit (−1: none)."""
    bit = np.zeros(N, np.int64)
    cell = np.full(256, -1, np.int64)
    c = 0
    for r in range(15):
        for i in range(8 + min(r, 14 - r)):
            bit[c] = 16 * r + i + max(0, r - 7)
            cell[bit[c]] = c
            c += 1
    return bit, cell


_BIT, _CELL = _padded()
"""A cell's bit in the padded grid and a bit's cell (:func:`_padded`)."""
_WORD_CELLS = np.searchsorted(_BIT, 64 * np.arange(5))
"""The cells of word ``w`` of the padded grid are ``_WORD_CELLS[w] … _WORD_CELLS[w + 1] − 1``."""


def _near() -> np.ndarray:
    """Each cell's neighbours (the hexes ±1, ±16, ±17 bits away) and the cell itself, as four words of
    the padded grid each: row ``c`` the neighbours, row ``N + c`` the cell."""
    words = np.zeros((2 * N, 4), np.uint64)
    for c in range(N):
        b = int(_BIT[c])
        for nb in (b - 17, b - 16, b - 1, b + 1, b + 16, b + 17):
            if 0 <= nb < 256 and _CELL[nb] >= 0:
                words[c, nb >> 6] |= np.uint64(1 << (nb & 63))
        words[N + c, b >> 6] |= np.uint64(1 << (b & 63))
    return words


_NEAR = _near()
"""A cell's neighbours and the cell itself in words of the padded grid (:func:`_near`): the reach's first
level read from a table."""


Words = tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]
"""The eight words of :func:`_occupancy` as a tuple (for mypy)."""


@kernel
def _occupancy(s: np.ndarray, p: int, occ: np.ndarray) -> int:
    """The board as bits of the padded grid (:func:`_padded`) for ``p``'s moves: ``occ[0:4]`` the hexes a
    piece may pass through (empty or ``p``'s), ``occ[4:8]`` those it may end on (empty or another
    player's: an attack), ``occ[8:12]`` the pieces of the moving group that may still move (``UNMOVED``).
    Returns how many pieces ``p`` has.

    A word at a time (its cells are consecutive), in two registers: no branch, no store per cell."""
    pieces = 0
    for w in range(4):
        pas = ends = unmoved = np.uint64(0)
        for c in range(_WORD_CELLS[w], _WORD_CELLS[w + 1]):
            o = s[OWNER + c]
            sh = np.uint64(_BIT[c] & 63)
            own = np.uint64(o == p)
            pas |= (np.uint64(o < 0) | own) << sh
            ends |= (own ^ np.uint64(1)) << sh
            unmoved |= np.uint64(s[FLAG + c] & UNMOVED) << sh
            pieces += o == p
        occ[w] = pas
        occ[4 + w] = ends
        occ[8 + w] = unmoved
    return pieces


@kernel
def _spread(
    f0: np.uint64, f1: np.uint64, f2: np.uint64, f3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """The neighbours of the hexes ``f`` (four words of the padded grid, :func:`_padded`): the bits
    ±1, ±16 and ±17 away; some may land on column 15 or past row 14 (no hex: mask them)."""
    s1, s16, s48, s63 = np.uint64(1), np.uint64(16), np.uint64(48), np.uint64(63)
    a0 = f0 << s1
    a1 = (f1 << s1) | (f0 >> s63)
    a2 = (f2 << s1) | (f1 >> s63)
    a3 = (f3 << s1) | (f2 >> s63)
    c0 = (f0 >> s1) | (f1 << s63)
    c1 = (f1 >> s1) | (f2 << s63)
    c2 = (f2 >> s1) | (f3 << s63)
    c3 = f3 >> s1
    g0, g1, g2, g3 = f0 | a0, f1 | a1, f2 | a2, f3 | a3  # shifted by 16 below: +16 and +17
    h0, h1, h2, h3 = f0 | c0, f1 | c1, f2 | c2, f3 | c3  # shifted by −16 below: −16 and −17
    return (
        a0 | c0 | (g0 << s16) | (h0 >> s16) | (h1 << s48),
        a1 | c1 | (g1 << s16) | (g0 >> s48) | (h1 >> s16) | (h2 << s48),
        a2 | c2 | (g2 << s16) | (g1 >> s48) | (h2 >> s16) | (h3 << s48),
        a3 | c3 | (g3 << s16) | (g2 >> s48) | (h3 >> s16),
    )


@kernel
def _reach_bits(src: int, speed: int, occ: Words) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """:func:`_reach` on the bits of :func:`_occupancy` (``occ``, its eight words as a tuple: no array, so
    no reference counting per call): where the piece on cell ``src`` may end, four words.

    Breadth-first a level at a time, all hexes of a level at once: the neighbours of the frontier
    not reached before are reached; those a piece may end on are destinations, those it may pass
    through the next frontier (so an attacked piece is not passed through)."""
    if speed <= 0:
        z = np.uint64(0)
        return z, z, z, z
    n0, n1, n2, n3 = _NEAR[src, 0], _NEAR[src, 1], _NEAR[src, 2], _NEAR[src, 3]  # the first level
    r0, r1, r2, r3 = _NEAR[N + src, 0] | n0, _NEAR[N + src, 1] | n1, _NEAR[N + src, 2] | n2, _NEAR[N + src, 3] | n3
    d0, d1, d2, d3 = n0 & occ[4], n1 & occ[5], n2 & occ[6], n3 & occ[7]
    f0, f1, f2, f3 = n0 & occ[0], n1 & occ[1], n2 & occ[2], n3 & occ[3]
    for _level in range(1, speed):
        if not (f0 | f1 | f2 | f3):
            break
        n0, n1, n2, n3 = _spread(f0, f1, f2, f3)
        n0 &= ~r0
        n1 &= ~r1
        n2 &= ~r2
        n3 &= ~r3
        r0 |= n0
        r1 |= n1
        r2 |= n2
        r3 |= n3
        d0 |= n0 & occ[4]
        d1 |= n1 & occ[5]
        d2 |= n2 & occ[6]
        d3 |= n3 & occ[7]
        f0, f1, f2, f3 = n0 & occ[0], n1 & occ[1], n2 & occ[2], n3 & occ[3]
    return d0, d1, d2, d3


@kernel
def _emit_moves(
    x0: np.uint64, x1: np.uint64, x2: np.uint64, x3: np.uint64, speed: int, occ: Words, out: np.ndarray, k: int
) -> int:
    """Append the moves of the pieces on the bits ``x`` (four words of the padded grid) to ``out[k:]``:
    pieces ascending, each one's destinations ascending (bit order is cell order: no sort); the new
    length.  All the pieces in one call: ``out`` is counted a reference once, not once a piece."""
    for wi in range(4):
        pieces = x0 if wi == 0 else x1 if wi == 1 else x2 if wi == 2 else x3
        while pieces:
            src = _CELL[64 * wi + trailing_zeros(pieces)]
            pieces &= pieces - np.uint64(1)
            d0, d1, d2, d3 = _reach_bits(src, speed, occ)
            base = src * N
            for wj in range(4):
                bits = d0 if wj == 0 else d1 if wj == 1 else d2 if wj == 2 else d3
                while bits:
                    out[k] = base + _CELL[64 * wj + trailing_zeros(bits)]
                    k += 1
                    bits &= bits - np.uint64(1)
    return k


@kernel
def legal(s: np.ndarray, geo: np.ndarray) -> np.ndarray:
    """The legal steps of the player to move (game not over), in the order the game lists them.

    Placements (hex, then number), then moves (groups in the order of their lowest hex,
    pieces ascending within a group, destinations ascending) and ``pass`` at the start
    of a turn; placements and ``end`` while bringing in; removals, moves and ``end``
    while moving; ``lose`` steps during a penalty.  Read-only (:func:`_frozen`).
    """
    return _frozen(_legal(s, geo, np.zeros(WS_SIZE, np.int32)))


@kernel
def _legal(s: np.ndarray, geo: np.ndarray, ws: np.ndarray) -> np.ndarray:
    """:func:`legal` with the caller's scratch space (its marks zero): a new array of the steps' length
    (what a state keeps), by :func:`_list_steps`."""
    occ = np.empty(12, np.uint64)
    p = I64(s[H + TO_MOVE])
    phase = s[H + PHASE]
    moves = phase == MOVE or (phase == START and s[H + FIRST + p] != 0)
    pieces = _occupancy(s, p, occ) if moves else 0  # no moves: at most 6·N placements or N losses
    out = np.empty(6 * N + (pieces + 1) * N + 2, np.int64)
    return out[: _list_steps(s, geo, ws, occ, out, True)]


LIST_CAP = 6 * N + (N + 1) * N + 2
"""Room for the legal steps of any position (:func:`_list_steps`'s ``out``)."""


@kernel
def _list_steps(s: np.ndarray, geo: np.ndarray, ws: np.ndarray, occ: np.ndarray, out: np.ndarray, counted: bool) -> int:
    """The legal steps of the player to move into ``out`` (room for ``6·N + (pieces + 1)·N + 2``:
    :data:`LIST_CAP` always does); returns how many.  ``occ``: 12 ``uint64``, the board's bits as
    :func:`_occupancy` writes them — already written if ``counted``, else written here when needed.
    The vector engine passes its own ``occ`` and ``out`` (two allocations a step fewer: 420 → 340 ns a
    listing); :func:`_legal` makes a list of the exact length."""
    p = I64(s[H + TO_MOVE])
    phase = s[H + PHASE]
    moves = phase == MOVE or (phase == START and s[H + FIRST + p] != 0)
    if moves and not counted:
        _occupancy(s, p, occ)
    words = (occ[0], occ[1], occ[2], occ[3], occ[4], occ[5], occ[6], occ[7])
    k = 0
    if phase == PENALTY:
        for c in range(N):  # no branch: each cell written, kept if it is p's
            out[k] = LOSE_BASE + c
            k += s[OWNER + c] == p
        return k
    if phase == MOVE:
        r = _removable_list(s, geo, ws)
        for i in range(r):
            out[k] = REMOVE_BASE + ws[LIST + i]
            k += 1
        speed = I64(s[H + SPEED])
        k = _emit_moves(occ[8], occ[9], occ[10], occ[11], speed, words, out, I64(k))
        out[k] = END
        return k + 1
    allow = _allowance(s, geo)
    if allow > 0:
        f = _free_setup(s, geo, p, ws)
        for i in range(f):
            for j in range(allow):
                out[k] = PLACE_BASE + ws[LIST + i] * 6 + j
                k += 1
    if phase == BRING:
        out[k] = END
        return k + 1
    if not s[H + FIRST + p]:
        if k == 0:
            out[0] = PASS
            k = 1
        return k
    # p's groups in the order of their lowest hex: each grown from that hex through p's pieces, a piece
    # at a time (its neighbours from _NEAR), its speed the lowest number met
    z = np.uint64(0)
    one = np.uint64(1)
    o0, o1, o2, o3 = occ[0] & ~occ[4], occ[1] & ~occ[5], occ[2] & ~occ[6], occ[3] & ~occ[7]
    while o0 | o1 | o2 | o3:
        q0 = q1 = q2 = q3 = z  # the pieces of the group not grown from yet
        if o0:
            q0 = o0 & (~o0 + one)
        elif o1:
            q1 = o1 & (~o1 + one)
        elif o2:
            q2 = o2 & (~o2 + one)
        else:
            q3 = o3 & (~o3 + one)
        o0, o1, o2, o3 = o0 & ~q0, o1 & ~q1, o2 & ~q2, o3 & ~q3
        g0, g1, g2, g3 = q0, q1, q2, q3
        lo = 7
        while q0 | q1 | q2 | q3:
            if q0:
                b = I64(trailing_zeros(q0))
                q0 &= q0 - one
            elif q1:
                b = 64 + I64(trailing_zeros(q1))
                q1 &= q1 - one
            elif q2:
                b = 128 + I64(trailing_zeros(q2))
                q2 &= q2 - one
            else:
                b = 192 + I64(trailing_zeros(q3))
                q3 &= q3 - one
            c = _CELL[b]
            lo = min(lo, s[NUM + c])
            n0, n1, n2, n3 = _NEAR[c, 0] & o0, _NEAR[c, 1] & o1, _NEAR[c, 2] & o2, _NEAR[c, 3] & o3
            o0, o1, o2, o3 = o0 & ~n0, o1 & ~n1, o2 & ~n2, o3 & ~n3
            q0, q1, q2, q3 = q0 | n0, q1 | n1, q2 | n2, q3 | n3
            g0, g1, g2, g3 = g0 | n0, g1 | n1, g2 | n2, g3 | n3
        k = _emit_moves(g0, g1, g2, g3, I64(lo), words, out, I64(k))  # the group's pieces, ascending
    out[k] = PASS
    return k + 1


# -- random steps and playouts ---------------------------------------------------------------


@kernel
def _random_placement(s: np.ndarray, geo: np.ndarray, rs: np.ndarray, ws: np.ndarray) -> int:
    """A uniform empty hex of the setup area and a uniform number up to the allowance."""
    f = _free_setup(s, geo, I64(s[H + TO_MOVE]), ws)
    c = ws[LIST + below(rs, f)]
    return PLACE_BASE + c * 6 + below(rs, _allowance(s, geo))


@kernel
def _random_piece_move(s: np.ndarray, geo: np.ndarray, rs: np.ndarray, ws: np.ndarray, speed: int) -> int:
    """A uniformly random piece that can move, to a uniform destination (−1: none).

    At the start of a turn (``speed`` 0) the pieces are all the player's, each at its
    group's speed; while moving, the group's unmoved pieces at the group's speed.  A
    few uniform draws first, then a scan in random order: either way every movable
    piece is equally likely.
    """
    p = I64(s[H + TO_MOVE])
    m = 0
    for c in range(N):
        if s[OWNER + c] == p and (speed == 0 or s[FLAG + c] & UNMOVED):
            ws[LIST + m] = c
            m += 1
    if m == 0:
        return -1
    for _ in range(3):
        src = I64(ws[LIST + below(rs, I64(m))])
        sp = speed if speed else _group_speed(s, geo, src, ws)
        d = _reach(s, geo, src, sp, p, ws, I64(0))
        if d:
            return src * N + ws[DEST + below(rs, d)]
    for i in range(m):
        j = i + below(rs, I64(m - i))
        src = I64(ws[LIST + j])
        ws[LIST + j] = ws[LIST + i]
        ws[LIST + i] = src
        sp = speed if speed else _group_speed(s, geo, src, ws)
        d = _reach(s, geo, src, sp, p, ws, I64(0))
        if d:
            return src * N + ws[DEST + below(rs, d)]
    return -1


@kernel
def _random_step(s: np.ndarray, geo: np.ndarray, rs: np.ndarray, ws: np.ndarray) -> int:
    """A random legal step (game not over): first a kind of step, then a uniform step of that kind.

    At the start of a turn: bring in (30%, always on a first turn), move a group
    (67%) or pass (3%), among the kinds possible; while bringing in, ``end`` with
    probability 1/4; while moving, a breakthrough removal (70% when one is
    possible), else ``end`` with probability 1/6, else a random movable piece to a
    random reachable hex; during a penalty a uniform own piece.
    """
    p = I64(s[H + TO_MOVE])
    phase = s[H + PHASE]
    if phase == PENALTY:
        m = 0
        for c in range(N):
            if s[OWNER + c] == p:
                ws[LIST + m] = c
                m += 1
        return LOSE_BASE + ws[LIST + below(rs, I64(m))]
    if phase == BRING:
        if _unit(rs) < 0.25:
            return END
        return _random_placement(s, geo, rs, ws)
    if phase == START:
        can = _can_place(s, geo)
        if not s[H + FIRST + p]:
            return _random_placement(s, geo, rs, ws) if can else PASS
        r = _unit(rs)
        if can and r < 0.3:
            return _random_placement(s, geo, rs, ws)
        if r < 0.97:
            a = _random_piece_move(s, geo, rs, ws, I64(0))
            if a >= 0:
                return a
        if can:
            return _random_placement(s, geo, rs, ws)
        return PASS
    rem = _removable_count(s, geo)
    if rem and _unit(rs) < 0.7:
        r = _removable_list(s, geo, ws)
        return REMOVE_BASE + ws[LIST + below(rs, r)]
    if _unit(rs) < 1.0 / 6.0:
        return END
    a = _random_piece_move(s, geo, rs, ws, I64(s[H + SPEED]))
    if a >= 0:
        return a
    if rem:
        r = _removable_list(s, geo, ws)
        return REMOVE_BASE + ws[LIST + below(rs, r)]
    return END


@kernel
def random_step(s: np.ndarray, geo: np.ndarray, seed: int) -> int:
    """A random legal step (:func:`_random_step`) drawn with the generator seeded by ``seed``."""
    rs = np.empty(1, np.uint64)
    rs[0] = np.uint64(seed)
    return _random_step(s, geo, rs, np.zeros(WS_SIZE, np.int32))


@kernel
def _material(s: np.ndarray, q: int) -> int:
    """``q``'s reserve plus the numbers of his pieces on the board."""
    m = int(s[H + RES + q])
    for c in range(N):
        if s[OWNER + c] == q:
            m += s[NUM + c]
    return m


@kernel
def _best_dist(s: np.ndarray, geo: np.ndarray, q: int) -> int:
    """The distance of ``q``'s most advanced piece to his opponent home row (``FAR`` without pieces)."""
    best = FAR
    for c in range(N):
        if s[OWNER + c] == q and geo[c, DIST_COL + q] < best:
            best = geo[c, DIST_COL + q]
    return best


@kernel
def _returns(s: np.ndarray, geo: np.ndarray, player: int) -> float:
    """Winner +1, every other player −1/(players − 1); a draw or a game not over 0."""
    w = s[H + WINNER]
    if not s[H + OVER] or w < 0:
        return 0.0
    if w == player:
        return 1.0
    return -1.0 / (geo[N, G_PLAYERS] - 1)


@kernel
def evaluate(s: np.ndarray, geo: np.ndarray, player: int) -> float:
    """``tanh(0.04·material lead + 0.15·race lead + 0.6·home threat)``; the returns when over.

    The other players' material and race are averaged; any other player's unopposed
    threat counts −1.
    """
    if s[H + OVER]:
        return _returns(s, geo, player)
    n = I64(geo[N, G_PLAYERS])
    k = n - 1
    mat = 0
    race = 0
    other_threat = False
    for q in range(n):
        if q != player:
            mat += _material(s, q)
            race += _best_dist(s, geo, q)
            if _threatens(s, geo, q):
                other_threat = True
    material = _material(s, player) - mat / k
    lead = race / k - _best_dist(s, geo, player)
    threat = 0
    if _threatens(s, geo, player):
        threat += 1
    if other_threat:
        threat -= 1
    return float(np.tanh(0.04 * material + 0.15 * lead + 0.6 * threat))


@kernel
def rollouts(s: np.ndarray, geo: np.ndarray, n: int, rs: np.ndarray, cutoff: int, totals: np.ndarray) -> int:
    """Play ``n`` random games from ``s`` (unchanged) with :func:`_random_step`; the steps played.

    A game stops at its end or after ``cutoff`` steps (``−1``: no cut-off); ``totals[q]``
    gains each player's returns, or the evaluation of a cut-off game (two players:
    player 1 gets minus player 0's).
    """
    ws = np.zeros(WS_SIZE, np.int32)
    t = np.empty_like(s)
    players = I64(geo[N, G_PLAYERS])
    plies = 0
    for _ in range(n):
        t[:] = s
        steps = 0
        while not t[H + OVER] and (cutoff < 0 or steps < cutoff):
            _apply(t, geo, _random_step(t, geo, rs, ws), ws)
            steps += 1
        plies += steps
        if t[H + OVER]:
            for q in range(players):
                totals[q] += _returns(t, geo, q)
        elif players == 2:
            v0 = evaluate(t, geo, I64(0))
            totals[0] += v0
            totals[1] -= v0
        else:
            for q in range(players):
                totals[q] += evaluate(t, geo, q)
    return plies


# -- resigning and questions ---------------------------------------------------------------


@kernel
def resign(s: np.ndarray, geo: np.ndarray, player: int) -> int:
    """``player`` (a seat still playing, game not over) resigns: his pieces leave, his reserve drops to 0.

    The last player left wins; if the resigning player is to move, the next player
    moves; if another player is mid-turn, a breakthrough against the resigned player
    closes and that turn ends by itself if it has no step left.  Returns the status.
    """
    ws = np.zeros(WS_SIZE, np.int32)
    n = I64(geo[N, G_PLAYERS])
    s[H + RESIGNED + player] = 1
    for c in range(N):
        if s[OWNER + c] == player:
            s[OWNER + c] = -1
            s[NUM + c] = 0
            s[FLAG + c] = 0
    s[H + RES + player] = 0
    alive = 0
    last = -1
    for q in range(n):
        if not s[H + RESIGNED + q]:
            alive += 1
            last = q
    if alive == 1:
        _reset_turn(s)
        s[H + OVER] = 1
        s[H + WINNER] = last
    elif player == s[H + TO_MOVE]:
        _next_turn(s, geo, I64(0))
    elif s[H + PHASE] == MOVE:
        if s[H + BRK_OWNER] == player:
            s[H + BRK_CELL] = -1
            s[H + BRK_OWNER] = -1
        if not _has_step(s, geo, ws):
            _finish_turn(s, geo, I64(K_MOVE))
    elif s[H + PHASE] == BRING and not _has_step(s, geo, ws):
        _finish_turn(s, geo, I64(K_BRING))
    return status(s)


@kernel
def query(s: np.ndarray, geo: np.ndarray, what: int, arg: int) -> int:
    """Small questions of the Python side: ``Q_ALLOWANCE``, ``Q_GROUP_SPEED`` (of the piece on cell
    ``arg``), ``Q_HAS_STEP``, ``Q_REMOVABLE`` (how many), ``Q_SETTLE`` (apply the start-of-turn
    checks; returns the status)."""
    ws = np.zeros(WS_SIZE, np.int32)
    if what == Q_ALLOWANCE:
        return _allowance(s, geo)
    if what == Q_GROUP_SPEED:
        return _group_speed(s, geo, arg, ws)
    if what == Q_HAS_STEP:
        return 1 if _has_step(s, geo, ws) else 0
    if what == Q_REMOVABLE:
        return _removable_count(s, geo)
    _settle(s, geo)
    return status(s)
