"""Engine throughput of every game, in CPU time: the figures of docs/engine.md.

    python benchmarks/engine.py [--seconds 1] [--rounds 3] [--games nume "nume(size=6)" ...] [--json]
    python benchmarks/engine.py --startup          # first import + first rollout, cold and warm cache

For each game (every registered game with default parameters, plus
``nume(size=6)``) and each of ``--rounds`` rounds, every measurement runs for
about ``--seconds`` of this process's CPU time (``time.process_time``, so load
from other processes on a shared machine is not counted); the table shows the
median over the rounds.  Rounds go through all games before the next round
starts, so a slow spell of the machine hits every game alike.

* **rollout plies/s, games/s** — random games through the public, checked API:
  ``state.apply_action(state.random_action(rng))`` (at a simultaneous node
  ``state.play_joint`` with each player's ``random_move``) from the initial
  state to the end;
* **batch plies/s, games/s** — ``state.rollouts(n, seed)``, the batch hook MCTS
  leaves use (a compiled kernel where the game has one); shown when the game
  has the hook;
* **legal/s** — ``state.legal_actions(player)`` calls over positions sampled
  from random games (at a simultaneous node: player 0);
* **apply/s** — ``apply_action`` (``play_joint`` at simultaneous nodes) replaying
  recorded random games on a clone of the initial state;
* **clone/s** — ``state.clone()`` over the sampled positions;
* **mcts sims/s** — our ``mcts`` agent (``c=1.4``, one random rollout to the end
  per simulation, like OpenSpiel's ``MCTSBot`` with a ``RandomRolloutEvaluator``)
  searching the initial position (for a simultaneous game, player 0's order).

``--startup`` runs a fresh interpreter per game that imports tessera, loads the
game and plays one rollout (``rollouts`` when the game has it), first with an
empty numba cache (``NUMBA_CACHE_DIR`` set to a new directory: the cold, compiling
start) and then again with that cache filled (the warm start); it reports wall
seconds and the CPU seconds of the child process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import tessera
from tessera.core.game import SIMULTANEOUS, Game, State

EXTRA_GAMES = ("nume(size=6)",)


def default_games() -> list[str]:
    """Every registered game with default parameters, plus :data:`EXTRA_GAMES`."""
    out: list[str] = []
    for name in tessera.list_games():
        out.append(name)
        out.extend(g for g in EXTRA_GAMES if g.split("(")[0] == name)
    return out


def random_step(state: State, rng: random.Random) -> None:
    """One random step through the checked public API."""
    if state.current_player() == SIMULTANEOUS:
        state.play_joint([state.random_move(rng, p) for p in range(state.game.num_players)])
    else:
        state.apply_action(state.random_action(rng))


def timed(seconds: float, body: Callable[[], int]) -> float:
    """Units per CPU second of ``body`` (which returns how many units it did), run for about ``seconds``."""
    done = 0
    start = time.process_time()
    while True:
        done += body()
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done / elapsed


def sample_games(game: Game, count: int, seed: int) -> tuple[list[State], list[list[Any]]]:
    """Positions along ``count`` random games (every step) and each game's step list for replay.

    A step is an int action at a sequential node and a list of move strings at a simultaneous node.
    """
    rng = random.Random(seed)
    positions: list[State] = []
    games: list[list[Any]] = []
    for i in range(count):
        state = game.new_initial_state(seed=i)
        steps: list[Any] = []
        while not state.is_terminal():
            positions.append(state.clone())
            if state.current_player() == SIMULTANEOUS:
                joint = [state.random_move(rng, p) for p in range(game.num_players)]
                state.play_joint(joint)
                steps.append(joint)
            else:
                a = state.random_action(rng)
                state.apply_action(a)
                steps.append(a)
        games.append(steps)
    return positions, games


def measure(spec: str, seconds: float, rnd: int) -> dict[str, float]:
    """One round of every measurement on ``spec``."""
    game = tessera.load_game(spec)
    out: dict[str, float] = {}
    rng = random.Random(rnd)
    counter = [0]

    def rollout() -> int:
        state = game.new_initial_state(seed=rnd)
        while not state.is_terminal():
            random_step(state, rng)
        counter[0] += 1
        return state.move_number()

    # warm up outside the timing: compile (or load from the cache) the kernels a game uses
    warm = game.new_initial_state(seed=rnd)
    if hasattr(warm, "rollouts"):
        warm.rollouts(1, 0)
    rollout()
    sample_games(game, 1, rnd)
    counter[0] = 0
    t0 = time.process_time()
    out["rollout_plies_per_s"] = timed(seconds, rollout)
    out["rollout_games_per_s"] = counter[0] / (time.process_time() - t0)

    initial = game.new_initial_state(seed=rnd)
    if hasattr(initial, "rollouts"):
        batch = 64
        seeds = [rnd * 1_000_003]
        games_done = [0]

        def batched() -> int:
            seeds[0] += 1
            res = initial.rollouts(batch, seeds[0])
            games_done[0] += batch
            return int(res.plies)

        t0 = time.process_time()
        out["batch_plies_per_s"] = timed(seconds, batched)
        out["batch_games_per_s"] = games_done[0] / (time.process_time() - t0)

    positions, games = sample_games(game, 4, 1000 + rnd)
    sequential = [s for s in positions if s.current_player() != SIMULTANEOUS]

    def legal() -> int:
        for s in positions:
            cp = s.current_player()
            s.legal_actions(0 if cp == SIMULTANEOUS else cp)
        return len(positions)

    out["legal_per_s"] = timed(seconds, legal)

    def apply() -> int:  # each game replayed on its own deal (sample_games used seed=i)
        n = 0
        for i, steps in enumerate(games):
            s = game.new_initial_state(seed=i)
            for step in steps:
                if isinstance(step, list):
                    s.play_joint(step)
                else:
                    s.apply_action(step)
            n += len(steps)
        return n

    out["apply_per_s"] = timed(seconds, apply)

    def clone() -> int:
        for s in positions:
            s.clone()
        return len(positions)

    out["clone_per_s"] = timed(seconds, clone)
    out["sequential_share"] = len(sequential) / max(1, len(positions))
    out["mcts_sims_per_s"] = mcts_rate(game, seconds, rnd)
    return out


def mcts_rate(game: Game, seconds: float, rnd: int) -> float:
    """Simulations per CPU second of ``mcts(c=1.4,rollout_cutoff=-1)`` on the initial position."""
    from tessera.agents import make_agent

    state = game.new_initial_state(seed=rnd)
    kw = {"player": 0} if state.current_player() == SIMULTANEOUS else {}
    iterations = 16
    while True:
        agent = make_agent("mcts(c=1.4,rollout_cutoff=-1,reuse=false)")
        t0 = time.process_time()
        agent.choose(state, iterations=iterations, rng=rnd, **kw)
        dt = time.process_time() - t0
        if dt >= seconds or iterations >= 10**7:
            return iterations / dt
        iterations = int(iterations * min(10.0, max(2.0, 1.2 * seconds / max(dt, 1e-4))))


COLUMNS = (
    ("rollout_plies_per_s", "rollout plies/s"),
    ("rollout_games_per_s", "games/s"),
    ("batch_plies_per_s", "batch plies/s"),
    ("batch_games_per_s", "batch games/s"),
    ("legal_per_s", "legal/s"),
    ("apply_per_s", "apply/s"),
    ("clone_per_s", "clone/s"),
    ("mcts_sims_per_s", "mcts sims/s"),
)


def run(specs: list[str], seconds: float, rounds: int, verbose: bool) -> dict[str, Any]:
    per: dict[str, list[dict[str, float]]] = {s: [] for s in specs}
    for rnd in range(rounds):
        for spec in specs:
            r = measure(spec, seconds, rnd)
            per[spec].append(r)
            if verbose:
                print(f"round {rnd + 1} {spec}: " + ", ".join(f"{k}={v:.0f}" for k, v in r.items()), file=sys.stderr)
    medians = {spec: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for spec, rs in per.items() if rs}
    return {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "seconds": seconds,
        "rounds": rounds,
        "median": medians,
        "rounds_raw": per,
    }


def table(result: dict[str, Any]) -> str:
    """A Markdown table of the medians."""
    med = result["median"]
    cols = [(k, t) for k, t in COLUMNS if any(k in m for m in med.values())]
    lines = ["| game | " + " | ".join(t for _, t in cols) + " |", "|---|" + "---:|" * len(cols)]
    for spec, m in med.items():
        cells = [_fmt(m[k]) if k in m else "—" for k, _ in cols]
        lines.append(f"| {spec} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e4:
        return f"{x / 1e3:.0f} k"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.1f}"


STARTUP = """
import time
t0 = time.perf_counter()
import random
import tessera
from tessera.core.game import SIMULTANEOUS
g = tessera.load_game({spec!r})
s = g.new_initial_state(seed=0)
if hasattr(s, "rollouts"):
    s.rollouts(1, 0)
