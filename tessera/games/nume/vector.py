# mypy: disable-error-code="arg-type, return-value, assignment"
"""Nume's vector engine: ``B`` boards in one ``int32`` array, placed by Nume's own placement kernel.

Row ``b`` of ``boards`` is game ``b``'s board in the layout of :mod:`tessera.games.nume.kernels`;
``colour[b]`` is the colour to place, which is also the player to move (the vector engine plays
Nume without komi bidding: player 0 is Black).  Every step places one stone per game with
``apply`` (the placement kernel), scores a full board, puts an empty board in its place and writes the observation
planes and the mask of the player to move.

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 interleaved rounds, 2026-11-29
(``benchmarks/contract_engine.py``): Nume 4 422 ns, generic 11 458 ns (+159 %); Nume 6 6 694 → 20 902 ns (+212
%): the generic loop clears and rewrites the whole mask (thousands of actions) where this engine rewrites only
the cells whose status changed. ``tests/vector/test_contract_engine.py`` checks both engines play the same
games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.vector import Factoring, VectorGame, fresh_cache, obs_row, pack_row
from tessera.games.nume import kernels as nk
from tessera.games.nume.observation import layout_tables, write_planes

fresh_cache(
    __file__, "tessera.games.nume.kernels", "tessera.games.nume.observation"
)  # before any kernel here is loaded

_HEAD, _NUM = nk.HEAD, nk.NUM
_PRICE_B, _PRICE_W = nk.PRICE_B, nk.PRICE_W


@kernel
def _write(
    a: np.ndarray,
    nbr: np.ndarray,
    col: int,
    k_actions: int,
    pos: np.ndarray,
    board: np.ndarray,
    komi_col: int,
    komi_value: float,
    obs: np.ndarray,
    mask: np.ndarray,
    known: np.ndarray,
) -> None:
    """Write the planes (flat, ``C·H·W``: :func:`~tessera.games.nume.observation.write_planes`) and the
    mask of one board for the holder of ``col``.

    ``known[c]`` is the status of cell ``c`` the mask shows now (−1: not written yet): only the
    actions of the cells whose status changed are rewritten (the colour to place alternates,
    but far from the stones a cell starts a group for either colour)."""
    n = nbr.shape[0]
    write_planes(a, n, pos, board, col, 6 if komi_col == col else 7, komi_value, True, obs)
    for c in range(n):
        st = nk.status(a, nbr, np.int64(c), np.int64(col))
        if st == known[c]:
            continue
        known[c] = st
        first = c * k_actions
        mask[first] = st == nk.JOINS
        numbered = st == nk.STARTS
        for j in range(first + 1, first + k_actions):
            mask[j] = numbered


@kernel
def _reset(
    boards: np.ndarray,
    colour: np.ndarray,
    init: np.ndarray,
    nbr: np.ndarray,
    k_actions: int,
    pos: np.ndarray,
    board: np.ndarray,
    komi_col: int,
    komi_value: float,
    obs: np.ndarray,
    packed: np.ndarray,
    mult: np.ndarray,
    mask: np.ndarray,
    known: np.ndarray,
    player: np.ndarray,
) -> None:
    for b in range(boards.shape[0]):
        a = boards[b]
        for i in range(init.shape[0]):
            a[i] = init[i]
        colour[b] = 0
        player[b] = 0
        known[b, :] = -1
        _write(a, nbr, np.int64(0), k_actions, pos, board, komi_col, komi_value, obs_row(obs, b), mask[b], known[b])
        pack_row(obs, packed, mult, b)


@kernel
def _step(
    boards: np.ndarray,
    colour: np.ndarray,
    actions: np.ndarray,
    init: np.ndarray,
    nbr: np.ndarray,
    k_actions: int,
    pos: np.ndarray,
    board: np.ndarray,
    komi_b: float,
    komi_w: float,
    komi_col: int,
    komi_value: float,
    obs: np.ndarray,
    packed: np.ndarray,
    mult: np.ndarray,
    mask: np.ndarray,
    known: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
) -> None:
    n = nbr.shape[0]
    for b in range(boards.shape[0]):
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            for q in range(rewards.shape[1]):
                rewards[b, q] = 0.0
            terminated[b] = False
            continue
        a = boards[b]
        act = actions[b]
        c = act // k_actions
        col = np.int64(colour[b])
        left = nk.apply(a, nbr, c, act - c * k_actions, col)
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        if left == 0:
            sb = a[_HEAD * n + _PRICE_B] + komi_b
            sw = a[_HEAD * n + _PRICE_W] + komi_w
            r = 1.0 if sb < sw else -1.0 if sb > sw else 0.0
            rewards[b, 0] = r
            rewards[b, 1] = -r
            terminated[b] = True
            for i in range(init.shape[0]):
                a[i] = init[i]
            col = np.int64(0)
        else:
            col = 1 - col
        colour[b] = col
        player[b] = col
        _write(a, nbr, col, k_actions, pos, board, komi_col, komi_value, obs_row(obs, b), mask[b], known[b])
        pack_row(obs, packed, mult, b)


@kernel
def _heads(known: np.ndarray, phase: np.ndarray, fmask: np.ndarray) -> None:
    """The first decisions (``actions="factored"``: the cells) of the games at phase 0: a cell is offered
    when a stone of the colour to place joins there or starts a group there (``known``)."""
    for b in range(known.shape[0]):
        if phase[b] != 0:
            continue
        row = known[b]
        out = fmask[b]
        for c in range(row.shape[0]):
            out[c] = row[c] == nk.JOINS or row[c] == nk.STARTS


class NumeVector(VectorGame):
    """Nume, ``B`` boards at once (no komi bidding)."""

    def __init__(self, adapted: Any, batch: int, seed: int, **formats: str) -> None:
        game = adapted.game
        p = game.params
        if p["komi_bidding"]:
            raise ValueError("nume: the vector engine plays a fixed komi; komi_bidding=true is not supported")
        super().__init__(adapted, batch, seed, **formats)
        lay = adapted.obs.layout
        self._nbr = game.nbr
        self._k = int(game.K)
        self._init = game._empty_board.copy()
        self._pos, self._board = layout_tables(game, lay)
        komi = float(p["komi"])
        self._komi_col = 0 if p["komi_to"] == "black" else 1
        self._komi = komi
        self._komi_b = komi if self._komi_col == 0 else 0.0
        self._komi_w = komi if self._komi_col == 1 else 0.0
        self.boards = np.zeros((self.batch, self._init.shape[0]), np.int32)
        """Each game's board (layout of :mod:`tessera.games.nume.kernels`)."""
        self.colour = np.zeros(self.batch, np.int64)
        """Each game's colour to place (0 Black, 1 White)."""
        self._known = np.full((self.batch, game.cells), -1, np.int8)
        """The status of each cell that each game's mask shows (−1: not written yet)."""

    def make_factoring(self) -> Factoring:
        """The cell, then the number (:func:`tessera.games.nume.contract.factoring`)."""
        from tessera.games.nume.contract import factoring

        return factoring(self.adapted)

    def _heads_written(self) -> bool:
        return True

    def _write_heads(self) -> None:
        """The cells from each game's cell statuses (``known``), not from its 8,000-action flat mask."""
        _heads(self._known, self._phase, self._fmask_rows)

    def _reset_all(self) -> None:
        _reset(
            self.boards, self.colour, self._init, self._nbr, self._k, self._pos, self._board,
            self._komi_col, self._komi, self._obs_w, self._packed, self._mult, self._mask_rows, self._known,
            self._player,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.boards, self.colour, actions, self._init, self._nbr, self._k, self._pos, self._board,
            self._komi_b, self._komi_w, self._komi_col, self._komi,
            self._obs_w, self._packed, self._mult, self._mask_rows, self._known, self._player, self._rewards,
            self._terminated,
        )  # fmt: skip
