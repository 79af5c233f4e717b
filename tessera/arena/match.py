"""Matches: two agents with seats alternated, or one agent per seat with seats rotated (any number of players).

Game ``i`` of a match is played with agent A in seat ``i % 2`` and with the
deal seed ``seed + i // 2`` (dealt games, Nibble, see the same deal from both
seats); each agent gets its own generator seeded from ``seed``, ``i`` and its
seat, so a match with ``iterations`` budgets is reproducible.  An agent that
returns an illegal move (or raises) forfeits that game; the record says why.
Games of more than two players (four-player Nymbat) use :func:`play_seats`:
one agent listed per seat, seats rotated, win/draw/loss per agent and per seat.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from tessera.agents import CLOCKS, Agent, LevelAgent, clock, make_agent, using_clock
from tessera.agents.spec import level_key
from tessera.core.game import SIMULTANEOUS, State
from tessera.core.registry import load_game

Z95 = 1.959963984540054
"""The two-sided 95 % normal quantile."""


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: draws count half).

    >>> lo, hi = wilson_interval(95, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.888, 0.978)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)  # exact ends: no rounding residue at p = 0 or 1
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


@dataclass
class GameRecord:
    """One game of a match."""

    index: int
    """Position in the match (0-based)."""
    seat_a: int
    """The seat (player index) agent A played."""
    deal_seed: int
    """Seed of ``new_initial_state``."""
    score_a: float
    """1 win, 0.5 draw, 0 loss, for agent A."""
    returns: list[float]
    """``state.returns()`` by seat."""
    plies: int
    """Moves (steps) played."""
    seconds: float
    """Wall time of the game."""
    think: list[float]
    """Total thinking time of agent A and agent B (on the match's clock: wall or CPU seconds)."""
    moves: list[str] = field(default_factory=list)
    """The moves as ``history()`` strings."""
    error: str | None = None
    """Why the game was forfeited, if it was."""
    agents: list[str] = field(default_factory=list)
    """What agent A and agent B really were (a level shows the agent it stands for: ``level5=alphabeta``)."""


@dataclass
class MatchResult:
    """The outcome of a match, from agent A's point of view."""

    game: str
    agent_a: str
    agent_b: str
    seconds: float | None
    iterations: int | None
    seed: int
    records: list[GameRecord]
    clock: str = "wall"
    """How the agents' time budgets were counted: ``wall`` or ``cpu`` (see :func:`tessera.agents.set_clock`)."""

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.records)

    @property
    def wins(self) -> int:
        """Games agent A won."""
        return sum(1 for r in self.records if r.score_a == 1.0)

    @property
    def draws(self) -> int:
        """Drawn games."""
        return sum(1 for r in self.records if r.score_a == 0.5)

    @property
    def losses(self) -> int:
        """Games agent A lost."""
        return sum(1 for r in self.records if r.score_a == 0.0)

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

    def by_seat(self) -> list[dict[str, int]]:
        """Win/draw/loss counts of A in each seat."""
        out = []
        for seat in (0, 1):
            rs = [r for r in self.records if r.seat_a == seat]
            out.append(
                {
                    "games": len(rs),
                    "wins": sum(r.score_a == 1.0 for r in rs),
                    "draws": sum(r.score_a == 0.5 for r in rs),
                    "losses": sum(r.score_a == 0.0 for r in rs),
                }
            )
        return out

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
            "mean_plies": (sum(r.plies for r in self.records) / self.games) if self.games else 0.0,
            "agents": sorted({" vs ".join(r.agents) for r in self.records}),
        }
        if with_games:
            d["records"] = [asdict(r) for r in self.records]
        return d


def _agent_name(a: str | Agent) -> str:
    return a if isinstance(a, str) else a.name


