"""Where one step of the per-step loop goes, per game: CPU time of each call and kernel dispatches.

    python benchmarks/per_step_profile.py [--seconds 0.5] [--rounds 3] [--games nume nibble ...]

For each game (and OpenSpiel's ``hex`` 11 when pyspiel is installed) the loop of
``benchmarks/per_step.py`` (``s.apply_action(rng.choice(s.legal_actions()))`` until the end,
game after game) is timed whole, then taken apart on recorded games replayed from their
initial states (same positions, same actions), each part alone:

* ``loop``: the whole loop (legal actions, a random choice, apply, ``is_terminal``), ns a step;
* ``apply``: ``apply_action(a)`` of the recorded actions only (no ``legal_actions`` call);
* ``legal``: ``legal_actions()`` on the position reached (second call: the cached list);
* ``choice``: ``rng.choice`` on the recorded legal lists;
* ``n legal``: the mean length of the legal list;
* ``kernels``: numba dispatches from Python per step of the loop (each kernel of the game's
  kernel module wrapped in a counter for one replay).

Then the floor under any per-step loop that returns a fresh Python list of legal actions, per game:
``list(L)`` of a ready list as long as the game's mean legal list (the cheapest way to hand out a
fresh list), ``ndarray.tolist()`` of its recorded legal arrays (what a kernel's list costs to
convert; action numbers above 256 are new int objects), and a call of an empty numba kernel with
one array and with four arrays and an int (the dispatch of one kernel call).

CPU time (``time.process_time``), medians over ``--rounds`` interleaved rounds.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time
from typing import Any

GAMES = ["nume", "nume(size=6)", "nibble", "ikabegama", "nymbat", "nymbat(players=4)"]


def _load(spec: str) -> Any:
    if spec == "hex":
        import pyspiel

        return pyspiel.load_game("hex", {"board_size": 11})
    import tessera

    return tessera.load_game(spec)


def fresh(game: Any, i: int) -> Any:
    """Game ``i``'s initial state (dealt from seed ``i`` where the game deals)."""
    return game.new_initial_state() if not hasattr(game, "info") else game.new_initial_state(seed=i)


def record(game: Any, games: int, seed: int) -> list[tuple[list[list[int]], list[int]]]:
    """``games`` random games: per game the legal lists and the actions played."""
    rng = random.Random(seed)
    out = []
    for i in range(games):
        s = fresh(game, i)
        legals, acts = [], []
        while not s.is_terminal():
            la = s.legal_actions()
            a = rng.choice(la)
            legals.append(la)
            acts.append(a)
            s.apply_action(a)
        out.append((legals, acts))
    return out


