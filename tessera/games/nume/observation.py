# mypy: disable-error-code="no-any-return, return-value, arg-type"
"""Nume's observation planes for the research adapters (docs/research.md lists them).

The planes are written by one compiled kernel, :func:`write_planes`, which both the
adapters (:meth:`~tessera.core.observation.ObservationSpec.observe`, one position) and the
vector engine (:mod:`tessera.vector`, ``B`` boards a call) use; it reads the board array of
:mod:`tessera.games.nume.kernels` (Nume hides nothing: every player's view is the position).

>>> import tessera
>>> game = tessera.load_game("nume(size=3)")
>>> st = game.new_initial_state()
>>> st.apply_action(st.legal_actions()[0])
>>> planes = game.observation_spec().observe(st, 1)
>>> planes.shape, float(planes[1].sum()), float(planes[8].max())
((10, 7, 7), 1.0, 1.0)
"""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import alternating_hexagon, square
from tessera.core.kernels import kernel
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes
from tessera.games.nume import kernels as _k
from tessera.games.nume.game import NumeGame, NumeState

BIDDING = -1
"""``komi_plane`` of :func:`write_planes` while the komi or the colours are not settled yet."""


@kernel
def write_planes(
    a: np.ndarray,
    n: int,
    pos: np.ndarray,
    board: np.ndarray,
    mine: int,
    komi_plane: int,
    komi: float,
    to_move: bool,
    obs: np.ndarray,
    frac: float,
) -> None:
    """Write the planes of board ``a`` (``n`` cells) seen by the holder of colour ``mine`` into ``obs``.

    ``obs`` is flat (``C·H·W``): ``float32`` with ``frac = 1.0`` (the adapters' values), or ``uint8`` with
    ``frac = 255.0`` (the vector engine's ``uint8`` planes: the fractional planes as ``round(255·x)``, the
    same bytes as :func:`tessera.core.kits.vector.pack_row` makes of the ``float32`` ones); ``pos[c]``:
    where cell ``c`` sits in a flat plane, ``board``: 1 on the board's cells, in the planes' type (both
    from :func:`layout_tables`); ``komi_plane``: 6 (the observer receives the komi), 7 (the opponent
    does) or :data:`BIDDING`; ``to_move``: the observer is to move."""
    hw = board.shape[0]
    cells = np.float32(n)
    scale = np.float32(frac)
    half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)  # rounding to bytes
    obs[:] = 0
    for i in range(hw):
        obs[5 * hw + i] = board[i]
    for c in range(n):
        p = pos[c]
        st = a[c]
        if st < 0:
            obs[4 * hw + p] = 1
        else:
            obs[(0 if st == mine else 1) * hw + p] = 1
            num = a[_k.NUM * n + c]
            if num >= 0:
                obs[2 * hw + p] = np.float32(num / n) * scale + half
                obs[3 * hw + p] = 1
    # komi / (komi + cells): in [0, 1) for every komi (a komi may exceed the cells: up to
    # 10,000, or any bid), increasing, and close to komi / cells for a komi small beside the board.
    # A constant plane's value is converted to the planes' type once, in its first cell, and copied
    # from there (a conversion per cell was most of the planes' cost in Nibble and Nymbat).
    if komi_plane >= 0:
        q = komi_plane * hw
        value = np.float32(komi / (komi + cells)) if komi > 0 else np.float32(0.0)
        obs[q] = value * scale + half
    else:
        q = 9 * hw
        obs[q] = 1
    v = obs[q]
    obs[q : q + hw] = v
    if to_move:
        obs[8 * hw : 9 * hw] = 1


def layout_tables(game: NumeGame, lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """``pos`` (each cell's place in a flat plane) and ``board`` (flat board mask) for :func:`write_planes`."""
    pos = np.array([lay.index[lab][0] * lay.width + lay.index[lab][1] for lab in game.labels], np.int64)
    return pos, lay.mask.reshape(-1).astype(np.float32)


def observation_spec(game: NumeGame) -> ObservationSpec:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    p = game.params
    grid = square(p["size"]) if p["variant"] == "square" else alternating_hexagon(p["size"])
    lay = Layout(grid)
    planes = [
        "my stones",
        "opponent's stones",
        "written number / cells, on numbered stones",
        "numbered stones (either colour)",
        "empty cells",
        "on the board",
        "komi I receive / (komi + cells) (constant)",
        "komi the opponent receives / (komi + cells) (constant)",
        "I am to move (constant)",
        "komi bidding still going on (constant)",
    ]
    pos, board = layout_tables(game, lay)
    shape = (len(planes), lay.height, lay.width)
    n = game.cells

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        assert isinstance(st, NumeState)
        colors = st._colors
        mine = colors[player] if colors is not None else player
        if st._komi is not None and colors is not None:
            komi_plane, komi = (6 if st._komi_to == mine else 7), float(st._komi)
        else:
            komi_plane, komi = BIDDING, 0.0
        out = np.empty(shape, np.float32)
        write_planes(st._a, n, pos, board, mine, komi_plane, komi, st.current_player() == player, out.reshape(-1), 1.0)
        return out

    return ObservationSpec(planes, lay, encode, game)


__all__ = ["BIDDING", "layout_tables", "observation_spec", "write_planes"]
