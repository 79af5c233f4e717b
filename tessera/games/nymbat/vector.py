# mypy: disable-error-code="arg-type, return-value, assignment"
"""Nymbat's vector engine: ``B`` positions stepped by Nymbat's own kernels, the planes written in place.

Row ``b`` of ``states`` is game ``b``'s position (the layout of :mod:`tessera.games.nymbat.kernels`,
the contract's ``s``).  A step applies the action unchecked (the batch checked it against the mask),
then brings the planes up to date in place (:func:`~tessera.games.nymbat.observation.update_planes`:
the cells the step names, the group's flags, and the constant planes whose value changed; whole planes
for a new game or a new player to move, where most planes change: rotating the players' piece planes
there measured slower than writing them whole) and
the mask from the engine's list of the entries it shows (only the entries that change are written).
With ``actions="factored"`` no decision reads the flat mask: the engine keeps the legal list only (the
decisions' masks are read from it, :func:`tessera.core.kits.vector._factor_masks`) and writes a flat
row when it is read (:meth:`NymbatVector._sync_flat_mask`).  The rows of the batch arrays are taken without
reference counts (:mod:`tessera.core.kits.rows`) and the kernels' scratch is kept on the engine.

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, which played
Nymbat until 2026-11-30), because the generic one costs more than 10 % here: the engine part of a step
(``benchmarks/vector_targets.py --games nymbat,nymbat4 --profile --seconds 0.5``, ``uint8`` planes,
B = 1,024, CPU ns per game and decision, medians of 3 rounds interleaved with the generic engine's
checkout, a shared 2-core machine, 2026-11-30): 2 players flat 3,440 generic → 2,281 own (−34 %),
factored 1,696 → 1,117 (−34 %); 4 players flat 3,498 → 2,261 (−35 %), factored 1,856 → 1,129
(−39 %).  ``tests/vector/test_contract_engine.py`` checks both engines play the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.rows import row as _row
from tessera.core.kits.rows import unowned as _unowned
from tessera.core.kits.vector import VectorGame, fresh_cache
from tessera.games.nymbat import kernels as yk
from tessera.games.nymbat.observation import layout_tables, update_planes, write_planes

fresh_cache(__file__, "tessera.games.nymbat.kernels", "tessera.games.nymbat.observation")

_H, _TO_MOVE, _OVER, _WINNER = yk.H, yk.TO_MOVE, yk.OVER, yk.WINNER

REMEMBER = 512
"""Mask entries the engine remembers per game, to clear only those (a wider legal list clears the row)."""


@kernel
def _write_mask(
    s: np.ndarray, geo: np.ndarray, ws: np.ndarray, marks: np.ndarray, mask: np.ndarray, words: np.ndarray,
    remembered: np.ndarray, occ: np.ndarray, steps: np.ndarray,
) -> None:  # fmt: skip
    """The mask of the position's legal steps, from the list of the entries it shows (``remembered``): an
    entry in both lists is left as it is, the others cleared or set, so a row's cache lines that do not
    change are not touched.  ``marks`` (one byte per action, zero between calls) says which list an
    action is in: 1 the new one, 2 the old one.  ``occ`` and ``steps``: the listing's scratch
    (:func:`~tessera.games.nymbat.kernels._list_steps`)."""
    n = yk._list_steps(s, geo, ws, occ, steps, False)
    m = remembered[0]
    cap = remembered.shape[0] - 1
    if m < 0:  # unknown: clear the whole row, eight actions at a time, and set the list
        for i in range(words.shape[0]):
            words[i] = 0
        for j in range(n):
            mask[steps[j]] = True
    else:
        for j in range(n):
            marks[steps[j]] = 1
        for i in range(1, m + 1):
            y = remembered[i]
            if marks[y] == 0:
                mask[y] = False
            marks[y] |= 2
        for j in range(n):
            x = steps[j]
            if marks[x] == 1:
                mask[x] = True
        for i in range(1, m + 1):
            marks[remembered[i]] = 0
        for j in range(n):
            marks[steps[j]] = 0
    if n <= cap:
        remembered[0] = n
        for j in range(n):
            remembered[1 + j] = steps[j]
    else:  # too long to keep: the next write clears the row
        remembered[0] = -1


@kernel
def _keep_list(
    s: np.ndarray, geo: np.ndarray, ws: np.ndarray, mask: np.ndarray, words: np.ndarray, remembered: np.ndarray,
    occ: np.ndarray, steps: np.ndarray,
) -> bool:  # fmt: skip
    """``actions="factored"``: the position's legal steps kept in ``remembered`` only (the decisions' masks
    are read from it), the flat mask row left as it is — unless the list is too long to keep: then the row
    is written whole.  Returns whether the row shows the position."""
    n = yk._list_steps(s, geo, ws, occ, steps, False)
    if n <= remembered.shape[0] - 1:
        remembered[0] = n
        for j in range(n):
            remembered[1 + j] = steps[j]
        return False
    for i in range(words.shape[0]):
        words[i] = 0
    for j in range(n):
        mask[steps[j]] = True
    remembered[0] = -1
    return True


@kernel
def _sync_flat(mask: np.ndarray, words: np.ndarray, remembered: np.ndarray, synced: np.ndarray) -> None:
    """The flat mask rows of factored decisions written from the kept lists, for the games whose row does
    not show their position (``synced`` false): only when the flat masks are read."""
    for b in range(synced.shape[0]):
        if not synced[b]:
            w = words[b]
            for i in range(w.shape[0]):
                w[i] = 0
            for j in range(1, remembered[b, 0] + 1):
                mask[b, remembered[b, j]] = True
            synced[b] = True


@kernel
def _new_game(
    s: np.ndarray, start: np.ndarray, geo: np.ndarray, pos: np.ndarray, board: np.ndarray, obs: np.ndarray,
    frac: float,
) -> None:  # fmt: skip
    """A new game into ``s``, its planes written whole."""
    for i in range(s.shape[0]):
        s[i] = start[i]
    write_planes(s, geo, pos, board, np.int64(s[_H + _TO_MOVE]), True, obs, frac)


@kernel
def _tables(
    start: np.ndarray, geo: np.ndarray, pos: np.ndarray, board: np.ndarray, ws: np.ndarray, marks: np.ndarray,
    occ: np.ndarray, steps: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The engine's tables and scratch without reference counts (:mod:`tessera.core.kits.rows`): the calls
    of the loop over the games would count each array they pass."""
    u = _unowned
    return u(start), u(geo), u(pos), u(board), u(ws), u(marks), u(occ), u(steps)


