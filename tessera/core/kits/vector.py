# mypy: disable-error-code="arg-type, assignment"
# (kernels pass numpy int64 scalars where the hints say int, as in the games' kernels)
"""What every game's vector engine shares: the batch, the checks of the actions, the engine class,
and the freshness of the engines' numba cache.

A game's vector engine (``tessera/games/<game>/vector.py``, declared by ``Game.vector_engine``)
subclasses :class:`VectorGame`; :mod:`tessera.vector` makes it from the game object.

numba keys the on-disk cache of a kernel by its own source file only, so a change in a game's
kernels would leave its vector engine's cached machine code calling the old rules.  An engine's
module calls :func:`fresh_cache` first: it keeps a hash of the sources whose kernels the engine
calls beside the cache and deletes that module's cached kernels when the hash changes, before
any of them is loaded.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tessera.core.game import IllegalMove
from tessera.core.kernels import kernel, rand_below, rng_state

WATCHED: dict[str, list[Path]] = {}
"""The kernel sources each engine module watches (its path -> the sources), as :func:`fresh_cache` set them."""


def kernel_sources(*modules: str) -> list[Path]:
    """The source files of the dotted ``modules`` (those that exist), and always the shared kernels."""
    paths = []
    for name in ["tessera.core.kernels", *modules]:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            paths.append(Path(spec.origin))
    return paths


def drop_stale(cache: Path, sources: list[Path], stem: str) -> bool:
    """Delete the cached kernels of the module ``stem`` (``stem.*.nbi``, ``stem.*.nbc``) in ``cache`` if
    ``sources`` changed since the hash kept there; return whether they were deleted.  A cache that
    cannot be written is left alone."""
    try:
        digest = hashlib.sha256()
        for path in sources:
            digest.update(path.read_bytes())
        stamp = digest.hexdigest()
        mark = cache / f"{stem}.called-kernels.sha256"
        if mark.is_file() and mark.read_text() == stamp:
            return False
        cache.mkdir(exist_ok=True)
        for path in [*cache.glob(f"{stem}.*.nbi"), *cache.glob(f"{stem}.*.nbc")]:
            path.unlink(missing_ok=True)
        mark.write_text(stamp)
        return True
    except OSError:
        return False


def fresh_cache(module_file: str, *modules: str) -> None:
    """Keep the numba cache of the module at ``module_file`` in step with the kernels of ``modules``
    (dotted names; the shared kernels are always watched).  Call it before the module defines a kernel."""
    path = Path(module_file).resolve()
    sources = kernel_sources(*modules)
    WATCHED[str(path)] = sources
    drop_stale(path.parent / "__pycache__", sources, path.stem)


fresh_cache(__file__)  # before any kernel here is loaded


class Batch(NamedTuple):
    """What :meth:`VectorGame.reset` and :meth:`VectorGame.step` return: one row per game.

    The arrays are the engine's own buffers, read-only views overwritten by the next call:
    copy what you keep.
    """

    obs: np.ndarray
    """``float32 (B, C, H, W)``: the adapters' observation planes, seen by the player to move."""
    mask: np.ndarray
    """``bool (B, A)``: the legal adapter actions of the player to move."""
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


@kernel
def first_illegal(mask: np.ndarray, actions: np.ndarray) -> int:
    """The first slot whose action is not legal in its game (outside ``0 … A−1`` or not in the mask), or −1."""
    n_actions = mask.shape[1]
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < 0 or a >= n_actions or not mask[b, a]:
            return b
    return -1


@kernel
def _random_legal_bytes(mask: np.ndarray, rs: np.ndarray, out: np.ndarray) -> None:
    """One byte per action: count each row's legal actions, draw ``r``, find the ``r``-th."""
    for b in range(mask.shape[0]):
        row = mask[b]
        count = np.int64(0)
        for a in range(row.shape[0]):
            count += np.int64(row[a])
        if count == 0:
            out[b] = -1
            continue
        r = rand_below(rs, count)
        for a in range(row.shape[0]):
            if row[a]:
                if r == 0:
                    out[b] = a
                    break
                r -= 1


@kernel
def _random_legal_words(words: np.ndarray, rs: np.ndarray, out: np.ndarray) -> None:
    """The same over the mask read eight actions at a time (``uint64`` words of 0/1 bytes, padded
    rows): a zero word is skipped at once and a word's legal actions are counted by one product."""
    ones = np.uint64(0x0101010101010101)
    shift = np.uint64(56)
    for b in range(words.shape[0]):
        row = words[b]
        count = np.int64(0)
        for i in range(row.shape[0]):
            w = row[i]
            if w:
                count += np.int64((w * ones) >> shift)
        if count == 0:
            out[b] = -1
            continue
        r = rand_below(rs, count)
        for i in range(row.shape[0]):
            w = row[i]
            if w:
                c = np.int64((w * ones) >> shift)
                if r < c:
                    for j in range(8):
                        if (w >> np.uint64(8 * j)) & np.uint64(1):
                            if r == 0:
                                out[b] = 8 * i + j
                                break
                            r -= 1
                    break
                r -= c


