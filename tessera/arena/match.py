"""Matches: agents listed one per seat, seats rotated — two agents with seats alternated, or any number.

In game ``i`` of a match the ``k``-th listed agent plays seat ``(k + i) % n``, with the
deal seed ``seed + i // n`` (so every rotation of a dealt game, Nibble, sees the same
deal) and each seat's generator seeded from ``seed``, ``i`` and the seat, so a match with
``iterations`` budgets is reproducible.  In a two-player match (:func:`play_match`) agent
A is player 0 in even games.  An agent that returns an illegal move (or raises) forfeits
that game (:mod:`tessera.arena.play`); the record says why.  The games are
:class:`~tessera.arena.play.Task` played by the one runner (:mod:`tessera.arena.runner`):
``jobs`` processes or Ray, and with ``out`` a results file that a second call continues.

>>> res = play_match("ikabegama(distance=2)", "greedy", "random", games=4, seed=1)
>>> res.wins + res.draws + res.losses, [seat_of(0, r) for r in res.records]
(4, [0, 1, 0, 1])
>>> lo, hi = res.score_ci
>>> lo <= res.score <= hi
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, Unpack

from tessera.agents.spec import check_offered
from tessera.arena.play import AgentSpec, GameResult, Task, agent_name, make
from tessera.arena.progress import ProgressDisplay
from tessera.arena.runner import Progress, ResultsFile, Run, check_options
from tessera.arena.stats import Z95, wilson_interval
from tessera.core.registry import load_game


def seat_of(agent: int, record: GameResult) -> int:
    """The seat the ``agent``-th listed agent played in a match's game (seats rotate: ``(agent + i) % n``)."""
    return (agent + int(record.key)) % len(record.seats)


def match_tasks(
    game: str,
    agents: Sequence[AgentSpec],
    *,
    games: int,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    clock: str = "wall",
    moves: bool = False,
) -> list[Task]:
    """The games of a match: game ``i`` seats the listed agents rotated by ``i`` (see the module docstring).

    >>> [t.seats for t in match_tasks("nume", ["a", "b"], games=3)]
    [('a', 'b'), ('b', 'a'), ('a', 'b')]
    >>> [t.deal_seed for t in match_tasks("nume", ["a", "b"], games=4, seed=7)]
    [7, 7, 8, 8]
    """
    n = len(agents)
    tasks = []
    for i in range(games):
        by_seat: list[AgentSpec] = [agents[0]] * n
        for k, a in enumerate(agents):
            by_seat[(k + i) % n] = a
        tasks.append(
            Task(
                key=str(i),
                game=game,
                seats=tuple(by_seat),
                seconds=seconds,
                iterations=iterations,
                deal_seed=seed + i // n,
                agent_seed=f"{seed}/{i}",
                clock=clock,
                moves=moves,
            )
        )
    return tasks


@dataclass
class RotatedResult:
    """The games of a seat-rotated match and their counts per listed agent and per seat."""

    game: str
    agents: list[str]
    seconds: float | None
    iterations: int | None
    seed: int
    records: list[GameResult]
    """Every game, by seat (:func:`seat_of` says where each listed agent sat)."""
    clock: str = "wall"
    """How the agents' time budgets were counted: ``wall`` or ``cpu`` (see :func:`tessera.agents.set_clock`)."""

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.records)

    def counts(self, agent: int, seat: int | None = None) -> dict[str, int]:
        """Games, wins, draws and losses of the ``agent``-th agent (in ``seat`` only, if given).

        A draw is any game the agent neither won nor lost: a drawn game, or another player's forfeit.
        """
        rs = [r for r in self.records if seat is None or seat_of(agent, r) == seat]
        scores = [r.score(seat_of(agent, r)) for r in rs]
        return {
            "games": len(rs),
            "wins": scores.count(1.0),
            "draws": scores.count(0.5),
            "losses": scores.count(0.0),
        }

    def by_seat(self, agent: int = 0) -> list[dict[str, int]]:
        """Win/draw/loss counts of the ``agent``-th agent in each seat."""
        return [self.counts(agent, seat) for seat in range(len(self.agents))]

    def record_dict(self, r: GameResult) -> dict[str, Any]:
        """One game as JSON, by listed agent: the seat, score, thinking time and real agent of each."""
        n = len(self.agents)
        seats = [seat_of(k, r) for k in range(n)]
        return {
            "index": int(r.key),
            "seats": seats,
            "deal_seed": r.deal_seed,
            "scores": [r.score(s) for s in seats],
            "returns": r.returns,
            "plies": r.plies,
            "seconds": r.seconds,
            "think": [r.think[s] for s in seats] if r.think else [],
            "moves": r.moves,
            "error": r.error,
            "agents": [r.agents[s] for s in seats] if r.agents else [],
        }

    def to_dict(self, *, with_games: bool = True) -> dict[str, Any]:
        """JSON-able summary per listed agent (and the games, unless ``with_games=False``)."""
        results = []
        for k, name in enumerate(self.agents):
            c = self.counts(k)
            results.append(
                {
                    "agent": name,
                    **c,
                    "win_rate": c["wins"] / self.games if self.games else 0.0,
                    "win_ci95": list(wilson_interval(c["wins"], self.games)),
                    "by_seat": self.by_seat(k),
                }
            )
        d: dict[str, Any] = {
            "game": self.game,
            "agents": list(self.agents),
            "seconds": self.seconds,
            "iterations": self.iterations,
            "clock": self.clock,
            "seed": self.seed,
            "games": self.games,
            "results": results,
            "forfeits": sum(1 for r in self.records if r.error),
            "mean_plies": _mean_plies(self.records),
        }
        if with_games:
            d["records"] = [self.record_dict(r) for r in self.records]
        return d


