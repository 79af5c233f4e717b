"""Nume position features for the learned evaluation (one compiled kernel over the game's board array).

Every feature is *antisymmetric*: seen from the other colour it changes sign, so a linear
value ``tanh(w · φ)`` without a bias term is exactly zero-sum (``value(0) = −value(1)``).
Lower scores win in Nume, so "opponent minus me" is good for me.  ``scale`` is the hand-written
evaluation's ``max(2, √empty)``; the estimates are those of :func:`tessera.games.nume.kernels.estimates`
(per group the mean of its price and its best price if it grew by up to its liberties).
"""

from __future__ import annotations

import math

import numpy as np

from tessera.core.kernels import kernel
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


@kernel
def linear_value(phi: np.ndarray, w: np.ndarray) -> float:
    """``tanh(w · φ)``: the learned value in [-1, 1]."""
    s = 0.0
    for i in range(phi.shape[0]):
        s += w[i] * phi[i]
    return math.tanh(s)


__all__ = ["NUME_FEATURES", "linear_value", "nume_features"]
