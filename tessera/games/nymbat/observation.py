# mypy: disable-error-code="no-any-return, return-value, arg-type"
"""Nymbat's observation planes for the research adapters (docs/research.md lists them).

The planes are written by one compiled kernel, :func:`write_planes`, which both the
adapters (:meth:`~tessera.core.observation.ObservationSpec.observe`, one position) and the
vector engine (:mod:`tessera.vector`, ``B`` positions a call) use; it reads the position
array of :mod:`tessera.games.nymbat.kernels` (nothing is hidden: every view is the position).

>>> import tessera
>>> game = tessera.load_game("nymbat")
>>> planes = game.observation_spec().observe(game.new_initial_state(), 1)
>>> planes.shape, float(planes[-1].max()), float(planes[-2].sum())
((29, 15, 15), 0.0, 169.0)
"""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import hexagon
from tessera.core.kernels import kernel
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes
from tessera.games.nymbat import kernels as _k
from tessera.games.nymbat.game import LABEL, NymbatGame, NymbatState


@kernel
def write_planes(
    s: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    player: int,
    to_move: bool,
    obs: np.ndarray,
    frac: float,
) -> None:
    """Write the planes of position ``s`` seen by ``player`` into ``obs`` (flat ``C·H·W``).

    ``obs`` is ``float32`` with ``frac = 1.0`` (the adapters' values), or ``uint8`` with ``frac = 255.0``
    (the vector engine's ``uint8`` planes: the fractional planes as ``round(255·x)``, the bytes
    :func:`tessera.core.kits.vector.pack_row` makes of the ``float32`` ones).  ``pos[c]``: where cell
    ``c`` sits in a flat plane, ``board``: 1.0 on the board's cells (both from :func:`layout_tables`);
    ``to_move``: the observer is to move."""
    scale = np.float32(frac)
    half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)  # rounding to bytes
    hw = board.shape[0]
    n = geo[_k.N, _k.G_PLAYERS]
    reserve = np.float64(geo[_k.N, _k.G_RESERVE])
    period = geo[_k.N, _k.G_DELAY_PERIOD]
    h = _k.H
    # Each plane is written once: the pieces' planes and the sparse ones cleared and their cells set, the
    # constant planes filled with their value (0 included).
    zero = np.float32(0.0)
    one = np.float32(1.0)
    obs[: 6 * n * hw] = 0
    for c in range(_k.N):
        owner = s[c]
        if owner >= 0:
            rel = owner - player
            rel += n if rel < 0 else 0
            obs[(rel * 6 + s[_k.NUM + c] - 1) * hw + pos[c]] = 1
    # A constant plane's value is converted to the planes' type once, in its first cell, and copied
    # from there: a conversion per cell (from ``float32`` to bytes) cost more than the copies.
    base = 6 * n
    for rel in range(n):
        q = (player + rel) % n
        o = (base + 3 * rel) * hw
        _fill(obs, o, hw, np.float32(s[h + _k.RES + q] / reserve) * scale + half)
        _fill(obs, o + hw, hw, np.float32((s[h + _k.DEL + q] % period) / np.float64(period)) * scale + half)
        _fill(obs, o + 2 * hw, hw, one if s[h + _k.FIRST + q] else zero)
    k = base + 3 * n
    phase = s[h + _k.PHASE]
    moving = phase == _k.MOVE
    brk = s[h + _k.BRK_CELL] if moving else -1
    _fill(obs, k * hw, hw, one if phase == _k.BRING else zero)
    _fill(obs, (k + 1) * hw, hw, one if moving else zero)
    _fill(obs, (k + 2) * hw, hw, one if phase == _k.PENALTY else zero)
    obs[(k + 3) * hw : (k + 5) * hw] = 0
    _fill(obs, (k + 5) * hw, hw, np.float32(s[h + _k.SPEED] / 6.0) * scale + half if moving else zero)
    obs[(k + 6) * hw : (k + 7) * hw] = 0
    _fill(obs, (k + 7) * hw, hw, np.float32(s[h + _k.BRK_BUDGET] / 6.0) * scale + half if brk >= 0 else zero)
    _fill(obs, (k + 8) * hw, hw, np.float32(s[h + _k.PLACED] / reserve) * scale + half if phase == _k.BRING else zero)
    if moving:
        _flag_planes(s, pos, hw, k, obs)
        if brk >= 0:
            obs[(k + 6) * hw + pos[brk]] = 1
    obs[(k + 9) * hw : (k + 10) * hw] = board
    _fill(obs, (k + 10) * hw, hw, one if to_move else zero)


