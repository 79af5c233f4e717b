# mypy: disable-error-code="arg-type, return-value, assignment"
"""Nibble's vector engine: ``B`` positions in one ``int32`` array, stepped by Nibble's own kernels.

Row ``b`` of ``positions`` is game ``b``'s position in the layout of
:mod:`tessera.games.nibble.kernels`.  The deals are dealt once, when the engine is made:
the initial positions and ``deal`` arrays of the seeds ``0 … deals−1`` (or of the one fixed
``deal``), exactly as ``NibbleGame.new_initial_state(seed)`` deals them; a new game copies
the initial position of a deal drawn uniformly by the engine's random state (``deal_of[b]``
says which deal game ``b`` is playing).

**Kept beside the generic engine** (:class:`tessera.core.kits.stepper.ContractVector`, the batched loop on the
kernel contract), because the generic one costs more than 10 % here. CPU time per game-step at B = 1,024,
random legal actions included, medians of 3 interleaved rounds, 2026-11-29
(``benchmarks/contract_engine.py``): own 1 896 ns, generic 2 538 ns (+34 %): the contract's ``apply`` checks
the action and its ``legal`` lists before the mask is written, where this engine applies unchecked and writes
the mask from the kernels' cache. ``tests/vector/test_contract_engine.py`` checks both engines play the same
games.

**No reference counts in the loop over the games.**  A row of a batch array (``positions[b]``,
``mask[b]``) is a view that numba counts (an atomic increment when made, a decrement when dropped), and
so is every array a called kernel receives (the rules' ``_apply`` and its helpers receive four a call);
``perf`` put about a third of a step's CPU time in the two atomic instructions.  The rows are therefore
taken with :func:`_row`, the whole arrays passed down with :func:`_unowned` (:mod:`tessera.core.kits.rows`),
and the kernels' scratch ``ws`` is kept on the engine instead of allocated per call.  2026-11-30,
``benchmarks/vector_targets.py --games nibble --profile --seconds 0.5`` (B = 1,024, ``uint8``), medians of
3 runs interleaved with the engine before, a shared 2-core machine: engine flat 705 → 509 ns, factored
697 → 511; the same games (observations, masks, players, rewards, ends hashed over 64 × 3,000 and
1,024 × 200 steps, both formats, the tests' variants, factored actions).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.kernels import kernel, rand_below
from tessera.core.kits.rows import row as _row
from tessera.core.kits.rows import unowned as _unowned
from tessera.core.kits.vector import VectorGame, fresh_cache
from tessera.games.nibble import kernels as nk
from tessera.games.nibble.observation import layout_tables, update_planes, write_planes

fresh_cache(
    __file__, "tessera.games.nibble.kernels", "tessera.games.nibble.observation"
)  # before any kernel here is loaded

_TO_MOVE, _TAKING, _OVER, _WINNER, _N_LEGAL, _LEGAL = nk.TO_MOVE, nk.TAKING, nk.OVER, nk.WINNER, nk.N_LEGAL, nk.LEGAL


@kernel
def _write(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    ws: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    frac: float,
) -> int:
    """Write the planes (flat, :func:`~tessera.games.nibble.observation.write_planes`: ``float32`` with
    ``frac = 1``, ``uint8`` with ``frac = 255``) and the mask of one position for the player to move;
    return that player."""
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    p = s[h + _TO_MOVE]
    write_planes(s, deal, geo, pos, board, p, obs, frac)
    _write_mask(s, deal, geo, ws, mask)
    return p


@kernel
def _write_mask(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, ws: np.ndarray, mask: np.ndarray) -> None:
    """The mask of the position's legal actions (the kernels' cached list, listed if not yet)."""
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    for i in range(mask.shape[0]):
        mask[i] = False
    m = s[h + _N_LEGAL]
    if m < 0:
        m = nk._fill_legal(s, deal, geo, ws)
    for j in range(m):
        mask[s[h + _LEGAL + j]] = True


@kernel
def _write_planes_and_mask(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    ws: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    b: int,
    mask: np.ndarray,
) -> int:
    """Game ``b``'s planes straight into its ``uint8`` row (``packed`` has rows) or ``float32`` row.

    **Per-game code beside the generic packing** (:func:`~tessera.core.kits.vector.pack_row`: ``float32``
    into a scratch row, then bytes), because writing the bytes directly measured cheaper: Nibble's planes
    are 2,511 cells, 18 of its 31 planes constant fills.  CPU ns per game-step at B = 1,024, random legal
    actions included, medians of 7 interleaved rounds, 2026-11-29: ``uint8`` 2,240 packed → 1,835 direct
    (``float32`` 2,344 and 2,259 in the same runs); ``tests/vector/test_formats.py`` checks the bytes."""
    if packed.shape[0] > 0:
        return _write(s, deal, geo, ws, pos, board, _row(packed, b), mask, 255.0)
    return _write(s, deal, geo, ws, pos, board, _row(obs, b), mask, 1.0)


@kernel
def _new_game(
    s: np.ndarray, pool: np.ndarray, pool_deals: np.ndarray, fixed: int, rs: np.ndarray, deal_of: np.ndarray, b: int
) -> None:
    d = fixed if fixed >= 0 else rand_below(rs, np.int64(pool.shape[0]))
    deal_of[b] = d
    src = _row(pool, 0 if fixed >= 0 else d)
    for i in range(s.shape[0]):
        s[i] = src[i]


@kernel
def _reset(
    positions: np.ndarray,
    deal_of: np.ndarray,
    pool: np.ndarray,
    pool_deals: np.ndarray,
    fixed: int,
    rs: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    mult: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    ws: np.ndarray,
) -> None:
    pool, pool_deals, rs, deal_of = _unowned(pool), _unowned(pool_deals), _unowned(rs), _unowned(deal_of)
    geo, pos, board, ws = _unowned(geo), _unowned(pos), _unowned(board), _unowned(ws)
    obs, packed = _unowned(obs), _unowned(packed)
    for b in range(positions.shape[0]):
        s = _row(positions, b)
        _new_game(s, pool, pool_deals, fixed, rs, deal_of, np.int64(b))
        deal = _row(pool_deals, 0 if fixed >= 0 else deal_of[b])
        player[b] = _write_planes_and_mask(s, deal, geo, ws, pos, board, obs, packed, b, _row(mask, b))


@kernel
def _step(
    positions: np.ndarray,
    deal_of: np.ndarray,
    actions: np.ndarray,
    pool: np.ndarray,
    pool_deals: np.ndarray,
    fixed: int,
    rs: np.ndarray,
    geo: np.ndarray,
    pos: np.ndarray,
    board: np.ndarray,
    obs: np.ndarray,
    packed: np.ndarray,
    mult: np.ndarray,
    mask: np.ndarray,
    player: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    ws: np.ndarray,
) -> None:
    pool, pool_deals, rs, deal_of = _unowned(pool), _unowned(pool_deals), _unowned(rs), _unowned(deal_of)
    geo, pos, board, ws = _unowned(geo), _unowned(pos), _unowned(board), _unowned(ws)
    obs, packed = _unowned(obs), _unowned(packed)
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    u8 = packed.shape[0] > 0
    for b in range(positions.shape[0]):
        if actions[b] < 0:  # no step for this game (the Gymnasium env's opponents' turns)
            for q in range(rewards.shape[1]):
                rewards[b, q] = 0.0
            terminated[b] = False
            continue
        s = _row(positions, b)
        deal = _row(pool_deals, 0 if fixed >= 0 else deal_of[b])
        a = actions[b]
        mover = s[h + _TO_MOVE]
        taking = s[h + _TAKING]
        colour = s[a] if a < k else -1
        nk._apply(s, deal, geo, ws, a)
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0
        terminated[b] = False
        if s[h + _OVER]:
            w = s[h + _WINNER]
            if w >= 0:
                rewards[b, w] = 1.0
                rewards[b, 1 - w] = -1.0
            terminated[b] = True
            _new_game(s, pool, pool_deals, fixed, rs, deal_of, np.int64(b))
            deal = _row(pool_deals, 0 if fixed >= 0 else deal_of[b])
            player[b] = _write_planes_and_mask(s, deal, geo, ws, pos, board, obs, packed, b, _row(mask, b))
            continue
        # the game goes on: its planes (still those of the position before) brought up to date in place
        if u8:
            update_planes(s, deal, geo, pos, board, a, colour, mover, taking, _row(packed, b), 255.0)
        else:
            update_planes(s, deal, geo, pos, board, a, colour, mover, taking, _row(obs, b), 1.0)
        _write_mask(s, deal, geo, ws, _row(mask, b))
        player[b] = s[h + _TO_MOVE]


class NibbleVector(VectorGame):
    """Nibble, ``B`` positions at once, new games dealt from a pool of ``deals`` seeds (or one ``deal``)."""

    def __init__(self, adapted: Any, batch: int, seed: int, **formats: str) -> None:
        super().__init__(adapted, batch, seed, **formats)
        game = adapted.game
        lay = adapted.obs.layout
        seeds = [adapted.deal] if adapted.deal is not None else list(range(adapted.deals))
        states = [game.new_initial_state(seed=d) for d in seeds]
        self._pool = np.stack([st.s for st in states])
        self._pool_deals = np.stack([st._deal for st in states])
        if any(st.is_terminal() for st in states):
            raise ValueError(f"{game}: a deal of the pool is over before the first step")
        self._fixed = -1 if adapted.deal is None else int(adapted.deal)
        self._geo = game.geo
        self._pos, board = layout_tables(game, lay)
        self._board = board.astype(np.uint8) if self.obs_dtype == "uint8" else board  # the planes' type
        self.positions = np.zeros((self.batch, self._pool.shape[1]), np.int32)
        """Each game's position (layout of :mod:`tessera.games.nibble.kernels`)."""
        self.deal_of = np.zeros(self.batch, np.int64)
        """The deal (seed) each game was dealt from."""
        self._ws = nk.scratch(self._geo)  # the kernels' scratch, kept (not allocated per call)

    def _reset_all(self) -> None:
        _reset(
            self.positions, self.deal_of, self._pool, self._pool_deals, self._fixed, self.rs,
            self._geo, self._pos, self._board, self._obs_w, self._packed, self._mult, self._mask_rows, self._player,
            self._ws,
        )  # fmt: skip

    def _step(self, actions: np.ndarray) -> None:
        _step(
            self.positions, self.deal_of, actions, self._pool, self._pool_deals, self._fixed, self.rs,
            self._geo, self._pos, self._board, self._obs_w, self._packed, self._mult, self._mask_rows, self._player,
            self._rewards, self._terminated, self._ws,
        )  # fmt: skip
