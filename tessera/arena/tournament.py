"""Tournaments: round robin (or a gauntlet), seats rotated, per-pair W/D/L with 95 % intervals, ratings.

For a game of ``n`` players every table is a set of ``n`` distinct agents (every pair for
two-player games; with ``gauntlet=G``, ``G`` and ``n − 1`` of the others).  A table plays
``games`` games; game ``k`` seats the table rotated by ``k mod n`` (so in two-player
games the agents alternate seats) and deals with seed ``seed + k // n``, so each rotation
of the table sees the same deal.

Each game is scored pairwise between the agents of the table: the one with the higher
return scores 1, equal returns ½.  Ratings are the Bradley–Terry fit of
:func:`tessera.arena.stats.bradley_terry` over every pairwise result (in games of more than
two players each of a game's pairs has weight ``1/(n−1)``, so a game counts about as
much as a two-player one), with a first-seat advantage term for two-player games.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tessera.arena.metrics import example_games, example_record_files
from tessera.arena.play import GameResult, Task, make
from tessera.arena.progress import ProgressDisplay
from tessera.arena.runner import ResultsFile, Run, budget_text, check_options, speed
from tessera.arena.stats import Pairing, Ratings, bradley_terry, wilson_interval
from tessera.core.registry import load_game


def schedule(
    game: str,
    agents: Sequence[str],
    *,
    games: int,
    seconds: float | None,
    iterations: int | None,
    seed: int,
    gauntlet: str | None = None,
    clock: str = "wall",
) -> list[Task]:
    """The tasks of a tournament (validated: unknown agents or games fail here, before any game).

    >>> tasks = schedule("nume", ["random", "greedy", "mcts"], games=2, seconds=None, iterations=9, seed=4)
    >>> [(t.key, t.seats, t.deal_seed) for t in tasks]  # doctest: +NORMALIZE_WHITESPACE
    [('0/0', ('random', 'greedy'), 4), ('0/1', ('greedy', 'random'), 4),
     ('1/0', ('random', 'mcts'), 4), ('1/1', ('mcts', 'random'), 4),
     ('2/0', ('greedy', 'mcts'), 4), ('2/1', ('mcts', 'greedy'), 4)]
    >>> schedule("nume", ["random", "random"], games=1, seconds=None, iterations=None, seed=0)
    Traceback (most recent call last):
    ValueError: an agent is listed twice: ['random', 'random']
    """
    g = load_game(game)
    n = g.num_players
    agents = list(agents)
    if gauntlet is not None and gauntlet not in agents:
        agents = [gauntlet, *agents]
    if len(set(agents)) != len(agents):
        raise ValueError(f"an agent is listed twice: {agents}")
    for a in agents:
        make(a)  # a clear error for an unknown agent or option
    if len(agents) < n:
        raise ValueError(f"{g.name} has {n} players: a tournament needs at least {n} agents, got {len(agents)}")
    check_options(games=games, clock=clock)
    if gauntlet is not None:
        others = [a for a in agents if a != gauntlet]
        if len(others) < n - 1:
            raise ValueError(f"a gauntlet in {g.name} needs at least {n - 1} other agents")
        tables = [(gauntlet, *rest) for rest in itertools.combinations(others, n - 1)]
    else:
        tables = list(itertools.combinations(agents, n))
    tasks = []
    for ti, table in enumerate(tables):
        for k in range(games):
            r = k % n
            seats = tuple(table[r:] + table[:r])
            tasks.append(
                Task(
                    key=f"{ti}/{k}",
                    game=game,
                    seats=seats,
                    seconds=seconds,
                    iterations=iterations,
                    deal_seed=seed + k // n,
                    agent_seed=f"{seed}/{ti}/{k}",
                    group=" vs ".join(table),
                    clock=clock,
                    moves=True,  # the examples of each table (shortest, longest, capped, typical per outcome)
                )
            )
    return tasks


@dataclass
class PairStats:
    """Results of agent ``a`` against agent ``b`` (from ``a``'s side)."""

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games in which both played."""
        return self.wins + self.draws + self.losses

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form with the 95 % Wilson intervals of the win rate and the score."""
        n = self.games
        return {
            "a": self.a,
            "b": self.b,
            "games": n,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.wins / n if n else None,
            "win_ci95": list(wilson_interval(self.wins, n)),
            "draw_rate": self.draws / n if n else None,
            "loss_rate": self.losses / n if n else None,
            "loss_ci95": list(wilson_interval(self.losses, n)),
            "score": (self.wins + 0.5 * self.draws) / n if n else None,
            "score_ci95": list(wilson_interval(self.wins + 0.5 * self.draws, n)),
        }


def pairings(results: Sequence[GameResult]) -> list[Pairing]:
    """Every game as pairwise results between the agents at its table (see the module docstring).

    A three-player game that seat 2 won: it beat both others, who drew, each pair weighing ½.

    >>> r = GameResult("0/0", "", "g", ["a", "b", "c"], [-0.5, -0.5, 1.0], 30, 1.0, 0)
    >>> [(p.first, p.second, p.score, p.weight) for p in pairings([r])]
    [('a', 'b', 0.5, 0.5), ('a', 'c', 0.0, 0.5), ('b', 'c', 0.0, 0.5)]
    """
    out = []
    for r in results:
        n = len(r.seats)
        w = 1.0 / (n - 1)
        for p, q in itertools.combinations(range(n), 2):
            rp, rq = r.returns[p], r.returns[q]
            score = 1.0 if rp > rq else 0.0 if rp < rq else 0.5
            out.append(Pairing(r.seats[p], r.seats[q], score, first_seat=0 if p == 0 else 1, weight=w))
    return out


def summarize(
    agents: Sequence[str], results: Sequence[GameResult], *, num_players: int
) -> tuple[list[PairStats], Ratings | None]:
    """Per-pair W/D/L (both directions) and the ratings fitted over all games."""
    pairs: dict[tuple[str, str], PairStats] = {}
    for a, b in itertools.permutations(agents, 2):
        pairs[(a, b)] = PairStats(a, b)
    for pr in pairings(results):
        ab, ba = pairs[(pr.first, pr.second)], pairs[(pr.second, pr.first)]
        if pr.score == 1.0:
            ab.wins += 1
            ba.losses += 1
        elif pr.score == 0.0:
            ab.losses += 1
            ba.wins += 1
        else:
            ab.draws += 1
            ba.draws += 1
    played = [p for p in pairs.values() if p.games]
    ratings = None
    if results:
        # Seat advantage only where "seat 0 vs the rest" is one parameter: two-player games.
        ratings = bradley_terry(agents, pairings(results), seat_advantage=num_players == 2)
    return played, ratings


@dataclass
class TournamentResult:
    """Everything a tournament produced."""

    game: str
    agents: list[str]
    gauntlet: str | None
    games_per_table: int
    seconds: float | None
    iterations: int | None
    seed: int
    results: list[GameResult]
    pairs: list[PairStats]
    ratings: Ratings | None
    wall_seconds: float = 0.0
    played_now: int = 0
    clock: str = "wall"

    def to_dict(self, *, with_games: bool = False) -> dict[str, Any]:
        """JSON-able summary."""
        forfeits = [{"key": r.key, "error": r.error} for r in self.results if r.error]
        d: dict[str, Any] = {
            "kind": "tournament",
            "game": self.game,
            "agents": self.agents,
            "gauntlet": self.gauntlet,
            "games_per_table": self.games_per_table,
            "seconds": self.seconds,
            "iterations": self.iterations,
            "clock": self.clock,
            "seed": self.seed,
            "games": len(self.results),
            "pairs": [p.to_dict() for p in self.pairs],
            "ratings": None if self.ratings is None else self.ratings.to_dict(),
            "mean_plies": sum(r.plies for r in self.results) / len(self.results) if self.results else None,
            "forfeits": forfeits,
        }
        d.update(speed(self.results, self.played_now, self.wall_seconds))
        d["examples"] = [
            {"table": table, "kind": kind, "key": r.key, "plies": r.plies, "winner": r.winner, "seats": r.seats}
            for table, picks in self.examples()
            for kind, r in picks
        ]
        if with_games:
            d["records"] = [r.__dict__ for r in self.results]
        return d

    def examples(self) -> list[tuple[str, list[tuple[str, GameResult]]]]:
        """Each table's example games, in the order the tables were played: ``(table, [(kind, result)])``
        (:func:`tessera.arena.metrics.example_games`; only games that kept their moves)."""
        tables: dict[str, list[GameResult]] = {}
        for r in self.results:
            tables.setdefault(r.group, []).append(r)
        return [(t, picks) for t, rs in tables.items() if (picks := example_games(rs, by_agent=True))]

    def example_records(self) -> list[tuple[str, str]]:
        """Every table's example games as ``(file name, text record)`` (docs/records.md), openable in the
        analysis board; the file names begin with the table (``greedy-vs-mcts-shortest-0_3.txt``)."""
        return [rec for table, picks in self.examples() for rec in example_record_files(self.game, picks, table)]


def run_tournament(
    game: str,
    agents: Sequence[str],
    *,
    games: int,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    gauntlet: str | None = None,
    jobs: int = 1,
    ray_address: str | None = None,
    out: str | None = None,
    progress: bool = False,
    clock: str = "wall",
) -> TournamentResult:
    """Play (or continue, with the same ``out``) a tournament and summarize it.

    ``clock="cpu"`` counts time budgets in the searching thread's CPU time (fair timed games
    on a busy machine; see :func:`tessera.agents.set_clock`)."""
    check_options(jobs=jobs, clock=clock)
    tasks = schedule(
        game, agents, games=games, seconds=seconds, iterations=iterations, seed=seed, gauntlet=gauntlet, clock=clock
    )
    all_agents = list(agents) if gauntlet is None or gauntlet in agents else [gauntlet, *agents]
    config = {
        "kind": "tournament",
        "game": game,
        "agents": all_agents,
        "gauntlet": gauntlet,
        "seconds": seconds,
        "iterations": iterations,
        "seed": seed,
    }
    if clock != "wall":  # (results files written before clocks existed stay resumable)
        config["clock"] = clock
    store = ResultsFile(out, config)
    display = ProgressDisplay(len(tasks), f"{game}: tournament", enabled=progress)
    run = Run(tasks, store, jobs=jobs, ray_address=ray_address, progress=display)
    results = run.results
    n = load_game(game).num_players
    pairs, ratings = summarize(all_agents, results, num_players=n)
    return TournamentResult(
        game=game,
        agents=all_agents,
        gauntlet=gauntlet,
        games_per_table=games,
        seconds=seconds,
        iterations=iterations,
        seed=seed,
        results=results,
        pairs=pairs,
        ratings=ratings,
        wall_seconds=run.wall_seconds,
        played_now=run.played_now,
        clock=clock,
    )


def format_tournament(res: TournamentResult) -> str:
    """The plain-text tables: ratings, then W/D/L of every pair."""
    lines = [
        f"{res.game}: {'gauntlet of ' + res.gauntlet if res.gauntlet else 'round robin'}, "
        f"{len(res.results)} games ({res.games_per_table} per table), "
        f"{budget_text(res.seconds, res.iterations, res.clock)}, "
        f"seed {res.seed}",
        "",
    ]
    w = max(8, *(len(a) for a in res.agents))
    if res.ratings is not None:
        lines.append(f"{'agent':<{w}}  {'Elo':>7}  {'95% CI':>17}")
        order = sorted(range(len(res.ratings.names)), key=lambda i: -res.ratings.elo[i])  # type: ignore[union-attr]
        for i in order:
            lo, hi = res.ratings.ci95[i]
            lines.append(f"{res.ratings.names[i]:<{w}}  {res.ratings.elo[i]:>7.0f}  {lo:>7.0f} … {hi:<7.0f}")
        if res.ratings.seat_advantage is not None and res.ratings.seat_advantage_ci95 is not None:
            lo, hi = res.ratings.seat_advantage_ci95
            lines.append(f"{'first seat':<{w}}  {res.ratings.seat_advantage:>+7.0f}  {lo:>7.0f} … {hi:<7.0f}")
        lines.append(
            "(Bradley–Terry maximum likelihood, Elo scale, mean 0; 95% intervals from the observed information)"
        )
        lines.append("")
    lines.append(f"{'A':<{w}}  {'B':<{w}}  {'games':>5}  {'W':>4}  {'D':>4}  {'L':>4}  {'A win rate (95% CI)':>24}")
    for p in res.pairs:
        if p.a > p.b and res.gauntlet is None:
            continue
        if res.gauntlet is not None and p.a != res.gauntlet:
            continue
        d = p.to_dict()
        lo, hi = d["win_ci95"]
        lines.append(
            f"{p.a:<{w}}  {p.b:<{w}}  {p.games:>5}  {p.wins:>4}  {p.draws:>4}  {p.losses:>4}  "
            f"{100 * d['win_rate']:>6.1f}% ({100 * lo:4.1f}–{100 * hi:4.1f}%)"
        )
    for r in res.results:
        if r.error:
            lines.append(f"forfeit in game {r.key}: {r.error}")
    return "\n".join(lines)


__all__ = ["PairStats", "TournamentResult", "format_tournament", "pairings", "run_tournament", "schedule", "summarize"]
