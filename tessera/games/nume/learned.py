"""Nume's learned evaluation (``NumeGame.learned()``): position features (one compiled kernel over the
game's board array), the value, and the number prior of the search's candidate steps (``tessera train``
fits it to the final group sizes of its self-play games: :func:`group_sizes`, :func:`number_prior`).

Every feature is *antisymmetric*: seen from the other colour it changes sign, so a linear
value ``tanh(w · φ)`` without a bias term is exactly zero-sum (``value(0) = −value(1)``).
Lower scores win in Nume, so "opponent minus me" is good for me.  ``scale`` is the hand-written
evaluation's ``max(2, √empty)``; the estimates are those of :func:`tessera.games.nume.kernels.estimates`
(per group the mean of its price and its best price if it grew by up to its liberties).
"""

from __future__ import annotations

import bisect
import math
import random
from typing import Any

import numpy as np

from tessera.core.kernels import kernel
from tessera.core.kits.fitting import linear_value
from tessera.core.kits.learned import LearnedKit
from tessera.games.nume.kernels import GID, GMAX, GMIN, GPRICE, GSIZE, HEAD, NEMPTY, group_room

NUME_FEATURES = (
    "estimate",  # (opp estimate − my estimate) / scale, komi included: the hand evaluation's argument
    "tanh_estimate",  # tanh of it: the hand evaluation itself
    "price",  # (opp price − my price) / scale, komi included: the score if the board were full now
    "best",  # (opp best price − my best price) / scale: every group grown to its best
    "locked",  # (opp − my) prices of groups without liberties (final) / scale
    "groups",  # (my groups − opp groups) / √cells
    "room",  # (my liberties − opp liberties) / cells
    "tempo",  # +1 when I am to move, −1 when the opponent is
    "tempo_empty",  # tempo × share of empty cells
    "estimate_empty",  # estimate × share of empty cells (the estimate matters less late … or more)
    "price_full",  # price × share of filled cells
)
"""The names of the features, in order (the weights file lists them too)."""


@kernel
def nume_features(
    a: np.ndarray, nbr: np.ndarray, komi_b: float, komi_w: float, mine: int, my_move: int, out: np.ndarray
) -> None:
    """Write the :data:`NUME_FEATURES` of the position for colour ``mine`` (0 Black, 1 White) into ``out``;
    ``my_move`` is 1 when that colour places next, else 0."""
    n = nbr.shape[0]
    mark = np.zeros(n, dtype=np.int32)
    est = np.zeros(2)
    price = np.zeros(2)
    best_p = np.zeros(2)
    locked = np.zeros(2)
    groups = np.zeros(2)
    room_t = np.zeros(2)
    for g in range(n):
        col = a[g]
        if col < 0 or a[GID * n + g] != g:
            continue
        room = group_room(a, nbr, g, mark)
        s = float(a[GSIZE * n + g])
        lo = float(a[GMIN * n + g])
        hi = float(a[GMAX * n + g])
        p = float(a[GPRICE * n + g])
        target = min(max(s, (lo + hi) / 2), s + room)
        best = max(hi - target, target - lo)
        est[col] += 0.5 * (p + best)
        price[col] += p
        best_p[col] += best
        groups[col] += 1.0
        room_t[col] += room
        if room == 0:
            locked[col] += p
    if mine == 0:
        k_me, k_opp = komi_b, komi_w
    else:
        k_me, k_opp = komi_w, komi_b
    opp = 1 - mine
    empty = float(a[HEAD * n + NEMPTY])
    scale = max(2.0, math.sqrt(empty))
    share = empty / n
    e = (est[opp] + k_opp - est[mine] - k_me) / scale
    pr = (price[opp] + k_opp - price[mine] - k_me) / scale
    tempo = 1.0 if my_move == 1 else -1.0
    out[0] = e
    out[1] = math.tanh(e)
    out[2] = pr
    out[3] = (best_p[opp] + k_opp - best_p[mine] - k_me) / scale
    out[4] = (locked[opp] - locked[mine]) / scale
    out[5] = (groups[mine] - groups[opp]) / math.sqrt(n)
    out[6] = (room_t[mine] - room_t[opp]) / n
    out[7] = tempo
    out[8] = tempo * share
    out[9] = e * share
    out[10] = pr * (1.0 - share)


