# mypy: disable-error-code="arg-type"
# (kernels pass numpy int64 scalars where the hints say int: explicit casts keep one numba specialisation)
"""Ikabegamá's rule kernels (numba): moves, legality, the end, random rollouts, evaluation.

These functions ARE Ikabegamá's rules: :class:`tessera.games.ikabegama.game.IkabegamaState`
keeps its position in one int32 array laid out as below and calls them for every
move, legality check, move list, random move, rollout and evaluation (docs/engine.md).

Hexes are ids of the game's :class:`~tessera.core.hexplane.PlaneWindow`.  The
board is unbounded, so instead of a grid the state keeps its tokens in a list and
an open-addressing hash table (linear probing, backward-shift deletion) from hex
id to token index.  Tokens are never removed (a jump moves one, a flip changes
its owner), so the list only grows, by at most one token a ply.

State array, by offset:

* header ``CNT0``, ``CNT1`` tokens of Light / Dark; ``NTOK`` tokens in the list;
  ``PLY``; ``PASSES`` consecutive passes; ``TO_MOVE``; ``OVER`` (0/1); ``WINNER``
  (0, 1, or 2 for a draw); ``CAP`` list capacity; ``HSIZE`` hash slots (a power of 2);
* ``HEADER + i`` hex of token ``i``, ``HEADER + CAP + i`` its owner (``i < CAP``);
* ``HEADER + 2·CAP + s`` hash key of slot ``s`` (hex id, -1 empty), then ``HSIZE``
  values (token index).

The game's constants are one int64 array ``k`` (``K_*`` offsets: window stride and
bound, the nests, ``max_plies``, whether the board is bounded, the six neighbour
and twelve distance-2 offsets) and a uint8 array ``allowed`` over the window
(1 = on the board; a bounded ``hexhex`` board only).  An action is
``dest·13 + j``: ``j = 0`` a growth onto ``dest``, ``j = 1…12`` a jump onto ``dest``
from ``dest − ring2[j−1]``; ``pass`` is ``window.size·13``.

Values passed from one kernel to another go through ``I64`` (one specialisation per kernel), and
arrays are copied by loops, not slice assignments (``work[:] = src``), whose shape-mismatch error
message numba compiles at ~1.5 CPU s of a cold start (docs/engine.md, the *Types* note).
"""

from __future__ import annotations

import math

import numpy as np

from tessera.core.kernels import I64, kernel, rand_below

"""``np.int64``, for the values passed on to another kernel: int64, never int32 nor a literal constant, so
every kernel compiles exactly one specialisation (numba specialises a call on ``int32`` and on each literal)."""

CNT0, CNT1, NTOK, PLY, PASSES, TO_MOVE, OVER, WINNER, CAP, HSIZE = range(10)
HEADER = 10
K_STRIDE, K_BOUND, K_NEST0, K_NEST1, K_MAXPLY, K_BOUNDED, K_SIZE = range(7)
K_NBR = 7
K_RING = 13
K_LEN = 25

DRAW = 2
"""``WINNER`` of a drawn game."""

FULL = -2
"""What :func:`apply` returns, changing nothing, when a growth finds the token list full (see :func:`grown`)."""

OK, OFF_BOARD, NOT_EMPTY, NOT_ADJACENT, NOT_OWN, MUST_MOVE = range(6)
"""Codes of :func:`check`."""

TRIES = 24
"""Rejection-sampling draws of :func:`random_step` before it lists the moves."""


@kernel
def new_array(cap: int) -> np.ndarray:
    """An empty state array with room for ``cap`` tokens."""
    cap = max(cap, 1)
    hsize = 16
    while hsize < 2 * cap:
        hsize *= 2
    a = np.zeros(HEADER + 2 * cap + 2 * hsize, dtype=np.int32)
    a[CAP] = cap
    a[HSIZE] = hsize
    a[HEADER + 2 * cap : HEADER + 2 * cap + hsize] = -1
    return a


@kernel
def grown(a: np.ndarray, cap: int) -> np.ndarray:
    """A copy of ``a`` with room for ``cap`` tokens (at least those it holds), its hash table rebuilt.

    A state starts with a small list and grows it (doubling) when a growth finds it full, so a
    clone copies what the position holds, not room for every ply the game may still last."""
    n = np.int64(a[NTOK])
    b = new_array(max(cap, n))
    for f in range(HEADER):
        if f != CAP and f != HSIZE and f != NTOK and f != CNT0 and f != CNT1:
            b[f] = a[f]
    own = HEADER + np.int64(a[CAP])
    for i in range(n):
        add_token(b, np.int64(a[HEADER + i]), np.int64(a[own + i]))
    return b