def t_loop(game: Any, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    steps = 0
    t0 = time.process_time()
    while True:
        s = game.new_initial_state()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            steps += 1
        dt = time.process_time() - t0
        if dt >= seconds:
            return 1e9 * dt / steps


def t_parts(game: Any, rec: list[tuple[list[list[int]], list[int]]]) -> dict[str, float]:
    """ns per step of: new state, apply alone, legal (after apply), choice, is_terminal."""
    steps = sum(len(a) for _, a in rec)
    t0 = time.process_time()
    for i, _ in enumerate(rec):
        fresh(game, i)
    t_new = time.process_time() - t0
    t0 = time.process_time()
    for i, (_, acts) in enumerate(rec):
        s = fresh(game, i)
        for a in acts:
            s.apply_action(a)
    t_apply = time.process_time() - t0 - t_new
    t0 = time.process_time()
    for i, (_, acts) in enumerate(rec):
        s = fresh(game, i)
        for a in acts:
            s.legal_actions()
            s.apply_action(a)
    t_legal = time.process_time() - t0 - t_new - t_apply
    t0 = time.process_time()
    for i, (_, acts) in enumerate(rec):
        s = fresh(game, i)
        for a in acts:
            s.legal_actions()
            s.legal_actions()
            s.apply_action(a)
    t_legal2 = time.process_time() - t0 - t_new - t_apply - t_legal
    rng = random.Random(0)
    t0 = time.process_time()
    for legals, _ in rec:
        for la in legals:
            rng.choice(la)
    t_choice = time.process_time() - t0
    t0 = time.process_time()
    for i, (_, acts) in enumerate(rec):
        s = fresh(game, i)
        for a in acts:
            s.is_terminal()
            s.is_terminal()
            s.apply_action(a)
    t_term = time.process_time() - t0 - t_new - t_apply
    k = 1e9 / steps
    return {
        "new": t_new * k,
        "apply": t_apply * k,
        "legal": t_legal * k,
        "legal_again": t_legal2 * k,
        "choice": t_choice * k,
        "is_terminal": t_term / 2 * k,
    }


def count_dispatches(spec: str, game: Any, rec: list[tuple[list[list[int]], list[int]]]) -> dict[str, float]:
    """Kernel dispatches from Python per step of the loop, by kernel name."""
    mod = importlib.import_module(f"tessera.games.{game.name}.kernels")
    counts: dict[str, int] = {}
    saved = {}
    for name in dir(mod):
        f = getattr(mod, name)
        if type(f).__name__ == "CPUDispatcher":
            saved[name] = f

            def wrap(*a: Any, _f: Any = f, _n: str = name) -> Any:
                counts[_n] = counts.get(_n, 0) + 1
                return _f(*a)

            setattr(mod, name, wrap)
    try:
        steps = 0
        for i, (_, acts) in enumerate(rec):
            s = fresh(game, i)
            for a in acts:
                if not s.is_terminal():
                    s.legal_actions()
                s.apply_action(a)
                steps += 1
            s.is_terminal()
    finally:
        for name, f in saved.items():
            setattr(mod, name, f)
    return {n: c / steps for n, c in sorted(counts.items(), key=lambda x: -x[1])}


def floors(recs: dict[str, list[tuple[list[list[int]], list[int]]]], rounds: int) -> None:
    """Print the list and dispatch floors (module docstring)."""
    import numba
    import numpy as np

    @numba.njit
    def one(a: Any) -> Any:
        return a[0]

    @numba.njit
    def five(a: Any, b: Any, c: Any, d: Any, e: int) -> Any:
        return a[0] + e

    x = np.zeros(300, np.int32)
    one(x)
    five(x, x, x, x, 1)

    def per_call(fn: Any, n: int) -> float:
        out = []
        for _ in range(rounds):
            t0 = time.process_time()
            fn()
            out.append((time.process_time() - t0) / n * 1e9)
        return statistics.median(out)

    reps = 20000
    print("floors, ns (CPU time, medians):")
    t_one = per_call(lambda: [one(x) for _ in range(reps)], reps)
    t_five = per_call(lambda: [five(x, x, x, x, 1) for _ in range(reps)], reps)
    print(f"  numba call, one array: {t_one:.0f}; four arrays and an int: {t_five:.0f}")
    for sp, rec in recs.items():
        lists = [la for legals, _ in rec for la in legals]
        mean = round(sum(map(len, lists)) / len(lists))
        ready = list(range(10**6, 10**6 + mean))
        arrays = [np.array(la, np.int64) for la in lists]
        copy = per_call(lambda ready=ready: [None for _ in range(reps // 10) if list(ready) is None], reps // 10)
        conv = per_call(lambda arrays=arrays: [None for a in arrays if a.tolist() is None], len(arrays))
        print(f"  {sp}: mean legal list {mean}: list(L) of a ready list {copy:.0f}; tolist() of its arrays {conv:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", nargs="*", default=GAMES)
    ap.add_argument("--record", type=int, default=20, help="games recorded for the parts")
    args = ap.parse_args()
    specs = list(args.games)
    try:
        import pyspiel  # noqa: F401

        specs = ["hex", *specs]
    except ImportError:
        pass
    games = {sp: _load(sp) for sp in specs}
    recs = {}
    for sp, g in games.items():
        t_loop(g, 0.05, 0)
        recs[sp] = record(g, args.record, 1)
    loops: dict[str, list[float]] = {sp: [] for sp in specs}
    parts: dict[str, list[dict[str, float]]] = {sp: [] for sp in specs}
    for r in range(args.rounds):
        order = specs if r % 2 == 0 else specs[::-1]
        for sp in order:
            loops[sp].append(t_loop(games[sp], args.seconds, r))
            parts[sp].append(t_parts(games[sp], recs[sp]))
    print(f"ns per step (CPU time), medians of {args.rounds} rounds")
    cols = ["new", "apply", "legal", "legal_again", "choice", "is_terminal"]
    print(f"{'game':<20}{'loop':>8}{'steps/s':>10}" + "".join(f"{c:>12}" for c in cols) + f"{'n legal':>9}{'len':>6}")
    print("new: the initial state, per step of its game; legal: the first call after apply; legal_again: a second")
    for sp in specs:
        rec = recs[sp]
        steps = sum(len(a) for _, a in rec)
        nleg = sum(len(la) for legals, _ in rec for la in legals) / steps
        loop = statistics.median(loops[sp])
        vals = [statistics.median(p[c] for p in parts[sp]) for c in cols]
        vals[0] = vals[0] * len(rec) / steps * steps / len(rec)  # per game, shown per step
        print(
            f"{sp:<20}{loop:>8.0f}{1e9 / loop:>10,.0f}"
            + "".join(f"{v:>12.0f}" for v in vals)
            + f"{nleg:>9.0f}{steps / len(rec):>6.0f}"
        )
    floors(recs, args.rounds)
    for sp in specs:
        if sp == "hex":
            continue
        d = count_dispatches(sp, games[sp], recs[sp])
        print(
            f"{sp}: kernel dispatches per step: {sum(d.values()):.2f} — "
            + ", ".join(f"{n} {c:.2f}" for n, c in d.items())
        )


if __name__ == "__main__":
    main()