@kernel
def _constants(s: np.ndarray, h: int, geo: np.ndarray, player: int, frac: float, vals: np.ndarray) -> None:
    """The value of each constant plane of :func:`write_planes` for the position whose header starts at
    ``s[h]`` seen by ``player``, as :func:`write_planes` computes it before converting it to the planes'
    type (0 for a plane it leaves empty), into ``vals[plane]``; −1 for the planes that are not constant
    (pieces, flags, the breakthrough hex, the board)."""
    scale = np.float32(frac)
    half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)
    zero = np.float32(0.0)
    one = np.float32(1.0)
    n = geo[_k.N, _k.G_PLAYERS]
    reserve = np.float64(geo[_k.N, _k.G_RESERVE])
    period = geo[_k.N, _k.G_DELAY_PERIOD]
    for i in range(vals.shape[0]):
        vals[i] = -1.0
    base = 6 * n
    for rel in range(n):
        q = (player + rel) % n
        o = base + 3 * rel
        vals[o] = np.float32(s[h + _k.RES + q] / reserve) * scale + half
        vals[o + 1] = np.float32((s[h + _k.DEL + q] % period) / np.float64(period)) * scale + half
        vals[o + 2] = one if s[h + _k.FIRST + q] else zero
    k = base + 3 * n
    phase = s[h + _k.PHASE]
    vals[k] = one if phase == _k.BRING else zero
    vals[k + 1] = one if phase == _k.MOVE else zero
    vals[k + 2] = one if phase == _k.PENALTY else zero
    vals[k + 5] = np.float32(s[h + _k.SPEED] / 6.0) * scale + half if phase == _k.MOVE else zero
    brk = phase == _k.MOVE and s[h + _k.BRK_CELL] >= 0
    vals[k + 7] = np.float32(s[h + _k.BRK_BUDGET] / 6.0) * scale + half if brk else zero
    vals[k + 8] = np.float32(s[h + _k.PLACED] / reserve) * scale + half if phase == _k.BRING else zero
    vals[k + 10] = one if s[h + _k.OVER] == 0 and s[h + _k.TO_MOVE] == player else zero


@kernel
def _piece_plane(owner: int, num: int, observer: int, n: int) -> int:
    """The plane of a piece (``owner``, ``num``) seen by ``observer`` (−1: no piece)."""
    if owner < 0:
        return -1
    r = owner - observer
    return (r + n if r < 0 else r) * 6 + num - 1


@kernel
def update_planes(
    head: np.ndarray,
    cells: np.ndarray,
    before: np.ndarray,
    s: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    obs: np.ndarray,
    frac: float,
    old: np.ndarray,
    new: np.ndarray,
) -> None:
    """Bring ``obs`` (the planes of the position before a step, for its player to move) up to date for
    position ``s`` after the step (the game not over, the same player to move), in place: the planes
    :func:`write_planes` would write whole, but only the cells and constant planes that changed written.

    A step changes pieces on the cells it names only (a move's two cells, or the one cell of a piece
    brought in, removed or lost): ``cells[0:2]`` (−1: none), whose owners, numbers and flags before the
    step are ``before[0:2]``, ``before[2:4]`` and ``before[4:6]``; ``head`` is the header (``H`` …
    ``H + 31``) before the step.
    Within the move phase the group's flags change on the step's cells only; entering it they are
    written from ``s``, leaving it cleared.  ``old`` and ``new``: scratch rows of one ``float32`` per plane."""
    hw = obs.shape[0] // old.shape[0]
    n = geo[_k.N, _k.G_PLAYERS]
    h = _k.H
    was = head[_k.TO_MOVE]
    now = s[h + _k.TO_MOVE]  # the caller writes the planes whole for a new player to move (``was != now``)
    for j in range(2):
        c = cells[j]
        if c >= 0:
            i0 = _piece_plane(np.int64(before[j]), np.int64(before[2 + j]), np.int64(now), np.int64(n))
            i1 = _piece_plane(np.int64(s[c]), np.int64(s[_k.NUM + c]), np.int64(now), np.int64(n))
            if i0 != i1:
                if i0 >= 0:
                    obs[i0 * hw + pos[c]] = 0
                if i1 >= 0:
                    obs[i1 * hw + pos[c]] = 1
    k = 9 * n
    m0 = head[_k.PHASE] == _k.MOVE
    m1 = s[h + _k.PHASE] == _k.MOVE
    if m0 and m1:  # the group's flags: changed on the step's cells only
        for j in range(2):
            c = cells[j]
            if c >= 0:
                f0 = before[4 + j]
                f1 = s[_k.FLAG + c]
                if (f0 ^ f1) & _k.UNMOVED:
                    obs[(k + 3) * hw + pos[c]] = 1 if f1 & _k.UNMOVED else 0
                if (f0 ^ f1) & _k.TRACKED:
                    obs[(k + 4) * hw + pos[c]] = 1 if f1 & _k.TRACKED else 0
    elif m0:  # the move phase is over: its flags planes cleared
        _fill(obs, (k + 3) * hw, 2 * hw, np.float32(0.0))
    elif m1:  # the group chosen: its flags written
        _flag_planes(s, pos, hw, k, obs)
    if m0 or m1:  # the breakthrough hex
        b0 = head[_k.BRK_CELL] if m0 else -1
        b1 = s[h + _k.BRK_CELL] if m1 else -1
        if b0 != b1:
            if b0 >= 0:
                obs[(k + 6) * hw + pos[b0]] = 0
            if b1 >= 0:
                obs[(k + 6) * hw + pos[b1]] = 1
    same = True  # the header fields the constant planes are computed from (:func:`_constants`)
    for i in (_k.TO_MOVE, _k.PHASE, _k.PLACED, _k.SPEED, _k.BRK_CELL, _k.BRK_BUDGET, _k.OVER):
        same &= head[i] == s[h + i]
    for i in range(_k.RES, _k.FIRST + 4):
        same &= head[i] == s[h + i]
    if same:
        return
    _constants(head, np.int64(0), geo, np.int64(was), frac, old)
    _constants(s, np.int64(h), geo, np.int64(now), frac, new)
    for i in range(new.shape[0]):
        if new[i] >= 0 and new[i] != old[i]:
            _fill(obs, i * hw, hw, new[i])


