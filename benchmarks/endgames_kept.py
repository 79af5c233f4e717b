"""Ikabegamá's races and Nume's last cells against a proof: how often the levels keep a forced win, before and after.

(Nibble's endgames have their own script, ``benchmarks/endgames.py``; this one measures the
same thing for the two other games with a solver.)

1. *Positions*: seeded level-3 self-play games of ``--game`` (level 3 at ``--gen-scale`` of its
   time, CPU clock; two seeded random first moves, so the games differ); every position within
   the levels' solver reach (Ikabegamá: either player could win within three of his moves;
   Nume: at most 14 empty cells) with more than one legal move is kept, and
   ``--positions`` are drawn.
2. *Solve*: each is solved (a fresh table each, at most ``--solve-seconds`` CPU): Ikabegamá's
   :class:`~tessera.agents.endgame.IkabegamaSolver` looks for a forced win or loss within
   ``--horizon`` plies; Nume's :class:`~tessera.agents.endgame.NumeSolver` solves to the end.
   Proved win, proved loss (or draw) or unknown, with plies, CPU and nodes.
3. *Keep rate*: in each position where the player to move has a proved win in ``N`` plies, every
   agent chooses one move (the random baseline: the share of ``--random-moves`` random legal moves
   that keep it); it keeps the win when the position after it is proved won for him
   again (Ikabegamá: within ``N + 1`` plies, the judge's horizon, so a slower win it may have
   chosen counts as not proved; Nume: exactly).  Agents: a random move, levels 3, 4 and
   5 as they were (their search alone) and as they are now (levels 4–5 ask the solver first),
   at ``--level-scale`` of their time on the CPU clock.  Rates with Wilson 95 % intervals.

Run: ``nice -n 10 python benchmarks/endgames_kept.py --game ikabegama|nume [--games 30] [--positions 120]
[--out DIR]``; ``--quick`` for a smoke run.  Writes ``positions.jsonl``, ``results.jsonl``, ``summary.json``
and ``report.txt`` in ``--out`` (default ``studies/endgames/<game>``).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # measure this working tree, not another install

from endgames import agents_to_measure, keep_lines, keep_summary

import tessera
from tessera import State
from tessera.agents import make_agent
from tessera.agents.base import using_clock
from tessera.agents.endgame import solver_of, within_reach
from tessera.games.ikabegama.solver import IkabegamaSolver
from tessera.games.nume.solver import NumeSolver


def base_name(spec: str) -> str:
    return spec.split("(")[0]


def self_play_positions(spec: str, games: int, gen_scale: float, seed: int) -> list[dict[str, Any]]:
    """Positions within the levels' solver reach and with more than one legal move, from level-3 self-play."""
    game = tessera.load_game(spec)
    name = base_name(spec)
    solver = solver_of(game)
    assert solver is not None
    reach = solver.reach
    out = []
    for g in range(games):
        agents = [make_agent(f"level3(scale={gen_scale})", game=name) for _ in range(2)]
        for i, a in enumerate(agents):
            a.rng.seed(seed * 1000 + 2 * g + i)
        st = game.new_initial_state()
        # a seeded random first move for each side, so the games differ
        r = random.Random(seed * 1000 + g)
        for _ in range(2):
            st.apply_action(st.random_action(r))
        plies = 2
        while not st.is_terminal():
            if within_reach(st, reach) and len(st.legal_actions()) > 1:
                out.append({"game": g, "ply": plies, "position": st.to_dict()})
            st.apply_action(agents[st.current_player()].choose(st))
            plies += 1
        print(f"  game {g + 1}/{games}: {plies} plies, {len(out)} positions so far", flush=True)
    return out


def new_solver(name: str) -> Any:
    return IkabegamaSolver(20) if name == "ikabegama" else NumeSolver(22)


def solve_timed(name: str, state: State, horizon: int, seconds: float) -> dict[str, Any]:
    solver = new_solver(name)
    t = time.process_time()
    out = solver.solve(state, seconds, horizon=horizon) if name == "ikabegama" else solver.solve(state, seconds)
    cpu = time.process_time() - t
    if out is None:
        return {"value": None, "plies": None, "cpu": cpu}
    return {"value": out.value, "plies": out.plies, "cpu": cpu, "nodes": out.nodes}