def features(state: Any, player: int) -> np.ndarray:
    """The feature vector of a Nume ``state`` for ``player``, shape ``(11,)`` float64; ValueError during
    the komi bidding or when the game is over (no board to read)."""
    st: Any = state
    if state.is_terminal() or st._colors is None:
        raise ValueError("features: a Nume position during its bidding or after its end has none")
    mine = st._colors[player]
    kb, kw = st._komis()
    out = np.empty(len(NUME_FEATURES))
    nume_features(st._a, state.game.nbr, kb, kw, mine, 1 if st._col == mine else 0, out)
    return out


class NumeValue:
    """``value(state, player)`` in [-1, 1]: ``tanh(w · φ)``, the returns when over, and the hand evaluation
    during the komi bidding (no board yet)."""

    def __init__(self, w: np.ndarray) -> None:
        self._w = np.ascontiguousarray(w, dtype=np.float64)
        if self._w.shape != (len(NUME_FEATURES),):
            raise ValueError(f"nume value: {len(NUME_FEATURES)} weights needed, not {self._w.shape}")
        self._phi = np.empty(len(NUME_FEATURES))

    def value(self, state: Any, player: int) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        st: Any = state
        if st._colors is None:
            return float(state.evaluate(player))
        mine = st._colors[player]
        kb, kw = st._komis()
        nume_features(st._a, state.game.nbr, kb, kw, mine, 1 if st._col == mine else 0, self._phi)
        return float(linear_value(self._phi, self._w))


def draw(state: Any, rng: random.Random, cumulative: list[float]) -> int:
    """A random step whose number, when it starts a group, follows the learned prior: ``cumulative`` holds
    the cumulative weights of the numbers ``0 … cells`` (a bid, a joining stone, or a board of another
    size than the prior's: a uniform random step)."""
    a: int = state.random_action(rng)
    game: Any = state.game
    if state._colors is None or game.cells + 1 != len(cumulative):
        return a
    K = game.cells + 2
    if a >= game.cells * K or a % K == 0:  # a bid, or a joining stone
        return a
    k = min(len(cumulative) - 1, bisect.bisect_right(cumulative, rng.random() * cumulative[-1]))
    return (a // K) * K + 1 + k


def group_sizes(state: Any) -> list[int]:
    """The sizes of the groups on a Nume board (a finished self-play game's contribution to the number prior)."""
    st: Any = state
    a, n = st._a, state.game.cells
    return [int(a[GSIZE * n + c]) for c in range(n) if a[c] >= 0 and a[GID * n + c] == c]


def number_prior(sizes: np.ndarray, cells: int, sigma: float = 1.5, floor: float = 0.05) -> np.ndarray:
    """The number prior over ``0 … cells`` (shape ``(cells + 1,)``, sums to 1): the distribution of final
    group ``sizes`` smoothed by a Gaussian of width ``sigma``, with a ``floor`` share spread uniformly — a
    group's price is its numbers' distance from its size, so a number worth writing is a size groups end with."""
    k = np.arange(cells + 1, dtype=np.float64)
    hist = np.bincount(np.clip(sizes.astype(np.int64), 0, cells), minlength=cells + 1).astype(np.float64)
    gauss = np.exp(-0.5 * ((k[:, None] - k[None, :]) / sigma) ** 2)
    smooth = gauss @ hist
    smooth = smooth / smooth.sum() if smooth.sum() > 0 else np.full(cells + 1, 1.0 / (cells + 1))
    out: np.ndarray = (1.0 - floor) * smooth + floor / (cells + 1)
    return out


def _prior(sizes: np.ndarray, game: Any) -> np.ndarray:
    return number_prior(sizes, int(game.cells))


KIT = LearnedKit(
    features=NUME_FEATURES,
    features_of=features,
    value=NumeValue,
    weights="weights-v2.json",
    folder=__package__ or "tessera.games.nume",
    searches=("mcts",),
    sample=8,
    draw=draw,
    training="generations",
    finals=group_sizes,
    prior=_prior,
)
"""Nume's learned evaluation (``NumeGame.learned()``): UCT at level 5's settings with the value at its leaves."""


__all__ = ["KIT", "NUME_FEATURES", "NumeValue", "draw", "features", "group_sizes", "number_prior", "nume_features"]
