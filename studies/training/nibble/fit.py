"""Fit one stage of Nibble's learned leaf value on labelled positions and compare it with its rivals.

python studies/training/nibble/fit.py OUT.json TEST.npz TRAIN.npz [TRAIN.npz ...] [--reach R] [--below W.json]

Prints, on the held-out positions, the mean squared error (against the labels) of the hand
evaluation and of the fitted value and the share each puts on the right side of 0 (one random
game's error is in make_data's / make_stage's log), then writes the weights: the first stage
(exact labels, reach 18) alone, or with --below the weights of the stages under it plus this one.
"""

import argparse
import json

import numpy as np

from tessera.agents.learned import load_weights
from tessera.agents.learned import nibble as nb
from tessera.agents.learned.model import Weights

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("test")
ap.add_argument("train", nargs="+")
ap.add_argument("--reach", type=int, default=nb.REACH)
ap.add_argument("--below", default=None)
args = ap.parse_args()
x = np.concatenate([np.load(p)["x"] for p in args.train])
y = np.concatenate([np.load(p)["y"] for p in args.train])
t = np.load(args.test)
xt, yt = t["x"], t["y"]
w = nb.fit_logistic(x, y)
v = nb.value_numpy(xt, w)
hand = xt[:, 0]
report = {
    "reach": args.reach,
    "train_positions": len(y),
    "test_positions": len(yt),
    "learned_mse_train": nb.mse(x, y, w),
    "learned_mse_test": float(np.mean((v - yt) ** 2)),
    "hand_mse_test": float(np.mean((hand - yt) ** 2)),
    "learned_sign_right": float(np.mean(np.sign(v) == np.sign(yt))),
    "hand_sign_right": float(np.mean(np.sign(hand) == np.sign(yt))),
    "weights": [round(float(a), 4) for a in w],
}
print(json.dumps(report, indent=1))
info = {"test_mse": round(report["learned_mse_test"], 4), "positions": len(y), "made_by": "fit.py"}
if args.below is None:
    out = Weights("nibble", w, {"stage 1": {"labels": "exact results by the endgame solver", **info}}, reach=args.reach)
else:
    out = load_weights("nibble", args.below)
    out.stages.append((args.reach, w))
    labels = f"UCT values with the stages below, reach {args.reach}"
    out.training[f"stage {len(out.stages) + 1}"] = {"labels": labels, **info}
out.save(args.out)
