"""Fit Nymbat's learned value to self-play data and compare it with the hand evaluation on held-out games.

    PYTHONPATH=. python studies/training/nymbat/fit.py DATA.npz [DATA2.npz ...] [--out W.json] [--drop i,j]

The last fifth of each file's games is held out; errors are mean squared error of tanh(w·φ)
against the results and the log loss of P(win) = σ(2 w·φ) (draws count half).
"""

from __future__ import annotations

import json
import sys

import numpy as np

from tessera.agents.learned.model import Weights
from tessera.core.kits.fitting import fit_logistic, mse
from tessera.games.nymbat.learned import NYMBAT_FEATURES


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    t = (y + 1) / 2
    p = np.clip(1 / (1 + np.exp(-2 * (x @ w))), 1e-9, 1 - 1e-9)
    return float(-np.mean(t * np.log(p) + (1 - t) * np.log(1 - p)))


def main() -> None:
    args = sys.argv[1:]
    out = None
    drop: list[int] = []
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i : i + 2]
    if "--drop" in args:
        i = args.index("--drop")
        drop = [int(v) for v in args[i + 1].split(",")]
        del args[i : i + 2]
    xs, ys, xt, yt, infos = [], [], [], [], []
    for path in args:
        d = np.load(path)
        x, y, gid = d["x"], d["y"], d["gid"]
        cut = int(gid.max() * 0.8)
        xs.append(x[gid < cut])
        ys.append(y[gid < cut])
        xt.append(x[gid >= cut])
        yt.append(y[gid >= cut])
        infos.append(json.loads(str(d["info"])))
    x, y = np.concatenate(xs), np.concatenate(ys)
    keep = np.array([i not in drop for i in range(x.shape[1])])
    w = np.zeros(x.shape[1])
    w[keep] = fit_logistic(x[:, keep], y)
    hand = np.zeros(x.shape[1])
    hand[0] = 1.0
    # the hand evaluation's value with its scale fitted (a one-weight model): is the gain more than scale?
    scaled = np.zeros(x.shape[1])
    scaled[0] = fit_logistic(x[:, :1], y)[0]
    report = {"train_positions": len(y), "weights": dict(zip(NYMBAT_FEATURES, np.round(w, 4).tolist(), strict=True))}
    for path, a, b in zip(args, xt, yt, strict=True):
        report[path] = {
            "held_out_positions": len(b),
            "mse": {"hand": mse(a, b, hand), "hand_scaled": mse(a, b, scaled), "learned": mse(a, b, w)},
            "log_loss": {
                "hand": log_loss(a, b, hand),
                "hand_scaled": log_loss(a, b, scaled),
                "learned": log_loss(a, b, w),
            },
        }
    print(json.dumps(report, indent=1))
    if out:
        training = {
            "generation": 1,
            "data": infos,
            "train_positions": len(y),
            "held_out": {p: report[p] for p in args},
            "fit": "logistic regression, P(win) = sigma(2 w.phi), l2 1e-3, Newton steps",
        }
        Weights("nymbat", w, training).save(out)


if __name__ == "__main__":
    main()
