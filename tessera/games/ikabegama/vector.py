# mypy: disable-error-code="arg-type, return-value, assignment"
"""Ikabegamá's vector engine, on the adapters' window: ``B`` positions stepped by Ikabegamá's kernels.

Row ``b`` of ``positions`` is game ``b``'s state array (layout of
:mod:`tessera.games.ikabegama.kernels`) with room for a token on every hex of the window, so
a growth never finds the list full.  Adapter actions (``13·i + k`` on the ``i``-th hex of the
window, ``13·cells`` pass) are turned into the kernels' actions through the adapters' own
table, and the legal moves back into adapter actions for the mask.

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 interleaved rounds, 2026-11-29
(``benchmarks/contract_engine.py``): own 1 415 ns, generic 2 784 ns (+97 %): the contract's ``legal`` sorts a
fresh list and its ``apply`` checks, where this engine writes the mask straight from the tokens' destinations.
``tests/vector/test_contract_engine.py`` checks both engines play the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.vector import VectorGame, fresh_cache, obs_row, pack_row
from tessera.games.ikabegama import kernels as ik
from tessera.games.ikabegama.observation import layout_tables, write_planes

fresh_cache(
    __file__, "tessera.games.ikabegama.kernels", "tessera.games.ikabegama.observation"
)  # before any kernel here is loaded

_HEADER, _CAP, _NTOK, _PLY, _PASSES, _TO_MOVE, _OVER, _WINNER = (
    ik.HEADER, ik.CAP, ik.NTOK, ik.PLY, ik.PASSES, ik.TO_MOVE, ik.OVER, ik.WINNER,
)  # fmt: skip
_K_NBR, _K_RING, _K_MAXPLY, _K_NEST0, _K_SIZE = ik.K_NBR, ik.K_RING, ik.K_MAXPLY, ik.K_NEST0, ik.K_SIZE


@kernel
def _write(
    a: np.ndarray,
    k: np.ndarray,
    allowed: np.ndarray,
    from_t: np.ndarray,
    hpos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
) -> int:
    """Write the planes (flat: :func:`~tessera.games.ikabegama.observation.write_planes`) and the mask
    of one position for the player to move; return that player."""
    p = np.int64(a[_TO_MOVE])
    own = _HEADER + a[_CAP]
    write_planes(a, k, hpos, board, p, True, obs)
    for i in range(mask.shape[0]):
        mask[i] = False
    moves = 0
    for i in range(a[_NTOK]):
        if a[own + i] != p:
            continue
        t = np.int64(a[_HEADER + i])
        for j in range(12):
            dest = t + k[_K_RING + j]
            if ik.on_board(k, allowed, dest) and ik.token_at(a, dest) < 0:
                mask[from_t[dest * 13 + j + 1]] = True
                moves += 1
        for d in range(6):
            dest = t + k[_K_NBR + d]
            if ik.on_board(k, allowed, dest) and ik.token_at(a, dest) < 0:
                mask[from_t[dest * 13]] = True
                moves += 1
    if moves == 0:
        mask[from_t[k[_K_SIZE] * 13]] = True  # pass
    return p


@kernel
def _reset(
    positions: np.ndarray,
    init: np.ndarray,
    k: np.ndarray,
    allowed: np.ndarray,
    from_t: np.ndarray,
    hpos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    mult: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
) -> None:
    for b in range(positions.shape[0]):
        a = positions[b]
        for i in range(init.shape[0]):
            a[i] = init[i]
        player[b] = _write(a, k, allowed, from_t, hpos, board, obs_row(obs, b), mask[b])
        pack_row(obs, packed, mult, b)


@kernel
def _step(
    positions: np.ndarray,
    actions: np.ndarray,
    init: np.ndarray,
    k: np.ndarray,
    allowed: np.ndarray,
    to_t: np.ndarray,
    from_t: np.ndarray,
    hpos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    mult: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
) -> None:
    for b in range(positions.shape[0]):
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            for q in range(rewards.shape[1]):
                rewards[b, q] = 0.0
            terminated[b] = False
            continue
        a = positions[b]
        ik.apply(a, k, to_t[actions[b]])
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        if a[_OVER]:
            w = a[_WINNER]
            if w == 0 or w == 1:
                rewards[b, w] = 1.0
                rewards[b, 1 - w] = -1.0
            terminated[b] = True
            for i in range(init.shape[0]):
                a[i] = init[i]
        player[b] = _write(a, k, allowed, from_t, hpos, board, obs_row(obs, b), mask[b])
        pack_row(obs, packed, mult, b)


class IkabegamaVector(VectorGame):
    """Ikabegamá on the adapters' window, ``B`` positions at once."""

    def __init__(self, adapted: Any, batch: int, seed: int, **formats: str) -> None:
        super().__init__(adapted, batch, seed, **formats)
        game = adapted.game
        window = adapted.window
        assert window is not None and adapted._to_tessera is not None
        w = game.window
        lay = adapted.obs.layout
        self._k = game.kconst
        self._allowed = game.allowed_mask
        self._to_t = np.array(adapted._to_tessera, np.int64)
        self._from_t = np.full(w.size * 13 + 1, -1, np.int64)
        for i, t in enumerate(adapted._to_tessera):
            if t >= 0:
                self._from_t[t] = i
        self._hpos, self._board = layout_tables(game, lay)
        init = ik.new_array(window.cells)
        for h, owner in ((game.nest_ids[0], 0), (game.nest_ids[1], 1)):
            ik.add_token(init, h, owner)
        ik.settle(init, self._k)
        self._init = init
        self.positions = np.zeros((self.batch, init.shape[0]), np.int32)
        """Each game's state array (layout of :mod:`tessera.games.ikabegama.kernels`)."""

    def _reset_all(self) -> None:
        _reset(
            self.positions, self._init, self._k, self._allowed, self._from_t, self._hpos, self._board,
            self._obs_w, self._packed, self._mult, self._mask_rows, self._player,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.positions, actions, self._init, self._k, self._allowed, self._to_t, self._from_t, self._hpos,
            self._board, self._obs_w, self._packed, self._mult, self._mask_rows, self._player, self._rewards,
            self._terminated,
        )  # fmt: skip
