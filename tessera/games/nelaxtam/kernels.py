"""Nelaxtam's rules as compiled kernels (numba): the only implementation of the rules.

:mod:`tessera.games.nelaxtam` keeps a position in one small ``int32`` array and calls
these kernels to list each troop's tokens, draw a random legal order, resolve a turn
(moves, destructions, deaths, removal of uncontrolled groups, the end), evaluate, and
play random games (many from a position in one call).  Parsing, the order checks'
sentences, position dicts and drawing stay in Python.

Squares are numbered ``s = rank·size + file`` (both from 0), as in the integer actions.

``geo`` — the board, per game, shape ``(S + 1, 10)`` for ``S`` squares.  Row ``s``:
    columns ``0 … 3`` the orthogonal neighbours, ``4 … 7`` the diagonal ones (each
    ascending, ``−1`` padded), ``8`` the square's colour (0 Black, 1 White), ``9`` 1 on
    an edge square.  Row ``S`` is the header: ``size, S, troops, by_sea,
    max_idle_turns, quiet (0/1), B`` (actions per troop, ``1 + 3S``).
``st`` — the position (cloned with ``st.copy()``): ``[0, S)`` 1 where the square's
    territory piece is still there; ``[S, S + T)`` Black's troops' squares and
    ``[S + T, S + 2T)`` White's (``−1``: dead, or not landed yet); then at
    ``H = S + 2T`` the phase (0 invasion, 1 battle, 2 over), the turn number, the
    idle count and the winner (``−1``: none or a draw).
``rs`` — a ``uint64[1]`` random state (:func:`tessera.core.kernels.rng_state`).

Values passed from one kernel to another go through ``I64`` (one specialisation per kernel), and
arrays are copied by loops, not slice assignments (``work[:] = src``), whose shape-mismatch error
message numba compiles at ~1.5 CPU s of a cold start (docs/engine.md, the *Types* note).
"""

from __future__ import annotations

import numpy as np

from tessera.core.kernels import I64, below, kernel

"""``np.int64``, for the values passed on to another kernel: int64, never int32 nor a literal constant, so
every kernel compiles exactly one specialisation (numba specialises a call on ``int32`` and on each literal)."""

PHASE, TURN, IDLE, WINNER = 0, 1, 2, 3
"""Offsets of the header fields from ``H = S + 2·troops``."""
INVASION, BATTLE, OVER = 0, 1, 2
"""Values of the phase field."""
COLOUR, EDGE = 8, 9
"""Columns of ``geo``."""
MAX_OPTIONS = 9
"""Tokens a troop can have in a battle turn: hold, four moves, four destructions."""


def state_size(squares: int, troops: int) -> int:
    """Length of the position array for ``squares`` squares and ``troops`` troops a side."""
    return squares + 2 * troops + 4


@kernel
def header(st: np.ndarray, geo: np.ndarray) -> int:
    """Offset ``H`` of the header in ``st``."""
    sq = geo.shape[0] - 1
    return sq + 2 * geo[sq, 2]


@kernel
def settle(st: np.ndarray, geo: np.ndarray) -> None:
    """Remove every group (diagonally connected, one colour) with no troop of its owner on it.

    The squares reached from the troops are grown a rank at a time as bit rows (bit ``f`` the file ``f``:
    a rank's diagonal neighbours in the next are the bits shifted by one either way), up and down the
    board until nothing changes, without a branch on each square: ≈ 270 ns a position of the 12×12 board
    where the search square by square cost ≈ 1,260 (the vector engine's positions, 2026-11-30); the same
    squares removed on 100,000 random boards of five sizes."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    size = geo[sq, 0]
    full = (np.int64(1) << size) - 1
    terr = np.zeros(size, np.int64)
    reach = np.zeros(size, np.int64)
    for r in range(size):
        bits = np.int64(0)
        for f in range(size):
            bits |= np.int64(st[r * size + f] == 1) << f
        terr[r] = bits
    for i in range(2 * t):
        c = st[sq + i]
        if c >= 0:
            reach[c // size] |= np.int64(1) << (c % size)
    changed = True
    while changed:
        changed = False
        for r in range(size):
            nb = (reach[r - 1] if r > 0 else 0) | (reach[r + 1] if r < size - 1 else 0)
            new = reach[r] | (((nb << 1) | (nb >> 1)) & full & terr[r])
            if new != reach[r]:
                reach[r] = new
                changed = True
        for r in range(size - 1, -1, -1):
            nb = (reach[r - 1] if r > 0 else 0) | (reach[r + 1] if r < size - 1 else 0)
            new = reach[r] | (((nb << 1) | (nb >> 1)) & full & terr[r])
            if new != reach[r]:
                reach[r] = new
                changed = True
    for r in range(size):  # a territory entry is 0 or 1: kept where reached
        row = reach[r]
        for f in range(size):
            st[r * size + f] &= (row >> f) & 1


@kernel
def can_destroy(st: np.ndarray, geo: np.ndarray) -> bool:
    """Whether some Black and White territory pieces still touch orthogonally."""
    sq = geo.shape[0] - 1
    for c in range(sq):
        if st[c] == 1 and geo[c, COLOUR] == 0:
            for j in range(4):
                nb = geo[c, j]
                if nb >= 0 and st[nb] == 1:
                    return True
    return False


@kernel
def territory(st: np.ndarray, geo: np.ndarray, player: int) -> int:
    """Territory pieces of ``player`` on the board."""
    sq = geo.shape[0] - 1
    n = 0
    for c in range(sq):
        if st[c] == 1 and geo[c, COLOUR] == player:
            n += 1
    return n


@kernel
def living(st: np.ndarray, geo: np.ndarray, player: int) -> int:
    """Troops of ``player`` on the board."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    n = 0
    for i in range(t):
        if st[sq + player * t + i] >= 0:
            n += 1
    return n