else:
    rng = random.Random(0)
    while not s.is_terminal():
        if s.current_player() == SIMULTANEOUS:
            s.play_joint([s.random_move(rng, p) for p in range(g.num_players)])
        else:
            s.apply_action(s.random_action(rng))
print(time.perf_counter() - t0)
"""


def startup(specs: list[str]) -> dict[str, dict[str, float]]:
    """Seconds (wall and CPU, in a fresh interpreter) of import + first rollout, cold then warm numba cache."""
    out: dict[str, dict[str, float]] = {}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for spec in specs:
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            path = root + os.pathsep + os.environ.get("PYTHONPATH", "")
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=path)
            row = {}
            for label in ("cold", "warm"):
                t0 = time.perf_counter()
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                code = STARTUP.format(spec=spec)
                subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                row[label] = time.perf_counter() - t0
                row[label + "_cpu"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
            out[spec] = row
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="*", default=None, help="game strings (default: every game, plus nume(size=6))")
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per measurement (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the median is reported (default 3)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--startup", action="store_true", help="measure first import + first rollout instead")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each round on stderr")
    args = ap.parse_args()
    specs = args.games or default_games()
    if args.startup:
        res = startup(specs)
        if args.json:
            print(json.dumps(res, indent=2))
        else:
            print("| game | cold cache: wall s | CPU s | warm cache: wall s | CPU s |\n|---|---:|---:|---:|---:|")
            for spec, r in res.items():
                print(f"| {spec} | {r['cold']:.2f} | {r['cold_cpu']:.2f} | {r['warm']:.2f} | {r['warm_cpu']:.2f} |")
        return 0
    result = run(specs, args.seconds, args.rounds, args.verbose)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"CPU time, median of {args.rounds} rounds of {args.seconds:g} s; Python {result['python']}")
        print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
