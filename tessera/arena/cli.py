"""The ``tessera match`` command.

``tessera match GAME AGENT_A AGENT_B --games N --seconds S [--iterations I] [--json] [--seed K] [--jobs J]``
``[--clock cpu]``

For a game of more than two players list one agent per seat
(``tessera match 'nymbat(players=4)' level3 level2 level2 level2``): seats
rotate from game to game, and the table gives each agent's wins, draws and
losses in total and per seat.

Plays a match (seats alternated), shows a progress bar on stderr (rich or tqdm
when installed, plain text otherwise), then prints a win/draw/loss table with
95 % confidence intervals — or, with ``--json``, the result as JSON on stdout.
The lead's ``tessera/cli.py`` calls :func:`register`; ``python -m tessera.arena``
runs the same command on its own.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from tessera.arena.match import GameRecord, MatchResult, SeatsRecord, SeatsResult, play_match, play_seats
from tessera.core.registry import load_game


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``match`` command to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "match",
        help="play a match between two agents and report win/draw/loss with 95%% confidence intervals",
        description=(
            "Play GAMES games of GAME between AGENT_A and AGENT_B with seats alternated "
            "(A is player 0 in even-numbered games). Agents: random, greedy, mcts, mcts(c=1.4,rollout_cutoff=20), "
            "smmcts, alphabeta, turns, level1..level5; openspiel-mcts (OpenSpiel's MCTS, needs tessera[openspiel])."
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
    p.add_argument("--games", "-n", type=_positive_int, default=10, help="number of games (default 10)")
    p.add_argument("--seconds", "-s", type=_non_negative_float, default=None, help="time per move (seconds)")
    p.add_argument("--iterations", "-i", type=_positive_int, default=None, help="iterations per move")
    p.add_argument("--seed", type=int, default=0, help="base seed of deals and agents (default 0)")
    p.add_argument("--jobs", "-j", type=_positive_int, default=1, help="games played in parallel (processes)")
    p.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="count time budgets in wall time (default) or in the searching thread's CPU time "
        "(fair timed matches on a busy machine; games take longer)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    p.add_argument("--moves", action="store_true", help="with --json: include every game's moves in its record")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
    return p


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


class _Progress:
    """A progress display on stderr: rich, else tqdm, else plain lines (always plain when stderr is not a terminal)."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled
        self._close: Callable[[], None] = lambda: None
        self._update: Callable[[GameRecord, int], None] = self._plain
        self.score = 0.0
        if not enabled:
            self._update = lambda rec, done: None
            return
        if not sys.stderr.isatty():
            return  # a log file: plain lines
        try:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            prog = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[status]}"),
                TimeRemainingColumn(),
                transient=False,
                console=_stderr_console(),
            )
            prog.start()
            task = prog.add_task(label, total=total, status="")
            self._close = prog.stop

            def upd(rec: GameRecord, done: int) -> None:
                prog.update(task, completed=done, status=f"A score {self.score:.1f}/{done}")

            self._update = upd
            return
        except ImportError:
            pass
        try:
            from tqdm import tqdm  # type: ignore[import-untyped]

            bar = tqdm(total=total, desc=label, file=sys.stderr)
            self._close = bar.close

            def upd_tqdm(rec: GameRecord, done: int) -> None:
                bar.set_postfix_str(f"A score {self.score:.1f}/{done}")
                bar.update(1)

            self._update = upd_tqdm
        except ImportError:
            pass

    def _plain(self, rec: GameRecord, done: int) -> None:
        result = {1.0: "A wins", 0.5: "draw", 0.0: "B wins"}[rec.score_a]
        print(
            f"[{done}/{self.total}] game {rec.index + 1}: {result} (A as player {rec.seat_a}, {rec.plies} plies, "
            f"{rec.seconds:.1f} s); A score {self.score:.1f}",
            file=sys.stderr,
            flush=True,
        )

    def __call__(self, rec: GameRecord, done: int, total: int) -> None:
        self.score += rec.score_a
        self._update(rec, done)

    def close(self) -> None:
        self._close()


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def format_table(res: MatchResult) -> str:
    """The plain-text win/draw/loss table of a match."""
    lo, hi = res.score_ci
    wlo, whi = res.win_ci
    budget = []
    if res.seconds is not None:
        budget.append(f"{res.seconds:g} s/move")
    if res.clock != "wall":
        budget.append(f"time counted on the {res.clock} clock")
    if res.iterations is not None:
        budget.append(f"{res.iterations} iterations/move")
    lines = [
        f"{res.game}: {res.agent_a} (A) vs {res.agent_b} (B), {res.games} games, "
        f"{', '.join(budget) or 'default budgets'}, seed {res.seed}",
        "",
        f"{'':14}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>8}",
    ]
    seats = res.by_seat()
    for seat, row in enumerate(seats):
        lines.append(f"{f'A as player {seat}':14}{row['games']:>7}{row['wins']:>7}{row['draws']:>7}{row['losses']:>8}")
    lines.append(f"{'total':14}{res.games:>7}{res.wins:>7}{res.draws:>7}{res.losses:>8}")
    lines.append("")
    lines.append(f"A win rate {100 * res.win_rate:.1f}%  (95% CI {100 * wlo:.1f}–{100 * whi:.1f}%, Wilson)")
    lines.append(f"A score    {100 * res.score:.1f}%  (95% CI {100 * lo:.1f}–{100 * hi:.1f}%, Wilson; draw = ½)")
    forfeits = [r for r in res.records if r.error]
    for r in forfeits:
        lines.append(f"forfeit in game {r.index + 1}: {r.error}")
    return "\n".join(lines)


