# mypy: disable-error-code="no-any-return, return-value, arg-type"
"""Nibble's observation planes for the research adapters (docs/research.md lists them).

The planes are written by one compiled kernel, :func:`write_planes`, which both the
adapters (:meth:`~tessera.core.observation.ObservationSpec.observe`, one position) and the
vector engine (:mod:`tessera.vector`, ``B`` positions a call) use; it reads the position
array of :mod:`tessera.games.nibble.kernels` (Nibble hides nothing, so every player's view
is the whole position).

>>> import tessera
>>> game = tessera.load_game("nibble")
>>> spec = game.observation_spec()
>>> planes = spec.observe(game.new_initial_state(seed=0), 0)
>>> planes.shape, float(planes[-1].max()), float(planes[-2].sum())
((31, 9, 9), 1.0, 81.0)
"""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import hexagon, square
from tessera.core.kernels import kernel
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes
from tessera.games.nibble import kernels as _k
from tessera.games.nibble.game import NibbleGame, NibbleState


@kernel
def write_planes(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    player: int,
    obs: np.ndarray,
    frac: float,
) -> None:
    """Write the planes of position ``s`` seen by ``player`` into ``obs`` (flat ``C·H·W``).

    ``obs`` is ``float32`` with ``frac = 1.0`` (the adapters' values), or ``uint8`` with ``frac = 255.0``
    (the vector engine's ``uint8`` planes: the fractional planes as ``round(255·x)``, the same bytes as
    :func:`tessera.core.kits.vector.pack_row` makes of the ``float32`` ones).  ``pos[i]``: where cell
    ``i`` (the kernels' cell index) sits in a flat plane; ``board``: 1 on the board's cells (flat
    ``H·W``, in the planes' type: ``float32`` as :func:`layout_tables` gives it, ``uint8`` for byte planes)
    — both from :func:`layout_tables`."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    h = k + 2 * n
    hw = board.shape[0]
    place = np.empty(n, np.int64)  # table position of each colour
    for i in range(n):
        place[deal[i]] = i
    obs[:] = 0
    taking = s[h + _k.TAKING]
    e = (3 * n + 1) * hw
    # A value is converted to the planes' type once, where it is first written, and copied from there:
    # a conversion per cell (from ``float32`` to bytes) was most of the writing (910 → 322 ns a position).
    obs[e] = 1 if s[h + _k.OVER] == 0 and s[h + _k.TO_MOVE] == player else 0
    to_move = obs[e]
    for i in range(hw):
        v = board[i]
        obs[e + i] = v
        obs[e + hw + i] = v
        obs[e + 2 * hw + i] = to_move
    for i in range(k):
        c = s[i]
        if c >= 0:
            q = pos[i]
            obs[place[c] * hw + q] = 1
            obs[e + q] = 0
            if c == taking:
                obs[3 * n * hw + q] = 1
    _count_planes(s, deal, k, n, hw, player, obs, frac)


@kernel
def _count_planes(
    s: np.ndarray, deal: np.ndarray, k: int, n: int, hw: int, player: int, obs: np.ndarray, frac: float
) -> None:
    """The ``2n`` constant planes of the blocks each player took of each colour (table order), seen by
    ``player``: each value converted to the planes' type once, in its plane's first cell, and copied."""
    scale = np.float32(frac)
    half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)  # rounding to bytes
    for t in range(n):
        c = deal[t]
        a0 = (n + t) * hw
        a1 = (2 * n + t) * hw
        obs[a0] = np.float32(s[k + player * n + c] / n) * scale + half
        obs[a1] = np.float32(s[k + (1 - player) * n + c] / n) * scale + half
        mine = obs[a0]
        theirs = obs[a1]
        obs[a0 : a0 + hw] = mine
        obs[a1 : a1 + hw] = theirs


@kernel
def update_planes(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    action: int,
    colour: int,
    mover: int,
    taking_before: int,
    obs: np.ndarray,
    frac: float,
) -> None:
    """Bring planes written by :func:`write_planes` for the player to move up to date after one step, in
    place: ``obs`` held the planes of the position before the step, seen by its player to move
    ``mover``; ``s`` is the position after ``action`` (a block of ``colour``, or ``end``), which is not
    over, and ``taking_before`` the colour that was being taken before it.  Afterwards ``obs`` holds
    what :func:`write_planes` writes for ``s`` and its player to move (``tests/vector`` checks it step
    by step).  Only what a step changes is written: the block's cell, the colour being taken, the
    mover's count of that colour, and after a turn the two players' counts (the vector engine's step
    at B = 1,024: 991 → about 820–900 ns a game against :func:`write_planes` every step, on a busy
    machine, 2026-11-30)."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    h = k + 2 * n
    hw = board.shape[0]
    player = s[h + _k.TO_MOVE]
    taking = s[h + _k.TAKING]
    scale = np.float32(frac)
    half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)  # rounding to bytes
    e = (3 * n + 1) * hw
    t0 = 3 * n * hw  # the plane of the colour being taken
    if action < k:  # the block on cell ``action`` taken
        q = pos[action]
        t = 0
        while deal[t] != colour:
            t += 1
        obs[t * hw + q] = 0
        obs[e + q] = 1
        obs[t0 + q] = 0
        if player == mover:  # the turn goes on: the mover's count of the colour changed
            a0 = (n + t) * hw
            obs[a0] = np.float32(s[k + mover * n + colour] / n) * scale + half
            v = obs[a0]
            obs[a0 : a0 + hw] = v
    if taking != taking_before:
        if taking_before >= 0:
            obs[t0 : t0 + hw] = 0
        if taking >= 0:
            base = 4 * n + taking * n
            for j in range(n):
                i = deal[base + j]
                if i < 0:
                    break
                if s[i] == taking:
                    obs[t0 + pos[i]] = 1
    if player != mover:  # a new turn: the counts seen from the other side
        _count_planes(s, deal, k, n, hw, player, obs, frac)


def layout_tables(game: NibbleGame, lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """``pos`` (each kernel cell's place in a flat plane) and ``board`` (flat board mask) for :func:`write_planes`."""
    labels = [game.grid.label(c) for c in game.cells]
    pos = np.array([lay.index[lab][0] * lay.width + lay.index[lab][1] for lab in labels], np.int64)
    return pos, lay.mask.reshape(-1).astype(np.float32)


def observation_spec(game: NibbleGame) -> ObservationSpec:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    p = game.params
    ncol = int(p["colors"])
    lay = Layout(hexagon(8) if p["board"] == "hex" else square(ncol))
    planes = [f"blocks of the colour at table position {i}" for i in range(ncol)]
    planes += [f"my blocks taken of the colour at table position {i} / colors (constant)" for i in range(ncol)]
    planes += [f"opponent's blocks taken of the colour at table position {i} / colors (constant)" for i in range(ncol)]
    planes += [
        "blocks of the colour being taken this turn",
        "empty cells",
        "on the board",
        "I am to move (constant)",
    ]
    pos, board = layout_tables(game, lay)
    shape = (len(planes), lay.height, lay.width)

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        assert isinstance(st, NibbleState)
        out = np.empty(shape, np.float32)
        write_planes(st.s, st._deal, game.geo, pos, board, player, out.reshape(-1), 1.0)
        return out

    return ObservationSpec(planes, lay, encode, game)


__all__ = ["layout_tables", "observation_spec", "update_planes", "write_planes"]
