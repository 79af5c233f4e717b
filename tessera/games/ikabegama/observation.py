# mypy: disable-error-code="no-any-return, return-value, arg-type"
"""Ikabegamá's observation planes for the research adapters (docs/research.md lists them).

The planes are written by one compiled kernel, :func:`write_planes`, which both the
adapters (:meth:`~tessera.core.observation.ObservationSpec.observe`, one position) and the
vector engine (:mod:`tessera.vector`, ``B`` positions a call) use; it reads the state array
of :mod:`tessera.games.ikabegama.kernels` (nothing is hidden: every view is the position).

>>> import tessera
>>> game = tessera.load_game("ikabegama(board=hexhex:4)")
>>> planes = game.observation_spec().observe(game.new_initial_state(), 0)
>>> planes.shape, float(planes[0].sum()), float(planes[5].max())
((8, 7, 7), 1.0, 1.0)
"""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.kernels import kernel
from tessera.core.observation import AxialLayout, Decisions, ObservationSpec, Planes
from tessera.games.ikabegama import kernels as _k
from tessera.games.ikabegama.game import IkabegamaGame, IkabegamaState


@kernel
def write_planes(
    a: np.ndarray, k: np.ndarray, hpos: np.ndarray, board: np.ndarray, player: int, to_move: bool, obs: np.ndarray
) -> None:
    """Write the planes of state ``a`` seen by ``player`` into ``obs`` (flat ``C·H·W``, ``float32``).

    ``k``: the game's kernel constants; ``hpos[h]``: where hex ``h`` of the game's window sits in a
    flat plane, ``board``: 1.0 on the board's hexes (both from :func:`layout_tables`);
    ``to_move``: the observer is to move."""
    hw = board.shape[0]
    own = _k.HEADER + a[_k.CAP]
    for i in range(obs.shape[0]):
        obs[i] = 0.0
    for i in range(a[_k.NTOK]):
        q = hpos[a[_k.HEADER + i]]
        obs[(0 if a[own + i] == player else 1) * hw + q] = 1.0
    obs[2 * hw + hpos[k[_k.K_NEST0 + player]]] = 1.0
    obs[3 * hw + hpos[k[_k.K_NEST0 + 1 - player]]] = 1.0
    ply = np.float32(a[_k.PLY] / np.float64(k[_k.K_MAXPLY]))
    passed = np.float32(1.0 if a[_k.PASSES] else 0.0)
    mover = np.float32(1.0 if to_move else 0.0)
    for i in range(hw):
        obs[4 * hw + i] = board[i]
        obs[5 * hw + i] = mover
        obs[6 * hw + i] = ply
        obs[7 * hw + i] = passed


def layout_tables(game: IkabegamaGame, lay: AxialLayout) -> tuple[np.ndarray, np.ndarray]:
    """``hpos`` (each window hex's place in a flat plane, −1 off the layout) and ``board`` (flat board
    mask) for :func:`write_planes`."""
    w = game.window
    hpos = np.full(w.size, -1, np.int64)
    for q, r in lay.hexes:
        row, col = lay.index[f"{q},{r}"]
        hpos[w.id(q, r)] = row * lay.width + col
    return hpos, lay.mask.reshape(-1).astype(np.float32)


def observation_spec(game: IkabegamaGame) -> ObservationSpec:
    """The planes over the game's board, a regular hexagon (``board="hexhex:N"``): the unbounded
    plane has no planes (the adapters play it on a window, a ``hexhex`` board around the nests)."""
    if game.hexhex is None:
        raise ValueError("ikabegama: observation planes need a bounded board (board='hexhex:N')")
    lay = AxialLayout(game.center, game.hexhex)
    planes = [
        "my tokens",
        "opponent's tokens",
        "my nest",
        "opponent's nest",
        "on the board (the window)",
        "I am to move (constant)",
        "plies played / max_plies (constant)",
        "the last ply was a pass (constant)",
    ]
    hpos, board = layout_tables(game, lay)
    shape = (len(planes), lay.height, lay.width)

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        assert isinstance(st, IkabegamaState)
        out = np.empty(shape, np.float32)
        write_planes(st._a, game.kconst, hpos, board, player, st.current_player() == player, out.reshape(-1))
        return out

    return ObservationSpec(planes, lay, encode, game)


__all__ = ["layout_tables", "observation_spec", "write_planes"]
