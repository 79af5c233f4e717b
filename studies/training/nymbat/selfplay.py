"""Self-play data for Nymbat's learned evaluation: features and results of sampled positions, saved as .npz.

PYTHONPATH=. python studies/training/nymbat/selfplay.py OUT.npz SPEC GAMES SEED [ITERATIONS|-] [GAME]
"""

from __future__ import annotations

import json
import random
import sys
import time

import numpy as np

import tessera
from tessera.agents.learned.training import self_play_dataset


def main() -> None:
    out, spec, games, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    iterations = int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] != "-" else None
    game = sys.argv[6] if len(sys.argv) > 6 else "nymbat"
    t0 = time.process_time()
    x, y, gid, info = self_play_dataset(
        tessera.load_game(game), games, random.Random(seed), spec=spec, iterations=iterations
    )
    info["cpu_seconds"] = round(time.process_time() - t0, 1)
    info["iterations"] = iterations
    info["seed"] = seed
    info["game"] = game
    np.savez_compressed(out, x=x, y=y, gid=gid, info=json.dumps(info))
    print(json.dumps(info))


if __name__ == "__main__":
    main()
