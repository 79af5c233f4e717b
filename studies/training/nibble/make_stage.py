"""One stage up: positions of REACH blocks labelled by a search whose leaves use WEIGHTS (issue 28, Nibble).

python studies/training/nibble/make_stage.py WEIGHTS.json REACH COUNT ITERATIONS SEED OUT.npz
"""

import json
import random
import sys
import time

import numpy as np

from tessera.agents.learned import load_weights
from tessera.agents.learned import nibble as nb
from tessera.agents.learned.training import search_dataset
from tessera.core.registry import load_game

path, reach, count, iterations, seed, out = sys.argv[1], *map(int, sys.argv[2:6]), sys.argv[6]
w = load_weights("nibble", path)
leaf = nb.NibbleLeaf(w.w, w.reach or nb.REACH, seed, [(r, v) for r, v in w.stages])
t = time.process_time()
x, y, info = search_dataset(load_game("nibble"), count, random.Random(seed), leaf, reach, iterations)
info["cpu_seconds"] = round(time.process_time() - t, 1)
info["seed"] = seed
info["leaf_weights"] = path
np.savez_compressed(out, x=x, y=y)
print(json.dumps(info))
