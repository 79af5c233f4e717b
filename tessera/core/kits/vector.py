# mypy: disable-error-code="arg-type, assignment"
# (kernels pass numpy int64 scalars where the hints say int, as in the games' kernels)
"""What every game's vector engine shares: the batch, the checks of the actions, the engine class,
and the freshness of the engines' numba cache.

A game's vector engine (``tessera/games/<game>/vector.py``, declared by ``Game.vector_engine``)
subclasses :class:`VectorGame`; :mod:`tessera.vector` makes it from the game object.

An engine's module calls :func:`fresh_cache` (:mod:`tessera.core.kits.cache`, re-exported here)
first, so that its numba cache follows the kernels it calls.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from tessera.core.game import IllegalMove
from tessera.core.kernels import kernel, rng_state
from tessera.core.kits.cache import WATCHED, drop_stale, fresh_cache, kernel_sources
from tessera.core.kits.rows import row as _row
from tessera.core.kits.rows import unowned as _unowned

fresh_cache(__file__)  # before any kernel here is loaded


class Batch(NamedTuple):
    """What :meth:`VectorGame.reset` and :meth:`VectorGame.step` return: one row per game.

    The arrays are the engine's own buffers, read-only views overwritten by the next call:
    copy what you keep.
    """

    obs: np.ndarray
    """``(B, C, H, W)``: the adapters' observation planes, seen by the player to move: ``uint8`` (the
    default: 0/1 on the on/off planes, ``round(255·x)`` on the fractional ones — ``obs · obs_scale``
    gives the ``float32`` planes back, exactly on the on/off planes, within 1/510 on the others) or
    ``float32`` (the adapters' values), as ``make(obs_dtype=…)`` chose."""
    mask: np.ndarray
    """``bool (B, A)``: the legal decisions of the player to move: the adapter actions with
    ``actions="flat"``; with ``actions="factored"`` the current decision's choices (see ``phase``)."""
    player: np.ndarray
    """``int32 (B,)``: the player to move (in a game that just ended: the first player of the new game)."""
    rewards: np.ndarray
    """``float32 (B, players)``: what each player received in this step (the returns of a game that ended)."""
    terminated: np.ndarray
    """``bool (B,)``: the game ended in this step (by its rules) and was reset; ``obs``, ``mask`` and
    ``player`` then belong to the new game."""
    truncated: np.ndarray
    """``bool (B,)``: the game was cut off in this step (never: every game here ends by its own rules,
    a ply limit included)."""
    phase: np.ndarray
    """``int32 (B,)``: the decision of the move the mask is for: 0 when the next decision starts a move
    (always 0 with ``actions="flat"``), 1 for the second decision of a factored move."""
    decided: np.ndarray
    """``int64 (B,)``: the first decision of the move under way (phase 1), −1 at phase 0."""


@kernel
def first_illegal(mask: np.ndarray, actions: np.ndarray) -> int:
    """The first slot whose action is not legal in its game (outside ``0 … A−1`` or not in the mask), or −1."""
    n_actions = mask.shape[1]
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < 0 or a >= n_actions or not mask[b, a]:
            return b
    return -1


OBS_DTYPES = ("uint8", "float32")
"""The ``obs_dtype`` values of :func:`tessera.vector.make` (the first is the default)."""
ACTION_MODES = ("flat", "factored")
"""The ``actions`` values of :func:`tessera.vector.make` (the first is the default)."""


def fractional_planes(planes: list[str]) -> np.ndarray:
    """``bool (C,)``: the planes that hold fractions (their names say ``x / y``), the others being on/off.

    ``tests/vector/test_formats.py`` checks over random games that every other plane is 0 or 1."""
    return np.array([" / " in name for name in planes], np.bool_)


def plane_scale(planes: list[str]) -> np.ndarray:
    """``float32 (C,)``: what a ``uint8`` plane is multiplied by to give the ``float32`` plane back
    (1 on the on/off planes, 1/255 on the fractional ones)."""
    return np.where(fractional_planes(planes), np.float32(1.0 / 255.0), np.float32(1.0)).astype(np.float32)


def quantize(planes: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The ``uint8`` form of ``float32`` planes ``(…, C, H, W)`` (values in [0, 1]) for the per-plane
    ``scale`` of :func:`plane_scale`: ``round(x / scale)``."""
    mult = (1.0 / scale.astype(np.float64)).reshape(-1, 1, 1)
    return np.floor(planes.astype(np.float64) * mult + 0.5).astype(np.uint8)


@kernel
def obs_row(obs: np.ndarray, b: int) -> np.ndarray:
    """The ``float32`` row game ``b``'s planes are written into: its own row of the batch's planes
    (``obs_dtype="float32"``), or the one scratch row (``uint8``: :func:`pack_row` then packs it)."""
    return obs[b % obs.shape[0]]


@kernel
def pack_row(obs: np.ndarray, packed: np.ndarray, mult: np.ndarray, b: int) -> None:
    """After game ``b``'s planes were written into :func:`obs_row`: with ``uint8`` planes (``packed`` has
    a row per game) store ``round(x · mult[i])`` into ``packed[b]`` (``mult``: ``float32``, one entry per
    plane cell, 1 or 255); nothing with ``float32`` (``packed`` has no rows).  One flat loop, which LLVM
    vectorises (≈ 0.06 ns an entry, against ≈ 1 ns for a loop per plane)."""
    if packed.shape[0] == 0:
        return
    src = obs[b % obs.shape[0]]
    dst = packed[b]
    half = np.float32(0.5)
    for i in range(src.shape[0]):
        dst[i] = np.uint8(np.int32(src[i] * mult[i] + half))


class Factoring(NamedTuple):
    """A game's flat actions as two decisions (``actions="factored"``): a *head* (a cell, a piece …),
    then a *tail* (a number, a destination …); a head marked ``single`` is a whole move by itself.

    ``head[a]``/``tail[a]`` (``int64 (A,)``, −1 for an action no move of the engine uses) split flat action
    ``a``; ``flat[h, t]`` (``int64 (H, T)``, −1 where none) joins them back; ``single[h]`` (``bool (H,)``).
    """

    head: np.ndarray
    tail: np.ndarray
    flat: np.ndarray
    single: np.ndarray
    names: tuple[str, str]
    """What the two decisions choose, e.g. ``("cell", "number")``."""

    @classmethod
    def build(
        cls, num_actions: int, heads: int, tails: int, split: Any, single: Any, names: tuple[str, str]
    ) -> Factoring:
        """From ``split(a) -> (h, t)`` (``(-1, -1)`` for an unused action) and ``single(h) -> bool``."""
        head = np.full(num_actions, -1, np.int64)
        tail = np.full(num_actions, -1, np.int64)
        flat = np.full((heads, tails), -1, np.int64)
        for a in range(num_actions):
            h, t = split(a)
            if h < 0:
                continue
            if not (0 <= h < heads and 0 <= t < tails) or flat[h, t] >= 0:
                raise ValueError(f"factoring: action {a} splits into ({h}, {t}), outside or taken")
            head[a], tail[a], flat[h, t] = h, t, a
        singles = np.array([bool(single(h)) for h in range(heads)], np.bool_)
        for h in np.flatnonzero(singles):
            if (flat[h] >= 0).sum() != 1 or flat[h, 0] < 0:
                raise ValueError(f"factoring: the single head {h} must have exactly tail 0")
        return cls(head, tail, flat, singles, names)


@kernel
def _advance(
    decisions: np.ndarray,
    phase: np.ndarray,
    decided: np.ndarray,
    flat: np.ndarray,
    single: np.ndarray,
    moves: np.ndarray,
) -> int:
    """One decision per game (−1: none): a head starts a move (``phase`` 1) unless it is ``single``, a
    tail completes it.  ``moves[b]`` is the flat action a completed move plays (−1: none); returns how
    many moves were completed."""
    done = 0
    for b in range(decisions.shape[0]):
        d = decisions[b]
        moves[b] = -1
        if d < 0:
            continue
        if phase[b] == 0:
            if single[d]:
                moves[b] = flat[d, 0]
                done += 1
            else:
                decided[b] = d
                phase[b] = 1
        else:
            moves[b] = flat[decided[b], d]
            decided[b] = -1
            phase[b] = 0
            done += 1
    return done


@kernel
def _factor_masks(
    words: np.ndarray,
    mask: np.ndarray,
    phase: np.ndarray,
    decided: np.ndarray,
    head: np.ndarray,
    tail: np.ndarray,
    flat: np.ndarray,
    fwords: np.ndarray,
    fmask: np.ndarray,
    lists: np.ndarray,
    scan: bool,
) -> None:
    """Each game's mask of its current decision, from the engine's list of its legal flat actions where
    it keeps one (``lists[b, 0] ≥ 0`` entries after it), else from its flat mask: at phase 1 the tails
    legal after its head; at phase 0 the heads of its legal actions (from the flat mask eight actions at
    a time if ``scan``, else left for the engine to write: :meth:`VectorGame._write_heads`)."""
    ones = np.uint64(0xFF)
    head, tail, flat = _unowned(head), _unowned(tail), _unowned(flat)
    for b in range(mask.shape[0]):
        fw = _row(fwords, b)
        for i in range(fw.shape[0]):
            fw[i] = 0
        out = _row(fmask, b)
        row = _row(mask, b)
        if phase[b] == 0:
            n = lists[b, 0]
            if n >= 0:
                for j in range(1, n + 1):
                    h = head[lists[b, j]]
                    if h >= 0:
                        out[h] = True
            elif scan:
                w8 = _row(words, b)
                for i in range(w8.shape[0]):
                    w = w8[i]
                    if w:
                        for j in range(8):
                            if (w >> np.uint64(8 * j)) & ones:
                                h = head[8 * i + j]
                                if h >= 0:
                                    out[h] = True
        elif lists[b, 0] >= 0:
            d = decided[b]
            for j in range(1, lists[b, 0] + 1):
                a = lists[b, j]
                if head[a] == d:
                    out[tail[a]] = True
        else:
            heads = flat[decided[b]]
            for t in range(heads.shape[0]):
                a = heads[t]
                if a >= 0 and row[a]:
                    out[t] = True


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class VectorGame:
    """``B`` games of one kind played side by side as numpy arrays, stepped by compiled kernels.

    Subclasses hold the positions and implement ``_reset_all()`` (every game to a new game, the
    buffers written) and ``_step(actions)`` (checked flat actions, −1 for a game that does not step:
    apply, reset the games that end, write every buffer); they write the planes of game ``b`` into
    ``obs_row(self._obs_w, b)`` and then call ``pack_row(self._obs_w, self._packed, self._mult, b)``.
    The checks of the input, the ``uint8`` planes and the factored decisions live here.
    """

    def __init__(self, adapted: Any, batch: int, seed: int, *, obs_dtype: str = "uint8", actions: str = "flat") -> None:
        if not isinstance(batch, int | np.integer) or isinstance(batch, bool) or batch < 1:
            raise ValueError(f"batch must be a positive integer, not {batch!r}")
        if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        if obs_dtype not in OBS_DTYPES:
            raise ValueError(f"obs_dtype must be one of {', '.join(OBS_DTYPES)}, not {obs_dtype!r}")
        if actions not in ACTION_MODES:
            raise ValueError(f"actions must be one of {', '.join(ACTION_MODES)}, not {actions!r}")
        self.adapted = adapted
        """The adapted game (the adapters' ``AdaptedGame``, a layer above this kit): the action
        numbering and the observation planes."""
        self.game = adapted.game
        self.name = adapted.name
        self.batch = int(batch)
        self.num_players = adapted.num_players
        self.num_flat_actions = adapted.num_distinct_actions
        """The adapter actions (the width of the flat mask)."""
        self.observation_shape: tuple[int, int, int] = adapted.observation_shape
        self.planes: list[str] = adapted.obs.planes
        self.obs_dtype = obs_dtype
        self.action_mode = actions
        self.obs_scale = plane_scale(self.planes) if obs_dtype == "uint8" else np.ones(len(self.planes), np.float32)
        """``float32 (C,)``: ``batch.obs · obs_scale[:, None, None]`` are the ``float32`` planes."""
        self.rs = rng_state(int(seed))
        """The engine's random state (the deals of dealt games)."""
        b = self.batch
        chw = int(np.prod(self.observation_shape))
        if obs_dtype == "float32":
            self._obs = np.zeros((b, *self.observation_shape), np.float32)
            self._obs_w = self._obs.reshape(b, chw)
            self._packed = np.zeros((0, chw), np.uint8)
        else:
            self._obs = np.zeros((b, *self.observation_shape), np.uint8)
            self._obs_w = np.zeros((1, chw), np.float32)
            self._packed = self._obs.reshape(b, chw)
        hw = self.observation_shape[1] * self.observation_shape[2]
        self._mult = np.repeat(np.where(self.obs_scale < 1.0, np.float32(255.0), np.float32(1.0)), hw).astype(
            np.float32
        )
        """Per plane cell: what the ``float32`` value is multiplied by before rounding to ``uint8``."""
        self._mask_rows = np.zeros((b, -(-self.num_flat_actions // 8) * 8), np.bool_)
        """The flat masks, each row padded with ``False`` to a whole number of 8-byte words (the kernels
        write these rows; a flat batch shows the first ``num_flat_actions`` columns)."""
        self._flat_mask = self._mask_rows[:, : self.num_flat_actions]
        self.factoring: Factoring | None = self.make_factoring() if actions == "factored" else None
        """How a move splits into decisions (``actions="factored"`` in a game whose moves have two; ``None``:
        every decision is a whole move, the factored mask is the flat one)."""
        self._phase = np.zeros(b, np.int32)
        self._decided = np.full(b, -1, np.int64)
        self._moves = np.full(b, -1, np.int64)
        if self.factoring is not None:
            f = self.factoring
            self.num_actions = max(f.flat.shape)
            self._fmask_rows = np.zeros((b, -(-self.num_actions // 8) * 8), np.bool_)
            self._shown = self._fmask_rows[:, : self.num_actions]
            self._split = np.stack([f.head, f.tail]).astype(np.int32)
            """``int32 (2, A)``: the factoring's ``head`` and ``tail``, half the cache the ``int64`` tables take
            (the factored masks look one up per legal action)."""
        else:
            self.num_actions = self.num_flat_actions
            self._shown = self._flat_mask
        self._player = np.zeros(b, np.int32)
        self._rewards = np.zeros((b, self.num_players), np.float32)
        self._terminated = np.zeros(b, np.bool_)
        self._truncated = np.zeros(b, np.bool_)
        self._batch = Batch(*(_readonly(x) for x in self._buffers()))
        self.last_moves = _readonly(self._moves)
        """``int64 (B,)``: the flat action each game played in the last call, −1 for a game that only
        took the first decision of a move (or did not step)."""
        self._started = False

    @property
    def _mask(self) -> np.ndarray:
        """``bool (B, A)``: the flat masks, brought up to date first (:meth:`_sync_flat_mask`)."""
        self._sync_flat_mask()
        return self._flat_mask

    def _sync_flat_mask(self) -> None:
        """Write the flat mask rows an engine left stale (with ``actions="factored"`` an engine may write
        them only when read: no decision needs them).  Default: they are always up to date."""

    def make_factoring(self) -> Factoring | None:
        """The game's two decisions per move (``None``: one decision is a move).  Subclasses override."""
        return None

    def _buffers(self) -> tuple[np.ndarray, ...]:
        return (
            self._obs, self._shown, self._player, self._rewards, self._terminated, self._truncated,
            self._phase, self._decided,
        )  # fmt: skip

    def __repr__(self) -> str:
        return (
            f"tessera.vector.make({str(self.game)!r}, batch={self.batch}, obs_dtype={self.obs_dtype!r}, "
            f"actions={self.action_mode!r})"
        )

    @property
    def num_envs(self) -> int:
        return self.batch

    def reset(self, seed: int | None = None) -> Batch:
        """Start ``B`` new games (``seed``: reseed the deals first); rewards 0, nothing ended."""
        if seed is not None:
            if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
                raise ValueError(f"seed must be an integer, not {seed!r}")
            self.rs = rng_state(int(seed))
        self._reset_all()
        self._rewards[:] = 0.0
        self._terminated[:] = False
        self._truncated[:] = False
        self._phase[:] = 0
        self._decided[:] = -1
        self._moves[:] = -1
        self._refactor()
        self._started = True
        return self._batch

    def step(self, actions: Any) -> Batch:
        """Apply one decision per game (``int`` array of shape ``(B,)``): an adapter action (``flat``), or
        the current decision of a move (``factored``); games that end are reset.

        ``IllegalMove`` (naming the first bad slot) for a decision that is not legal in its game,
        ``ValueError`` for a wrong shape or dtype; in both cases no game changes.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        acts = self._checked(actions)
        self._decide(acts)
        return self._batch

    def _decide(self, acts: np.ndarray) -> None:
        """Checked decisions (−1: that game does not step) → the engine's flat steps and the masks."""
        f = self.factoring
        if f is None:
            self._moves[:] = acts
            self._step(acts)
            return
        if _advance(acts, self._phase, self._decided, f.flat, f.single, self._moves):
            self._step(self._moves)
        else:
            self._rewards[:] = 0.0
            self._terminated[:] = False
        self._refactor()

    def _refactor(self) -> None:
        f = self.factoring
        if f is not None:
            lists = self._legal_lists()
            own = self._heads_written()
            _factor_masks(
                self._mask_rows.view(np.uint64), self._mask_rows, self._phase, self._decided, self._split[0],
                self._split[1], f.flat, self._fmask_rows.view(np.uint64), self._fmask_rows, lists, not own,
            )  # fmt: skip
            if own:
                self._write_heads()

    def _legal_lists(self) -> np.ndarray:
        """``int64 (B, 1 + L)``: per game the count of its legal flat actions (−1: not kept) and them, where
        the engine keeps such a list (the generic engine does, for up to 512); default: none kept.  The
        factored masks are read from these lists, and from the flat mask rows (``_mask_rows``) of the games
        that have none: an engine may leave a row stale while its game's list is kept."""
        if not hasattr(self, "_no_lists"):
            self._no_lists = np.full((self.batch, 1), -1, np.int64)
        return self._no_lists

    def _heads_written(self) -> bool:
        """Whether :meth:`_write_heads` writes the first decisions' masks (of the games at phase 0) itself."""
        return False

    def _write_heads(self) -> None:
        """Write the mask of the first decision of the games at phase 0 into ``self._fmask_rows`` (cleared)."""
        raise NotImplementedError

    def _checked(self, actions: Any) -> np.ndarray:
        if not isinstance(actions, np.ndarray):
            if isinstance(actions, list | tuple):
                actions = np.asarray(actions)
            else:
                raise ValueError(
                    f"actions must be an integer array of shape ({self.batch},), not {type(actions).__name__}"
                )
        if actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers (one per game), not dtype {actions.dtype}")
        if actions.shape != (self.batch,):
            raise ValueError(f"actions must have shape ({self.batch},) — one per game — not {actions.shape}")
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if actions.dtype.kind == "u" and actions.dtype.itemsize == 8 and (actions > np.iinfo(np.int64).max).any():
            slot = int(np.argmax(actions > np.iinfo(np.int64).max))
            raise IllegalMove(f"slot {slot}: action {int(actions[slot])} is not an action of {self.name}")
        slot = int(first_illegal(self._shown, acts))
        if slot >= 0:
            a = int(acts[slot])
            what = "decision" if self.factoring is not None else "action"
            if not 0 <= a < self.num_actions:
                raise IllegalMove(
                    f"slot {slot}: {what} {a} is not {'a' if what == 'decision' else 'an'} {what} of {self.name} "
                    f"(0 … {self.num_actions - 1}); "
                    "no game was changed"
                )
            raise IllegalMove(
                f"slot {slot}: {what} {a} ({self._describe(slot, a)}) is not legal in that game now; "
                f"its legal {what}s: {self._legal_preview(slot)}; no game was changed"
            )
        return acts

    def _legal_preview(self, slot: int) -> str:
        legal = np.flatnonzero(self._shown[slot]).tolist()
        more = f" … ({len(legal)} in all)" if len(legal) > 12 else ""
        return ", ".join(str(a) for a in legal[:12]) + more

    def _describe(self, slot: int, action: int) -> str:
        """The decision in the game's notation where it can be told without the position."""
        f = self.factoring
        if f is not None:
            if self._phase[slot] == 0:
                return f"{f.names[0]} {action}"
            return f"{f.names[1]} {action} after {f.names[0]} {int(self._decided[slot])}"
        try:
            return str(self.adapted._probe.action_to_string(self.adapted.to_tessera(action)))
        except (IllegalMove, ValueError, IndexError, KeyError):
            return f"action {action}"

    def _step_some(self, actions: np.ndarray) -> None:
        """Step only the games whose decision is not −1 (legal decisions, unchecked); the others keep
        their position, observation and mask, with rewards 0 and not terminated."""
        self._decide(np.ascontiguousarray(actions, dtype=np.int64))

    # -- subclass hooks -------------------------------------------------------------------
    def _reset_all(self) -> None:
        raise NotImplementedError

    def _step(self, actions: np.ndarray) -> None:
        raise NotImplementedError


__all__ = [
    "ACTION_MODES",
    "OBS_DTYPES",
    "WATCHED",
    "Batch",
    "Factoring",
    "VectorGame",
    "drop_stale",
    "first_illegal",
    "fractional_planes",
    "fresh_cache",
    "kernel_sources",
    "obs_row",
    "pack_row",
    "plane_scale",
    "quantize",
]