@kernel
def _reset(
    states: np.ndarray, start: np.ndarray, geo: np.ndarray, pos: np.ndarray, board: np.ndarray, obs: np.ndarray,
    packed: np.ndarray, mask: np.ndarray, words: np.ndarray, player: np.ndarray, remembered: np.ndarray,
    synced: np.ndarray, ws: np.ndarray, marks: np.ndarray, occ: np.ndarray, steps: np.ndarray,
) -> None:  # fmt: skip
    start, geo, pos, board, ws, marks, occ, steps = _tables(start, geo, pos, board, ws, marks, occ, steps)
    u8 = packed.shape[0] > 0
    for b in range(states.shape[0]):
        s = _row(states, b)
        if u8:
            _new_game(s, start, geo, pos, board, _row(packed, b), 255.0)
        else:
            _new_game(s, start, geo, pos, board, _row(obs, b), 1.0)
        remembered[b, 0] = -1
        if synced.shape[0]:
            synced[b] = _keep_list(s, geo, ws, _row(mask, b), _row(words, b), _row(remembered, b), occ, steps)
        else:
            _write_mask(s, geo, ws, marks, _row(mask, b), _row(words, b), _row(remembered, b), occ, steps)
        player[b] = s[_H + _TO_MOVE]


@kernel
def _step(
    states: np.ndarray, start: np.ndarray, geo: np.ndarray, actions: np.ndarray, pos: np.ndarray,
    board: np.ndarray, obs: np.ndarray, packed: np.ndarray, mask: np.ndarray, words: np.ndarray,
    player: np.ndarray, rewards: np.ndarray, terminated: np.ndarray, remembered: np.ndarray, synced: np.ndarray,
    ws: np.ndarray, marks: np.ndarray, occ: np.ndarray, steps: np.ndarray, old: np.ndarray, new: np.ndarray,
    head: np.ndarray, cells: np.ndarray, before: np.ndarray,
) -> None:  # fmt: skip
    start, geo, pos, board, ws, marks, occ, steps = _tables(start, geo, pos, board, ws, marks, occ, steps)
    old, new, head, cells, before = _unowned(old), _unowned(new), _unowned(head), _unowned(cells), _unowned(before)
    u8 = packed.shape[0] > 0
    n = rewards.shape[1]
    N = yk.N
    for b in range(states.shape[0]):
        for q in range(n):
            rewards[b, q] = 0.0
        terminated[b] = False
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            continue
        s = _row(states, b)
        a = actions[b]
        # what the planes need of the position before the step: its header and the cells the step names
        for i in range(32):
            head[i] = s[_H + i]
        c0 = c1 = -1
        if a < yk.PLACE_BASE:
            c0 = a // N
            c1 = a % N
        elif a < yk.REMOVE_BASE:
            c0 = (a - yk.PLACE_BASE) // 6
        elif a < yk.END:
            c0 = a - yk.REMOVE_BASE if a < yk.LOSE_BASE else a - yk.LOSE_BASE
        cells[0] = c0
        cells[1] = c1
        for j in range(2):
            c = cells[j]
            if c >= 0:
                before[j] = s[c]
                before[2 + j] = s[N + c]
                before[4 + j] = s[2 * N + c]
        yk._apply(s, geo, a, ws)
        if s[_H + _OVER]:
            w = s[_H + _WINNER]
            if w >= 0:
                for q in range(n):
                    rewards[b, q] = 1.0 if q == w else -1.0 / (n - 1)
            terminated[b] = True
            if u8:
                _new_game(s, start, geo, pos, board, _row(packed, b), 255.0)
            else:
                _new_game(s, start, geo, pos, board, _row(obs, b), 1.0)
        elif s[_H + _TO_MOVE] != head[_TO_MOVE]:  # a new observer: most planes change, written whole
            if u8:
                write_planes(s, geo, pos, board, np.int64(s[_H + _TO_MOVE]), True, _row(packed, b), 255.0)
            else:
                write_planes(s, geo, pos, board, np.int64(s[_H + _TO_MOVE]), True, _row(obs, b), 1.0)
        elif u8:
            update_planes(head, cells, before, s, geo, pos, _row(packed, b), 255.0, old, new)
        else:
            update_planes(head, cells, before, s, geo, pos, _row(obs, b), 1.0, old, new)
        if synced.shape[0]:
            synced[b] = _keep_list(s, geo, ws, _row(mask, b), _row(words, b), _row(remembered, b), occ, steps)
        else:
            _write_mask(s, geo, ws, marks, _row(mask, b), _row(words, b), _row(remembered, b), occ, steps)
        player[b] = s[_H + _TO_MOVE]


