"""The ``tessera tournament`` and ``tessera balance`` commands.

``tessera tournament GAME AGENT... --games N [--seconds S | --iterations I] [--jobs J]
[--ray ADDRESS|auto|local] [--out DIR] [--json] [--gauntlet AGENT] [--seed K]``

``tessera balance GAME [--vary PARAM=V1,V2,...]... --agent SPEC --games N [--seconds S |
--iterations I] [--find PARAM=LO:HI [--rounds R]] [--jobs J] [--ray ...] [--out DIR] [--json]``

With ``--out DIR`` the games are appended to ``DIR/results.jsonl`` as they finish (the
same command run again continues the run), and the summary (``summary.json``) and the
plots (``*.json`` always, ``*.png`` with matplotlib) are written there.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from tessera.arena.cli import _non_negative_float, _positive_int


def register(subparsers: Any) -> None:
    """Add ``tournament`` and ``balance`` to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "tournament",
        help="round robin (or gauntlet) between agents: W/D/L with 95%% intervals and Bradley-Terry ratings",
        description=(
            "Every table of agents plays GAMES games with seats rotated (alternated in two-player games); "
            "prints ratings with 95%% intervals and per-pair W/D/L."
        ),
    )
    p.add_argument("game", metavar="GAME", help="game string, e.g. nume or 'nume(size=4)'")
    p.add_argument("agents", metavar="AGENT", nargs="+", help="agent specs, e.g. random greedy 'mcts(c=0.7)'")
    p.add_argument("--gauntlet", metavar="AGENT", default=None, help="only games of AGENT against the rest")
    p.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="count time budgets in wall time (default) or in the searching thread's CPU time",
    )
    _common(p)
    p.set_defaults(func=run_tournament_cmd)

    p = subparsers.add_parser(
        "balance",
        help="self-play balance figures per parameter setting; --find searches a fair parameter value",
        description=(
            "Self-play of one agent in every seat, for each combination of the --vary values: seat win rates "
            "with 95%% intervals, draws, length, Ludii-style metrics and how early the result is decided."
        ),
    )
    p.add_argument("game", metavar="GAME", help="game string, e.g. 'nume(size=4)'")
    p.add_argument(
        "--vary",
        metavar="PARAM=V1,V2,...",
        action="append",
        default=[],
        help="a parameter and its values (repeatable: every combination is played)",
    )
    p.add_argument("--agent", required=True, metavar="SPEC", help="agent spec playing every seat")
    p.add_argument(
        "--find",
        metavar="PARAM=LO:HI",
        default=None,
        help="search the value of a numeric PARAM in LO..HI at which seat 0 scores 1/2",
    )
    p.add_argument("--rounds", type=_positive_int, default=3, help="--find: rounds of the search (default 3)")
    p.add_argument("--points", type=_positive_int, default=5, help="--find: values in the first round (default 5)")
    _common(p)
    p.set_defaults(func=run_balance_cmd)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", "-n", type=_positive_int, default=10, help="games per table / setting (default 10)")
    p.add_argument("--seconds", "-s", type=_non_negative_float, default=None, help="time per move (seconds)")
    p.add_argument("--iterations", "-i", type=_positive_int, default=None, help="iterations per move (reproducible)")
    p.add_argument("--seed", type=int, default=0, help="base seed of deals and agents (default 0)")
    p.add_argument("--jobs", "-j", type=_positive_int, default=1, help="games played in parallel (local processes)")
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="play on Ray: a cluster address, 'auto' (the running cluster) or 'local' (start one here)",
    )
    p.add_argument("--out", metavar="DIR", default=None, help="results file (resumable), summary and plots go here")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of tables")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _finish(kind: str, d: dict[str, Any], text: str, args: argparse.Namespace) -> int:
    if args.out:
        from tessera.lab.plots import balance_plots, tournament_plots, write_plots

        out = Path(args.out)
        (out / "summary.json").write_text(json.dumps(_clean(d), indent=1), encoding="utf-8")
        plots = tournament_plots(d) if kind == "tournament" else balance_plots(d)
        written = write_plots(plots, out)
        text += "\n\nwritten: " + ", ".join(str(p) for p in [out / "summary.json", *written])
    if args.json:
        print(json.dumps(_clean(d), indent=2))
    else:
        print(text)
    return 0


def _clean(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, list | tuple):
        return [_clean(x) for x in v]
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    return v


def run_tournament_cmd(args: argparse.Namespace) -> int:
    """Run ``tessera tournament``; exit code 2 on bad input (before any game is played)."""
    from tessera.lab.tournament import format_tournament, run_tournament

    try:
        res = run_tournament(
            args.game,
            args.agents,
            games=args.games,
            seconds=args.seconds,
            iterations=args.iterations,
            seed=args.seed,
            gauntlet=args.gauntlet,
            jobs=args.jobs,
            ray_address=args.ray,
            out=args.out,
            progress=not args.no_progress,
            clock=args.clock,
        )
    except ValueError as e:
        print(f"tessera tournament: error: {e}", file=sys.stderr)
        return 2
    return _finish("tournament", res.to_dict(), format_tournament(res), args)


def run_balance_cmd(args: argparse.Namespace) -> int:
    """Run ``tessera balance``; exit code 2 on bad input (before any game is played)."""
    from tessera.lab.balance import find_fair, format_balance, run_balance

    try:
        if args.find:
            if args.vary:
                raise ValueError("--find and --vary cannot be combined (put fixed parameters in the game string)")
            param, eq, rng = args.find.partition("=")
            lo_s, colon, hi_s = rng.partition(":")
            try:
                lo, hi = float(lo_s), float(hi_s)
            except ValueError:
                lo = hi = math.nan
            if not eq or not colon or not param.strip() or not (math.isfinite(lo) and math.isfinite(hi)):
                raise ValueError(f"--find {args.find!r}: expected PARAM=LO:HI, e.g. komi=0:6")
            res = find_fair(
                args.game,
                args.agent,
                param.strip().lower(),
                lo,
                hi,
                games=args.games,
                rounds=args.rounds,
                points=args.points,
                seconds=args.seconds,
                iterations=args.iterations,
                seed=args.seed,
                jobs=args.jobs,
                ray_address=args.ray,
                out=args.out,
                progress=not args.no_progress,
            )
        else:
            res = run_balance(
                args.game,
                args.agent,
                vary=args.vary,
                games=args.games,
                seconds=args.seconds,
                iterations=args.iterations,
                seed=args.seed,
                jobs=args.jobs,
                ray_address=args.ray,
                out=args.out,
                progress=not args.no_progress,
            )
    except ValueError as e:
        print(f"tessera balance: error: {e}", file=sys.stderr)
        return 2
    return _finish("balance", res.to_dict(), format_balance(res), args)


__all__ = ["register", "run_balance_cmd", "run_tournament_cmd"]