@dataclass
class SeatsResult(RotatedResult):
    """The outcome of a seat-rotated match, per listed agent and per seat."""

    def win_ci(self, agent: int) -> tuple[float, float]:
        """95 % Wilson interval of the ``agent``-th agent's win rate."""
        return wilson_interval(self.counts(agent)["wins"], self.games)


def _mean_plies(records: Sequence[GameResult]) -> float:
    return sum(r.plies for r in records) / len(records) if records else 0.0


@dataclass
class MatchResult(RotatedResult):
    """The outcome of a two-player match, from agent A's point of view (A is the first listed agent)."""

    @property
    def agent_a(self) -> str:
        """Agent A's name."""
        return self.agents[0]

    @property
    def agent_b(self) -> str:
        """Agent B's name."""
        return self.agents[1]

    @property
    def wins(self) -> int:
        """Games agent A won."""
        return self.counts(0)["wins"]

    @property
    def draws(self) -> int:
        """Drawn games."""
        return self.counts(0)["draws"]

    @property
    def losses(self) -> int:
        """Games agent A lost."""
        return self.counts(0)["losses"]

    @property
    def score(self) -> float:
        """A's mean score (win 1, draw ½)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def score_ci(self) -> tuple[float, float]:
        """95 % Wilson interval of A's score."""
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)

    @property
    def win_rate(self) -> float:
        """Fraction of games A won."""
        return self.wins / self.games if self.games else 0.0

    @property
    def win_ci(self) -> tuple[float, float]:
        """95 % Wilson interval of A's win rate."""
        return wilson_interval(self.wins, self.games)

    def record_dict(self, r: GameResult) -> dict[str, Any]:
        """One game as JSON from A's side: A's seat and score, the think time and real agent of A and B."""
        d = super().record_dict(r)
        return {
            "index": d["index"],
            "seat_a": d["seats"][0],
            "deal_seed": d["deal_seed"],
            "score_a": d["scores"][0],
            **{k: d[k] for k in ("returns", "plies", "seconds", "think", "moves", "error", "agents")},
        }

    def to_dict(self, *, with_games: bool = True) -> dict[str, Any]:
        """JSON-able summary (and the games, unless ``with_games=False``)."""
        d: dict[str, Any] = {
            "game": self.game,
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "seconds": self.seconds,
            "iterations": self.iterations,
            "clock": self.clock,
            "seed": self.seed,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "score_ci95": list(self.score_ci),
            "win_rate": self.win_rate,
            "win_ci95": list(self.win_ci),
            "by_seat": self.by_seat(),
            "forfeits": sum(1 for r in self.records if r.error),
            "mean_plies": _mean_plies(self.records),
            "agents": sorted({" vs ".join(self.record_dict(r)["agents"]) for r in self.records}),
        }
        if with_games:
            d["records"] = [self.record_dict(r) for r in self.records]
        return d


