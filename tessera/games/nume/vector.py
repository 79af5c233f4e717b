# mypy: disable-error-code="arg-type, return-value, assignment"
"""Nume's vector engine: ``B`` boards in one ``int32`` array, placed by Nume's own placement kernel.

Row ``b`` of ``boards`` is game ``b``'s board in the layout of :mod:`tessera.games.nume.kernels`;
``colour[b]`` is the colour to place, which is also the player to move (the vector engine plays
Nume without komi bidding: player 0 is Black).  Every step places one stone per game with
``apply`` (the placement kernel), scores a full board and puts an empty board in its place.

A game's planes and flat mask are updated in place, not rewritten: after a placement the planes
of the two players are swapped (the viewer is the other colour now) and the new stone's cells
written — the whole planes only for a new game, in the planes' type (``uint8`` bytes directly,
no ``float32`` row packed); ``touch`` keeps per cell whether it holds a stone and touches a stone
of each colour, from which the status of every cell for the colour to place is read (not from its
neighbours), and only the actions of the cells whose status changed are rewritten, a word at a time
(8 bytes at size 6, 4 at size 5: a loop over the bytes cost as much as the rest of the step).  With
``actions="factored"`` the decisions' masks are written from the statuses (the cells, then the codes
legal on the chosen cell) and the flat mask, which no decision reads, only when it is read
(:attr:`NumeVector._mask`): rewriting a changed cell's 92 bytes was most of a step.  CPU ns per game
and decision at B = 1,024, ``benchmarks/vector_targets.py --profile``, medians of 3 interleaved rounds
against the engine before these changes, 2026-11-30 (a noisy machine): flat total 3,599 → 1,357
(engine 2,977 → 788; the rest is the random draw on the mask), Nume 6 7,201 → 2,370 (engine
5,837 → 1,173); factored total 1,991 → 164 (engine 1,824 → 114), Nume 6 3,439 → 221.

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 rounds, 2026-11-30 (``benchmarks/contract_engine.py``): Nume
1,573 ns, generic 11,093 ns (+605 %); Nume 6 2,509 → 20,710 ns (+725 %): the generic loop clears and rewrites
the whole mask (thousands of actions) and every plane where this engine rewrites only the cells whose
status changed and the planes a move changes. ``tests/vector/test_contract_engine.py`` checks both engines play the same
games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.vector import Factoring, VectorGame, fresh_cache
from tessera.games.nume import kernels as nk
from tessera.games.nume.observation import layout_tables, write_planes

fresh_cache(
    __file__, "tessera.games.nume.kernels", "tessera.games.nume.observation"
)  # before any kernel here is loaded

_HEAD, _NUM = nk.HEAD, nk.NUM
_PRICE_B, _PRICE_W = nk.PRICE_B, nk.PRICE_W


_FULL = 4
"""Bit of ``touch[c]``: cell ``c`` holds a stone (bit ``1 << col``: ``c`` touches a stone of colour ``col``)."""


_BYTES = np.uint64(0x0101010101010101)
"""Every byte 1: a word of actions that are all legal (truncated to the width of the mask's words)."""


@kernel
def _write_cell(c: int, st: int, kw: int, words: np.ndarray) -> None:
    """The flat mask's actions of cell ``c`` for its status ``st``: ``words`` is a row of the flat masks
    viewed as words of the widest of 8, 4, 2 or 1 bytes that divides the actions of a cell (``kw`` words
    a cell, little-endian: the cell's first action is the low byte of its first word) — a loop over the
    bytes took twice the time of the engine's whole step without it."""
    first = c * kw
    fill = _BYTES if st == nk.STARTS else np.uint64(0)
    words[first] = np.uint64(1) if st == nk.JOINS else fill - (fill & np.uint64(1))
    for j in range(first + 1, first + kw):
        words[j] = fill


@kernel
def _statuses(touch: np.ndarray, col: int, known: np.ndarray, flat: bool, kw: int, words: np.ndarray) -> None:
    """``known[c]``: the status of each cell for a stone of ``col`` (read from ``touch``, the same as
    :func:`~tessera.games.nume.kernels.status`); with ``flat``, the flat mask's actions of the cells
    whose status changed are rewritten (``known`` is then what the mask shows, −1: not written yet):
    the colour to place alternates, but far from the stones a cell starts a group for either colour
    and few cells change."""
    for c in range(touch.shape[0]):
        t = touch[c]
        st = nk.OCCUPIED if t & _FULL else (nk.JOINS if (t >> col) & 1 else nk.STARTS)
        if st == known[c]:
            continue
        known[c] = st
        if flat:
            _write_cell(np.int64(c), np.int64(st), kw, words)


@kernel
def _sync_flat(known: np.ndarray, written: np.ndarray, kw: int, words: np.ndarray) -> None:
    """The flat masks of factored decisions, written only when read (:attr:`NumeVector._mask`): the
    actions of the cells whose status (``known``) is not the one the mask shows (``written``)."""
    for b in range(known.shape[0]):
        kn = known[b]
        wr = written[b]
        for c in range(kn.shape[0]):
            if kn[c] != wr[c]:
                wr[c] = kn[c]
                _write_cell(np.int64(c), np.int64(kn[c]), kw, words[b])


@kernel
def _new_game(
    a: np.ndarray,
    init: np.ndarray,
    touch: np.ndarray,
    n: int,
    pos: np.ndarray,
    board: np.ndarray,
    komi_col: int,
    komi_value: float,
    obs: np.ndarray,
    frac: float,
) -> None:
    """An empty board into ``a`` and ``touch``, and its planes for Black (to place) into ``obs``."""
    for i in range(init.shape[0]):
        a[i] = init[i]
    touch[:] = 0
    write_planes(a, n, pos, board, np.int64(0), 6 if komi_col == 0 else 7, komi_value, True, obs, frac)


@kernel
def _placed(
    touch: np.ndarray,
    nbr: np.ndarray,
    c: int,
    col: int,
    num: int,
    pos: np.ndarray,
    hw: int,
    obs: np.ndarray,
    frac: float,
) -> None:
    """After a stone of ``col`` (``num`` written on it, −1: none) was placed on cell ``c`` of a board
    that goes on: its cell status bits (``touch``), and the planes
    (:func:`~tessera.games.nume.observation.write_planes`, seen by ``col`` before) turned to the other
    colour's view, which is to place — the planes of the two players swapped (mine / opponent's
    stones, the komi I receive / the opponent receives: the other planes do not depend on the
    viewer) and the new stone's cells written."""
    touch[c] |= _FULL
    bit = np.uint8(1 << col)
    for j in range(nbr.shape[1]):
        m = nbr[c, j]
        if m < 0:
            break
        touch[m] |= bit
    n = nbr.shape[0]
    for i in range(hw):
        x = obs[i]
        obs[i] = obs[hw + i]
        obs[hw + i] = x
        y = obs[6 * hw + i]
        obs[6 * hw + i] = obs[7 * hw + i]
        obs[7 * hw + i] = y
    p = pos[c]
    obs[hw + p] = 1
    obs[4 * hw + p] = 0
    if num >= 0:
        half = np.float32(0.5) if frac > 1.0 else np.float32(0.0)
        obs[2 * hw + p] = np.float32(num / n) * np.float32(frac) + half
        obs[3 * hw + p] = 1


@kernel
def _reset(
    boards: np.ndarray,
    colour: np.ndarray,
    touch: np.ndarray,
    init: np.ndarray,
    nbr: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    komi_col: int,
    komi_value: float,
    obs: np.ndarray,
    frac: float,
    flat: bool,
    kw: int,
    words: np.ndarray,
    known: np.ndarray,
    player: np.ndarray,
) -> None:
    n = nbr.shape[0]
    for b in range(boards.shape[0]):
        colour[b] = 0
        player[b] = 0
        known[b, :] = -1
        _new_game(boards[b], init, touch[b], n, pos, board, komi_col, komi_value, obs[b], frac)
        _statuses(touch[b], np.int64(0), known[b], flat, kw, words[b])


@kernel
def _step(
    boards: np.ndarray,
    colour: np.ndarray,
    touch: np.ndarray,
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
    frac: float,
    flat: bool,
    kw: int,
    words: np.ndarray,
    known: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
) -> None:
    """One placement per game (``actions[b]``, unchecked; −1: that game does not step), the planes
    (``obs[b]``, in place), the cell statuses for the player to move and (``flat``) his flat mask."""
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
        k = act - c * k_actions
        col = np.int64(colour[b])
        left = nk.apply(a, nbr, c, k, col)
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
            _new_game(a, init, touch[b], n, pos, board, komi_col, komi_value, obs[b], frac)
            col = np.int64(0)
        else:
            _placed(touch[b], nbr, c, col, k - 1, pos, np.int64(board.shape[0]), obs[b], frac)
            col = 1 - col
        colour[b] = col
        player[b] = col
        _statuses(touch[b], col, known[b], flat, kw, words[b])


@kernel
def _decision_masks(known: np.ndarray, phase: np.ndarray, decided: np.ndarray, fmask: np.ndarray) -> None:
    """The masks of the factored decisions from the cell statuses (``known``): at phase 0 the cells where
    a stone of the colour to place joins or starts a group, at phase 1 the codes legal on the cell
    ``decided``: 0 where the stone joins, the numbers ``1 … K−1`` where it starts a group."""
    for b in range(known.shape[0]):
        out = fmask[b]
        out[:] = False
        row = known[b]
        if phase[b] == 0:
            for c in range(row.shape[0]):
                out[c] = row[c] != nk.OCCUPIED
        else:
            st = row[decided[b]]
            out[0] = st == nk.JOINS
            numbered = st == nk.STARTS
            for k in range(1, out.shape[0]):
                out[k] = numbered


class NumeVector(VectorGame):
    """Nume, ``B`` boards at once (no komi bidding)."""

    def __init__(self, adapted: Any, batch: int, seed: int, **formats: str) -> None:
        game = adapted.game
        p = game.params
        if p["komi_bidding"]:
            raise ValueError("nume: the vector engine plays a fixed komi; komi_bidding=true is not supported")
        self._flat_stale = False
        super().__init__(adapted, batch, seed, **formats)
        lay = adapted.obs.layout
        self._nbr = game.nbr
        self._k = int(game.K)
        self._init = game._empty_board.copy()
        self._pos, board = layout_tables(game, lay)
        uint8 = self.obs_dtype == "uint8"
        self._board = board.astype(np.uint8) if uint8 else board  # the planes' type
        self._rows = self._packed if uint8 else self._obs_w
        """Each game's planes, flat: written in place, in the planes' type (``uint8`` or ``float32``)."""
        self._frac = 255.0 if uint8 else 1.0
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
        """The status of each cell for each game's colour to place (with ``actions="flat"`` what its flat mask
        shows; −1: not written yet)."""
        self._flat = self.factoring is None
        """The engine writes the flat masks at every step (``actions="flat"``), else when read."""
        self._written = np.full((self.batch, game.cells), -1, np.int8)
        """With ``actions="factored"``: the status of each cell that each game's flat mask shows."""
        width = next(w for w in (8, 4, 2, 1) if self._k % w == 0)
        self._kw = self._k // width
        self._words = self._mask_rows.view(f"<u{width}")
        """The flat masks' rows as words of ``width`` bytes, ``_kw`` a cell (the rows are whole ``uint64`` words)."""
        self._touch = np.zeros((self.batch, game.cells), np.uint8)
        """Each game's cells: bit 1 touches a Black stone, 2 a White stone, 4 holds a stone (what the
        status of a cell for either colour is read from)."""

    def make_factoring(self) -> Factoring:
        """The cell, then the number (:func:`tessera.games.nume.contract.factoring`)."""
        from tessera.games.nume.contract import factoring

        return factoring(self.adapted)

    def _sync_flat_mask(self) -> None:
        """With ``actions="factored"`` the decisions' masks are written from the cell statuses, and the flat
        masks only when read (here): no decision needs them."""
        if self._flat_stale:
            self._flat_stale = False
            _sync_flat(self._known, self._written, self._kw, self._words)

    def _refactor(self) -> None:
        if self.factoring is not None:
            _decision_masks(self._known, self._phase, self._decided, self._shown)

    def _reset_all(self) -> None:
        _reset(
            self.boards, self.colour, self._touch, self._init, self._nbr, self._pos, self._board,
            self._komi_col, self._komi, self._rows, self._frac, self._flat, self._kw, self._words, self._known,
            self._player,
        )  # fmt: skip
        self._flat_stale = not self._flat

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.boards, self.colour, self._touch, actions, self._init, self._nbr, self._k, self._pos, self._board,
            self._komi_b, self._komi_w, self._komi_col, self._komi, self._rows, self._frac, self._flat,
            self._kw, self._words, self._known, self._player, self._rewards, self._terminated,
        )  # fmt: skip
        self._flat_stale = not self._flat
