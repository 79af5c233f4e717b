"""Where a step's kernel time goes, per game: the contract's ``apply``, ``legal`` and ``observe`` apart.

    python benchmarks/contract_parts.py [--games nume nibble ...] [--record 30] [--rounds 3]

``--record`` random games are recorded through each game's kernel contract
(:mod:`tessera.core.kits.contract`), then replayed inside one compiled loop three times — applying
the recorded actions only; applying and listing the legal actions before each; applying, listing
and writing the planes of the player to move (``float32``) — so the differences are each verb's
CPU ns per step, with no Python and no dispatch in between (one position in the caches: the
vector engine at B = 1,024 pays cache misses on top).  Medians of ``--rounds``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
from numba import njit

GAMES = ["nume", "nume(size=6)", "nibble", "ikabegama", "nymbat", "nymbat(players=4)", "nelaxtam"]


@njit
def replay(current: Any, legal: Any, apply: Any, observe: Any, s0, g, acts, starts, rs, buf, obs, mode: int) -> int:  # type: ignore[no-untyped-def]
    """Replay the recorded games: ``mode`` 0 apply only, 1 also ``legal``, 2 also ``observe``."""
    s = s0.copy()
    total = 0
    for gi in range(starts.shape[0] - 1):
        for i in range(s0.shape[0]):
            s[i] = s0[i]
        for j in range(starts[gi], starts[gi + 1]):
            if mode >= 2:
                observe(s, g, current(s, g), obs)
            if mode >= 1:
                total += legal(s, g, buf)
            apply(s, g, acts[j], rs)
    return total


def parts(spec: str, games: int, rounds: int) -> dict[str, float]:
    import tessera
    from tessera.core.kernels import rng_state
    from tessera.core.kits.contract import ContractGame

    game = tessera.load_game(spec)
    if game.name == "ikabegama":
        game = game.bounded(0)[0]  # the adapters' window, as the vector engine plays it
    c = game.kernel_contract()
    one = ContractGame(c, seed=0)
    s0 = one.s.copy()
    rng = np.random.default_rng(0)
    acts: list[int] = []
    starts = [0]
    for _ in range(games):
        one.s[:] = s0
        while not one.is_terminal():
            la = one.legal()
            a = int(la[rng.integers(len(la))])
            acts.append(a)
            one.apply(a)
        starts.append(len(acts))
    a_arr, s_arr = np.array(acts, np.int64), np.array(starts, np.int64)
    buf = np.zeros(max(1, c.num_actions), np.int64)
    obs = np.zeros(int(np.prod(c.obs_shape)), np.float32)
    rs = rng_state(0)
    args = (c.current, c.legal, c.apply, c.observe, s0, c.tables, a_arr, s_arr, rs, buf, obs)
    for mode in (0, 1, 2):
        replay(*args, mode)  # compile
    got: dict[int, list[float]] = {0: [], 1: [], 2: []}
    for _ in range(rounds):
        for mode in (0, 1, 2):
            t0 = time.process_time()
            replay(*args, mode)
            got[mode].append(1e9 * (time.process_time() - t0) / len(acts))
    m = {k: statistics.median(v) for k, v in got.items()}
    return {"apply": m[0], "legal": m[1] - m[0], "observe": m[2] - m[1], "planes": float(obs.shape[0])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="*", default=GAMES)
    ap.add_argument("--record", type=int, default=30, help="random games recorded and replayed")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"{'game':<22}{'apply':>9}{'legal':>9}{'observe':>9}{'plane cells':>13}   (CPU ns per step, medians)")
    for spec in args.games:
        p = parts(spec, args.record, args.rounds)
        print(f"{spec:<22}{p['apply']:>9,.0f}{p['legal']:>9,.0f}{p['observe']:>9,.0f}{p['planes']:>13,.0f}")


if __name__ == "__main__":
    main()