def play_seats(
    game_spec: str,
    agents: Sequence[AgentSpec],
    games: int = 8,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    jobs: int = 1,
    keep_moves: bool = False,
    progress: Progress | bool | None = None,
    clock: str = "wall",
    *,
    ray_address: str | None = None,
    out: str | None = None,
) -> SeatsResult:
    """Play ``games`` games of a game of any number of players, one agent (spec or ``Agent``) listed per seat.

    Seats rotate: in game ``i`` the ``k``-th agent plays seat ``(k + i) % n``, so ``games``
    a multiple of ``n`` gives every agent every seat equally often; the deal seed is
    ``seed + i // n``.  A win scores 1, a draw 0.5 (and so does another player's forfeit),
    a loss 0.  To compare two agents in a four-player game, list one against three copies
    of the other (``["level3", "level2", "level2", "level2"]``): an equal agent wins a
    quarter of the games.  ``seconds``/``iterations`` is each move's budget for every agent
    (``None`` and ``None``: the agents' defaults); ``clock="cpu"`` counts time budgets in
    the CPU time of the searching thread instead of wall time (a fair timed match on a busy
    machine; see :func:`tessera.agents.set_clock`).  ``jobs > 1`` plays games in that many
    processes, ``ray_address`` on Ray (``"local"``, ``"auto"`` or a cluster address);
    ``out`` keeps every game in ``out/results.jsonl`` as it ends, so the same call again
    continues the match.  ``progress`` is called as ``progress(record, done, total)`` after
    every game (``True``: the progress display on stderr).
    """
    game = load_game(game_spec)  # fail early on a bad game string
    specs = list(agents)
    n = game.num_players
    if len(specs) != n:
        raise ValueError(f"{game} has {n} seats: list {n} agents, one per seat (got {len(specs)})")
    for a in specs:
        check_offered(make(a), game.name, n)  # fail early on a bad spec, or a level the game does not offer
    check_options(games=games, jobs=jobs, clock=clock)
    if out is not None and any(not isinstance(a, str) for a in specs):
        raise ValueError("a match kept in a results file (out) needs agent specs, not Agent objects")
    names = [agent_name(a) for a in specs]
    config: dict[str, Any] = {
        "kind": "match",
        "game": game_spec,
        "agents": names,
        "seconds": seconds,
        "iterations": iterations,
        "seed": seed,
        "clock": clock,
        "moves": keep_moves,
    }
    store = ResultsFile(out, config)
    tasks = match_tasks(
        game_spec, specs, games=games, seconds=seconds, iterations=iterations, seed=seed, clock=clock, moves=keep_moves
    )
    if progress is True:
        progress = match_progress(names, games, f"{game_spec}: {' vs '.join(names)}", enabled=True)
    run = Run(tasks, store, jobs=jobs, ray_address=ray_address, progress=progress or None)
    return SeatsResult(str(game), names, seconds, iterations, seed, run.results, clock)


class MatchOptions(TypedDict, total=False):
    """The options of :func:`play_seats`, which :func:`play_match` takes too."""

    seconds: float | None
    iterations: int | None
    seed: int
    jobs: int
    keep_moves: bool
    progress: Progress | bool | None
    clock: str
    ray_address: str | None
    out: str | None


def play_match(
    game_spec: str, agent_a: AgentSpec, agent_b: AgentSpec, games: int = 100, **options: Unpack[MatchOptions]
) -> MatchResult:
    """Play ``games`` games of a two-player game between agents A and B, seats alternated (A is player 0 in even games).

    It is :func:`play_seats` with two agents, seen from A's side; the options are those of :func:`play_seats`.
    """
    n = load_game(game_spec).num_players  # fail early on a bad game string
    if n != 2:
        raise ValueError(
            f"{game_spec} is a game of {n} players: list one agent per seat (play_seats, or "
            f"'tessera match GAME AGENT×{n}')"
        )
    return MatchResult(**vars(play_seats(game_spec, [agent_a, agent_b], games, **options)))


def match_progress(names: Sequence[str], total: int, label: str, *, enabled: bool) -> ProgressDisplay:
    """The progress display of a match of the agents ``names``: who won each game and, with two, A's score so far."""
    score = [0.0]

    def line(r: GameResult) -> str:
        seats = [seat_of(k, r) for k in range(len(names))]
        winners = [k for k, s in enumerate(seats) if r.score(s) == 1.0]
        if len(names) == 2:
            what = {1.0: "A wins", 0.5: "draw", 0.0: "B wins"}[r.score(seats[0])]
            return f"game {int(r.key) + 1}: {what} (A as player {seats[0]}, {r.plies} plies, {r.seconds:.1f} s)"
        what = f"agent {winners[0] + 1} ({names[winners[0]]}) wins" if winners else "draw"
        return f"game {int(r.key) + 1}: {what} ({r.plies} plies, {r.seconds:.1f} s)"

    def status(r: GameResult) -> str:
        if len(names) != 2:
            return ""
        score[0] += r.score(seat_of(0, r))
        return f"A score {score[0]:.1f}"

    return ProgressDisplay(total, label, line=line, status=status, enabled=enabled)


__all__ = [
    "Z95",
    "MatchResult",
    "RotatedResult",
    "SeatsResult",
    "match_progress",
    "match_tasks",
    "play_match",
    "play_seats",
    "seat_of",
    "wilson_interval",
]
