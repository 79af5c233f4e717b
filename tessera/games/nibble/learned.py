"""Nibble's learned leaf value: random play down to a few blocks, then a value learned from exact results.

Nibble's level 5 scores a leaf of its search by one random game to the end
(``mcts(c=0.7,rollout_cutoff=-1)``).  The last blocks of such a game are where the random
play is most wrong and where the truth is cheapest: the exact solver
(:mod:`tessera.games.nibble.solver`) settles a position of 18 blocks in a few hundredths
of a second.  So the leaf kernel here plays the random game only until ``reach`` blocks are
left and scores that position with a linear value ``tanh(w · φ)`` fitted (logistic
regression, :func:`fit_logistic`) to the solver's results on such positions
(:func:`solved_dataset`): the label is what perfect play makes of the position, not what
random play did.

The features (:data:`NIBBLE_FEATURES`, for player 0, each changes sign with the players,
so the value is zero-sum without a bias) are read by one compiled kernel
(:func:`nibble_features`) from the game's position array; :func:`leaf_value` is the whole
leaf (random steps, then features and the value) in one compiled call.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tessera.core.kernels import I64, below, kernel, rng_state
from tessera.core.kits.fitting import fit_logistic, mse, value_numpy
from tessera.core.kits.learned import LearnedKit
from tessera.games.nibble.kernels import (
    LEGAL,
    N_LEGAL,
    ON_BOARD,
    OVER,
    TAKING,
    TO_MOVE,
    WINNER,
    _apply,
    _fill_legal,
    evaluate,
    on_corner,
    rollout,
    scratch,
    splits,
    win_progress,
)

NIBBLE_FEATURES = (
    "hand",  # the hand-written evaluation (tanh of majorities, colour race and triples)
    "majorities",  # (colours I hold a majority of − theirs) / colours needed
    "lead",  # Σ over undecided colours of (my − their blocks) / (blocks left of it + 1)
    "leading",  # (undecided colours I lead − they lead) / colours
    "need_gap",  # Σ over undecided colours of (blocks they still need − I still need) / majority
    "threat",  # (my − their best instant-win progress)²-difference, as in the hand evaluation
    "tempo",  # +1 when I am to move (or in the middle of my turn), −1 when they are
    "tempo_close",  # tempo × (undecided colours / colours)
    "closeness",  # majorities × (1 − undecided colours / colours)
)
"""The names of the features, in order (the weights file lists them too)."""

GAME = "nibble"
"""The game this module's leaf and features are for."""

REACH = 18
"""Blocks left where the leaf's random game stops and the learned value takes over."""


