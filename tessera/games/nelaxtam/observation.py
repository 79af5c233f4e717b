# mypy: disable-error-code="no-any-return, return-value, arg-type"
"""Nelaxtam's observation planes for the research adapters (docs/research.md lists them).

The planes are written by one compiled kernel, :func:`write_planes`, which both the
adapters (:meth:`~tessera.core.observation.ObservationSpec.observe`, one position) and the
vector engine (:mod:`tessera.vector`, ``B`` games a call) use.  It reads the position array
of :mod:`tessera.games.nelaxtam.kernels` of the observer's own :meth:`State.view` — which
holds no sealed order of the other player — and the observer's own decisions of the turn
(:class:`~tessera.core.observation.Decisions`: the adapters split a turn into one decision
per troop); the last three planes come from those decisions only.

>>> import tessera
>>> game = tessera.load_game("nelaxtam(size=8,variant=quiet)")
>>> planes = game.observation_spec().observe(game.new_initial_state(), 0)
>>> planes.shape, float(planes[0].sum()), float(planes[-5].max())
((19, 8, 8), 32.0, 1.0)
"""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import square
from tessera.core.kernels import kernel
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes
from tessera.games.nelaxtam import kernels as _k
from tessera.games.nelaxtam.game import NelaxtamGame, NelaxtamState


@kernel
def token_end(st: np.ndarray, geo: np.ndarray, p: int, a: int) -> int:
    """The square a token ``a`` of ``p`` ends on: a move's or a landing's square, else the troop's own."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    blk = geo[sq, 6]
    local = a % blk
    if 1 <= local <= sq:
        return local - 1
    if local > 2 * sq:
        return local - 1 - 2 * sq
    return np.int64(st[sq + p * t + a // blk])


@kernel
def write_planes(
    st: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    player: int,
    troop: int,
    pending: np.ndarray,
    n_pending: int,
    obs: np.ndarray,
    frac: float,
) -> None:
    """Write the planes of position ``st`` seen by ``player`` into ``obs`` (flat ``C·H·W``).

    ``obs`` is ``float32`` with ``frac = 1.0`` (the adapters' values), or ``uint8`` with ``frac = 255.0``
    (the vector engine's ``uint8`` planes: the fractional plane as ``round(255·x)``, the same bytes as
    :func:`tessera.core.kits.vector.pack_row` makes of the ``float32`` ones).  ``pos[c]``: where square
    ``c`` sits in a flat plane (:func:`layout_tables`); ``troop``: the troop (from 0) ``player`` is
    deciding for now, −1 if none; ``pending[:n_pending]``: his tokens chosen so far this turn."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    blk = geo[sq, 6]
    h = sq + 2 * t
    p = player
    obs[:] = 0
    for c in range(sq):
        if st[c] == 0:
            obs[2 * sq + pos[c]] = 1
        elif geo[c, _k.COLOUR] == p:
            obs[pos[c]] = 1
        else:
            obs[sq + pos[c]] = 1
    for i in range(t):
        mine = st[sq + p * t + i]
        if mine >= 0:
            obs[(3 + i) * sq + pos[mine]] = 1
        theirs = st[sq + (1 - p) * t + i]
        if theirs >= 0:
            obs[(3 + t + i) * sq + pos[theirs]] = 1
    k = 3 + 2 * t
    for c in range(sq):
        obs[k * sq + pos[c]] = geo[c, _k.EDGE]
    # A constant plane's value is converted to the planes' type once, in its first cell, and copied.
    if st[h + _k.PHASE] == _k.INVASION:
        obs[(k + 1) * sq] = 1
        on = obs[(k + 1) * sq]
        obs[(k + 1) * sq : (k + 2) * sq] = on
    scale = np.float32(frac)
    half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)  # rounding to bytes
    a0 = (k + 2) * sq
    obs[a0] = np.float32(st[h + _k.IDLE] / np.float64(geo[sq, 4])) * scale + half
    idle = obs[a0]
    obs[a0 : a0 + sq] = idle
    if troop >= 0 and st[sq + p * t + troop] >= 0:
        obs[(k + 3) * sq + pos[st[sq + p * t + troop]]] = 1
    for j in range(n_pending):
        a = pending[j]
        e = token_end(st, geo, np.int64(p), np.int64(a))
        if e >= 0:
            obs[(k + 4) * sq + pos[e]] = 1
        local = a % blk
        if sq < local <= 2 * sq:
            obs[(k + 5) * sq + pos[local - 1 - sq]] = 1