def wins_after(state: State, action: int, me: int, horizon: int, judge: Any, seconds: float) -> bool:
    """Whether ``me`` still has a forced win after ``action`` (Ikabegamá: proved within ``horizon`` plies)."""
    child = state.clone()
    child.apply_action(action)
    if child.is_terminal():
        return child.returns()[me] > 0
    if isinstance(judge, IkabegamaSolver):
        out = judge.solve(child, seconds, horizon=max(1, horizon))
    else:
        out = judge.solve(child, seconds)
    return out is not None and out.value != 0 and (out.value > 0) == (child.current_player() == me)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--game", default="ikabegama")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--positions", type=int, default=120)
    ap.add_argument("--gen-scale", type=float, default=0.1, help="level 3's share of its time in self-play")
    ap.add_argument("--level-scale", type=float, default=1.0, help="the measured levels' share of their time")
    ap.add_argument("--levels", default="3,4,5")
    ap.add_argument("--horizon", type=int, default=9)
    ap.add_argument("--solve-seconds", type=float, default=5.0)
    ap.add_argument("--random-moves", type=int, default=40, help="random moves judged for the random baseline")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="default studies/endgames/<game>")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 2 games, 8 positions, levels at 0.1 time")
    args = ap.parse_args(argv)
    if args.quick:
        args.games, args.positions, args.level_scale, args.horizon = 2, 8, 0.1, 7
    name = base_name(args.game)
    if name not in ("ikabegama", "nume"):
        ap.error(f"--game must be ikabegama or nume (Nibble: benchmarks/endgames.py), not {args.game!r}")
    out_dir = Path(args.out or f"studies/endgames/{name}")
    out_dir.mkdir(parents=True, exist_ok=True)
    game = tessera.load_game(args.game)
    levels = [int(x) for x in args.levels.split(",")]
    with using_clock("cpu"):
        t0 = time.process_time()
        print(f"self-play: {args.games} games of level3(scale={args.gen_scale}), {args.game}", flush=True)
        pool = self_play_positions(args.game, args.games, args.gen_scale, args.seed)
        picked = random.Random(args.seed).sample(pool, min(args.positions, len(pool)))
        gen_cpu = time.process_time() - t0
        with (out_dir / "positions.jsonl").open("w") as f:
            for rec in picked:
                f.write(json.dumps(rec) + "\n")
        makers = agents_to_measure(levels, args.level_scale, name)
        warm = game.state_from_dict(picked[0]["position"])  # compile (or load) every kernel before timing
        make_agent("level3", game=name).choose(warm, iterations=2)
        solve_timed(name, warm, 3, 1.0)
        judge = new_solver(name)
        records = []
        for i, rec in enumerate(picked):
            st = game.state_from_dict(rec["position"])
            row: dict[str, Any] = {"index": i, "game": rec["game"], "ply": rec["ply"]}
            row.update(solve_timed(name, st, args.horizon, args.solve_seconds))
            if row["value"] is not None and row["value"] > 0:
                me = st.current_player()
                within = row["plies"] + 1
                legal = st.legal_actions()
                some = random.Random(i).sample(legal, min(len(legal), args.random_moves))
                row["random"] = sum(wins_after(st, a, me, within - 1, judge, 2.0) for a in some) / len(some)
                for who, make in makers.items():
                    agent = make()
                    agent.rng.seed(args.seed * 7919 + i)
                    t = time.process_time()
                    a = agent.choose(st)
                    row[f"{who} cpu"] = time.process_time() - t
                    row[who] = wins_after(st, a, me, within - 1, judge, 10.0)
                    if "solver" in agent.stats:
                        row[f"{who} solver"] = agent.stats["solver"]
            records.append(row)
            kept = {k: v for k, v in row.items() if isinstance(v, bool)}
            print(f"  {i + 1}/{len(picked)} ply {row['ply']} value {row['value']} plies {row['plies']} "
                  f"{row['cpu']:.3f} s {kept}", flush=True)  # fmt: skip
    with (out_dir / "results.jsonl").open("w") as f:
        for row in records:
            f.write(json.dumps(row) + "\n")
    won = [r for r in records if r["value"] is not None and r["value"] > 0]
    proved = [r for r in records if r["value"] is not None]
    lost = [r for r in proved if r["value"] <= 0]

    def cpu_of(rs: list[dict[str, Any]]) -> dict[str, float]:
        cpus = [r["cpu"] for r in rs] or [0.0]
        return {"n": len(rs), "mean": statistics.fmean(cpus), "median": statistics.median(cpus), "max": max(cpus)}

    summary: dict[str, Any] = {
        "python": platform.python_version(),
        "clock": "cpu",
        "game": args.game,
        "games": args.games,
        "gen_scale": args.gen_scale,
        "level_scale": args.level_scale,
        "horizon": args.horizon,
        "solve_seconds": args.solve_seconds,
        "positions": len(records),
        "pool": len(pool),
        "won": len(won),
        "lost": len(lost),
        "unknown": len(records) - len(proved),
        "self_play_cpu": round(gen_cpu, 1),
        "solve_cpu": {
            "proved": cpu_of(proved),
            "unknown": cpu_of([r for r in records if r["value"] is None]),
            "by_plies": {str(p): cpu_of(rs) for p in range(1, 31) if (rs := [r for r in proved if r["plies"] == p])},
        },
        "keep": {},
    }
    summary["keep"] = keep_summary(won, makers, "random move")
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    sc = summary["solve_cpu"]
    lines = [
        f"{args.game}: positions within reach from {args.games} level-3 self-play games "
        f"(level 3 at {args.gen_scale:g} of its time), CPU clock"
        + (f", horizon {args.horizon} plies" if name == "ikabegama" else ", solved to the end"),
        f"positions {len(records)} (of {len(pool)}): forced win for the player to move {len(won)}, "
        f"lost or drawn {len(lost)}, not proved within {args.solve_seconds:g} s {summary['unknown']}",
        f"solver CPU s: proved mean {sc['proved']['mean']:.3f}, median {sc['proved']['median']:.3f}, "
        f"max {sc['proved']['max']:.3f}; not proved mean {sc['unknown']['mean']:.2f}, max {sc['unknown']['max']:.2f}",
        "forced wins kept (one move each; kept = proved won again"
        + (" within N + 1 plies):" if name == "ikabegama" else "):"),
    ]
    lines += keep_lines(summary["keep"], "share of random moves that keep the win")
    (out_dir / "report.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
