"""The ``tessera match``, ``tessera tournament`` and ``tessera balance`` commands.

``tessera match GAME AGENT_A AGENT_B [AGENT...] --games N [--seconds S | --iterations I] [--sprt ELO0,ELO1]``
``tessera tournament GAME AGENT... --games N [--gauntlet AGENT] ...``
``tessera balance GAME [--vary PARAM=V1,V2,...]... --agent SPEC --games N [--find PARAM=LO:HI] ...``

Every command takes the same run options: ``--games``, ``--seconds``, ``--iterations``,
``--seed``, ``--clock wall|cpu``, ``--jobs J`` (local processes), ``--ray ADDRESS|auto|local``,
``--out DIR`` (each game is appended to ``DIR/results.jsonl`` as it ends, so the same command
run again continues the run; the summary, and the plots of tournaments and balance runs, are
written there), ``--json`` and ``--no-progress``.

A match of a two-player game alternates seats and prints a win/draw/loss table with 95 %
confidence intervals; for a game of more than two players list one agent per seat
(``tessera match 'nymbat(players=4)' level3 level2 level2 level2``): seats rotate from game
to game, and the table gives each agent's wins, draws and losses in total and per seat.
``tessera/cli.py`` calls :func:`register`; ``python -m tessera.arena`` runs the same commands
on their own.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tessera.arena.match import MatchResult, RotatedResult, SeatsResult, match_progress, play_match, play_seats
from tessera.arena.plots import balance_plots, json_safe, robust_plots, tournament_plots, write_plots
from tessera.arena.runner import budget_text, read_sessions
from tessera.core.registry import load_game

AGENTS_HELP = (
    "Agents: random, greedy, mcts, mcts(c=1.4,rollout_cutoff=20), smmcts, alphabeta, turns, level1..level5, "
    "level6 (only where its stored SPRT accepted it); "
    "openspiel-mcts (OpenSpiel's MCTS, needs tessera[openspiel])."
)


def register(subparsers: Any) -> None:
    """Add ``match``, ``tournament`` and ``balance`` to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "match",
        help="play a match between agents and report win/draw/loss with 95%% confidence intervals",
        description=(
            "Play GAMES games of GAME between AGENT_A and AGENT_B with seats alternated "
            "(A is player 0 in even-numbered games); in a game of more than two players, list one agent per seat "
            "(seats rotated). " + AGENTS_HELP
        ),
    )
    p.add_argument("game", metavar="GAME", help="game string, e.g. nume or 'ikabegama(distance=4)'")
    p.add_argument("agent_a", metavar="AGENT_A", help="agent spec, e.g. mcts or level5")
    p.add_argument("agent_b", metavar="AGENT_B", help="agent spec, e.g. random")
    p.add_argument(
        "more_agents",
        metavar="AGENT",
        nargs="*",
        help="games of more than two players: the agents of the further seats (one agent per seat, seats rotated)",
    )
    _run_options(p, games_help="number of games (default 10; with --sprt the cap, default 2000)")
    p.set_defaults(games=None)
    p.add_argument("--moves", action="store_true", help="with --json: include every game's moves in its record")
    p.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        default=None,
        help="play pairs of games until a GSPRT (pentanomial, as fishtest) accepts H0 elo=ELO0 or H1 elo=ELO1 "
        "for A against B; prints the LLR as it goes and the Elo with its 95%% interval",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="--sprt: the false-H1 rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="--sprt: the false-H0 rate (default 0.05)")
    p.set_defaults(func=run)

    p = subparsers.add_parser(
        "tournament",
        help="round robin (or gauntlet) between agents: W/D/L with 95%% intervals and Bradley-Terry ratings",
        description=(
            "Every table of agents plays GAMES games with seats rotated (alternated in two-player games); "
            "prints ratings with 95% intervals and per-pair W/D/L. " + AGENTS_HELP
        ),
    )
    p.add_argument("game", metavar="GAME", help="game string, e.g. nume or 'nume(size=4)'")
    p.add_argument("agents", metavar="AGENT", nargs="+", help="agent specs, e.g. random greedy 'mcts(c=0.7)'")
    p.add_argument("--gauntlet", metavar="AGENT", default=None, help="only games of AGENT against the rest")
    _run_options(p)
    p.set_defaults(func=run_tournament_cmd)

    p = subparsers.add_parser(
        "balance",
        help="self-play balance figures per parameter setting; --find searches a fair parameter value",
        description=(
            "Self-play of one agent in every seat, for each combination of the --vary values: seat win rates "
            "with 95% intervals, draws, length, Ludii-style metrics and how early the result is decided."
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
    p.add_argument("--agent", default=None, metavar="SPEC", help="one agent spec playing every seat")
    p.add_argument(
        "--agents",
        default=None,
        metavar="A,B,C",
        help="ask the question at several strengths (each agent plays itself): the verdict per strength, "
        "whether they agree, and a short ladder of the agents; default (no --agent): "
        "level3(scale=0.1),level4(scale=0.1),level5(scale=0.1)",
    )
    p.add_argument(
        "--ladder-games", type=int, default=4, help="--agents: games per pair of agents in the ladder (default 4)"
    )
    p.add_argument(
        "--sprt-elo",
        type=float,
        default=None,
        metavar="DELTA",
        help="--agents with --vary: stop each agent's games as soon as two one-sided SPRTs decide every setting "
        "(seat 0 favoured, disfavoured, or even within ±DELTA Elo); --games is then the cap",
    )
    p.add_argument(
        "--find",
        metavar="PARAM=LO:HI",
        default=None,
        help="search the value of a numeric PARAM in LO..HI at which seat 0 scores 1/2",
    )
    p.add_argument("--rounds", type=_positive_int, default=3, help="--find: rounds of the search (default 3)")
    p.add_argument("--points", type=_positive_int, default=5, help="--find: values in the first round (default 5)")
    _run_options(p)
    p.set_defaults(func=run_balance_cmd)


def _run_options(p: argparse.ArgumentParser, games_help: str = "games per table / setting (default 10)") -> None:
    """The options of every run (the same for every command)."""
    p.add_argument("--games", "-n", type=_positive_int, default=10, help=games_help)
    p.add_argument("--seconds", "-s", type=_non_negative_float, default=None, help="time per move (seconds)")
    p.add_argument("--iterations", "-i", type=_positive_int, default=None, help="iterations per move (reproducible)")
    p.add_argument("--seed", type=int, default=0, help="base seed of deals and agents (default 0)")
    p.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="count time budgets in wall time (default) or in the searching thread's CPU time "
        "(fair timed games on a busy machine; games take longer)",
    )
    p.add_argument("--jobs", "-j", type=_positive_int, default=1, help="games played in parallel (local processes)")
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="play on Ray: a cluster address, 'auto' (the running cluster) or 'local' (start one here)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="keep every game in DIR/results.jsonl (the same command again continues the run), the summary and plots",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _non_negative_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0, got {text!r}")
    return v