def play_game(
    game_spec: str,
    agents: list[Agent],
    *,
    seconds: float | None,
    iterations: int | None,
    deal_seed: int,
    rngs: list[random.Random],
) -> tuple[State, list[float], str | None, int | None]:
    """Play one game between ``agents`` (by seat); returns the final state, think times, error, offender."""
    game = load_game(game_spec)
    state = game.new_initial_state(seed=deal_seed)
    for a in agents:
        a.reset()
    think = [0.0 for _ in agents]
    limit = game.max_game_length() + 10
    while not state.is_terminal():
        if state.move_number() > limit:
            return state, think, f"the game ran past max_game_length() = {game.max_game_length()}", None
        cp = state.current_player()
        if cp == SIMULTANEOUS:
            orders: list[str] = []
            for p, agent in enumerate(agents):
                t0 = clock()
                try:
                    order = agent.choose(state, seconds=seconds, iterations=iterations, rng=rngs[p], player=p)
                except Exception as e:
                    return state, think, f"{agent.name} (seat {p}) raised {type(e).__name__}: {e}", p
                think[p] += clock() - t0
                if not isinstance(order, str):
                    order = state.action_to_string(order)
                if not state.is_legal(order, p):
                    return state, think, f"{agent.name} (seat {p}) gave an illegal order {order!r}", p
                orders.append(order)
            state.play_joint(orders)
            continue
        agent = agents[cp]
        t0 = clock()
        try:
            a = agent.choose(state, seconds=seconds, iterations=iterations, rng=rngs[cp])
        except Exception as e:
            return state, think, f"{agent.name} (seat {cp}) raised {type(e).__name__}: {e}", cp
        think[cp] += clock() - t0
        try:
            if isinstance(a, str):
                state.play(a)
            else:
                state.apply_action(a)
        except ValueError as e:
            return state, think, f"{agent.name} (seat {cp}) played an illegal move: {e}", cp
    return state, think, None, None


def _make(spec: str | Agent) -> Agent:
    """``make_agent``, plus the agents of the research adapters (``openspiel-mcts``), imported on demand."""
    if isinstance(spec, str) and spec.strip().lower().startswith(("openspiel-", "openspiel_")):
        try:
            from tessera.adapters.openspiel_agents import make_openspiel_agent
        except ImportError as e:
            raise ValueError(f"agent {spec!r} needs OpenSpiel: pip install 'tessera[openspiel]' ({e})") from None
        return make_openspiel_agent(spec)
    return make_agent(spec)


def _run_one(task: tuple[str, str | Agent, str | Agent, int, float | None, int | None, int, bool, str]) -> GameRecord:
    with using_clock(task[8]):
        return _play_one(task)


def _play_one(task: tuple[str, str | Agent, str | Agent, int, float | None, int | None, int, bool, str]) -> GameRecord:
    game_spec, spec_a, spec_b, index, seconds, iterations, seed, keep_moves, _ = task
    seat_a = index % 2
    deal_seed = seed + index // 2
    agent_a, agent_b = _make(spec_a), _make(spec_b)
    agents = [agent_a, agent_b] if seat_a == 0 else [agent_b, agent_a]
    rngs = [random.Random(f"{seed}/{index}/{p}") for p in range(2)]
    t0 = time.perf_counter()
    state, think, error, offender = play_game(
        game_spec, agents, seconds=seconds, iterations=iterations, deal_seed=deal_seed, rngs=rngs
    )
    elapsed = time.perf_counter() - t0
    if error is not None:
        if offender is None:
            score_a, returns = 0.5, [0.0, 0.0]
        else:
            score_a = 0.0 if offender == seat_a else 1.0
            returns = [1.0, 1.0]
            returns[offender] = -1.0
    else:
        returns = state.returns()
        r = returns[seat_a]
        score_a = 1.0 if r > 0 else 0.0 if r < 0 else 0.5
    return GameRecord(
        index=index,
        seat_a=seat_a,
        deal_seed=deal_seed,
        score_a=score_a,
        returns=list(returns),
        plies=state.move_number(),
        seconds=elapsed,
        think=[think[seat_a], think[1 - seat_a]],
        moves=[m for _, m in state.history()] if keep_moves else [],
        error=error,
        agents=[_label(agent_a, state), _label(agent_b, state)],
    )


def _label(agent: Agent, state: State) -> str:
    if isinstance(agent, LevelAgent):
        inner = agent._inner.get(level_key(state))
        return f"{agent.name}={inner.name}" if inner is not None else agent.name
    return agent.name


