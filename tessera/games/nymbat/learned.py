"""Nymbat's learned evaluation (``NymbatGame.learned()``): position features (one compiled kernel over
the game's position array) and the value.

The features are seen from one player; the other players' figures are averaged (four players),
so with two players every feature is *antisymmetric* (seen from the other player it changes
sign) and the linear value ``tanh(w · φ)`` without a bias is zero-sum.  Feature 0 is the
argument of the hand-written evaluation (``0.04·material + 0.15·race + 0.6·threat``,
:func:`tessera.games.nymbat.kernels.evaluate`), so the weights ``(1, 0, …)`` reproduce it
exactly (generation 0).

Training data (:func:`tessera.agents.learned.training.self_play_dataset`): self-play games of a cheap
player from seeded random openings; a few positions of each game, each labelled with the game's result
for the player to move (+1 won, −1 lost, 0 drawn).  :func:`fit_logistic` fits ``P(win) = σ(2 w·φ)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tessera.core.kernels import I64, kernel
from tessera.core.kits.fitting import fit_logistic, mse, value_numpy
from tessera.core.kits.learned import LearnedKit
from tessera.games.nymbat.kernels import (
    DIST_COL,
    FAR,
    G_MAX_TURNS,
    G_PLAYERS,
    NUM,
    OWNER,
    RES,
    TARGET_ROW,
    TO_MOVE,
    TURN,
    H,
    N,
)

GAME = "nymbat"

NYMBAT_FEATURES = (
    "hand",  # the hand evaluation's argument: tanh of it is the hand evaluation
    "material",  # (my reserve + numbers on the board) − the others' / 20
    "race",  # the others' best distance − mine, / FAR
    "threat",  # +1 my unopposed piece on the home row, −1 another's (both: 0)
    "board",  # (numbers of my pieces on the board − the others') / 20
    "pieces",  # (my pieces on the board − the others') / 10
    "advance",  # (Σ number × rows advanced of my pieces − the others') / 100
    "front",  # (numbers of my pieces within 3 rows of the goal − the others') / 10
    "guard",  # (numbers of my pieces on my own home row − the others') / 10: defenders of the goal
    "tempo",  # +1 when I am to move, −1/(players − 1) when another is
    "race_late",  # race × share of the safeguard's turns played (×10, at most 1)
)
"""The names of the features, in order (the weights file lists them too)."""


@kernel
def _side(s: np.ndarray, geo: np.ndarray, q: int, out: np.ndarray) -> None:
    """Player ``q``'s raw figures into ``out``: material, best distance, on-board numbers, pieces,
    advance, front, guard, on-target (0/1)."""
    best = FAR
    board = 0
    pieces = 0
    adv = 0
    front = 0
    guard = 0
    n = I64(geo[N, G_PLAYERS])
    opp = (q + n // 2) % n  # the player opposite q: q's own home row is his target row
    for c in range(N):
        if s[OWNER + c] == q:
            v = s[NUM + c]
            d = geo[c, DIST_COL + q]
            if d < best:
                best = d
            board += v
            pieces += 1
            adv += v * (FAR - d)
            if d <= 3:
                front += v
            if geo[c, DIST_COL + opp] == 0:
                guard += v
    on = 0
    row = TARGET_ROW + q
    for i in range(int(geo[row, 0])):
        if s[OWNER + geo[row, 1 + i]] == q:
            on = 1
            break
    out[0] = s[H + RES + q] + board
    out[1] = best
    out[2] = board
    out[3] = pieces
    out[4] = adv
    out[5] = front
    out[6] = guard
    out[7] = on


@kernel
def nymbat_features(s: np.ndarray, geo: np.ndarray, player: int, out: np.ndarray) -> None:
    """Write the :data:`NYMBAT_FEATURES` of position ``s`` (not over) for ``player`` into ``out``."""
    n = I64(geo[N, G_PLAYERS])
    k = n - 1
    me = np.zeros(8)
    other = np.zeros(8)
    one = np.zeros(8)
    my_threat = False
    other_threat = False
    for q in range(n):
        _side(s, geo, I64(q), one)
        threat_q = False
        if one[7] == 1:  # q stands on his goal row: a threat unless the player opposite stands there too
            opp = (q + n // 2) % n
            row = TARGET_ROW + q
            threat_q = True
            for i in range(int(geo[row, 0])):
                if s[OWNER + geo[row, 1 + i]] == opp:
                    threat_q = False
                    break
        if q == player:
            my_threat = threat_q
            for i in range(8):
                me[i] = one[i]
        else:
            other_threat = other_threat or threat_q
            for i in range(8):
                other[i] += one[i] / k
    material = me[0] - other[0]
    race = other[1] - me[1]
    threat = 0.0
    if my_threat:
        threat += 1.0
    if other_threat:
        threat -= 1.0
    tempo = 1.0 if s[H + TO_MOVE] == player else -1.0 / k
    late = min(1.0, 10.0 * s[H + TURN] / max(1, geo[N, G_MAX_TURNS]))
    out[0] = 0.04 * material + 0.15 * race + 0.6 * threat
    out[1] = material / 20.0
    out[2] = race / FAR
    out[3] = threat
    out[4] = (me[2] - other[2]) / 20.0
    out[5] = (me[3] - other[3]) / 10.0
    out[6] = (me[4] - other[4]) / 100.0
    out[7] = (me[5] - other[5]) / 10.0
    out[8] = (me[6] - other[6]) / 10.0
    out[9] = tempo
    out[10] = race / FAR * late


@kernel
def nymbat_value(s: np.ndarray, geo: np.ndarray, player: int, w: np.ndarray, phi: np.ndarray) -> float:
    """``tanh(w · φ)`` of ``s`` (not over) for ``player``: the learned value in [-1, 1], one compiled call."""
    nymbat_features(s, geo, player, phi)
    t = 0.0
    for i in range(phi.shape[0]):
        t += w[i] * phi[i]
    return math.tanh(t)


def features(state: Any, player: int) -> np.ndarray:
    """The feature vector of a Nymbat ``state`` (not over) for ``player``, as numpy (the kernel's output)."""
    if state.is_terminal():
        raise ValueError("features: the game is over")
    out = np.empty(len(NYMBAT_FEATURES))
    nymbat_features(state.s, state.game.geo, player, out)
    return out


class NymbatValue:
    """``value(state, player)``: the learned value of a Nymbat position (the returns when over)."""

    def __init__(self, w: np.ndarray) -> None:
        self.w = np.ascontiguousarray(w, dtype=np.float64)
        if self.w.shape != (len(NYMBAT_FEATURES),):
            raise ValueError(f"nymbat value: {len(NYMBAT_FEATURES)} weights needed, not {self.w.shape}")
        self._phi = np.empty(len(NYMBAT_FEATURES))

    def value(self, state: Any, player: int) -> float:
        if state.is_terminal():
            return float(state.returns()[player])
        return float(nymbat_value(state.s, state.game.geo, I64(player), self.w, self._phi))


KIT = LearnedKit(
    features=NYMBAT_FEATURES,
    features_of=features,
    value=NymbatValue,
    weights="weights-v1.json",
    folder=__package__ or "tessera.games.nymbat",
    searches=("alphabeta", "turns"),
)
"""Nymbat's learned evaluation (``NymbatGame.learned()``): level 5's alpha-beta with the value at its
horizon and in its move ordering; ``turns`` for four players."""


__all__ = [
    "GAME",
    "KIT",
    "NYMBAT_FEATURES",
    "NymbatValue",
    "features",
    "fit_logistic",
    "mse",
    "nymbat_features",
    "nymbat_value",
    "value_numpy",
]
