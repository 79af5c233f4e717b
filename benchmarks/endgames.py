"""Nibble endgames against perfect play: how often the levels keep a forced win, before and after the solver.

1. *Positions*: seeded level-3 self-play games of 9×9 Nibble (level 3 at ``--gen-scale`` of
   its time, CPU clock); every position with 14–18 blocks left and a choice of steps (at
   the start of a turn or inside one) is kept, and ``--positions`` of them are drawn (seeded).
2. *Solve*: each is solved exactly (:class:`tessera.agents.endgame.NibbleSolver`, result and
   steps to the end, CPU seconds and nodes; a fresh table per position).  Positions where
   the player to move has a forced win are the test set; a few larger endgames (20 and
   22 blocks) are timed too.
3. *Keep rate*: in each won position every agent chooses one step; it keeps the win when
   the position after the step is still won for it (solved again).  Agents: a random
   step (the exact share of winning steps), levels 3, 4 and 5 as they were (their search
   alone) and as they are now (levels 4–5 ask the solver first), each at its full time
   on the CPU clock.  Rates with Wilson 95 % intervals.

Run: ``nice -n 10 python benchmarks/endgames.py [--games 40] [--positions 60] [--out studies/endgames]``;
``--quick`` for a smoke run.  Writes ``positions.jsonl``, ``results.jsonl``, ``summary.json`` and
``report.txt`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # measure this working tree, not another install

import tessera
from tessera import State
from tessera.agents import level, make_agent
from tessera.agents.base import Agent, using_clock
from tessera.games.nibble.solver import NibbleSolver

LO, HI = 14, 18


def blocks(state: State) -> int:
    return len(state.to_dict()["cells"])


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def self_play_positions(games: int, gen_scale: float, seed: int) -> list[dict[str, Any]]:
    """Positions with 14–18 blocks and more than one legal step from seeded level-3 self-play."""
    game = tessera.load_game("nibble")
    out = []
    for g in range(games):
        agents = [make_agent(f"level3(scale={gen_scale})", game="nibble") for _ in range(2)]
        for i, a in enumerate(agents):
            a.rng.seed(seed * 1000 + 2 * g + i)
        st = game.new_initial_state(seed * 1000 + g)
        while not st.is_terminal() and blocks(st) >= LO:
            if blocks(st) <= HI and len(st.legal_actions()) > 1:
                mid = st.taking is not None  # type: ignore[attr-defined]
                out.append({"game": g, "blocks": blocks(st), "mid_turn": mid, "position": st.to_dict()})
            st.apply_action(agents[st.current_player()].choose(st))
        print(f"  game {g + 1}/{games}: {len(out)} positions so far", flush=True)
    return out


def solve_timed(state: State) -> dict[str, Any]:
    solver = NibbleSolver(22)
    t = time.process_time()
    out = solver.solve(state)
    assert out is not None
    return {"value": out.value, "plies": out.plies, "cpu": time.process_time() - t, "nodes": out.nodes}


def wins_after(state: State, action: int, me: int, solver: NibbleSolver) -> bool:
    """Whether ``me`` still has a forced win after ``action`` in ``state``."""
    child = state.clone()
    child.apply_action(action)
    if child.is_terminal():
        return child.returns()[me] > 0
    out = solver.solve(child)
    assert out is not None
    return (out.value > 0) == (child.current_player() == me) and out.value != 0


def agents_to_measure(levels: list[int], scale: float, game: str = "nibble") -> dict[str, Any]:
    """name -> a maker of a fresh agent (levels 4-5 "before": the level's search alone; "after": the level)."""
    makers: dict[str, Any] = {}
    for n in levels:
        lv = level(n, game)

        def before(lv: Any = lv) -> Agent:
            a = make_agent(lv.spec)
            a.default_seconds = lv.seconds * scale
            return a

        makers[f"level{n}" + (" before" if n >= 4 else "")] = before
        if n >= 4:
            makers[f"level{n} after"] = lambda n=n: make_agent(f"level{n}(scale={scale:g})", game=game)
    return makers


def keep_summary(won: list[dict[str, Any]], makers: dict[str, Any], random_name: str) -> dict[str, Any]:
    """Per agent: wins kept among ``won`` (rows with a bool per agent name), Wilson interval, CPU, proofs."""
    keep: dict[str, Any] = {}
    if not won:
        return keep
    keep[random_name] = {"rate": statistics.fmean(r["random"] for r in won), "n": len(won)}
    for name in makers:
        k = sum(bool(r[name]) for r in won)
        lo, hi = wilson(k, len(won))
        keep[name] = {
            "kept": k,
            "n": len(won),
            "rate": k / len(won),
            "wilson95": [round(lo, 3), round(hi, 3)],
            "median_cpu": statistics.median(r[f"{name} cpu"] for r in won),
            "max_cpu": max(r[f"{name} cpu"] for r in won),
            "solver_proved": sum(r.get(f"{name} solver") == "win" for r in won),
        }
    return keep


def keep_lines(keep: dict[str, Any], random_text: str) -> list[str]:
    """The report's lines of :func:`keep_summary`."""
    lines = []
    for name, v in keep.items():
        if "kept" in v:
            lines.append(
                f"  {name:16s} {v['kept']:3d}/{v['n']:3d} = {100 * v['rate']:5.1f} %  "
                f"[{100 * v['wilson95'][0]:.0f}-{100 * v['wilson95'][1]:.0f} %]  median {v['median_cpu']:.2f} CPU s, "
                f"max {v['max_cpu']:.2f}" + (f", solver proved the win {v['solver_proved']}" if "after" in name else "")
            )
        else:
            lines.append(f"  {name:16s} {100 * v['rate']:5.1f} %  ({random_text})")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--gen-scale", type=float, default=0.1, help="level 3's share of its time in self-play")
    ap.add_argument("--levels", default="3,4,5")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--large", type=int, default=6, help="endgames of 20 and 22 blocks to time")
    ap.add_argument("--out", default="studies/endgames")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 3 games, 6 positions, levels at 0.1 time")
    args = ap.parse_args(argv)
    scale = 1.0
    if args.quick:
        args.games, args.positions, args.large, scale = 3, 6, 1, 0.1
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    game = tessera.load_game("nibble")
    levels = [int(x) for x in args.levels.split(",")]
    with using_clock("cpu"):
        t0 = time.process_time()
        print(f"self-play: {args.games} games of level3(scale={args.gen_scale})", flush=True)
        pool = self_play_positions(args.games, args.gen_scale, args.seed)
        rng = random.Random(args.seed)
        picked = rng.sample(pool, min(args.positions, len(pool)))
        gen_cpu = time.process_time() - t0
        with (out_dir / "positions.jsonl").open("w") as f:
            for rec in picked:
                f.write(json.dumps(rec) + "\n")
        makers = agents_to_measure(levels, scale)
        warm = game.state_from_dict(picked[0]["position"])  # compile (or load) every kernel before timing
        make_agent("level3", game="nibble").choose(warm, iterations=5)
        NibbleSolver(12).solve(warm)
        records = []
        check = NibbleSolver(22)
        for i, rec in enumerate(picked):
            st = game.state_from_dict(rec["position"])
            row: dict[str, Any] = {
                "index": i,
                "game": rec["game"],
                "blocks": rec["blocks"],
                "mid_turn": rec["mid_turn"],
            }
            row.update(solve_timed(st))
            if row["value"] > 0:
                me = st.current_player()
                legal = st.legal_actions()
                row["random"] = sum(wins_after(st, a, me, check) for a in legal) / len(legal)
                for name, make in makers.items():
                    agent = make()
                    agent.rng.seed(args.seed * 7919 + i)
                    t = time.process_time()
                    a = agent.choose(st)
                    row[f"{name} cpu"] = time.process_time() - t
                    row[name] = wins_after(st, a, me, check)
                    if "solver" in agent.stats:
                        row[f"{name} solver"] = agent.stats["solver"]
            records.append(row)
            kept = {k: v for k, v in row.items() if isinstance(v, bool) and k != "mid_turn"}
            print(f"  {i + 1}/{len(picked)} {row['blocks']} blocks value {row['value']:+d} "
                  f"{row['cpu']:.3f} s {kept}", flush=True)  # fmt: skip
        large = []
        for b in (20, 22):
            seeds = iter(range(10_000, 20_000))
            done = 0
            while done < args.large:
                s = next(seeds)
                st = game.new_initial_state(s)
                r = random.Random(s)
                while not st.is_terminal() and (blocks(st) > b or st.taking is not None):  # type: ignore[attr-defined]
                    st.apply_action(st.random_action(r))
                if st.is_terminal():
                    continue
                large.append({"blocks": b, "seed": s, **solve_timed(st)})
                done += 1
                print(f"  large {b}: {large[-1]['cpu']:.2f} s", flush=True)
    with (out_dir / "results.jsonl").open("w") as f:
        for row in records + large:
            f.write(json.dumps(row) + "\n")
    won = [r for r in records if r["value"] > 0]
    summary: dict[str, Any] = {
        "python": platform.python_version(),
        "clock": "cpu",
        "games": args.games,
        "gen_scale": args.gen_scale,
        "level_scale": scale,
        "positions": len(records),
        "pool": len(pool),
        "won": len(won),
        "self_play_cpu": round(gen_cpu, 1),
        "solve_cpu": {
            "mean": statistics.fmean(r["cpu"] for r in records),
            "median": statistics.median(r["cpu"] for r in records),
            "max": max(r["cpu"] for r in records),
            "by_blocks": {
                str(b): {
                    "n": len(rs),
                    "mean": statistics.fmean(r["cpu"] for r in rs),
                    "max": max(r["cpu"] for r in rs),
                }
                for b in range(LO, HI + 1)
                if (rs := [r for r in records if r["blocks"] == b])
            },
            "large": {
                str(b): {"n": len(rs), "mean": statistics.fmean(r["cpu"] for r in rs), "max": max(r["cpu"] for r in rs)}
                for b in (20, 22)
                if (rs := [r for r in large if r["blocks"] == b])
            },
        },
        "keep": {},
    }
    summary["keep"] = keep_summary(won, makers, "random step")
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [
        f"Nibble 9x9 endgames, {LO}-{HI} blocks, from {args.games} level-3 self-play games "
        f"(level 3 at {args.gen_scale:g} of its time), CPU clock",
        f"positions {len(records)} (of {len(pool)}), forced wins for the player to move {len(won)}",
        f"exact solve CPU s: mean {summary['solve_cpu']['mean']:.3f}, median {summary['solve_cpu']['median']:.3f}, "
        f"max {summary['solve_cpu']['max']:.3f}",
    ]
    for b, v in summary["solve_cpu"]["large"].items():
        lines.append(f"  {b} blocks (random play): mean {v['mean']:.2f} s, max {v['max']:.2f} s over {v['n']}")
    lines.append("forced wins kept (one step each):")
    lines += keep_lines(summary["keep"], "share of winning steps")
    (out_dir / "report.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