@kernel
def check_end(st: np.ndarray, geo: np.ndarray) -> None:
    """End the game when nobody can destroy again (more territory wins) or at the idle safeguard (a draw)."""
    sq = geo.shape[0] - 1
    h = header(st, geo)
    if not can_destroy(st, geo):
        a = territory(st, geo, I64(0))
        b = territory(st, geo, I64(1))
        st[h + PHASE] = OVER
        st[h + WINNER] = 0 if a > b else 1 if b > a else -1
    elif st[h + IDLE] >= geo[sq, 4]:
        st[h + PHASE] = OVER
        st[h + WINNER] = -1


@kernel
def apply(st: np.ndarray, geo: np.ndarray, acts: np.ndarray, n0: int) -> None:
    """Resolve one turn from two legal orders, Black's ``acts[:n0]`` and White's ``acts[n0:]``.

    Invasion: every troop lands.  Battle: first all moves, then all destructions; a troop
    on a destroyed square dies; uncontrolled groups are removed; then the end is checked.
    """
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    b = geo[sq, 6]
    h = sq + 2 * t
    if st[h + PHASE] == INVASION:
        for i in range(acts.shape[0]):
            p = 0 if i < n0 else 1
            a = acts[i]
            st[sq + p * t + a // b] = a % b - 1 - 2 * sq
        st[h + PHASE] = BATTLE
        st[h + TURN] += 1
        settle(st, geo)
        check_end(st, geo)
        return
    hit = np.zeros(sq, np.uint8)
    any_hit = False
    for i in range(acts.shape[0]):
        p = 0 if i < n0 else 1
        a = acts[i]
        local = a % b
        if local == 0:
            continue
        if local <= sq:
            st[sq + p * t + a // b] = local - 1
        else:
            hit[local - 1 - sq] = 1
            any_hit = True
    if any_hit:
        for c in range(sq):
            if hit[c]:
                st[c] = 0
        for i in range(2 * t):
            c = st[sq + i]
            if c >= 0 and hit[c]:
                st[sq + i] = -1
        st[h + IDLE] = 0
    else:
        st[h + IDLE] += 1
    settle(st, geo)
    st[h + TURN] += 1
    check_end(st, geo)


@kernel
def legal(st: np.ndarray, geo: np.ndarray, player: int, out: np.ndarray, counts: np.ndarray) -> None:
    """Each living troop's legal tokens in a battle turn, ascending: ``out[t, :counts[t]]``.

    Hold, moves to a diagonally adjacent own territory piece, destructions of an orthogonally
    adjacent opponent piece.  In ``quiet`` a move may not end where another own troop
    stands, and only the lowest living troop carries the hold (the order where nobody acts).
    """
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    quiet = geo[sq, 5] == 1
    b = geo[sq, 6]
    base = sq + player * t
    first = True
    for i in range(t):
        counts[i] = 0
        here = st[base + i]
        if here < 0:
            continue
        m = 0
        if not quiet or first:
            out[i, m] = i * b
            m += 1
        first = False
        for j in range(4, 8):
            c = geo[here, j]
            if c >= 0 and st[c] == 1:
                if quiet:
                    taken = False
                    for u in range(t):
                        if st[base + u] == c:
                            taken = True
                    if taken:
                        continue
                out[i, m] = i * b + 1 + c
                m += 1
        for j in range(4):
            c = geo[here, j]
            if c >= 0 and st[c] == 1:
                out[i, m] = i * b + 1 + sq + c
                m += 1
        counts[i] = m


@kernel
def random_step(st: np.ndarray, geo: np.ndarray, player: int, rs: np.ndarray, out: np.ndarray) -> int:
    """A random legal full order of ``player`` in ``out`` (troop order); returns its length.

    Invasion: ``by_sea`` distinct edge squares of the player's colour, then distinct others,
    dealt to the troops in random order.  Quiet battle: one of the legal tokens, uniformly.
    Wild battle: the troops choose in a random order; a troop may not step onto a square
    already claimed or still holding a troop yet to choose, so each keeps at least its hold.
    """
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    b = geo[sq, 6]
    h = sq + 2 * t
    if st[h + PHASE] == INVASION:
        need = geo[sq, 3]
        cand = np.empty(sq, np.int64)
        chosen = np.empty(t, np.int64)
        n = 0
        for c in range(sq):
            if geo[c, COLOUR] == player and geo[c, EDGE] == 1:
                cand[n] = c
                n += 1
        for k in range(need):
            j = below(rs, I64(n - k))
            chosen[k] = cand[j]
            cand[j] = cand[n - k - 1]
        used = np.zeros(sq, np.uint8)
        for k in range(need):
            used[chosen[k]] = 1
        n = 0
        for c in range(sq):
            if geo[c, COLOUR] == player and used[c] == 0:
                cand[n] = c
                n += 1
        for k in range(need, t):
            j = below(rs, I64(n - (k - need)))
            chosen[k] = cand[j]
            cand[j] = cand[n - (k - need) - 1]
        for k in range(t - 1, 0, -1):  # shuffle which troop lands where
            j = below(rs, I64(k + 1))
            x = chosen[k]
            chosen[k] = chosen[j]
            chosen[j] = x
        for k in range(t):
            out[k] = k * b + 1 + 2 * sq + chosen[k]
        return t
    base = sq + player * t
    if geo[sq, 5] == 1:  # quiet: one token among all
        opts = np.empty((t, 9), np.int64)
        counts = np.zeros(t, np.int64)
        legal(st, geo, I64(player), opts, counts)
        total = 0
        for i in range(t):
            total += counts[i]
        j = below(rs, I64(total))
        for i in range(t):
            if j < counts[i]:
                out[0] = opts[i, j]
                return 1
            j -= counts[i]
        return 0
    live = np.empty(t, np.int64)
    n = 0
    waiting = np.zeros(sq, np.uint8)
    for i in range(t):
        c = st[base + i]
        if c >= 0:
            live[n] = i
            n += 1
            waiting[c] = 1
    order = live[:n].copy()
    for k in range(n - 1, 0, -1):
        j = below(rs, I64(k + 1))
        x = order[k]
        order[k] = order[j]
        order[j] = x
    claimed = np.zeros(sq, np.uint8)
    pick = np.empty(t, np.int64)
    opts = np.empty(9, np.int64)
    ends = np.empty(9, np.int64)
    for k in range(n):
        i = order[k]
        here = st[base + i]
        waiting[here] = 0
        m = 0
        if claimed[here] == 0:
            opts[m] = i * b
            ends[m] = here
            m += 1
            for j in range(4):
                c = geo[here, j]
                if c >= 0 and st[c] == 1:
                    opts[m] = i * b + 1 + sq + c
                    ends[m] = here
                    m += 1
        for j in range(4, 8):
            c = geo[here, j]
            if c >= 0 and st[c] == 1 and claimed[c] == 0 and waiting[c] == 0:
                opts[m] = i * b + 1 + c
                ends[m] = c
                m += 1
        r = below(rs, I64(m))
        claimed[ends[r]] = 1
        pick[i] = opts[r]
    for k in range(n):
        out[k] = pick[live[k]]
    return n


# -- refusal codes of :func:`check`, packed with up to three numbers (the game's sentence table
# matches these names) ---------------------------------------------------------------------------
R_TWO_TOKENS = 1
"""A troop is given two tokens (x: the troop)."""
R_TROOP_ORDER = 2
"""Tokens out of troop order (x: the troop, y: the one before)."""
R_TROOP_GONE = 3
"""The troop is no longer on the board (x)."""
R_PLACE_AFTER_INVASION = 4
"""A placement after the invasion (x: the troop, y: the square)."""
R_MOVE_NOT_DIAGONAL = 5
"""A move to an orthogonal neighbour (x: the troop, y: from, z: to)."""
R_MOVE_NOT_ADJACENT = 6
"""A move to a square not adjacent (x, y, z as above)."""
R_MOVE_ONTO_REMOVED = 7
"""A move onto a removed square (x: the troop, y: the square)."""
R_DESTROY_OWN = 8
"""A destruction of one's own territory (x: the troop, y: the square)."""
R_DESTROY_NOT_ADJACENT = 9
"""A destruction not orthogonally adjacent (x: the troop, y: from, z: the target)."""
R_DESTROY_REMOVED = 10
"""A destruction of a removed square (x: the troop, y: the square)."""
R_SAME_END = 11
"""Two troops end on one square (x, y: the troops, z: the square)."""
R_SAME_END_QUIET = 12
"""Quiet: the acting troop ends on a troop that does not act (x, y: the troops, z: the square)."""
R_TROOP_WITHOUT_TOKEN = 13
"""A living troop has no token (x)."""
R_QUIET_ONE_TOKEN = 14
"""Quiet battle turns take one token (x: how many were given)."""
R_NOT_AN_ACTION = 15
"""Not an action of the game (x: its position in the order)."""
R_INVASION_PLACES = 20
"""The invasion takes placements only (x: the token's position in the order)."""
R_PLACED_TWICE = 21
"""A troop is placed twice (x)."""
R_LAND_ON_ENEMY = 23
"""A landing on the opponent's territory (x: the troop, y: the square)."""
R_PLACED_SAME = 24
"""Two troops placed on one square (x, y: the troops, z: the square)."""
R_TROOP_MISSING = 25
"""The invasion misses a troop (x)."""
R_TOO_FEW_BY_SEA = 26
"""Too few troops land on the edge (x: how many do, y: by_sea)."""


@kernel
def _pack(code: int, x: int, y: int, z: int) -> int:
    return code | (x << 8) | (y << 24) | (z << 40)


@kernel
def check(st: np.ndarray, geo: np.ndarray, player: int, acts: np.ndarray) -> int:
    """``0`` when ``acts`` (one per token, as written) are a legal full order of ``player``, else why not,
    packed as ``code | x << 8 | y << 24 | z << 40`` (``nelaxtam._order_message`` turns each code into its sentence).

    The game must not be over.  Checks, in this order, token by token: a real action,
    troop order, a living troop, the token kind for the phase, then adjacency, colour
    and presence of the target, and distinct end squares; then the order as a whole
    (quiet: one token and no move onto a friendly troop; otherwise every living troop;
    invasion: every troop, ``by_sea`` of them on edge squares).
    """
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    b = geo[sq, 6]
    h = sq + 2 * t
    n = acts.shape[0]
    base = sq + player * t
    invasion = st[h + PHASE] == INVASION
    quiet = geo[sq, 5] == 1 and not invasion
    if quiet and n != 1:
        return _pack(I64(R_QUIET_ONE_TOKEN), I64(n), I64(0), I64(0))
    endk = np.zeros(sq, np.int64)
    given = np.zeros(t, np.uint8)
    prev = -1
    on_edge = 0
    for i in range(n):
        a = acts[i]
        if a < 0 or a >= t * b:
            return _pack(I64(R_NOT_AN_ACTION), I64(i), I64(0), I64(0))
        tr = a // b
        local = a % b
        kind = 0
        cell = -1
        if local:
            kind = (local - 1) // sq + 1
            cell = (local - 1) % sq
        k = tr + 1
        if invasion:
            if kind != 3:
                return _pack(I64(R_INVASION_PLACES), I64(i), I64(0), I64(0))
            if tr == prev:
                return _pack(I64(R_PLACED_TWICE), I64(k), I64(0), I64(0))
            if tr < prev:
                return _pack(I64(R_TROOP_ORDER), I64(k), I64(prev + 1), I64(0))
            prev = tr
            given[tr] = 1
            if geo[cell, COLOUR] != player:
                return _pack(I64(R_LAND_ON_ENEMY), I64(k), I64(cell), I64(0))
            if endk[cell]:
                return _pack(I64(R_PLACED_SAME), I64(endk[cell]), I64(k), I64(cell))
            endk[cell] = k
            on_edge += geo[cell, EDGE]
            continue
        if tr == prev:
            return _pack(I64(R_TWO_TOKENS), I64(k), I64(0), I64(0))
        if tr < prev:
            return _pack(I64(R_TROOP_ORDER), I64(k), I64(prev + 1), I64(0))
        prev = tr
        given[tr] = 1
        here = st[base + tr]
        if here < 0:
            return _pack(I64(R_TROOP_GONE), I64(k), I64(0), I64(0))
        if kind == 3:
            return _pack(I64(R_PLACE_AFTER_INVASION), I64(k), I64(cell), I64(0))
        end = here
        if kind == 1:
            diag = False
            for j in range(4, 8):
                if geo[here, j] == cell:
                    diag = True
            if not diag:
                for j in range(4):
                    if geo[here, j] == cell:
                        return _pack(I64(R_MOVE_NOT_DIAGONAL), I64(k), I64(here), I64(cell))
                return _pack(I64(R_MOVE_NOT_ADJACENT), I64(k), I64(here), I64(cell))
            if st[cell] == 0:
                return _pack(I64(R_MOVE_ONTO_REMOVED), I64(k), I64(cell), I64(0))
            end = cell
        elif kind == 2:
            if geo[cell, COLOUR] == player:
                return _pack(I64(R_DESTROY_OWN), I64(k), I64(cell), I64(0))
            ortho = False
            for j in range(4):
                if geo[here, j] == cell:
                    ortho = True
            if not ortho:
                return _pack(I64(R_DESTROY_NOT_ADJACENT), I64(k), I64(here), I64(cell))
            if st[cell] == 0:
                return _pack(I64(R_DESTROY_REMOVED), I64(k), I64(cell), I64(0))
        if endk[end]:
            return _pack(I64(R_SAME_END), I64(endk[end]), I64(k), I64(end))
        endk[end] = k
    if invasion:
        for u in range(t):
            if not given[u]:
                return _pack(I64(R_TROOP_MISSING), I64(u + 1), I64(0), I64(0))
        if on_edge < geo[sq, 3]:
            return _pack(I64(R_TOO_FEW_BY_SEA), I64(on_edge), I64(geo[sq, 3]), I64(0))
        return 0
    if quiet:
        a = acts[0]
        tr = a // b
        local = a % b
        if local and (local - 1) // sq == 0:
            cell = (local - 1) % sq
            for u in range(t):
                if u != tr and st[base + u] == cell:
                    return _pack(I64(R_SAME_END_QUIET), I64(u + 1), I64(tr + 1), I64(cell))
        return 0
    for u in range(t):
        if st[base + u] >= 0 and not given[u]:
            return _pack(I64(R_TROOP_WITHOUT_TOKEN), I64(u + 1), I64(0), I64(0))
    return 0


@kernel
def evaluate(st: np.ndarray, geo: np.ndarray, player: int) -> float:
    """Territory share (0.7) and troop share (0.3) lead of ``player``, clipped to ±0.99; exact once over."""
    h = header(st, geo)
    phase = st[h + PHASE]
    if phase == OVER:
        w = st[h + WINNER]
        return 0.0 if w < 0 else (1.0 if w == player else -1.0)
    if phase == INVASION:
        return 0.0
    t_me = territory(st, geo, I64(player))
    t_op = territory(st, geo, I64(1 - player))
    n_me = living(st, geo, I64(player))
    n_op = living(st, geo, I64(1 - player))
    v = 0.0
    if t_me + t_op:
        v += 0.7 * (t_me - t_op) / (t_me + t_op)
    if n_me + n_op:
        v += 0.3 * (n_me - n_op) / (n_me + n_op)
    return max(-0.99, min(0.99, v))


@kernel
def rollout(st: np.ndarray, geo: np.ndarray, rs: np.ndarray, cutoff: int) -> int:
    """Random joint turns on ``st`` until the game ends or ``cutoff`` turns (``< 0``: no limit); returns the turns."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    h = sq + 2 * t
    acts = np.empty(2 * t, np.int64)
    one = np.empty(t, np.int64)
    turns = 0
    while st[h + PHASE] != OVER and (cutoff < 0 or turns < cutoff):
        n0 = random_step(st, geo, I64(0), rs, one)
        for i in range(n0):  # loops, not slice assignments (module docstring)
            acts[i] = one[i]
        n1 = random_step(st, geo, I64(1), rs, one)
        for i in range(n1):
            acts[n0 + i] = one[i]
        apply(st, geo, acts[: n0 + n1], I64(n0))
        turns += 1
    return turns


@kernel
def rollouts(st: np.ndarray, geo: np.ndarray, rs: np.ndarray, cutoff: int, out: np.ndarray) -> int:
    """``len(out)`` random games from ``st`` (left unchanged), each to the end or ``cutoff`` turns;
    ``out[j]`` is Black's value (±1/0 at the end, else :func:`evaluate`).  Returns the turns played."""
    work = np.empty_like(st)
    total = 0
    for j in range(out.shape[0]):
        for i in range(st.shape[0]):  # a loop, not work[:] = st (module docstring)
            work[i] = st[i]
        total += rollout(work, geo, rs, I64(cutoff))
        out[j] = evaluate(work, geo, I64(0))
    return total
