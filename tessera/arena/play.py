"""One game between agents: the task, the game loop, the forfeit rule and the record of the game.

Every kind of self-play — a match, a tournament, a balance study — is a list of
:class:`Task` (one game each: the game string, the agent of every seat, the budget and the
seeds), each played by :func:`play_task` into one :class:`GameResult`.

**The forfeit rule.**  An agent that raises, or returns an illegal move or order, forfeits
the game: it gets −1 and the other players share the win (``1 / (n − 1)`` each, so ``+1``
in a two-player game); a game that runs past its ``max_game_length()`` (plus a margin) is
stopped with every return 0.  The record says why (``error``) and who (``offender``).

>>> from tessera.agents import RandomAgent
>>> class Stuck(RandomAgent):
...     def _choose(self, state, budget, rng):
...         raise RuntimeError("no idea")
>>> r = play_task(Task("0", "nume(size=3)", seats=("greedy", Stuck())))
>>> r.error, r.offender, r.returns, r.plies
('random (seat 1) raised RuntimeError: no idea', 1, [1.0, -1.0], 1)
>>> [r.score(seat) for seat in (0, 1)]
[1.0, 0.0]
>>> forfeit_returns(4, offender=2)
[0.3333333333333333, 0.3333333333333333, -1.0, 0.3333333333333333]

A game played to the end keeps its moves when asked (and the agents' thinking time):

>>> r = play_task(Task("0", "ikabegama(distance=2)", seats=("greedy", "random"), moves=True))
>>> r.error, len(r.moves) == r.plies > 0, len(r.think), r.agents
(None, True, 2, ['greedy', 'random'])
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tessera.agents import Agent, LevelAgent, clock, make_agent, using_clock
from tessera.agents.spec import level_key
from tessera.arena.metrics import GameTrace, draw_cause
from tessera.core.game import SIMULTANEOUS, State
from tessera.core.registry import load_game, plugins

AgentSpec = str | Agent
"""An agent spec string (``"mcts(c=0.7)"``, ``"level5"``, ``"openspiel-mcts"``) or an ``Agent`` object."""


AGENT_ENTRY_POINTS = "tessera.agents"
"""Entry-point group through which installed packages offer agent kinds to the arena: ``name =
"package.module:factory [extra]"``, where ``factory(spec)`` makes the agent of a spec string whose name
(before any ``(``) is ``name``.  tessera's own OpenSpiel MCTS (``openspiel-mcts``) comes this way, from its
research adapters, which the arena therefore never imports."""


def make(spec: AgentSpec) -> Agent:
    """The agent of ``spec``: :func:`tessera.agents.make_agent`, or an agent kind that an installed
    package offers in the entry-point group :data:`AGENT_ENTRY_POINTS` (e.g. ``openspiel-mcts(...)``,
    OpenSpiel's MCTS, imported only when such an agent is asked for).

    Raises ``ValueError`` for an unknown agent, a bad option, or an offered kind whose module cannot be
    imported (naming the package's extra that brings what it needs).

    >>> make("greedy(noise=0.5)").name
    'greedy(noise=0.5)'
    >>> make("stockfish")
    Traceback (most recent call last):
    ValueError: unknown agent 'stockfish' in 'stockfish'; known agents: ...
    """
    if isinstance(spec, str):
        name = spec.split("(", 1)[0].strip().lower()
        offered = plugins(AGENT_ENTRY_POINTS)
        ep = offered.get(name) or offered.get(name.replace("_", "-"))  # openspiel_mcts is openspiel-mcts
        if ep is not None:
            try:
                factory = ep.load()
            except ImportError as e:
                dist = ep.dist.name if ep.dist is not None else ep.module.split(".")[0]
                extra = f"[{','.join(ep.extras)}]" if ep.extras else ""
                raise ValueError(f"agent {spec!r} needs: pip install '{dist}{extra}' ({e})") from None
            agent = factory(spec)
            if not isinstance(agent, Agent):
                raise ValueError(f"agent {spec!r}: {ep.value} made {type(agent).__name__}, not an Agent")
            return agent
    return make_agent(spec)


def agent_name(spec: AgentSpec) -> str:
    """The name a spec or an agent is listed under."""
    return spec if isinstance(spec, str) else spec.name


def label(agent: Agent, state: State) -> str:
    """What an agent really was in a game: a level shows the agent it stands for (``level5=alphabeta``)."""
    if isinstance(agent, LevelAgent):
        inner = agent._inner.get(level_key(state))
        return f"{agent.name}={inner.name}" if inner is not None else agent.name
    return agent.name


def forfeit_returns(n: int, offender: int) -> list[float]:
    """The returns of a forfeited game of ``n`` players: −1 for the offender, the win shared by the others."""
    returns = [1.0 / max(1, n - 1)] * n
    returns[offender] = -1.0
    return returns


@dataclass(frozen=True)
class Task:
    """One game to play."""

    key: str
    """Unique within a run; the order of results (``"3"``, ``"0/7"``)."""
    game: str
    """Game string (``load_game``)."""
    seats: tuple[AgentSpec, ...]
    """The agent of each seat (a spec, or an ``Agent`` object when a match is played from Python)."""
    seconds: float | None = None
    """Time per move (``None`` and ``iterations`` ``None``: each agent's default)."""
    iterations: int | None = None
    """Iterations per move."""
    deal_seed: int = 0
    """Seed of ``new_initial_state``."""
    agent_seed: str = ""
    """Each seat's generator is ``random.Random(f"{agent_seed}/{seat}")``."""
    trace: bool = False
    """Record evaluations and branching factors ply by ply (balance runs)."""
    group: str = ""
    """The setting or table this game belongs to."""
    clock: str = "wall"
    """How time budgets are counted: ``wall`` or ``cpu`` (:func:`tessera.agents.set_clock`)."""
    moves: bool = False
    """Keep the moves in the result."""


@dataclass
class GameResult:
    """The record of one game, by seat: every run (match, tournament, balance) keeps these."""

    key: str
    group: str
    game: str
    seats: list[str]
    """The agent (spec) of each seat."""
    returns: list[float]
    """``state.returns()`` by seat (a forfeit: see the module docstring)."""
    plies: int
    """Moves (steps) played."""
    seconds: float
    """Wall time of the game."""
    deal_seed: int
    error: str | None = None
    """Why the game was forfeited or stopped, if it was."""
    offender: int | None = None
    """The seat that forfeited."""
    decided_ply: int | None = None
    """Ply after which the winner's evaluation never trails another player's (``trace`` only)."""
    branching: list[int] = field(default_factory=list)
    """Legal moves at each sequential ply (``trace`` only)."""
    think: list[float] = field(default_factory=list)
    """Total thinking time of each seat's agent (on the run's clock: wall or CPU seconds)."""
    agents: list[str] = field(default_factory=list)
    """What each seat's agent really was (``level5=alphabeta``)."""
    moves: list[str] = field(default_factory=list)
    """The moves as ``history()`` strings (when the task asked for them)."""
    metrics: dict[str, Any] = field(default_factory=dict)
    """The game's design metrics (``trace`` only: :mod:`tessera.arena.metrics`); an untraced game that ended in
    a draw keeps only ``{"draw_cause": ...}``."""

    @property
    def winner(self) -> int | None:
        """The seat with the highest return, or ``None`` for a draw (tie at the top)."""
        best = max(self.returns)
        top = [p for p, r in enumerate(self.returns) if r == best]
        if len(top) != 1 or all(r == self.returns[0] for r in self.returns):
            return None
        return top[0]

    def score(self, seat: int) -> float:
        """1 for the winner, 0 for a loser or the offender, 0.5 for everyone else (a draw, another's forfeit)."""
        if seat == self.offender:
            return 0.0
        w = self.winner
        return 0.5 if w is None else 1.0 if w == seat else 0.0

    def to_json(self) -> str:
        """One line of the results file."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameResult:
        """Read back a results-file line (lines written before a field existed get its default)."""
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


def decided_ply(evals: Sequence[Sequence[float]], winner: int) -> int:
    """The first ply from which ``winner``'s evaluation never trails any other player's.

    ``evals[t][p]`` is player ``p``'s evaluation after ``t`` plies (``t = 0`` is the start).

    >>> decided_ply([[0, 0], [-0.2, 0.2], [0.1, -0.1], [1, -1]], 0)
    2
    >>> decided_ply([[0, 0], [1, -1]], 0)
    0
    """
    t = len(evals)
    while t > 0:
        row = evals[t - 1]
        if any(row[winner] < v for p, v in enumerate(row) if p != winner):
            break
        t -= 1
    return t


@dataclass
class Played:
    """What :func:`play_game` leaves: the final state and what happened on the way."""

    state: State
    think: list[float]
    """Thinking time of each seat."""
    error: str | None = None
    offender: int | None = None
    evals: list[list[float]] = field(default_factory=list)
    """Every player's evaluation after each ply, from the start (``trace`` only)."""
    branching: list[int] = field(default_factory=list)
    """Legal moves at each sequential ply (``trace`` only)."""
    trace: GameTrace | None = None
    """The design metrics' record of the game (``trace`` only)."""
    capped: bool = False
    """The game was stopped at the arena's limit with no result."""


def play_game(
    game_spec: str,
    agents: Sequence[Agent],
    *,
    seconds: float | None,
    iterations: int | None,
    deal_seed: int,
    rngs: Sequence[random.Random],
    trace: bool = False,
) -> Played:
    """Play one game between ``agents`` (by seat), the forfeit rule applied: the one game loop of the arena."""
    game = load_game(game_spec)
    n = game.num_players
    state = game.new_initial_state(seed=deal_seed)
    for a in agents:
        a.reset()
    out = Played(state, [0.0] * n)
    if trace:  # the metrics sample moves with a generator of their own: the agents' games are unchanged
        out.trace = GameTrace(state, random.Random(f"metrics/{deal_seed}"))
        out.evals = out.trace.evals
    limit = game.max_game_length() + 10
    steps = 0
    while not state.is_terminal():
        if steps >= limit:
            out.error = f"no result after {steps} steps (the game's max_game_length is {game.max_game_length()})"
            out.capped = True
            return out
        steps += 1
        if state.current_player() == SIMULTANEOUS:
            orders: list[str] = []
            for p, agent in enumerate(agents):
                order = _ask(out, agent, p, seconds, iterations, rngs[p], simultaneous=True)
                if order is None:
                    return out
                if not isinstance(order, str):
                    order = state.action_to_string(order)
                if not state.is_legal(order, p):
                    out.error, out.offender = f"{agent.name} (seat {p}) gave an illegal order {order!r}", p
                    return out
                orders.append(order)
            state.play_joint(orders)
        else:
            cp = state.current_player()
            if out.trace is not None:
                out.branching.append(len(state.legal_actions()))
                out.trace.sample_clarity(state)
            move = _ask(out, agents[cp], cp, seconds, iterations, rngs[cp], simultaneous=False)
            if move is None:
                return out
            try:
                if isinstance(move, str):
                    state.play(move)
                else:
                    state.apply_action(move)
            except ValueError as e:
                out.error, out.offender = f"{agents[cp].name} (seat {cp}) played an illegal move: {e}", cp
                return out
        if out.trace is not None:
            out.trace.observe(state)
    return out


def _ask(
    out: Played,
    agent: Agent,
    seat: int,
    seconds: float | None,
    iterations: int | None,
    rng: random.Random,
    *,
    simultaneous: bool,
) -> Any:
    """The agent's move (``None`` when it raised: the forfeit is written into ``out``)."""
    t0 = clock()
    try:
        if simultaneous:
            move = agent.choose(out.state, seconds=seconds, iterations=iterations, rng=rng, player=seat)
        else:
            move = agent.choose(out.state, seconds=seconds, iterations=iterations, rng=rng)
    except Exception as e:
        out.error, out.offender = f"{agent.name} (seat {seat}) raised {type(e).__name__}: {e}", seat
        return None
    out.think[seat] += clock() - t0
    return move


def play_task(task: Task) -> GameResult:
    """Play one task to the end, on the task's clock."""
    with using_clock(task.clock):
        return _play_task(task)


def _play_task(task: Task) -> GameResult:
    agents = [make(spec) for spec in task.seats]
    n = len(agents)
    rngs = [random.Random(f"{task.agent_seed}/{p}") for p in range(n)]
    t0 = time.perf_counter()
    played = play_game(
        task.game,
        agents,
        seconds=task.seconds,
        iterations=task.iterations,
        deal_seed=task.deal_seed,
        rngs=rngs,
        trace=task.trace,
    )
    elapsed = time.perf_counter() - t0
    state = played.state
    if played.offender is not None:
        returns = forfeit_returns(n, played.offender)
    elif played.error is not None:
        returns = [0.0] * n
    else:
        returns = list(state.returns())
    res = GameResult(
        key=task.key,
        group=task.group,
        game=task.game,
        seats=[agent_name(s) for s in task.seats],
        returns=returns,
        plies=state.move_number(),
        seconds=round(elapsed, 4),
        deal_seed=task.deal_seed,
        error=played.error,
        offender=played.offender,
        branching=played.branching,
        think=[round(t, 4) for t in played.think],
        agents=[label(a, state) for a in agents],
        moves=[m for _, m in state.history()] if task.moves else [],
    )
    if played.trace is not None and (played.error is None or played.capped):
        res.metrics = played.trace.summary(state, capped=played.capped)
    elif played.error is None or played.capped:  # untraced: only why a draw was one (cheap), for the examples
        cause = draw_cause(state, capped=played.capped)
        if cause is not None:
            res.metrics = {"draw_cause": cause}
    if task.trace and played.error is None:
        w = res.winner
        if w is not None:
            res.decided_ply = decided_ply(played.evals, w)
    return res


__all__ = [
    "AgentSpec",
    "GameResult",
    "Played",
    "Task",
    "agent_name",
    "decided_ply",
    "forfeit_returns",
    "label",
    "make",
    "play_game",
    "play_task",
]