def format_seats_table(res: SeatsResult) -> str:
    """The plain-text table of a seat-rotated match: each agent's results in total and per seat."""
    budget = []
    if res.seconds is not None:
        budget.append(f"{res.seconds:g} s/move")
    if res.clock != "wall":
        budget.append(f"time counted on the {res.clock} clock")
    if res.iterations is not None:
        budget.append(f"{res.iterations} iterations/move")
    n = len(res.agents)
    w = max(24, *(len(a) + 5 for a in res.agents))
    lines = [
        f"{res.game}: {' / '.join(res.agents)} ({n} seats, rotated), {res.games} games, "
        f"{', '.join(budget) or 'default budgets'}, seed {res.seed}",
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
    for r in res.records:
        if r.error:
            lines.append(f"forfeit in game {r.index + 1}: {r.error}")
    return "\n".join(lines)


def _run_seats(args: argparse.Namespace, agents: list[str]) -> int:
    def progress(rec: SeatsRecord, done: int, total: int) -> None:
        if args.no_progress:
            return
        winners = [agents[k] for k, sc in enumerate(rec.scores) if sc == 1.0]
        what = f"agent {rec.scores.index(1.0) + 1} ({winners[0]}) wins" if winners else "draw"
        print(
            f"[{done}/{total}] game {rec.index + 1}: {what} ({rec.plies} plies, {rec.seconds:.1f} s)", file=sys.stderr
        )

    try:
        res = play_seats(
            args.game,
            agents,
            games=args.games,
            seconds=args.seconds,
            iterations=args.iterations,
            seed=args.seed,
            jobs=args.jobs,
            keep_moves=bool(args.json and args.moves),
            progress=progress,
            clock=args.clock,
        )
    except ValueError as e:
        print(f"tessera match: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res.to_dict(), indent=2))
    else:
        print(format_seats_table(res))
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the ``match`` command; the exit code is 0, or 2 on bad input."""
    more = list(getattr(args, "more_agents", None) or [])
    try:
        players = load_game(args.game).num_players
    except ValueError as e:
        print(f"tessera match: error: {e}", file=sys.stderr)
        return 2
    if players != 2 or more:
        return _run_seats(args, [args.agent_a, args.agent_b, *more])
    label = f"{args.game}: {args.agent_a} vs {args.agent_b}"
    try:
        progress = _Progress(args.games, label, enabled=not args.no_progress)
        try:
            res = play_match(
                args.game,
                args.agent_a,
                args.agent_b,
                games=args.games,
                seconds=args.seconds,
                iterations=args.iterations,
                seed=args.seed,
                jobs=args.jobs,
                keep_moves=bool(args.json and args.moves),
                progress=progress,
                clock=args.clock,
            )
        finally:
            progress.close()
    except ValueError as e:
        print(f"tessera match: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res.to_dict(), indent=2))
    else:
        print(format_table(res))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tessera.arena match ...``: the command without the rest of the CLI."""
    parser = argparse.ArgumentParser(prog="python -m tessera.arena")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    return int(args.func(args))


__all__ = ["format_seats_table", "format_table", "main", "register", "run"]
