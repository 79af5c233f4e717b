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
) -> None:
    """Write the planes of board ``a`` (``n`` cells) seen by the holder of colour ``mine`` into ``obs``.

    ``obs`` is flat (``C·H·W``, ``float32``); ``pos[c]``: where cell ``c`` sits in a flat plane,
    ``board``: 1.0 on the board's cells (both from :func:`layout_tables`); ``komi_plane``: 6 (the
    observer receives the komi), 7 (the opponent does) or :data:`BIDDING`; ``to_move``: the
    observer is to move."""
    hw = board.shape[0]
    cells = np.float32(n)
    for i in range(obs.shape[0]):
        obs[i] = 0.0
    for i in range(hw):
        obs[5 * hw + i] = board[i]
    for c in range(n):
        p = pos[c]
        st = a[c]
        if st < 0:
            obs[4 * hw + p] = 1.0
        else:
            obs[(0 if st == mine else 1) * hw + p] = 1.0
            num = a[_k.NUM * n + c]
            if num >= 0:
                obs[2 * hw + p] = np.float32(num / n)
                obs[3 * hw + p] = 1.0
    # komi / (komi + cells): in [0, 1) for every komi (a komi may exceed the cells: up to
    # 10,000, or any bid), increasing, and close to komi / cells for a komi small beside the board
    value = np.float32(komi / (komi + cells)) if komi > 0 else np.float32(0.0)
    for i in range(hw):
        if komi_plane >= 0:
            obs[komi_plane * hw + i] = value
        else:
            obs[9 * hw + i] = 1.0
        if to_move:
            obs[8 * hw + i] = 1.0


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
        write_planes(st._a, n, pos, board, mine, komi_plane, komi, st.current_player() == player, out.reshape(-1))
        return out

    return ObservationSpec(planes, lay, encode, game)


__all__ = ["BIDDING", "layout_tables", "observation_spec", "write_planes"]
