"""Fit Nibble's learned leaf value on solver-labelled positions and compare it with its rivals.

python studies/training/nibble/fit.py OUT.json TEST.npz TRAIN.npz [TRAIN.npz ...]

Prints, on the held-out positions, the mean squared error (against the exact result, ±1)
of one random game to the end (from make_data's log), of the hand evaluation, and of the
fitted value; the share of positions each ranks on the right side of 0; then writes the weights.
"""

import json
import sys

import numpy as np

from tessera.agents.learned import nibble as nb
from tessera.agents.learned.model import Weights

out, test, trains = sys.argv[1], sys.argv[2], sys.argv[3:]
x = np.concatenate([np.load(p)["x"] for p in trains])
y = np.concatenate([np.load(p)["y"] for p in trains])
t = np.load(test)
xt, yt = t["x"], t["y"]
w = nb.fit_logistic(x, y)
v = nb.value_numpy(xt, w)
hand = xt[:, 0]
report = {
    "train_positions": len(y),
    "test_positions": len(yt),
    "player0_wins_share": float(np.mean(yt > 0)),
    "learned_mse_train": nb.mse(x, y, w),
    "learned_mse_test": float(np.mean((v - yt) ** 2)),
    "hand_mse_test": float(np.mean((hand - yt) ** 2)),
    "learned_sign_right": float(np.mean(np.sign(v) == np.sign(yt))),
    "hand_sign_right": float(np.mean(np.sign(hand) == np.sign(yt))),
    "weights": [round(float(a), 4) for a in w],
}
print(json.dumps(report, indent=1))
Weights(
    "nibble",
    w,
    {
        "labels": "exact results by the endgame solver",
        "positions": len(y),
        "reach": nb.REACH,
        "test_mse": round(report["learned_mse_test"], 4),
        "made_by": "studies/training/nibble/fit.py",
    },
).save(out)