def play_match(
    game_spec: str,
    agent_a: str | Agent,
    agent_b: str | Agent,
    games: int = 100,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    jobs: int = 1,
    keep_moves: bool = False,
    progress: Callable[[GameRecord, int, int], None] | None = None,
    clock: str = "wall",
) -> MatchResult:
    """Play ``games`` games of ``game_spec`` between two agents (specs or ``Agent`` objects).

    Seats alternate (A is player 0 in even games).  ``seconds``/``iterations``
    is each move's budget for both agents (``None`` and ``None``: the agents'
    defaults).  ``jobs > 1`` plays games in that many processes.
    ``progress(record, done, total)`` is called after every game.  ``clock="cpu"``
    counts time budgets in the CPU time of the searching thread instead of wall time
    (a fair timed match on a machine busy with other work; see :func:`tessera.agents.set_clock`).
    """
    n = load_game(game_spec).num_players  # fail early on a bad game string
    if n != 2:
        raise ValueError(
            f"{game_spec} is a game of {n} players: list one agent per seat (play_seats, or "
            f"'tessera match GAME AGENT×{n}')"
        )
    for a in (agent_a, agent_b):
        if isinstance(a, str):
            _make(a)  # fail early on a bad spec
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, not {games!r}")
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, not {jobs!r}")
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
    tasks = [(game_spec, agent_a, agent_b, i, seconds, iterations, seed, keep_moves, clock) for i in range(games)]
    records: list[GameRecord] = []
    if jobs == 1:
        for t in tasks:
            rec = _run_one(t)
            records.append(rec)
            if progress:
                progress(rec, len(records), games)
    else:
        import multiprocessing as mp

        with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork")) as pool:
            futures = [pool.submit(_run_one, t) for t in tasks]
            for fut in as_completed(futures):
                rec = fut.result()
                records.append(rec)
                if progress:
                    progress(rec, len(records), games)
    records.sort(key=lambda r: r.index)
    return MatchResult(
        game=str(load_game(game_spec)),
        agent_a=_agent_name(agent_a),
        agent_b=_agent_name(agent_b),
        seconds=seconds,
        iterations=iterations,
        seed=seed,
        records=records,
        clock=clock,
    )


# -- games of any number of players: agents listed per seat, seats rotated --------------------


@dataclass
class SeatsRecord:
    """One game of a seat-rotated match (:func:`play_seats`); lists are by agent (as listed) unless named by seat."""

    index: int
    """Position in the match (0-based)."""
    seats: list[int]
    """The seat (player index) each agent played."""
    deal_seed: int
    """Seed of ``new_initial_state``."""
    scores: list[float]
    """Per agent: 1 win, 0.5 draw (or another player's forfeit), 0 loss."""
    returns: list[float]
    """``state.returns()`` by seat (a forfeit: −1 for the offender, the rest shared by the others)."""
    plies: int
    """Moves (steps) played."""
    seconds: float
    """Wall time of the game."""
    think: list[float]
    """Total thinking time of each agent (on the match's clock: wall or CPU seconds)."""
    moves: list[str] = field(default_factory=list)
    """The moves as ``history()`` strings."""
    error: str | None = None
    """Why the game was forfeited, if it was."""
    agents: list[str] = field(default_factory=list)
    """What each agent really was (``level5=mcts``)."""


@dataclass
class SeatsResult:
    """The outcome of a seat-rotated match, per agent and per seat."""

    game: str
    agents: list[str]
    seconds: float | None
    iterations: int | None
    seed: int
    records: list[SeatsRecord]
    clock: str = "wall"
    """How the agents' time budgets were counted: ``wall`` or ``cpu``."""

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.records)

    def counts(self, agent: int, seat: int | None = None) -> dict[str, int]:
        """Games, wins, draws and losses of the ``agent``-th agent (in ``seat`` only, if given)."""
        rs = [r for r in self.records if seat is None or r.seats[agent] == seat]
        return {
            "games": len(rs),
            "wins": sum(r.scores[agent] == 1.0 for r in rs),
            "draws": sum(r.scores[agent] == 0.5 for r in rs),
            "losses": sum(r.scores[agent] == 0.0 for r in rs),
        }

    def win_ci(self, agent: int) -> tuple[float, float]:
        """95 % Wilson interval of the ``agent``-th agent's win rate."""
        return wilson_interval(self.counts(agent)["wins"], self.games)

    def by_seat(self, agent: int) -> list[dict[str, int]]:
        """Win/draw/loss counts of the ``agent``-th agent in each seat."""
        n = len(self.agents)
        return [self.counts(agent, seat) for seat in range(n)]

    def to_dict(self, *, with_games: bool = True) -> dict[str, Any]:
        """JSON-able summary (and the games, unless ``with_games=False``)."""
        d: dict[str, Any] = {
            "game": self.game,
            "agents": list(self.agents),
            "seconds": self.seconds,
            "iterations": self.iterations,
            "clock": self.clock,
            "seed": self.seed,
            "games": self.games,
            "results": [
                {
                    "agent": name,
                    **self.counts(k),
                    "win_rate": self.counts(k)["wins"] / self.games if self.games else 0.0,
                    "win_ci95": list(self.win_ci(k)),
                    "by_seat": self.by_seat(k),
                }
                for k, name in enumerate(self.agents)
            ],
            "forfeits": sum(1 for r in self.records if r.error),
            "mean_plies": (sum(r.plies for r in self.records) / self.games) if self.games else 0.0,
        }
        if with_games:
            d["records"] = [asdict(r) for r in self.records]
        return d


