# mypy: disable-error-code="arg-type, return-value, assignment"
"""Nymbat's vector engine (2 or 4 players): ``B`` positions stepped by Nymbat's own kernels.

Row ``b`` of ``positions`` is game ``b``'s position (layout of
:mod:`tessera.games.nymbat.kernels`).  A step applies one step per game with the kernels'
``apply``, scores and resets the games that end and writes the planes and the mask of the
player to move.  The mask has ~30,000 actions, of which a few hundred at most are legal:
each game's legal actions are remembered (``_set``) and only those are cleared at the next
write, so a step never sweeps the whole mask.

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 interleaved rounds, 2026-11-29
(``benchmarks/contract_engine.py``): 2 players own 7 081 ns, generic 8 105 ns (+14 %); 4 players 8 018 → 8 960
ns (+12 %): the contract's ``apply`` checks the step (``_check``) before playing it.
``tests/vector/test_contract_engine.py`` checks both engines play the same games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.vector import VectorGame, fresh_cache
from tessera.games.nymbat import kernels as yk
from tessera.games.nymbat.observation import layout_tables, write_planes

fresh_cache(
    __file__, "tessera.games.nymbat.kernels", "tessera.games.nymbat.observation"
)  # before any kernel here is loaded

_N, _H, _NUM, _FLAG = yk.N, yk.H, yk.NUM, yk.FLAG
_TO_MOVE, _PHASE, _PLACED, _SPEED, _BRK_CELL, _BRK_BUDGET, _OVER, _WINNER = (
    yk.TO_MOVE, yk.PHASE, yk.PLACED, yk.SPEED, yk.BRK_CELL, yk.BRK_BUDGET, yk.OVER, yk.WINNER,
)  # fmt: skip
_RES, _DEL, _FIRST = yk.RES, yk.DEL, yk.FIRST
_BRING, _MOVE, _PENALTY = yk.BRING, yk.MOVE, yk.PENALTY
_UNMOVED, _TRACKED = yk.UNMOVED, yk.TRACKED
_G_PLAYERS, _G_RESERVE, _G_DELAY = yk.G_PLAYERS, yk.G_RESERVE, yk.G_DELAY_PERIOD


@kernel
def _write(
    s: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    remembered: np.ndarray,
) -> int:
    """Write the planes (flat: :func:`~tessera.games.nymbat.observation.write_planes`) and the mask of one
    position for the player to move; return that player.

    ``remembered[0]`` counts the mask entries set by the last write (``−1``: unknown, clear all),
    ``remembered[1:]`` lists them.
    """
    p = np.int64(s[_H + _TO_MOVE])
    write_planes(s, geo, pos, board, p, True, obs)
    m = remembered[0]
    if m < 0:
        for i in range(mask.shape[0]):
            mask[i] = False
    else:
        for j in range(m):
            mask[remembered[1 + j]] = False
    legal = yk.legal(s, geo)
    cap = remembered.shape[0] - 1
    remembered[0] = legal.shape[0] if legal.shape[0] <= cap else -1
    for j in range(legal.shape[0]):
        mask[legal[j]] = True
        if j < cap:
            remembered[1 + j] = legal[j]
    return p


@kernel
def _reset(
    positions: np.ndarray,
    init: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    remembered: np.ndarray,
    player: np.ndarray,
) -> None:
    for b in range(positions.shape[0]):
        s = positions[b]
        for i in range(init.shape[0]):
            s[i] = init[i]
        remembered[b, 0] = -1
        player[b] = _write(s, geo, pos, board, obs[b], mask[b], remembered[b])


@kernel
def _step(
    positions: np.ndarray,
    actions: np.ndarray,
    init: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    remembered: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
) -> None:
    n = rewards.shape[1]
    for b in range(positions.shape[0]):
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            for q in range(rewards.shape[1]):
                rewards[b, q] = 0.0
            terminated[b] = False
            continue
        s = positions[b]
        yk.apply(s, geo, actions[b], False)
        for q in range(n):
            rewards[b, q] = 0.0
        terminated[b] = False
        if s[_H + _OVER]:
            w = s[_H + _WINNER]
            if w >= 0:
                for q in range(n):
                    rewards[b, q] = np.float32(-1.0 / (n - 1))
                rewards[b, w] = 1.0
            terminated[b] = True
            for i in range(init.shape[0]):
                s[i] = init[i]
        player[b] = _write(s, geo, pos, board, obs[b], mask[b], remembered[b])


class NymbatVector(VectorGame):
    """Nymbat with 2 or 4 players, ``B`` positions at once."""

    REMEMBER = 1024
    """How many legal actions of a game the engine remembers to clear (more: it clears the whole row)."""

    def __init__(self, adapted: Any, batch: int, seed: int) -> None:
        super().__init__(adapted, batch, seed)
        game = adapted.game
        lay = adapted.obs.layout
        self._geo = game.geo
        self._init = game.start.copy()
        self._pos, self._board = layout_tables(lay)
        self.positions = np.zeros((self.batch, self._init.shape[0]), np.int32)
        """Each game's position (layout of :mod:`tessera.games.nymbat.kernels`)."""
        self._remembered = np.full((self.batch, self.REMEMBER + 1), -1, np.int64)
        self._flat = self._obs.reshape(self.batch, -1)

    def _reset_all(self) -> None:
        _reset(
            self.positions, self._init, self._geo, self._pos, self._board,
            self._flat, self._mask_rows, self._remembered, self._player,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.positions, actions, self._init, self._geo, self._pos, self._board,
            self._flat, self._mask_rows, self._remembered, self._player, self._rewards, self._terminated,
        )  # fmt: skip
