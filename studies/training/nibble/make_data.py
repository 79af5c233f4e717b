"""Positions of 18 blocks as level 5's leaves meet them, labelled by the exact solver (issue 28, Nibble).

python studies/training/nibble/make_data.py COUNT SEED OUT.npz
"""

import json
import random
import sys
import time

import numpy as np

from tessera.agents.learned import nibble as nb
from tessera.core.registry import load_game

count, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
t = time.process_time()
x, y, info = nb.make_dataset(load_game("nibble"), count, random.Random(seed))
info["cpu_seconds"] = round(time.process_time() - t, 1)
info["seed"] = seed
np.savez_compressed(out, x=x, y=y)
print(json.dumps({k: (float(v) if isinstance(v, np.floating) else v) for k, v in info.items()}))