def _run_seats(task: tuple[str, list[str | Agent], int, float | None, int | None, int, bool, str]) -> SeatsRecord:
    with using_clock(task[7]):
        return _play_seats_one(task)


def _play_seats_one(task: tuple[str, list[str | Agent], int, float | None, int | None, int, bool, str]) -> SeatsRecord:
    game_spec, specs, index, seconds, iterations, seed, keep_moves, _ = task
    n = len(specs)
    seats = [(k + index) % n for k in range(n)]
    deal_seed = seed + index // n
    made = [make_agent(s) for s in specs]
    by_seat: list[Agent] = [made[0]] * n
    for k, agent in enumerate(made):
        by_seat[seats[k]] = agent
    rngs = [random.Random(f"{seed}/{index}/{p}") for p in range(n)]
    t0 = time.perf_counter()
    state, think, error, offender = play_game(
        game_spec, by_seat, seconds=seconds, iterations=iterations, deal_seed=deal_seed, rngs=rngs
    )
    elapsed = time.perf_counter() - t0
    if error is not None:
        if offender is None:
            returns, scores = [0.0] * n, [0.5] * n
        else:
            returns = [1.0 / (n - 1)] * n
            returns[offender] = -1.0
            scores = [0.0 if seats[k] == offender else 0.5 for k in range(n)]
    else:
        returns = list(state.returns())
        w = state.winner()
        scores = [0.5 if w is None else 1.0 if seats[k] == w else 0.0 for k in range(n)]
    return SeatsRecord(
        index=index,
        seats=seats,
        deal_seed=deal_seed,
        scores=scores,
        returns=returns,
        plies=state.move_number(),
        seconds=elapsed,
        think=[think[seats[k]] for k in range(n)],
        moves=[m for _, m in state.history()] if keep_moves else [],
        error=error,
        agents=[_label(a, state) for a in made],
    )


def play_seats(
    game_spec: str,
    agents: Sequence[str | Agent],
    games: int = 8,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    jobs: int = 1,
    keep_moves: bool = False,
    progress: Callable[[SeatsRecord, int, int], None] | None = None,
    clock: str = "wall",
) -> SeatsResult:
    """Play ``games`` games of a game of any number of players, one agent listed per seat.

    Seats rotate: in game ``i`` the ``k``-th agent plays seat ``(k + i) % n``,
    so ``games`` a multiple of ``n`` gives every agent every seat equally
    often; the deal seed is ``seed + i // n``.  A win scores 1, a draw 0.5
    (and so does another player's forfeit), a loss 0.  To compare two agents
    in a four-player game, list one against three copies of the other
    (``["level3", "level2", "level2", "level2"]``): an equal agent wins a
    quarter of the games.  ``clock`` is as in :func:`play_match`.
    """
    game = load_game(game_spec)  # fail early on a bad game string
    n = game.num_players
    specs = list(agents)
    if len(specs) != n:
        raise ValueError(f"{game} has {n} seats: list {n} agents, one per seat (got {len(specs)})")
    for a in specs:
        if isinstance(a, str):
            make_agent(a)  # fail early on a bad spec
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, not {games!r}")
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, not {jobs!r}")
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
    tasks = [(game_spec, specs, i, seconds, iterations, seed, keep_moves, clock) for i in range(games)]
    records: list[SeatsRecord] = []
    if jobs == 1:
        for t in tasks:
            rec = _run_seats(t)
            records.append(rec)
            if progress:
                progress(rec, len(records), games)
    else:
        import multiprocessing as mp

        with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork")) as pool:
            futures = [pool.submit(_run_seats, t) for t in tasks]
            for fut in as_completed(futures):
                rec = fut.result()
                records.append(rec)
                if progress:
                    progress(rec, len(records), games)
    records.sort(key=lambda r: r.index)
    return SeatsResult(
        game=str(game),
        agents=[_agent_name(a) for a in specs],
        seconds=seconds,
        iterations=iterations,
        seed=seed,
        records=records,
        clock=clock,
    )


__all__ = [
    "Z95",
    "GameRecord",
    "MatchResult",
    "SeatsRecord",
    "SeatsResult",
    "play_game",
    "play_match",
    "play_seats",
    "wilson_interval",
]