def random_legal(mask: np.ndarray, rs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``−1`` for a row with none), drawn in a kernel.

    ``rs`` is a random state (:func:`tessera.core.kernels.rng_state`), advanced; ``out`` an
    ``int64`` array of one entry per row to fill (default: a new one).  A batch's own mask is
    read eight actions at a time (its rows are padded to whole words), any other row by row.
    """
    # the kernels index these arrays unchecked: refuse what they cannot read or write
    if not isinstance(mask, np.ndarray) or mask.ndim != 2 or mask.dtype not in (np.bool_, np.uint8, np.int8):
        raise ValueError("mask must be a 2-D array of bool (or 0/1 int8/uint8), one row per game")
    if not isinstance(rs, np.ndarray) or rs.dtype != np.uint64 or rs.shape != (1,) or not rs.flags.writeable:
        raise ValueError("rs must be a random state: a writeable uint64 array of shape (1,) (rng_state(seed))")
    if out is None:
        out = np.empty(mask.shape[0], np.int64)
    elif (
        not isinstance(out, np.ndarray)
        or out.dtype != np.int64
        or out.shape != (mask.shape[0],)
        or not out.flags.writeable
    ):
        raise ValueError(f"out must be a writeable int64 array of shape ({mask.shape[0]},), one entry per row of mask")
    base = mask.base
    if (
        isinstance(base, np.ndarray)
        and base.dtype == np.bool_
        and base.ndim == 2
        and base.flags.c_contiguous
        and base.shape[0] == mask.shape[0]
        and base.shape[1] % 8 == 0
        and base.shape[1] - 8 < mask.shape[1] <= base.shape[1]
        and mask.strides == base.strides
        and mask.__array_interface__["data"][0] == base.__array_interface__["data"][0]
        and base.__array_interface__["data"][0] % 8 == 0
    ):
        _random_legal_words(base.view(np.uint64), rs, out)
    else:
        _random_legal_bytes(np.ascontiguousarray(mask).view(np.uint8), rs, out)
    return out


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class VectorGame:
    """``B`` games of one kind played side by side as numpy arrays, stepped by compiled kernels.

    Subclasses hold the positions and implement ``_reset_all()`` (every game to a new game, the
    buffers written) and ``_step(actions)`` (checked actions: apply, reset the games that end,
    write every buffer); the checks of the input live here.
    """

    def __init__(self, adapted: Any, batch: int, seed: int) -> None:
        if not isinstance(batch, int | np.integer) or isinstance(batch, bool) or batch < 1:
            raise ValueError(f"batch must be a positive integer, not {batch!r}")
        if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        self.adapted = adapted
        """The adapted game (the adapters' ``AdaptedGame``, a layer above this kit): the action
        numbering and the observation planes."""
        self.game = adapted.game
        self.name = adapted.name
        self.batch = int(batch)
        self.num_players = adapted.num_players
        self.num_actions = adapted.num_distinct_actions
        self.observation_shape: tuple[int, int, int] = adapted.observation_shape
        self.planes: list[str] = adapted.obs.planes
        self.rs = rng_state(int(seed))
        """The engine's random state (the deals of dealt games)."""
        b = self.batch
        self._obs = np.zeros((b, *self.observation_shape), np.float32)
        self._mask_rows = np.zeros((b, -(-self.num_actions // 8) * 8), np.bool_)
        """The masks, each row padded with ``False`` to a whole number of 8-byte words (the kernels
        write these rows; the batch shows the first ``num_actions`` columns)."""
        self._mask = self._mask_rows[:, : self.num_actions]
        self._player = np.zeros(b, np.int32)
        self._rewards = np.zeros((b, self.num_players), np.float32)
        self._terminated = np.zeros(b, np.bool_)
        self._truncated = np.zeros(b, np.bool_)
        self._batch = Batch(*(_readonly(x) for x in self._buffers()))
        self._started = False

    def _buffers(self) -> tuple[np.ndarray, ...]:
        return self._obs, self._mask, self._player, self._rewards, self._terminated, self._truncated

    def __repr__(self) -> str:
        return f"tessera.vector.make({str(self.game)!r}, batch={self.batch})"

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
        self._started = True
        return self._batch

    def step(self, actions: Any) -> Batch:
        """Apply one adapter action per game (``int`` array of shape ``(B,)``); games that end are reset.

        ``IllegalMove`` (naming the first bad slot) for an action that is not legal in its game,
        ``ValueError`` for a wrong shape or dtype; in both cases no game changes.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        acts = self._checked(actions)
        self._step(acts)
        return self._batch

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
        slot = int(first_illegal(self._mask, acts))
        if slot >= 0:
            a = int(acts[slot])
            if not 0 <= a < self.num_actions:
                raise IllegalMove(
                    f"slot {slot}: action {a} is not an action of {self.name} (0 … {self.num_actions - 1}); "
                    "no game was changed"
                )
            raise IllegalMove(
                f"slot {slot}: action {a} ({self._describe(slot, a)}) is not legal in that game now; "
                f"its legal actions: {self._legal_preview(slot)}; no game was changed"
            )
        return acts

    def _legal_preview(self, slot: int) -> str:
        legal = np.flatnonzero(self._mask[slot]).tolist()
        more = f" … ({len(legal)} in all)" if len(legal) > 12 else ""
        return ", ".join(str(a) for a in legal[:12]) + more

    def _describe(self, slot: int, action: int) -> str:
        """The action in the game's notation where it can be told without the position."""
        try:
            return str(self.adapted._probe.action_to_string(self.adapted.to_tessera(action)))
        except (IllegalMove, ValueError, IndexError, KeyError):
            return f"action {action}"

    def _step_some(self, actions: np.ndarray) -> None:
        """Step only the games whose action is not −1 (legal actions, unchecked); the others keep
        their position, observation and mask, with rewards 0 and not terminated."""
        self._step(np.ascontiguousarray(actions, dtype=np.int64))

    # -- subclass hooks -------------------------------------------------------------------
    def _reset_all(self) -> None:
        raise NotImplementedError

    def _step(self, actions: np.ndarray) -> None:
        raise NotImplementedError


__all__ = ["Batch", "VectorGame", "drop_stale", "first_illegal", "fresh_cache", "kernel_sources", "random_legal"]