@kernel
def nibble_features(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, out: np.ndarray) -> None:
    """Write the :data:`NIBBLE_FEATURES` of the (not finished) position ``s`` for player 0 into ``out``."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    m = geo[k, 6]
    h = k + 2 * n
    need_cols = n // 2 + 1
    maj = 0.0
    lead = 0.0
    leading = 0.0
    gap = 0.0
    undecided = 0.0
    for c in range(n):
        a = s[k + c]
        b = s[k + n + c]
        if a >= m:
            maj += 1.0
        elif b >= m:
            maj -= 1.0
        else:
            undecided += 1.0
            left = n - a - b
            lead += (a - b) / (left + 1.0)
            if a > b:
                leading += 1.0
            elif b > a:
                leading -= 1.0
            gap += ((m - b) - (m - a)) / m
    t0 = win_progress(s, deal, geo, I64(0))
    t1 = win_progress(s, deal, geo, I64(1))
    tempo = 1.0 if s[h + TO_MOVE] == 0 else -1.0
    share = undecided / n
    out[0] = evaluate(s, deal, geo, I64(0))
    out[1] = maj / need_cols
    out[2] = lead
    out[3] = leading / n
    out[4] = gap
    out[5] = t0 * t0 - t1 * t1
    out[6] = tempo
    out[7] = tempo * share
    out[8] = maj / need_cols * (1.0 - share)


@kernel
def _linear(phi: np.ndarray, w: np.ndarray) -> float:
    t = 0.0
    for i in range(phi.shape[0]):
        t += w[i] * phi[i]
    return math.tanh(t)


@kernel
def _colour_term(a: int, b: int, n: int, m: int, w: np.ndarray) -> float:
    """One colour's part of ``w · φ`` (player 0 holding ``a`` blocks of it, player 1 ``b``): the
    majorities, lead, leading and need-gap features; the others are not counted per colour."""
    need_cols = n // 2 + 1
    if a >= m:
        return w[1] / need_cols
    if b >= m:
        return -w[1] / need_cols
    left = n - a - b
    t = w[2] * (a - b) / (left + 1.0) + w[4] * ((m - b) - (m - a)) / m
    if a > b:
        t += w[3] / n
    elif b > a:
        t -= w[3] / n
    return t


@kernel
def guided_rollout(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    ws: np.ndarray,
    rs: np.ndarray,
    cutoff: int,
    w: np.ndarray,
    k2: int,
) -> int:
    """Like the game's random ``rollout`` (at most ``cutoff`` steps, ``< 0``: no limit), but a turn's first
    block is the best of ``k2`` random legal blocks by the gain of its colour's part of the learned value
    ``w`` for the mover (ties and the steps inside a turn uniformly random); returns the steps played."""
    k = geo.shape[0] - 1
    n = geo[k, 1]
    d = geo[k, 2]
    m = geo[k, 6]
    h = k + 2 * n
    cl = ws[2 * k : 3 * k]
    pos = ws[3 * k : 4 * k]
    cnt = 0
    for i in range(k):
        pos[i] = -1
        if s[i] >= 0 and on_corner(s, geo, I64(i)):
            cl[cnt] = i
            pos[i] = cnt
            cnt += 1
    steps = 0
    while s[h + OVER] == 0 and (cutoff < 0 or steps < cutoff):
        mm = int(s[h + N_LEGAL])
        if mm < 0 and s[h + TAKING] >= 0:
            mm = _fill_legal(s, deal, geo, ws)
        if mm >= 0:
            a = int(s[h + LEGAL + below(rs, I64(mm))])
        else:
            p = int(s[h + TO_MOVE])
            a = -1
            best = -1e30
            found = 0
            c = cnt
            while c > 0 and found < k2:
                j = below(rs, I64(c))
                i = int(cl[j])
                c -= 1  # the block tried goes behind the ones still to try
                t = cl[c]
                cl[c] = i
                pos[i] = c
                cl[j] = t
                pos[t] = j
                if splits(s, geo, I64(i), ws):
                    continue
                found += 1
                col = int(s[i])
                x = int(s[k + col])
                y = int(s[k + n + col])
                if p == 0:
                    g = _colour_term(I64(x + 1), I64(y), I64(n), I64(m), w) - _colour_term(
                        I64(x), I64(y), I64(n), I64(m), w
                    )
                else:
                    g = _colour_term(I64(x), I64(y), I64(n), I64(m), w) - _colour_term(
                        I64(x), I64(y + 1), I64(n), I64(m), w
                    )
                if g > best:
                    best = g
                    a = i
            if a < 0:
                return -1  # unreachable: a connected, non-empty board always has a block to take
        _apply(s, deal, geo, ws, I64(a))
        steps += 1
        if a < k:
            j = pos[a]
            cnt -= 1
            t = cl[cnt]
            cl[j] = t
            pos[t] = j
            pos[a] = -1
            for e in range(d):
                nb = int(geo[a, e])
                if nb >= 0 and s[nb] >= 0 and pos[nb] < 0 and on_corner(s, geo, I64(nb)):
                    cl[cnt] = nb
                    pos[nb] = cnt
                    cnt += 1
    return steps


@kernel
def random_to(s: np.ndarray, deal: np.ndarray, geo: np.ndarray, ws: np.ndarray, rs: np.ndarray, reach: int) -> None:
    """Uniformly random steps on ``s`` until the game is over or at most ``reach`` blocks are left
    and no turn is under way (each step takes at most one block)."""
    play_to(s, deal, geo, ws, rs, reach, np.zeros(1), I64(1))


@kernel
def play_to(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    ws: np.ndarray,
    rs: np.ndarray,
    reach: int,
    w: np.ndarray,
    k2: int,
) -> None:
    """:func:`random_to` with :func:`guided_rollout`'s steps (``k2 <= 1``: uniformly random ones)."""
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    while s[h + OVER] == 0:
        extra = s[h + ON_BOARD] - reach
        if extra <= 0:
            if s[h + TAKING] < 0:
                return
            extra = 1
        if k2 <= 1:
            rollout(s, deal, geo, ws, rs, I64(extra))
        else:
            guided_rollout(s, deal, geo, ws, rs, I64(extra), w, k2)