@kernel
def update_planes(
    st: np.ndarray, geo: np.ndarray, pos: np.ndarray, shown: np.ndarray, view: int, player: int, obs: np.ndarray,
    frac: float,
) -> None:  # fmt: skip
    """Turn the planes but the last three (:func:`write_planes`, ``troop = −1``, no pending tokens) of
    position ``shown`` seen by ``view`` into those of ``st`` seen by ``player``, in place: the two
    territory planes swapped if the observer changes, then only the squares, troops and constant planes
    that differ rewritten; ``shown`` becomes a copy of ``st``.  (The vector engine's planes between
    decisions; ``tests/vector/test_agreement.py`` compares them with the adapters'.)"""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    h = sq + 2 * t
    p = player
    if view != p:
        for i in range(sq):
            x = obs[i]
            obs[i] = obs[sq + i]
            obs[sq + i] = x
    for c in range(sq):
        if st[c] != shown[c]:
            q = pos[c]
            obs[q] = 0
            obs[sq + q] = 0
            obs[2 * sq + q] = 0
            if st[c] == 0:
                obs[2 * sq + q] = 1
            elif geo[c, _k.COLOUR] == p:
                obs[q] = 1
            else:
                obs[sq + q] = 1
            shown[c] = st[c]
    for q in range(2):  # the troops: every old mark cleared, then the new ones set
        for i in range(t):
            old = shown[sq + q * t + i]
            if old >= 0 and (view != p or old != st[sq + q * t + i]):
                obs[(3 + i + (t if q != view else 0)) * sq + pos[old]] = 0
    for q in range(2):
        for i in range(t):
            new = st[sq + q * t + i]
            if new >= 0 and (view != p or new != shown[sq + q * t + i]):
                obs[(3 + i + (t if q != p else 0)) * sq + pos[new]] = 1
    for i in range(2 * t):
        shown[sq + i] = st[sq + i]
    k = 3 + 2 * t
    if (st[h + _k.PHASE] == _k.INVASION) != (shown[h + _k.PHASE] == _k.INVASION):
        obs[(k + 1) * sq] = 1 if st[h + _k.PHASE] == _k.INVASION else 0
        on = obs[(k + 1) * sq]
        obs[(k + 1) * sq : (k + 2) * sq] = on
    if st[h + _k.IDLE] != shown[h + _k.IDLE]:
        scale = np.float32(frac)
        half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)  # rounding to bytes, as write_planes
        a0 = (k + 2) * sq
        obs[a0] = np.float32(st[h + _k.IDLE] / np.float64(geo[sq, 4])) * scale + half
        idle = obs[a0]
        obs[a0 : a0 + sq] = idle
    for i in range(4):
        shown[h + i] = st[h + i]


@kernel
def write_decision(
    st: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    player: int,
    troop: int,
    pending: np.ndarray,
    first: int,
    n_pending: int,
    obs: np.ndarray,
    marks: np.ndarray,
    n_marks: int,
) -> int:
    """Set the last three planes of :func:`write_planes` for ``troop`` and the pending tokens
    ``pending[first:n_pending]`` (those before already set, their entries ``marks[1 : 1 + n_marks]``):
    ``marks[0]`` becomes the entry set for the troop (−1: none), the tokens' entries are appended (2 a
    token at most; ``marks`` has ``2T + 1``); returns how many the tokens have."""
    sq = geo.shape[0] - 1
    t = geo[sq, 2]
    blk = geo[sq, 6]
    p = player
    k = 3 + 2 * t
    marks[0] = -1
    if troop >= 0 and st[sq + p * t + troop] >= 0:
        marks[0] = (k + 3) * sq + pos[st[sq + p * t + troop]]
        obs[marks[0]] = 1
    n = n_marks
    for j in range(first, n_pending):
        a = pending[j]
        e = token_end(st, geo, np.int64(p), np.int64(a))
        if e >= 0:
            marks[1 + n] = (k + 4) * sq + pos[e]
            obs[marks[1 + n]] = 1
            n += 1
        local = a % blk
        if sq < local <= 2 * sq:
            marks[1 + n] = (k + 5) * sq + pos[local - 1 - sq]
            obs[marks[1 + n]] = 1
            n += 1
    return n


def layout_tables(game: NelaxtamGame, lay: Layout) -> np.ndarray:
    """``pos``: each square's place in a flat plane, for :func:`write_planes`."""
    return np.array([lay.index[lab][0] * lay.width + lay.index[lab][1] for lab in game.sq_label], np.int64)


def observation_spec(game: NelaxtamGame) -> ObservationSpec:
    """The planes over the square board; the last three come from the observer's own
    :class:`~tessera.core.observation.Decisions` (a turn split into one decision per troop)."""
    p = game.params
    size = int(p["size"])
    troops = int(p["troops"])
    lay = Layout(square(size))
    planes = ["my territory", "opponent's territory", "removed squares"]
    planes += [f"my troop {k}" for k in range(1, troops + 1)]
    planes += [f"opponent's troop {k}" for k in range(1, troops + 1)]
    planes += [
        "edge squares (where troops by sea land)",
        "invasion turn (constant)",
        "idle turns / max_idle_turns (constant)",
        "my troop deciding now",
        "end squares of my pending decisions this turn",
        "squares my pending decisions destroy this turn",
    ]
    pos = layout_tables(game, lay)
    shape = (len(planes), size, size)

    tokens = troops * int(game.geo[game.num_squares, 6])  # the token actions: troop × block

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        assert isinstance(st, NelaxtamState)
        # the kernel indexes the board with these: refuse what is not a troop or a token
        unit = decisions.unit
        if unit is not None and (not isinstance(unit, int | np.integer) or not 1 <= unit <= troops):
            raise ValueError(f"decisions.unit must be a troop 1 … {troops} or None, not {unit!r}")
        bad = [a for a in decisions.pending if not isinstance(a, int | np.integer) or not 0 <= a < tokens]
        if bad or len(decisions.pending) > troops:
            raise ValueError(
                f"decisions.pending must be at most {troops} troop tokens (actions 0 … {tokens - 1}), "
                f"not {list(decisions.pending)!r}"
            )
        out = np.empty(shape, np.float32)
        troop = -1 if unit is None else int(unit) - 1
        pending = np.array(decisions.pending, np.int64)
        write_planes(st.a, game.geo, pos, player, troop, pending, len(pending), out.reshape(-1), 1.0)
        return out

    return ObservationSpec(planes, lay, encode, game)


__all__ = ["layout_tables", "observation_spec", "token_end", "update_planes", "write_decision", "write_planes"]
