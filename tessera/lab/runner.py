"""Playing many games: tasks, a resumable results file, local processes or a Ray cluster.

A run is a list of :class:`Task` (one game each: the game string, the agent spec of every
seat, the budget and the seeds).  :func:`run_tasks` plays the tasks not yet in the
results file, appends each :class:`GameResult` to it as soon as the game ends (one JSON
line, flushed), and returns every result sorted by task key — so an interrupted run
continues where it stopped when the same command is given again, and the result does not
depend on the order in which games finished (``--jobs`` or Ray).

Seeds: a task's deal seed and each seat's agent generator are derived from the run's seed
and the task key, so with ``iterations`` budgets (or agents without a budget, such as
``greedy``) the same command always plays the same games, locally or on Ray.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tessera.agents import make_agent, using_clock
from tessera.core.game import SIMULTANEOUS, State
from tessera.core.registry import load_game

RESULTS_FILE = "results.jsonl"
"""Name of the results file inside ``--out``."""


@dataclass(frozen=True)
class Task:
    """One game to play."""

    key: str
    """Unique within a run; the order of results."""
    game: str
    """Game string (``load_game``)."""
    seats: tuple[str, ...]
    """Agent spec of each seat."""
    seconds: float | None
    iterations: int | None
    deal_seed: int
    agent_seed: str
    """Each seat's generator is ``random.Random(f"{agent_seed}/{seat}")``."""
    trace: bool = False
    """Record evaluations and branching factors ply by ply (balance runs)."""
    group: str = ""
    """The setting or table this game belongs to."""
    clock: str = "wall"
    """How time budgets are counted: ``wall`` or ``cpu`` (:func:`tessera.agents.set_clock`)."""