class NymbatVector(VectorGame):
    """Nymbat (2 or 4 players), ``B`` positions at once."""

    def __init__(self, adapted: Any, batch: int, seed: int, **formats: str) -> None:
        super().__init__(adapted, batch, seed, **formats)
        from tessera.games.nymbat.game import _start

        game = adapted.game
        self._geo = game.geo
        self._start = _start(game.players, game.reserve)
        self._pos, board = layout_tables(adapted.obs.layout)
        self._board = board.astype(np.uint8) if self.obs_dtype == "uint8" else board  # the planes' type
        if getattr(adapted, "_to_tessera", None) is not None:
            raise ValueError(f"{adapted.name}: Nymbat's engine plays the game's own action numbers")
        self.states = np.zeros((self.batch, yk.SIZE), np.int32)
        """Each game's position (the layout of :mod:`tessera.games.nymbat.kernels`)."""
        self._words = self._mask_rows.view(np.uint64)
        self._remembered = np.full((self.batch, REMEMBER + 1), -1, np.int16)  # every action < 2**15
        assert yk.NUM_ACTIONS < 2**15
        """Per game (``int16``, a quarter of the memory an ``int64`` list passes through at each step): how many
        mask entries the last write set (−1: unknown or more than ``REMEMBER``), then those entries, so the
        next write clears only them.  With ``actions="factored"``: the legal
        steps the decisions' masks are read from."""
        self._synced = np.ones(self.batch if self.factoring is not None else 0, np.bool_)
        """With ``actions="factored"``: per game, whether its flat mask row shows its position (the rows are
        written only when read, :meth:`_sync_flat_mask`, or when a list is too long to keep); empty with
        ``flat``."""

        planes = self.observation_shape[0]
        self._scratch = (
            np.zeros(yk.WS_SIZE, np.int32), np.zeros(yk.NUM_ACTIONS, np.uint8), np.empty(12, np.uint64),
            np.empty(yk.LIST_CAP, np.int64), np.empty(planes, np.float32), np.empty(planes, np.float32),
            np.empty(32, np.int32), np.empty(2, np.int64), np.empty(6, np.int32),
        )  # fmt: skip
        """The kernels' scratch (kept here, not allocated per call): the rules' work space and the mask's marks
        (both zero between calls), the listing's board bits and steps, then ``update_planes``'s rows and the
        step's header, cells and their contents before it."""

    def _sync_flat_mask(self) -> None:
        """With ``actions="factored"`` the flat mask rows are written from the kept lists when read."""
        if self._synced.shape[0] and not self._synced.all():
            _sync_flat(self._mask_rows, self._words, self._remembered, self._synced)

    def make_factoring(self) -> Any:
        from tessera.games.nymbat.contract import factoring

        return factoring(self.adapted)

    def _legal_lists(self) -> np.ndarray:
        return self._remembered

    def _reset_all(self) -> None:
        _reset(
            self.states, self._start, self._geo, self._pos, self._board,
            self._obs_w, self._packed, self._mask_rows, self._words, self._player, self._remembered, self._synced,
            *self._scratch[:4],
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.states, self._start, self._geo, actions,
            self._pos, self._board, self._obs_w, self._packed, self._mask_rows, self._words, self._player,
            self._rewards, self._terminated, self._remembered, self._synced, *self._scratch,
        )  # fmt: skip