@kernel
def _slot(a: np.ndarray, h: int) -> int:
    """The hash slot holding hex ``h``, or the empty slot where it would go."""
    cap = a[CAP]
    mask = a[HSIZE] - 1
    keys = HEADER + 2 * cap
    s = ((h * 2654435761) >> 13) & mask
    while True:
        key = a[keys + s]
        if key == h or key < 0:
            return s
        s = (s + 1) & mask


@kernel
def token_at(a: np.ndarray, h: int) -> int:
    """The index of the token on hex ``h``, or -1."""
    s = _slot(a, h)
    if a[HEADER + 2 * a[CAP] + s] < 0:
        return -1
    return a[HEADER + 2 * a[CAP] + a[HSIZE] + s]


@kernel
def owner_at(a: np.ndarray, h: int) -> int:
    """The owner of the token on hex ``h``, or -1 when it is empty."""
    i = token_at(a, h)
    if i < 0:
        return -1
    return a[HEADER + a[CAP] + i]


@kernel
def _hash_put(a: np.ndarray, h: int, i: int) -> None:
    s = _slot(a, h)
    keys = HEADER + 2 * a[CAP]
    a[keys + s] = h
    a[keys + a[HSIZE] + s] = i


@kernel
def _hash_del(a: np.ndarray, h: int) -> None:
    """Remove hex ``h`` (present) with backward-shift deletion."""
    keys = HEADER + 2 * a[CAP]
    vals = keys + a[HSIZE]
    mask = a[HSIZE] - 1
    i = _slot(a, h)
    while True:
        a[keys + i] = -1
        j = i
        while True:
            j = (j + 1) & mask
            key = a[keys + j]
            if key < 0:
                return
            home = ((key * 2654435761) >> 13) & mask
            # the entry at j may stay when its home lies cyclically in (i, j]
            if i <= j:
                stays = i < home <= j
            else:
                stays = home > i or home <= j
            if not stays:
                break
        a[keys + i] = a[keys + j]
        a[vals + i] = a[vals + j]
        i = j


@kernel
def add_token(a: np.ndarray, h: int, owner: int) -> int:
    """Put a new token of ``owner`` on empty hex ``h``; its index (-1 when the list is full)."""
    i = a[NTOK]
    if i >= a[CAP]:
        return -1
    a[HEADER + i] = h
    a[HEADER + a[CAP] + i] = owner
    a[NTOK] = i + 1
    a[CNT0 + owner] += 1
    _hash_put(a, h, I64(i))
    return i


@kernel
def on_board(k: np.ndarray, allowed: np.ndarray, h: int) -> bool:
    """Whether hex id ``h`` (possibly computed by an offset) is a hex of the board."""
    if h < 0 or h >= k[K_SIZE]:
        return False
    if k[K_BOUNDED]:
        return allowed[h] != 0
    col = h % k[K_STRIDE]
    return 1 <= col <= k[K_STRIDE] - 2


@kernel
def settle(a: np.ndarray, k: np.ndarray) -> None:
    """Decide whether the game is over: a nest taken, both players passed, or the safeguard."""
    if owner_at(a, k[K_NEST1]) == 0:
        a[OVER] = 1
        a[WINNER] = 0
    elif owner_at(a, k[K_NEST0]) == 1:
        a[OVER] = 1
        a[WINNER] = 1
    elif a[PASSES] >= 2:
        a[OVER] = 1
        a[WINNER] = 0 if a[CNT0] > a[CNT1] else 1 if a[CNT1] > a[CNT0] else DRAW
    elif a[PLY] >= k[K_MAXPLY]:
        a[OVER] = 1
        a[WINNER] = DRAW


@kernel
def apply(a: np.ndarray, k: np.ndarray, action: int) -> int:
    """Play a legal ``action`` of the player to move: growth or jump, the flips, then the end check.
    Returns -1 while the game goes on, else the ``WINNER`` code; :data:`FULL` (nothing changed) when a
    growth finds the token list full — the caller grows the array (:func:`grown`) and plays it again."""
    player = np.int64(a[TO_MOVE])
    if action % 13 == 0 and action != k[K_SIZE] * 13 and a[NTOK] >= a[CAP]:
        return FULL
    if action == k[K_SIZE] * 13:
        a[PASSES] += 1
    else:
        a[PASSES] = 0
        dest = action // 13
        j = action % 13
        if j:
            src = dest - k[K_RING + j - 1]
            i = token_at(a, src)
            _hash_del(a, src)
            a[HEADER + i] = dest
            _hash_put(a, dest, i)
        else:
            add_token(a, dest, player)
        enemy = 1 - player
        own = HEADER + a[CAP]
        for d in range(6):
            t = token_at(a, dest + k[K_NBR + d])
            if t >= 0 and a[own + t] == enemy:
                a[own + t] = player
                a[CNT0 + player] += 1
                a[CNT0 + enemy] -= 1
    a[PLY] += 1
    a[TO_MOVE] = 1 - player
    settle(a, k)
    return a[WINNER] if a[OVER] else -1