# -- tables -----------------------------------------------------------------------------------


def format_table(res: MatchResult) -> str:
    """The plain-text win/draw/loss table of a two-player match."""
    lo, hi = res.score_ci
    wlo, whi = res.win_ci
    lines = [
        f"{res.game}: {res.agent_a} (A) vs {res.agent_b} (B), {res.games} games, "
        f"{budget_text(res.seconds, res.iterations, res.clock)}, seed {res.seed}",
        "",
        f"{'':14}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>8}",
    ]
    for seat, row in enumerate(res.by_seat()):
        lines.append(f"{f'A as player {seat}':14}{row['games']:>7}{row['wins']:>7}{row['draws']:>7}{row['losses']:>8}")
    lines.append(f"{'total':14}{res.games:>7}{res.wins:>7}{res.draws:>7}{res.losses:>8}")
    lines.append("")
    lines.append(f"A win rate {100 * res.win_rate:.1f}%  (95% CI {100 * wlo:.1f}–{100 * whi:.1f}%, Wilson)")
    lines.append(f"A score    {100 * res.score:.1f}%  (95% CI {100 * lo:.1f}–{100 * hi:.1f}%, Wilson; draw = ½)")
    lines.extend(_forfeits(res))
    return "\n".join(lines)


def format_seats_table(res: SeatsResult) -> str:
    """The plain-text table of a seat-rotated match: each agent's results in total and per seat."""
    n = len(res.agents)
    w = max(24, *(len(a) + 5 for a in res.agents))
    lines = [
        f"{res.game}: {' / '.join(res.agents)} ({n} seats, rotated), {res.games} games, "
        f"{budget_text(res.seconds, res.iterations, res.clock)}, seed {res.seed}",
        "",
        f"{'agent':{w}}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>8}  win rate (95% CI)   W/D/L by seat",
    ]
    for k, name in enumerate(res.agents):
        c = res.counts(k)
        lo, hi = res.win_ci(k)
        rate = c["wins"] / res.games if res.games else 0.0
        seats = "  ".join(f"{s}: {r['wins']}/{r['draws']}/{r['losses']}" for s, r in enumerate(res.by_seat(k)))
        label = f"{k + 1}. {name}"
        lines.append(
            f"{label:{w}}{c['games']:>7}{c['wins']:>7}{c['draws']:>7}{c['losses']:>8}  "
            f"{100 * rate:5.1f}% ({100 * lo:.0f}–{100 * hi:.0f}%)   {seats}"
        )
    lines.extend(_forfeits(res))
    return "\n".join(lines)


