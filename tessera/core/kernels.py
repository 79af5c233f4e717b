"""Shared pieces of the compiled rule kernels (numba): the kernel decorator, a seeded RNG,
the int64 alias, the warm-up and the board → kernel-table conversion.

The rules of a game with kernels live in ``tessera/games/<game>/kernels.py`` as
``@kernel`` functions over compact numpy arrays (docs/engine.md and docs/games.md
give the convention); the game's ``State`` keeps its position in those arrays and
calls the kernels for every rule, so the State API, the agents and the rollouts
share one implementation.

**One vocabulary.**  Every game's kernel module names its entry points alike:
``legal`` (the legal actions), ``check`` (0, or the named refusal code of one
action), ``apply`` (play one action), ``apply_step`` (the State API's move in one call: check, play
and list the next position's legal actions; Nibble, Nymbat), ``random_step`` (a uniformly random legal
action), ``evaluate`` (a heuristic value in [-1, 1]), ``rollout``/``rollouts``
(random games to the end or a cut-off).  Refusal codes are named module
constants (``R_...``) that the kernel returns and the game's sentence table
matches by name, never by number.

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

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numba
import numpy as np

from tessera.core.geometry import Cell, Grid

F = TypeVar("F", bound=Callable[..., Any])
G = TypeVar("G")

I64: Callable[[Any], int] = np.int64  # type: ignore[assignment]
"""``np.int64`` typed as a conversion to ``int``: inside a kernel, ``I64(x)`` keeps integer arithmetic
signed 64-bit (numba mixes ``uint64`` and signed integers into floats)."""

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


@kernel
def below(rs: np.ndarray, n: int) -> int:
    """:func:`rand_below` of a signed ``n``, as a signed integer (the form kernels index with)."""
    return np.int64(rand_below(rs, I64(n)))  # type: ignore[return-value]


def warm_up(load: Callable[[G], object]) -> Callable[[G], None]:
    """Decorate a game's warm-up: a function that calls each kernel its ``State`` uses once.

    The decorated function runs on the first game built in the process and never again
    (not even from within itself: it may build states of the game), so numba loads the
    kernels from its cache (or compiles them) there and not inside an agent's first
    timed search.
    """
    done = False

    @functools.wraps(load)
    def once(game: G) -> None:
        nonlocal done
        if not done:
            done = True
            load(game)

    return once


def neighbour_table(grid: Grid, cells: Sequence[Cell] | None = None, width: int = 6) -> np.ndarray:
    """A board as the kernels read it: row ``i`` lists the neighbours of ``cells[i]`` as positions in
    ``cells`` (default: ``grid.cells``), padded with -1 to ``width`` columns (``int32``).

    >>> from tessera.core.geometry import square
    >>> neighbour_table(square(2), width=4).tolist()
    [[1, 2, -1, -1], [3, 0, -1, -1], [3, 0, -1, -1], [2, 1, -1, -1]]
    """
    cells = grid.cells if cells is None else cells
    index = {c: i for i, c in enumerate(cells)}
    table = np.full((len(cells), width), -1, np.int32)
    for i, c in enumerate(cells):
        row = [index[d] for d in grid.neighbors[c]]
        if len(row) > width:
            raise ValueError(f"cell {grid.label(c)} has {len(row)} neighbours, more than the table's {width} columns")
        table[i, : len(row)] = row
    return table


__all__ = ["I64", "below", "kernel", "neighbour_table", "rand_below", "rand_next", "rng_state", "warm_up"]