@kernel
def legal(a: np.ndarray, k: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The growths and jumps of the player to move in increasing order (empty when he must pass)."""
    return moves_of(a, k, allowed)


_MOVE_BITS = np.array([1 << (j + 1) for j in range(12)] + [1] * 6, dtype=np.int16)
"""Offset ``j``'s bit in :func:`moves_of`'s marks: the jump ``j + 1`` (``j < 12``), else a growth (bit 0)."""

_BIT_OF = np.zeros(37, dtype=np.int64)
"""``_BIT_OF[(1 << j) % 37] == j`` (``j < 36``): the position of a word's lowest set bit, without a loop."""
for _j in range(36):
    _BIT_OF[(1 << _j) % 37] = _j


@kernel
def moves_of(a: np.ndarray, k: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The growths and jumps of the player to move, in increasing order (``int64``; empty when he must pass).

    The owners are first copied to a dense map of the tokens' bounding box (rows × columns of the
    window, widened by two on every side: the longest offset), so each of the 18 destinations of a token
    is one array read instead of a hash probe.  Each destination's moves are marked there as bits (0: a
    growth, found once however many own tokens touch it; ``j``: the jump from direction ``j``); reading
    the box row by row then lists them sorted (an action is ``dest·13 + j`` and a hex id ``row·stride +
    column``), with no sort.  (Listing then ``np.sort`` cost ≈ 4.5 µs of a position's 8.1, docs/research.md.)
    """
    player = a[TO_MOVE]
    ntok = a[NTOK]
    own = HEADER + a[CAP]
    if ntok == 0:
        return np.empty(0, dtype=np.int64)
    stride = np.int64(k[K_STRIDE])
    inv = 1.0 / stride
    # each token's row and column (a float reciprocal and a correction: an integer division by the
    # window's stride costs tens of cycles, and there are a hundred of them a call)
    # one allocation for the small tables (each a call's np.empty costs about as much as a token's moves)
    scratch = np.empty(2 * ntok + 54, dtype=np.int64)
    rows = scratch[:ntok]
    cols = scratch[ntok : 2 * ntok]
    for i in range(ntok):
        h = np.int64(a[HEADER + i])
        r = np.int64(h * inv)
        c = h - r * stride
        if c < 0:
            r -= 1
            c += stride
        elif c >= stride:
            r += 1
            c -= stride
        rows[i] = r
        cols[i] = c
    r0, r1, c0, c1 = rows[0], rows[0], cols[0], cols[0]
    for i in range(1, ntok):
        r0, r1 = min(r0, rows[i]), max(r1, rows[i])
        c0, c1 = min(c0, cols[i]), max(c1, cols[i])
    r0 -= 2
    c0 -= 2
    shift = 2  # the box's width is a power of two: a cell's row and column are a shift and a mask
    while (1 << shift) < c1 + 3 - c0:
        shift += 1
    width = np.int64(1) << shift
    height = r1 + 3 - r0
    # each offset as rows and columns: off = dr·stride + dc with |dc| ≤ 2
    dr = scratch[2 * ntok : 2 * ntok + 18]
    dc = scratch[2 * ntok + 18 : 2 * ntok + 36]
    dcell = scratch[2 * ntok + 36 :]  # the offsets in the box
    for j in range(18):
        off = np.int64(k[K_RING + j] if j < 12 else k[K_NBR + j - 12])
        dr[j] = np.int64(round(off * inv))
        dc[j] = off - dr[j] * stride
        dcell[j] = dr[j] * width + dc[j]
    bits_of = _MOVE_BITS
    occ = np.full(height * width, -1, dtype=np.int8)
    for i in range(ntok):
        occ[(rows[i] - r0) * width + cols[i] - c0] = a[own + i]
    marks = np.zeros(height * width, dtype=np.int16)  # bit j: the move dest·13 + j
    n = 0
    unbounded = not k[K_BOUNDED]
    for i in range(ntok):
        if a[own + i] != player:
            continue
        t = np.int64(a[HEADER + i])
        tc = cols[i]
        tcell = (rows[i] - r0) * width + tc - c0
        # on the unbounded board every destination (at most two columns away) of a token at least three
        # columns from the window's side columns and two rows from its ends is on the board
        inside = unbounded and 3 <= tc <= stride - 4 and t >= 2 * stride + 2 and t + 2 * stride + 2 < k[K_SIZE]
        if inside:  # no board check: marked where empty, without a branch
            for j in range(18):
                cell = tcell + dcell[j]
                free = np.int16(occ[cell] == -1)
                marks[cell] |= bits_of[j] * free
                n += int(free)
            continue
        for j in range(18):
            col = tc + dc[j]
            if col < 0 or col >= stride:  # a hex of another row's id: beyond the window's side
                continue
            cell = tcell + dcell[j]
            if occ[cell] != -1:
                continue
            if on_board(k, allowed, t + dr[j] * stride + dc[j]):
                marks[cell] |= bits_of[j]  # a growth: once
                n += 1
    out = np.empty(n, dtype=np.int64)  # n: at least the moves (a growth may be counted more than once)
    m = 0
    words = marks.view(np.int64)  # four cells a word (the width is a multiple of 4): most of the box is empty
    mask = width - 1
    for w in range(words.shape[0]):
        if words[w] == 0:
            continue
        for cell in range(4 * w, 4 * w + 4):
            bits = np.int64(marks[cell])
            if bits == 0:
                continue
            base = ((r0 + (cell >> shift)) * stride + c0 + (cell & mask)) * 13
            while bits:
                low = bits & -bits
                out[m] = base + _BIT_OF[low % 37]
                m += 1
                bits ^= low
    return out[:m]


@kernel
def has_move(a: np.ndarray, k: np.ndarray, allowed: np.ndarray) -> bool:
    """Whether the player to move has a growth or a jump (else ``pass`` is his only move)."""
    player = a[TO_MOVE]
    own = HEADER + a[CAP]
    for i in range(a[NTOK]):
        if a[own + i] != player:
            continue
        t = np.int64(a[HEADER + i])
        for j in range(18):
            dest = t + (k[K_RING + j] if j < 12 else k[K_NBR + j - 12])
            if on_board(k, allowed, dest) and token_at(a, dest) < 0:
                return True
    return False


@kernel
def check(a: np.ndarray, k: np.ndarray, allowed: np.ndarray, action: int) -> int:
    """``OK`` when ``action`` (in range) is legal for the player to move, else why not (a code)."""
    player = a[TO_MOVE]
    if action == k[K_SIZE] * 13:
        return MUST_MOVE if has_move(a, k, allowed) else OK
    dest = action // 13
    j = action % 13
    if not on_board(k, allowed, dest) or (j and not on_board(k, allowed, dest - k[K_RING + j - 1])):
        return OFF_BOARD
    if token_at(a, dest) >= 0:
        return NOT_EMPTY
    if j == 0:
        for d in range(6):
            if owner_at(a, dest + k[K_NBR + d]) == player:
                return OK
        return NOT_ADJACENT
    if owner_at(a, dest - k[K_RING + j - 1]) != player:
        return NOT_OWN
    return OK


REFUSED = -16
"""What :func:`play` returns for an action :func:`check` refuses, less the refusal's code."""


@kernel
def play(a: np.ndarray, k: np.ndarray, allowed: np.ndarray, action: int) -> int:
    """:func:`check`, then :func:`apply` when it is ``OK``, in one call (the per-step API's one dispatch a
    move): ``REFUSED − code`` (nothing changed) for a refused ``action`` (in range), else what
    :func:`apply` returns."""
    code = check(a, k, allowed, action)
    if code != OK:
        return REFUSED - code
    return apply(a, k, action)


@kernel
def _draw(a: np.ndarray, k: np.ndarray, allowed: np.ndarray, rs: np.ndarray) -> int:
    """A uniformly random legal action of the player to move (see :func:`random_step`)."""
    player = a[TO_MOVE]
    ntok = a[NTOK]
    own = HEADER + a[CAP]
    mine = a[CNT0 + player]
    if mine > 0:
        for _ in range(TRIES):
            # a uniformly random own token: rejection over the list, else the r-th own token
            i = -1
            for _ in range(8):
                c = rand_below(rs, I64(ntok))
                if a[own + c] == player:
                    i = c
                    break
            if i < 0:
                r = rand_below(rs, I64(mine))
                for c in range(ntok):
                    if a[own + c] == player:
                        if r == 0:
                            i = c
                            break
                        r -= 1
            t = np.int64(a[HEADER + i])
            j = rand_below(rs, I64(18))
            if j < 12:
                dest = t + k[K_RING + j]
                if on_board(k, allowed, dest) and token_at(a, dest) < 0:
                    return dest * 13 + j + 1
                continue
            dest = t + k[K_NBR + j - 12]
            if not on_board(k, allowed, dest) or token_at(a, dest) >= 0:
                continue
            adjacent = 0
            for d in range(6):
                if owner_at(a, dest + k[K_NBR + d]) == player:
                    adjacent += 1
            if adjacent == 1 or rand_below(rs, I64(adjacent)) == 0:
                return dest * 13
    moves = legal(a, k, allowed)
    if moves.shape[0] == 0:
        return k[K_SIZE] * 13
    return moves[rand_below(rs, I64(moves.shape[0]))]


@kernel
def random_step(a: np.ndarray, k: np.ndarray, allowed: np.ndarray, seed: int) -> int:
    """A uniformly random legal action, drawn from ``seed``, by rejection sampling (no move list).

    Draw an own token and one of its 18 offsets; a jump is taken when its
    destination is empty, a growth with probability 1 / (own tokens adjacent to
    it), so each distinct move is equally likely.  After ``TRIES`` failures a
    uniform choice from the move list (``pass`` when it is empty).
    """
    rs = np.empty(1, dtype=np.uint64)
    rs[0] = np.uint64(seed)
    return _draw(a, k, allowed, rs)


@kernel
def evaluate(a: np.ndarray, k: np.ndarray, player: int) -> float:
    """``tanh(0.15·token lead + 0.35·nest-race lead)`` for ``player`` (the game not over): the race is how
    much closer his nearest token is to the enemy nest than the enemy's nearest token to his own nest."""
    stride = k[K_STRIDE]
    bound = k[K_BOUND]
    best0 = 99.0
    best1 = 99.0
    nq = np.empty(2, dtype=np.int64)
    nr = np.empty(2, dtype=np.int64)
    for p in range(2):
        h = k[K_NEST0 + p]
        nq[p] = h % stride - 1 - bound
        nr[p] = h // stride - bound
    own = HEADER + a[CAP]
    for i in range(a[NTOK]):
        h = np.int64(a[HEADER + i])
        o = a[own + i]
        dq = h % stride - 1 - bound - nq[1 - o]
        dr = h // stride - bound - nr[1 - o]
        dist = (abs(dq) + abs(dr) + abs(dq + dr)) // 2
        if o == 0:
            if dist < best0:
                best0 = dist
        elif dist < best1:
            best1 = dist
    race = best1 - best0 if player == 0 else best0 - best1
    lead = a[CNT0 + player] - a[CNT0 + 1 - player]
    return math.tanh(0.15 * lead + 0.35 * race)


@kernel
def rollouts(
    a: np.ndarray, k: np.ndarray, allowed: np.ndarray, count: int, seed: int, max_plies: int
) -> tuple[float, int]:
    """``count`` random games from ``a`` (unchanged): player 0's summed result (+1/-1/0 at the end,
    else :func:`evaluate` after ``max_plies`` plies; ``max_plies < 0``: to the end) and the plies played."""
    rs = np.empty(1, dtype=np.uint64)
    rs[0] = np.uint64(seed)
    # room for a growth on every ply left (the safeguard bounds them)
    base = grown(a, np.int64(a[NTOK]) + max(0, k[K_MAXPLY] - np.int64(a[PLY])) + 1)
    work = np.empty_like(base)
    total = 0.0
    plies = 0
    for _ in range(count):
        for i in range(base.shape[0]):  # a loop, not work[:] = base (module docstring)
            work[i] = base[i]
        steps = 0
        while work[OVER] == 0 and (max_plies < 0 or steps < max_plies):
            apply(work, k, _draw(work, k, allowed, rs))
            steps += 1
        plies += steps
        if work[OVER]:
            w = work[WINNER]
            total += 1.0 if w == 0 else -1.0 if w == 1 else 0.0
        else:
            total += evaluate(work, k, I64(0))
    return total, plies


__all__ = [
    "add_token",
    "apply",
    "check",
    "evaluate",
    "grown",
    "has_move",
    "legal",
    "moves_of",
    "new_array",
    "on_board",
    "owner_at",
    "play",
    "random_step",
    "rollouts",
    "settle",
    "token_at",
]