def _forfeits(res: RotatedResult) -> list[str]:
    return [f"forfeit in game {int(r.key) + 1}: {r.error}" for r in res.records if r.error]


# -- the commands -----------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Run the ``match`` command; the exit code is 0, or 2 on bad input."""
    agents = [args.agent_a, args.agent_b, *(getattr(args, "more_agents", None) or [])]
    if getattr(args, "sprt", None):
        return _command("match", args, lambda: _play_sprt(args, agents))
    if args.games is None:
        args.games = 10

    def play() -> tuple[RotatedResult, str]:
        label = f"{args.game}: {' vs '.join(agents)}"
        display = match_progress(agents, args.games, label, enabled=not args.no_progress)
        common = {**_options(args), "keep_moves": bool(args.json and args.moves), "progress": display}
        if load_game(args.game).num_players == 2 and len(agents) == 2:
            res = play_match(args.game, agents[0], agents[1], **common)
            return res, format_table(res)
        seats = play_seats(args.game, agents, **common)
        return seats, format_seats_table(seats)

    return _command("match", args, play)


def _play_sprt(args: argparse.Namespace, agents: list[str]) -> tuple[Any, str]:
    """``tessera match GAME A B --sprt ELO0,ELO1``: the LLR after every batch on stderr, the verdict at the end."""
    from tessera.arena.sprt import SPRT, parse_sprt, run_sprt

    if len(agents) != 2:
        raise ValueError("--sprt compares two agents: list exactly AGENT_A and AGENT_B")
    elo0, elo1 = parse_sprt(args.sprt)
    test = SPRT(elo0, elo1, alpha=args.alpha, beta=args.beta)
    options = _options(args)
    options["max_games"] = options.pop("games") or 2000
    report = None if args.no_progress else (lambda line: print(line, file=sys.stderr, flush=True))
    res = run_sprt(args.game, agents[0], agents[1], test, report=report, **options)
    return res, res.summary()


def run_tournament_cmd(args: argparse.Namespace) -> int:
    """Run ``tessera tournament``; exit code 2 on bad input (before any game is played)."""

    def play() -> tuple[Any, str]:
        from tessera.arena.tournament import format_tournament, run_tournament

        res = run_tournament(
            args.game, args.agents, gauntlet=args.gauntlet, progress=not args.no_progress, **_options(args)
        )
        return res, format_tournament(res)

    return _command("tournament", args, play)