@kernel
def leaf_value(
    s: np.ndarray,
    deal: np.ndarray,
    geo: np.ndarray,
    rs: np.ndarray,
    reaches: np.ndarray,
    w: np.ndarray,
    work: np.ndarray,
    ws: np.ndarray,
    phi: np.ndarray,
    k2: int,
) -> float:
    """Player 0's value of ``s`` (left unchanged) by stages: ``reaches`` in decreasing order, ``w[i]`` the
    weights of stage ``i``.  The first stage whose reach is below the blocks on the board plays random
    steps down to it and scores there with ``tanh(w[i] · φ)``; with no such stage, the last one's
    (random steps down to its reach, or none).  The exact result if the random game ends first."""
    for i in range(s.shape[0]):
        work[i] = s[i]
    k = geo.shape[0] - 1
    h = k + 2 * geo[k, 1]
    last = reaches.shape[0] - 1
    stage = last
    for i in range(reaches.shape[0]):
        if work[h + ON_BOARD] > reaches[i]:
            stage = i
            break
    play_to(work, deal, geo, ws, rs, I64(reaches[stage]), w[last], k2)
    if work[h + OVER]:
        win = work[h + WINNER]
        return 0.0 if win < 0 else (1.0 if win == 0 else -1.0)
    nibble_features(work, deal, geo, phi)
    return _linear(phi, w[stage])


def features(state: Any) -> np.ndarray:
    """The feature vector of a Nibble ``state`` (not over) for player 0, as numpy (the kernel's output)."""
    if state.is_terminal():
        raise ValueError("features: the game is over")
    out = np.empty(len(NIBBLE_FEATURES))
    nibble_features(state.s, state._deal, state.game.geo, out)
    return out


class NibbleLeaf:
    """The compiled leaf for one agent: ``value(state)`` (player 0) with its own scratch and generator.

    ``w``: the weights of the last stage (random steps down to ``reach`` blocks); ``stages``: more
    ``(reach, weights)`` pairs of stages above it, used from positions with more blocks than their reach.
    """

    def __init__(
        self,
        w: np.ndarray,
        reach: int = REACH,
        seed: int = 0,
        stages: list[tuple[int, np.ndarray]] | tuple[tuple[int, np.ndarray], ...] = (),
        guide: int = 1,
    ) -> None:
        nf = len(NIBBLE_FEATURES)
        pairs = sorted([(int(r), np.asarray(v, dtype=np.float64)) for r, v in stages], key=lambda p: -p[0])
        pairs.append((int(reach), np.asarray(w, dtype=np.float64)))
        for r, v in pairs:
            if v.shape != (nf,):
                raise ValueError(f"nibble leaf: {nf} weights needed, not {v.shape}")
            if r < 1:
                raise ValueError(f"nibble leaf: a reach must be at least 1 block, not {r}")
        if len({r for r, _ in pairs}) != len(pairs) or pairs[-1][0] != min(r for r, _ in pairs):
            raise ValueError("nibble leaf: the stages' reaches must differ and lie above the last stage's")
        self.reaches = np.array([r for r, _ in pairs], dtype=np.int64)
        self.w = np.ascontiguousarray(np.stack([v for _, v in pairs]))
        self.reach = int(reach)
        self.guide = int(guide)
        """Random steps: the first block of a turn is the best of this many by the learned value (1: uniform)."""
        self.rs = rng_state(seed)
        self.phi = np.empty(nf)
        self._work: np.ndarray | None = None
        self._ws: np.ndarray | None = None

    def value(self, state: Any) -> float:
        if state.is_terminal():
            return float(state.returns()[0])
        geo = state.game.geo
        work, ws = self._work, self._ws
        if work is None or ws is None or work.shape != state.s.shape:
            work = self._work = np.empty_like(state.s)
            ws = self._ws = scratch(geo)
        guide = I64(self.guide)
        return float(leaf_value(state.s, state._deal, geo, self.rs, self.reaches, self.w, work, ws, self.phi, guide))


