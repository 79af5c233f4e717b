"""Shared pieces of the compiled rule kernels (numba): the kernel decorator and a seeded RNG.

The rules of a game with kernels live in ``tessera/games/<game>/kernels.py`` as
``@kernel`` functions over compact numpy arrays (docs/engine.md gives the
convention); the game's ``State`` keeps its position in those arrays and calls
the kernels for every rule, so the State API, the agents and the rollouts share
one implementation.

Random numbers inside kernels come from :func:`rand_below`: a SplitMix64
generator whose whole state is one ``uint64`` kept in a one-element array, so a
kernel call is reproducible from the integer seed it is given (Python's
``random.Random`` never enters a kernel).

**Cache caveat**: numba's on-disk cache (``cache=True``) of a kernel is keyed by
its own source file; it does not notice a change in a kernel it calls from
another module.  This module is therefore kept tiny and stable; after changing
it, delete the caches (``find tessera -name '*.nbi' -delete``) — CI starts
from an empty cache anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_MASK63 = 0x7FFFFFFFFFFFFFFF


def kernel(fn: F) -> F:
    """Compile ``fn`` with ``numba.njit(cache=True, nogil=True)``: the one decorator of rule kernels."""
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


def rng_state(seed: int) -> np.ndarray:
    """The generator state for ``seed`` (any Python int; reduced to 63 bits)."""
    return np.array([seed & _MASK63], dtype=np.uint64)


@kernel
def rand_next(rs: np.ndarray) -> np.uint64:
    """The next 64 random bits (SplitMix64); advances ``rs[0]``."""
    z = rs[0] + _GOLDEN
    rs[0] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def rand_below(rs: np.ndarray, n: int) -> int:
    """A uniform integer ``0 <= k < n`` (``n >= 1``); the modulo bias is below 2**-32 for ``n < 2**31``."""
    return np.int64(rand_next(rs) % np.uint64(n))  # type: ignore[return-value]  # int64, not uint64


__all__ = ["kernel", "rand_below", "rand_next", "rng_state"]
