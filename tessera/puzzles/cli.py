"""``tessera puzzles make`` and ``tessera puzzles check`` (docs/puzzles.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tessera.core.registry import load_game


def register(subparsers: Any) -> None:
    """Add ``puzzles`` (``make``, ``check``) to an argparse ``subparsers`` object."""
    p = subparsers.add_parser("puzzles", help="find puzzles in played games, or check a puzzle file")
    sub = p.add_subparsers(title="puzzle commands", metavar="COMMAND")
    m = sub.add_parser(
        "make",
        help="find puzzles of GAME in a server's database, record files and/or self-play games",
        description=(
            "Positions of played games where the player to move has a forced win that exactly one step keeps "
            "(proved by the game's exact solver), or, in games without one, a decisive gain found by search. "
            "New puzzles are added to the --out file (equal positions are one puzzle)."
        ),
    )
    m.add_argument("game", metavar="GAME", help="the game's name, e.g. nibble")
    m.add_argument(
        "--from",
        dest="sources",
        metavar="SOURCE",
        action="append",
        default=[],
        help="a database URL (sqlite:///tessera.db, postgresql://…), a record file, an arena results.jsonl, "
        "or a directory of them (repeatable)",
    )
    m.add_argument("--selfplay", type=int, default=0, metavar="N", help="also play N self-play games here")
    m.add_argument("--spec", default=None, help="self-play: the game string (default GAME)")
    m.add_argument("--agents", default="greedy,greedy(noise=0.5)", help="self-play: two agent specs, comma-separated")
    m.add_argument("--stop", type=int, default=None, metavar="N", help="self-play: play each game for N plies at most")
    m.add_argument("--out", required=True, help="the puzzle file (JSON lines) to add to")
    m.add_argument("--reach", type=int, default=None, help="solver games: the largest positions searched")
    m.add_argument("--horizon", type=int, default=None, help="race solvers: plies looked ahead")
    m.add_argument("--depth", type=int, default=2, help="by search: steps searched after each first step")
    m.add_argument("--per-game", type=int, default=2, help="most puzzles taken from one played game (default 2)")
    m.add_argument("--last", type=int, default=None, help="only the positions of each game's last N plies")
    m.add_argument("--tries", type=int, default=10, help="tries of the level-1 agent per puzzle (default 10)")
    m.add_argument("--minutes", type=float, default=None, help="stop after this many minutes")
    m.add_argument("--limit", type=int, default=None, help="stop after this many new puzzles")
    m.add_argument("--seed", type=int, default=0, help="self-play seed (the deal of game i is SEED + i)")
    m.set_defaults(func=cmd_make)

    c = sub.add_parser("check", help="solve every solver-backed puzzle of a file again and check it")
    c.add_argument("files", nargs="+", metavar="FILE", help="puzzle files (JSON lines)")
    c.add_argument("--sample", type=int, default=None, help="check this many puzzles per file (seeded sample)")
    c.add_argument("--seed", type=int, default=0)
    c.set_defaults(func=cmd_check)

    def need_command(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=need_command)


def cmd_make(args: argparse.Namespace) -> int:
    """Find puzzles and add them to ``--out``; prints what the run found as JSON."""
    from tessera.puzzles.make import Report, Settings, find
    from tessera.puzzles.model import read_puzzles, write_puzzles
    from tessera.puzzles.sources import read_source, selfplay

    game = load_game(args.game).name
    if args.game != game:
        raise ValueError(f"GAME is a game's name ({game}); give its parameters with --spec")
    agents = tuple(a.strip() for a in args.agents.split(",") if a.strip())
    if len(agents) != 2:
        raise ValueError(f"--agents takes two agent specs separated by a comma, not {args.agents!r}")
    spec = args.spec or game
    if load_game(spec).name != game:
        raise ValueError(f"--spec {spec!r} is not a game of {game}")
    if args.stop is not None and args.stop < 1:
        raise ValueError("--stop takes 1 or more plies")
    if not args.sources and args.selfplay <= 0:
        raise ValueError("give at least one --from SOURCE or --selfplay N")
    out = Path(args.out)
    puzzles = {p.id: p for p in read_puzzles(out)} if out.exists() else {}
    before = len(puzzles)

    def games() -> Any:
        for source in args.sources:
            yield from read_source(source, game)
        if args.selfplay > 0:
            yield from selfplay(
                spec,
                args.selfplay,
                (agents[0], agents[1]),
                args.seed,
                stop=args.stop,
            )

    start = time.monotonic()

    def budget() -> bool:
        if args.limit is not None and len(puzzles) - before >= args.limit:
            return False
        return args.minutes is None or time.monotonic() - start < args.minutes * 60

    settings = Settings(
        reach=args.reach,
        horizon=args.horizon,
        per_game=args.per_game,
        last=args.last,
        tries=args.tries,
        depth=args.depth,
        seed=args.seed,
    )
    report = Report()
    out.parent.mkdir(parents=True, exist_ok=True)
    for puzzle in find(game, games(), settings, known=puzzles, report=report, budget=budget):
        puzzles[puzzle.id] = puzzle
        write_puzzles(out, puzzles.values())  # every puzzle is kept as soon as it is found
    write_puzzles(out, puzzles.values())
    figures = {
        **report.as_dict(),
        "minutes": round((time.monotonic() - start) / 60, 2),
        "added": len(puzzles) - before,
        "total": len(puzzles),
    }
    print(json.dumps(figures))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Re-prove puzzles; prints one line per failure and the figures, exit 1 if any failed."""
    from tessera.puzzles.model import read_puzzles
    from tessera.puzzles.proof import check_puzzles

    failed = 0
    for f in args.files:
        puzzles = read_puzzles(f)
        problems, checked, seconds = check_puzzles(puzzles, sample=args.sample, seed=args.seed)
        for pid, why in problems:
            print(f"{f}: {pid}: {why}")
        failed += len(problems)
        print(json.dumps({"file": f, "checked": checked, "failed": len(problems), "seconds": round(seconds, 1)}))
    if failed:
        print(f"tessera puzzles check: {failed} puzzle(s) failed", file=sys.stderr)
        return 1
    return 0


__all__ = ["cmd_check", "cmd_make", "register"]