# -- training data: positions at ``reach`` blocks labelled by the exact solver -----------------------


def sample_position(
    game: Any, rng: random.Random, reach: int, guided: int, guide: Callable[[int], Callable[[Any], int]]
) -> Any:
    """A position of ``reach`` blocks as the leaves of the search meet them: up to ``guided`` steps chosen by
    ``guide(seed)`` (the trainer's cheap search, from a random deal), then random steps; ``None`` when the
    game ended before."""
    state = game.new_initial_state(seed=rng.randrange(2**31))
    choose = guide(rng.randrange(2**31))
    steps = rng.randrange(guided + 1)
    for _ in range(steps):
        if state.is_terminal():
            return None
        state.apply_legal(choose(state))
    s = state.s.copy()
    ws = scratch(game.geo)
    random_to(s, state._deal, game.geo, ws, rng_state(rng.randrange(2**62)), I64(reach))
    k = game.geo.shape[0] - 1
    h = k + 2 * game.geo[k, 1]
    if s[h + OVER]:
        return None
    out = state.clone()
    out.s = s
    s[h + N_LEGAL] = -1
    from tessera.games.nibble import kernels as nk

    out._sync(nk.status(s, game.geo))
    return out


def solved_dataset(
    game: Any,
    count: int,
    rng: random.Random,
    guide: Callable[[int], Callable[[Any], int]],
    reach: int = REACH,
    guided: int = 40,
    nodes: int = 3_000_000,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``count`` positions (:func:`sample_position`, its steps chosen by ``guide``) with their features and
    player 0's exact result (+1/−1/0, by the endgame solver within ``nodes``; unproved positions are
    skipped)."""
    from tessera.games.nibble.solver import NibbleSolver

    solver = NibbleSolver(21)
    xs: list[np.ndarray] = []
    ys: list[float] = []
    skipped = 0
    rollout_sq = 0.0
    hand_sq = 0.0
    while len(ys) < count:
        st = sample_position(game, rng, reach, guided, guide)
        if st is None:
            continue
        out = solver.solve(st, None, nodes=nodes, exact=False)
        if out is None:
            skipped += 1
            continue
        y0 = float(out.value) if st.current_player() == 0 else -float(out.value)
        phi = features(st)
        xs.append(phi)
        ys.append(y0)
        r0 = st.rollouts(1, rng.randrange(2**62)).totals[0]
        rollout_sq += (r0 - y0) ** 2
        hand_sq += (phi[0] - y0) ** 2
    n = len(ys)
    info = {"positions": n, "unproved": skipped, "rollout_mse": rollout_sq / n, "hand_mse": hand_sq / n}
    return np.array(xs), np.array(ys), info


def _features_of(state: Any, player: int) -> np.ndarray:
    out = features(state)
    return out if player == 0 else -out  # every feature changes sign with the players


def _leaf(w: np.ndarray, reach: int, stages: Sequence[tuple[int, np.ndarray]], seed: int, guide: int) -> NibbleLeaf:
    return NibbleLeaf(w, reach, seed, list(stages), guide)


KIT = LearnedKit(
    features=NIBBLE_FEATURES,
    features_of=_features_of,
    weights=None,
    folder=__package__ or "tessera.games.nibble",
    searches=("mcts",),
    sample=1,
    leaf=_leaf,
    reach=REACH,
    sample_at=sample_position,
    training="stages",
    exact=solved_dataset,
)
"""Nibble's learned evaluation (``NibbleGame.learned()``): UCT whose leaf plays randomly down to
:data:`REACH` blocks, then scores with the value (no weights shipped: ``tessera train nibble`` makes them)."""


__all__ = [
    "GAME",
    "KIT",
    "NIBBLE_FEATURES",
    "REACH",
    "NibbleLeaf",
    "features",
    "fit_logistic",
    "leaf_value",
    "mse",
    "nibble_features",
    "random_to",
    "sample_position",
    "solved_dataset",
    "value_numpy",
]
