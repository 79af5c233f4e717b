"""Fitting a linear value ``tanh(w · φ)`` to game results: what every learned value's training shares."""

from __future__ import annotations

import math

import numpy as np

from tessera.core.kernels import kernel


def value_numpy(phi: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``tanh(φ · w)`` for rows of features (the training side's prediction)."""
    out: np.ndarray = np.tanh(np.asarray(phi, dtype=np.float64) @ np.asarray(w, dtype=np.float64))
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 50) -> np.ndarray:
    """Weights with ``P(player 0 wins) = σ(2 w·φ)`` by Newton steps from zero (draws count half), so that
    ``tanh(w·φ)`` is the expected result; ``y`` holds +1 / 0 / −1."""
    t = (np.asarray(y, dtype=np.float64) + 1.0) / 2.0
    x = np.asarray(x, dtype=np.float64)
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-2.0 * (x @ w)))
        grad = 2.0 * x.T @ (p - t) / len(t) + l2 * w
        hess = 4.0 * (x.T * (p * (1 - p))) @ x / len(t) + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w = w - step
        if float(np.abs(step).max()) < 1e-9:
            break
    return w


def mse(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Mean squared error of ``tanh(w · φ)`` against the results ``y``."""
    return float(np.mean((value_numpy(x, w) - y) ** 2))


@kernel
def linear_value(phi: np.ndarray, w: np.ndarray) -> float:
    """``tanh(w · φ)``: the learned value in [-1, 1]."""
    s = 0.0
    for i in range(phi.shape[0]):
        s += w[i] * phi[i]
    return math.tanh(s)


__all__ = ["fit_logistic", "linear_value", "mse", "value_numpy"]