def run_balance_cmd(args: argparse.Namespace) -> int:
    """Run ``tessera balance``; exit code 2 on bad input (before any game is played)."""

    def play() -> tuple[Any, str]:
        from tessera.arena.balance import format_balance, run_balance
        from tessera.arena.fair import find_fair

        common = {**_options(args), "progress": not args.no_progress}
        if args.agent is not None and args.agents is not None:
            raise ValueError("--agent and --agents cannot be combined")
        if args.agent is not None and args.sprt_elo is not None:
            raise ValueError("--sprt-elo compares strengths: use it with --agents")
        if args.agent is None:
            from tessera.arena.robust import DEFAULT_AGENTS, format_robust, run_robust, split_agents

            agents = split_agents(args.agents) if args.agents else list(DEFAULT_AGENTS)
            find = None
            if args.find:
                if args.vary:
                    raise ValueError("--find and --vary cannot be combined (put fixed parameters in the game string)")
                find = parse_find(args.find)
            robust = run_robust(
                args.game,
                agents,
                vary=args.vary,
                find=find,
                rounds=args.rounds,
                points=args.points,
                ladder_games=args.ladder_games,
                sprt_elo=args.sprt_elo,
                **common,
            )
            return robust, format_robust(robust)
        if args.find:
            if args.vary:
                raise ValueError("--find and --vary cannot be combined (put fixed parameters in the game string)")
            param, lo, hi = parse_find(args.find)
            res = find_fair(args.game, args.agent, param, lo, hi, rounds=args.rounds, points=args.points, **common)
        else:
            res = run_balance(args.game, args.agent, vary=args.vary, **common)
        return res, format_balance(res)

    return _command("balance", args, play)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The run options of the command line, as every run function takes them."""
    return {
        "games": args.games,
        "seconds": args.seconds,
        "iterations": args.iterations,
        "seed": args.seed,
        "jobs": args.jobs,
        "ray_address": args.ray,
        "out": args.out,
        "clock": args.clock,
    }


def parse_find(text: str) -> tuple[str, float, float]:
    """``--find PARAM=LO:HI``.

    >>> parse_find("komi=0:6.5")
    ('komi', 0.0, 6.5)
    >>> parse_find("komi=0")
    Traceback (most recent call last):
    ValueError: --find 'komi=0': expected PARAM=LO:HI, e.g. komi=0:6
    """
    param, eq, rng = text.partition("=")
    lo_s, colon, hi_s = rng.partition(":")
    try:
        lo, hi = float(lo_s), float(hi_s)
    except ValueError:
        lo = hi = math.nan
    if not eq or not colon or not param.strip() or not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"--find {text!r}: expected PARAM=LO:HI, e.g. komi=0:6")
    return param.strip().lower(), lo, hi


def _command(name: str, args: argparse.Namespace, play: Callable[[], tuple[Any, str]]) -> int:
    """Run a command's games, then print (and with ``--out`` write) what it found; bad input is exit code 2."""
    try:
        res, text = play()
    except ValueError as e:
        print(f"tessera {name}: error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        print(f"tessera {name}: needs the Python package {e.name!r}: pip install 'tessera[lab]'", file=sys.stderr)
        return 2
    if args.out:
        text += "\n\nwritten: " + ", ".join(str(p) for p in _write(name, res, args.out))
    # a match's JSON lists its games; an SPRT's, a tournament's or a balance run's is the summary
    if args.json:
        print(json.dumps(json_safe(res.to_dict()), indent=2))
    else:
        print(text)
    return 0


def _write(name: str, res: Any, out: str) -> list[Path]:
    """``OUT/summary.json`` (with ``sessions``: which code played the games, :func:`read_sessions`) and the
    plots (tournaments and balance runs) beside the results file."""
    d = res.to_dict(with_games=False) if isinstance(res, RotatedResult) else res.to_dict()  # an SPRT: its summary
    d["sessions"] = read_sessions(out)  # which code played the games
    path = Path(out) / "summary.json"
    path.write_text(json.dumps(json_safe(d), indent=1), encoding="utf-8")
    if name == "match":
        return [path]
    examples = _write_examples(res, Path(out) / "examples")
    if d.get("kind") == "robust":
        plots = robust_plots(d)
    else:
        plots = tournament_plots(d) if name == "tournament" else balance_plots(d)
    return [path, *write_plots(plots, out), *examples]


def _write_examples(res: Any, folder: Path) -> list[Path]:
    """A balance run's, a robust run's or a tournament's example games (its ``example_records()``) as text
    records in ``folder`` (import them in the analysis board)."""
    written = []
    for name, text in res.example_records():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


NEGATIVE_VALUED = ("--sprt",)
"""Options whose value may start with a minus sign (``--sprt -50,50``): argparse would read it as an option."""


def joined_negative_values(argv: list[str]) -> list[str]:
    """``--sprt -50,50`` as ``--sprt=-50,50``, so that a lower Elo bound below zero reads as a value."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in NEGATIVE_VALUED and i + 1 < len(argv) and re.match(r"-[0-9.]", argv[i + 1]):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tessera.arena match|tournament|balance ...``: the commands without the rest of the CLI."""
    parser = argparse.ArgumentParser(prog="python -m tessera.arena")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(joined_negative_values(sys.argv[1:] if argv is None else list(argv)))
    return int(args.func(args))


__all__ = [
    "format_seats_table",
    "format_table",
    "main",
    "parse_find",
    "register",
    "run",
    "run_balance_cmd",
    "run_tournament_cmd",
]
