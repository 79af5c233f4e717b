"""Nim's rules as compiled kernels (numba), in tessera's kernel vocabulary.

A position is one ``int64`` array ``s`` (the layout below); the game's one
parameter the kernels need, ``take``, is passed alongside.  Every rule is here
once: :class:`tessera_nim.game.NimState` calls these functions for its legal
moves, its checks, its moves, its evaluation and its random games, so the state
API, the agents and the rollouts share one implementation.

Entry points (the same names in every game): :func:`legal`, :func:`check`,
:func:`apply`, :func:`random_step`, :func:`evaluate`, :func:`rollouts`.
Refusals are named codes (``R_*``) that :func:`check` returns and the game's
sentence table matches by name.
"""

from __future__ import annotations

import numpy as np

from tessera.core.kernels import I64, below, kernel

# -- the position array -------------------------------------------------------------------------
HEAP, TO_MOVE, OVER, WINNER = 0, 1, 2, 3
"""Stones left; the player to move; 1 once the game is over; the winner (-1: none yet)."""
SIZE = 4
"""Length of the position array."""

# -- refusal codes of :func:`check` ---------------------------------------------------------------
R_NOT_A_TAKE = 1
"""A move takes 1 to ``take`` stones."""
R_MORE_THAN_THE_HEAP = 2
"""A move takes at most the stones left."""


def new_position(stones: int) -> np.ndarray:
    """The position at the start: a full heap, the first player to move."""
    return np.array([stones, 0, 0, -1], np.int64)


@kernel
def legal(s: np.ndarray, take: int) -> np.ndarray:
    """The legal actions (``a`` takes ``a + 1`` stones), ascending."""
    return np.arange(min(I64(take), I64(s[HEAP])))


@kernel
def check(s: np.ndarray, take: int, a: int) -> int:
    """0 when action ``a`` is legal now, else its refusal code."""
    if a < 0 or a >= take:
        return R_NOT_A_TAKE
    if a + 1 > s[HEAP]:
        return R_MORE_THAN_THE_HEAP
    return 0


@kernel
def apply(s: np.ndarray, take: int, a: int) -> None:
    """Play the legal action ``a``: who takes the last stone wins."""
    s[HEAP] -= a + 1
    if s[HEAP] == 0:
        s[OVER] = 1
        s[WINNER] = s[TO_MOVE]
    s[TO_MOVE] = 1 - s[TO_MOVE]


@kernel
def random_step(s: np.ndarray, take: int, rs: np.ndarray) -> int:
    """A uniformly random legal action (``rs``: the generator state of :func:`tessera.core.kernels.rng_state`)."""
    return below(rs, min(I64(take), I64(s[HEAP])))


@kernel
def evaluate(s: np.ndarray, take: int, player: int) -> float:
    """The exact value for ``player``: the player to move loses on a multiple of ``take + 1``."""
    if s[OVER]:
        return 1.0 if s[WINNER] == player else -1.0
    mover_wins = s[HEAP] % (take + 1) != 0
    return 1.0 if mover_wins == (player == s[TO_MOVE]) else -1.0


@kernel
def rollouts(s: np.ndarray, take: int, n: int, rs: np.ndarray, totals: np.ndarray) -> int:
    """Play ``n`` random games from ``s`` (left unchanged) to the end; add each player's result to
    ``totals`` and return the steps played."""
    plies = 0
    work = np.empty(SIZE, np.int64)
    for _ in range(n):
        work[:] = s
        while not work[OVER]:
            apply(work, take, random_step(work, take, rs))
            plies += 1
        for p in range(2):
            totals[p] += 1.0 if work[WINNER] == p else -1.0
    return plies