@kernel
def _flag_planes(s: np.ndarray, pos: np.ndarray, hw: int, k: int, obs: np.ndarray) -> None:
    """Mark the pieces not yet moved this turn and the tracked ones on their two planes (``k + 3``,
    ``k + 4``: planes already cleared)."""
    for c in range(_k.N):
        fl = s[_k.FLAG + c]
        if fl & _k.UNMOVED:
            obs[(k + 3) * hw + pos[c]] = 1
        if fl & _k.TRACKED:
            obs[(k + 4) * hw + pos[c]] = 1


@kernel
def _fill(obs: np.ndarray, start: int, count: int, value: np.float32) -> None:
    """``obs[start : start + count] = value``, ``value`` converted to the planes' type once."""
    obs[start] = value
    v = obs[start]
    obs[start : start + count] = v


def layout_tables(lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """``pos`` (each cell's place in a flat plane) and ``board`` (flat board mask) for :func:`write_planes`."""
    pos = np.array([lay.index[lab][0] * lay.width + lay.index[lab][1] for lab in LABEL], np.int64)
    return pos, lay.mask.reshape(-1).astype(np.float32)


def observation_spec(game: NymbatGame) -> ObservationSpec:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    lay = Layout(hexagon(8))
    n = game.num_players
    seats = ["me"] + (["the opponent"] if n == 2 else [f"the player {k} seat(s) after me" for k in range(1, n)])
    planes: list[str] = []
    for who in seats:
        planes += [f"pieces of {who} numbered {k}" for k in range(1, 7)]
    for who in seats:
        planes += [
            f"reserve of {who} / reserve parameter (constant)",
            f"delays of {who} mod delay_period / delay_period (constant)",
            f"{who}: first turn played (constant)",
        ]
    planes += [
        "turn phase: bringing in reserves (constant)",
        "turn phase: moving a group (constant)",
        "turn phase: paying a penalty by losing a piece (constant)",
        "move phase: pieces of the group still to move",
        "move phase: pieces of the group",
        "move phase: the group's speed / 6 (constant)",
        "move phase: breakthrough hex",
        "move phase: breakthrough budget / 6 (constant)",
        "bring phase: placed this turn / reserve parameter (constant)",
        "on the board",
        "I am to move (constant)",
    ]

    pos, board = layout_tables(lay)
    shape = (len(planes), lay.height, lay.width)

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        assert isinstance(st, NymbatState)
        out = np.empty(shape, np.float32)
        write_planes(st.s, game.geo, pos, board, player, st.current_player() == player, out.reshape(-1), 1.0)
        return out

    return ObservationSpec(planes, lay, encode, game)


__all__ = ["layout_tables", "observation_spec", "update_planes", "write_planes"]