@dataclass
class GameResult:
    """The outcome of one task."""

    key: str
    group: str
    game: str
    seats: list[str]
    returns: list[float]
    plies: int
    seconds: float
    deal_seed: int
    error: str | None = None
    offender: int | None = None
    decided_ply: int | None = None
    """Ply after which the winner's evaluation never trails another player's (``trace`` only)."""
    branching: list[int] = field(default_factory=list)
    """Legal moves at each sequential ply (``trace`` only)."""

    @property
    def winner(self) -> int | None:
        """The seat with the highest return, or ``None`` for a draw (tie at the top)."""
        best = max(self.returns)
        top = [p for p, r in enumerate(self.returns) if r == best]
        if len(top) != 1 or all(r == self.returns[0] for r in self.returns):
            return None
        return top[0]

    def to_json(self) -> str:
        """One line of the results file."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameResult:
        """Read back a results-file line."""
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


def _evals(state: State, n: int) -> list[float]:
    return [state.evaluate(p) for p in range(n)]


def decided_ply(evals: Sequence[Sequence[float]], winner: int) -> int:
    """The first ply from which ``winner``'s evaluation never trails any other player's.

    ``evals[t][p]`` is player ``p``'s evaluation after ``t`` plies (``t = 0`` is the start).

    >>> decided_ply([[0, 0], [-0.2, 0.2], [0.1, -0.1], [1, -1]], 0)
    2
    """
    t = len(evals)
    while t > 0:
        row = evals[t - 1]
        if any(row[winner] < v for p, v in enumerate(row) if p != winner):
            break
        t -= 1
    return t


def play_task(task: Task) -> GameResult:
    """Play one task to the end (an illegal move or an exception forfeits the game)."""
    with using_clock(task.clock):
        return _play_task(task)


def _play_task(task: Task) -> GameResult:
    game = load_game(task.game)
    n = game.num_players
    agents = [make_agent(spec, game=game.name) for spec in task.seats]
    rngs = [random.Random(f"{task.agent_seed}/{p}") for p in range(n)]
    state = game.new_initial_state(seed=task.deal_seed)
    for a in agents:
        a.reset()
    evals: list[list[float]] = [_evals(state, n)] if task.trace else []
    branching: list[int] = []
    limit = game.max_game_length() + 10
    error: str | None = None
    offender: int | None = None
    t0 = time.perf_counter()
    steps = 0
    while not state.is_terminal() and steps < limit:
        steps += 1
        cp = state.current_player()
        if cp == SIMULTANEOUS:
            orders = []
            for p in range(n):
                try:
                    order = agents[p].choose(
                        state, seconds=task.seconds, iterations=task.iterations, rng=rngs[p], player=p
                    )
                except Exception as e:
                    error, offender = f"{task.seats[p]} (seat {p}) raised {type(e).__name__}: {e}", p
                    break
                if not isinstance(order, str):
                    order = state.action_to_string(order)
                if not state.is_legal(order, p):
                    error, offender = f"{task.seats[p]} (seat {p}) gave an illegal order {order!r}", p
                    break
                orders.append(order)
            if error:
                break
            state.play_joint(orders)
        else:
            if task.trace:
                branching.append(len(state.legal_actions()))
            try:
                a = agents[cp].choose(state, seconds=task.seconds, iterations=task.iterations, rng=rngs[cp])
                if isinstance(a, str):
                    state.play(a)
                else:
                    state.apply_action(a)
            except Exception as e:
                error, offender = f"{task.seats[cp]} (seat {cp}) failed: {type(e).__name__}: {e}", cp
                break
        if task.trace:
            evals.append(_evals(state, n))
    elapsed = time.perf_counter() - t0
    if error is not None and offender is not None:
        returns = [1.0 / max(1, n - 1)] * n if n > 2 else [1.0] * n
        returns[offender] = -1.0
    elif state.is_terminal():
        returns = list(state.returns())
    else:
        returns = [0.0] * n
        error = f"no result after {steps} steps (the game's max_game_length is {game.max_game_length()})"
    res = GameResult(
        key=task.key,
        group=task.group,
        game=task.game,
        seats=list(task.seats),
        returns=returns,
        plies=state.move_number(),
        seconds=round(elapsed, 4),
        deal_seed=task.deal_seed,
        error=error,
        offender=offender,
        branching=branching,
    )
    if task.trace and error is None:
        w = res.winner
        if w is not None:
            res.decided_ply = decided_ply(evals, w)
    return res


# -- the results file ---------------------------------------------------------------------


class ResultsFile:
    """``OUT/results.jsonl``: a header line with the run's configuration, then one line per game.

    Opening an existing file checks that its configuration is the same as this run's
    (except the number of games, which may grow): a different command must use another
    directory, so results of two different experiments are never mixed.
    """

    def __init__(self, out: str | os.PathLike[str] | None, config: dict[str, Any]) -> None:
        self.config = config
        self.path = None if out is None else Path(out) / RESULTS_FILE
        self.done: dict[str, GameResult] = {}
        if self.path is None:
            return
        if self.path.exists():
            self._read()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w", encoding="utf-8") as f:
                f.write(json.dumps({"header": config}) + "\n")

    def _read(self) -> None:
        assert self.path is not None
        lines = self.path.read_text(encoding="utf-8").splitlines()
        if not lines:
            raise ValueError(f"{self.path} is empty: remove it or choose another --out")
        try:
            header = json.loads(lines[0])["header"]
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{self.path} is not a tessera results file (no header line)") from None
        if header != self.config:
            diff = sorted(k for k in set(header) | set(self.config) if header.get(k) != self.config.get(k))
            raise ValueError(
                f"{self.path} holds another run (different {', '.join(diff)}); "
                "use another --out directory to start a new one"
            )
        for line in lines[1:]:
            try:
                d = json.loads(line)
                r = GameResult.from_dict(d)
            except (ValueError, TypeError):
                continue  # a line cut short when the run was killed: that game is played again
            self.done[r.key] = r

    def add(self, r: GameResult) -> None:
        """Append one result (flushed to disk at once)."""
        self.done[r.key] = r
        if self.path is None:
            return
        with self.path.open("a+b") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() > 0:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    f.write(b"\n")
            f.write((r.to_json() + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())


# -- executing ----------------------------------------------------------------------------

Progress = Callable[[GameResult, int, int], None]


def run_tasks(
    tasks: Sequence[Task],
    store: ResultsFile,
    *,
    jobs: int = 1,
    ray_address: str | None = None,
    progress: Progress | None = None,
) -> list[GameResult]:
    """Play the tasks not yet in ``store``; return all results of ``tasks``, sorted by key."""
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise ValueError("task keys must be unique")
    todo = [t for t in tasks if t.key not in store.done]
    total = len(tasks)
    done = total - len(todo)

    def record(r: GameResult) -> None:
        nonlocal done
        store.add(r)
        done += 1
        if progress:
            progress(r, done, total)

    if ray_address is not None:
        for r in _run_ray(todo, ray_address):
            record(r)
    elif jobs <= 1:
        for t in todo:
            record(play_task(t))
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork")) as pool:
            futures = [pool.submit(play_task, t) for t in todo]
            for fut in as_completed(futures):
                record(fut.result())
    wanted = set(keys)
    return sorted((r for k, r in store.done.items() if k in wanted), key=lambda r: _sort_key(r.key))


def _sort_key(key: str) -> tuple[Any, ...]:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in key.replace("/", " ").split())


def _run_ray(tasks: Sequence[Task], address: str) -> Iterable[GameResult]:
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs the 'ray' package: pip install 'tessera[ray]'") from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    remote = ray.remote(play_task)
    pending = [remote.remote(t) for t in tasks]
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            yield ray.get(ref)


class ProgressBar:
    """A progress bar with ETA on stderr (rich when installed and stderr is a terminal, else plain lines)."""

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled
        self._prog: Any = None
        self._task: Any = None
        self._start = time.perf_counter()
        self._first: int | None = None
        if not enabled or not sys.stderr.isatty():
            return
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
        except ImportError:
            return
        self._prog = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self._prog.start()
        self._task = self._prog.add_task(label, total=total)

    def __call__(self, r: GameResult, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._first is None:
            self._first = done - 1
        if self._prog is not None:
            self._prog.update(self._task, completed=done)
            return
        played = done - self._first
        elapsed = time.perf_counter() - self._start
        eta = elapsed / played * (total - done) if played else 0.0
        w = r.winner
        what = "draw" if w is None else f"seat {w} wins"
        print(
            f"[{done}/{total}] {r.group} {r.key}: {what}, {r.plies} plies, {r.seconds:.1f} s; ETA {eta:.0f} s",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        """Stop the bar."""
        if self._prog is not None:
            self._prog.stop()


__all__ = ["RESULTS_FILE", "GameResult", "ProgressBar", "ResultsFile", "Task", "decided_ply", "play_task", "run_tasks"]
