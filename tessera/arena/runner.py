"""Playing many games: a resumable results file, local processes or a Ray cluster.

:func:`run_tasks` plays the tasks (:class:`~tessera.arena.play.Task`) not yet in the
results file, appends each :class:`~tessera.arena.play.GameResult` to it as soon as the
game ends (one JSON line, flushed), and returns every result sorted by task key — so an
interrupted run continues where it stopped when the same command is given again, and the
result does not depend on the order in which games finished (``--jobs`` or Ray).  Every
command (``match``, ``tournament``, ``balance``) runs on it.

Seeds: a task's deal seed and each seat's agent generator are derived from the run's seed
and the task key, so with ``iterations`` budgets (or agents without a budget, such as
``greedy``) the same command always plays the same games, locally or on Ray.

>>> import tempfile
>>> from tessera.arena.play import Task
>>> tasks = [Task(str(i), "nume(size=2)", ("greedy", "random"), agent_seed=str(i)) for i in range(3)]
>>> out = tempfile.mkdtemp()
>>> first = run_tasks(tasks[:2], ResultsFile(out, {"kind": "example"}))
>>> again = ResultsFile(out, {"kind": "example"})
>>> sorted(again.done)
['0', '1']
>>> run = Run(tasks, again)
>>> [r.key for r in run.results], run.played_now
(['0', '1', '2'], 1)
>>> [r.returns for r in run.results[:2]] == [r.returns for r in first]
True
>>> ResultsFile(out, {"kind": "another"})
Traceback (most recent call last):
ValueError: .../results.jsonl holds another run (different kind); use another --out directory to start a new one
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from tessera.agents import CLOCKS
from tessera.arena.play import GameResult, Task, play_task

RESULTS_FILE = "results.jsonl"
"""Name of the results file inside ``--out``."""


def check_options(*, games: object = 1, jobs: object = 1, clock: str = "wall") -> None:
    """The options every run shares, checked before any game: ``ValueError`` names the bad one."""
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ValueError(f"games must be a positive integer, not {games!r}")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, not {jobs!r}")
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {clock!r}")


# -- the results file ---------------------------------------------------------------------


def provenance() -> dict[str, Any]:
    """Which code is playing: tessera's version, the git commit of the checkout it runs from (None when it
    is not run from one, or git is missing) and whether tracked files differ from that commit, Python's
    and numba's versions, and when (UTC, ISO 8601).  A results file records it for every session that
    plays games in it, so a stored study says which code played each of its games."""
    import tessera

    here = Path(tessera.__file__).resolve().parent
    commit: str | None = None
    changed: bool | None = None
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10)
        if head.returncode == 0:
            commit = head.stdout.strip()
            status = ["git", "status", "--porcelain", "--untracked-files=no", "--", "."]
            diff = subprocess.run(status, cwd=here, capture_output=True, text=True, timeout=20)
            changed = bool(diff.stdout.strip()) if diff.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        import numba

        numba_version: str | None = numba.__version__
    except ImportError:
        numba_version = None
    return {
        "tessera": getattr(tessera, "__version__", None),
        "commit": commit,
        "changed": changed,
        "python": platform.python_version(),
        "numba": numba_version,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def read_sessions(folder: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The session lines (:func:`provenance`) of every results file in ``folder`` and its sub-folders
    (a run over several agents keeps one per agent), each with ``file``: the results file it is in,
    relative to ``folder``."""
    root = Path(folder)
    out: list[dict[str, Any]] = []
    for path in sorted(root.rglob(RESULTS_FILE)):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith('{"session"'):
                continue
            try:
                session = json.loads(line)["session"]
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(session, dict):
                out.append({"file": path.relative_to(root).as_posix(), **session})
    return out


class ResultsFile:
    """``OUT/results.jsonl``: a header line with the run's configuration, then one line per game.

    Opening an existing file checks that its configuration is the same as this run's
    (except the number of games, which may grow): a different command must use another
    directory, so results of two different experiments are never mixed.  Before the first
    game a process adds, it writes a ``{"session": …}`` line (:func:`provenance`): which code
    played the games that follow (:attr:`sessions` lists them).
    """

    def __init__(self, out: str | os.PathLike[str] | None, config: dict[str, Any]) -> None:
        self.config = config
        self.path = None if out is None else Path(out) / RESULTS_FILE
        self.done: dict[str, GameResult] = {}
        self.sessions: list[dict[str, Any]] = []
        """The sessions that played games into the file, in order (files of older versions have none)."""
        self._session_written = False
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
                if isinstance(d, dict) and isinstance(d.get("session"), dict):
                    self.sessions.append(d["session"])
                    continue
                r = GameResult.from_dict(d)
            except (ValueError, TypeError, KeyError):
                continue  # a line cut short when the run was killed: that game is played again
            self.done[r.key] = r

    def add(self, r: GameResult) -> None:
        """Append one result (flushed to disk at once); before this process's first, its session line."""
        self.done[r.key] = r
        if self.path is None:
            return
        if not self._session_written:
            session = provenance()
            self._append(json.dumps({"session": session}))
            self.sessions.append(session)
            self._session_written = True
        self._append(r.to_json())

    def _append(self, line: str) -> None:
        """One line at the end of the file (after a line the last run may have cut short), synced."""
        assert self.path is not None
        with self.path.open("a+b") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() > 0:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    f.write(b"\n")
            f.write((line + "\n").encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())


# -- executing ----------------------------------------------------------------------------

Progress = Callable[[GameResult, int, int], None]
"""Called after every game: ``progress(result, done, total)``."""


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
    return sorted((r for k, r in store.done.items() if k in wanted), key=lambda r: sort_key(r.key))


def sort_key(key: str) -> tuple[Any, ...]:
    """Task keys in their natural order (``"0/10"`` after ``"0/9"``).

    >>> sorted(["0/10", "1/0", "0/9"], key=sort_key)
    ['0/9', '0/10', '1/0']
    """
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in key.replace("/", " ").split())


def ray_session(address: str) -> Any:
    """The ``ray`` module, connected to ``address`` (``local``: a cluster started here; ``auto``: the
    running one; or a cluster's address); ``ValueError`` when Ray is not installed."""
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs the 'ray' package: pip install 'tessera[ray]'") from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    return ray


def _run_ray(tasks: Sequence[Task], address: str) -> Iterable[GameResult]:
    ray = ray_session(address)
    remote = ray.remote(play_task)
    pending = [remote.remote(t) for t in tasks]
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            yield ray.get(ref)


class Run:
    """Play ``tasks`` into ``store`` (:func:`run_tasks`) and keep what every summary reports.

    ``results`` are every task's results (sorted by key), ``played_now`` the games this run
    played (the rest came from the results file), ``wall_seconds`` its wall time.  A
    ``progress`` display with a ``close()`` is closed when the games are over.
    """

    def __init__(
        self,
        tasks: Sequence[Task],
        store: ResultsFile,
        *,
        jobs: int = 1,
        ray_address: str | None = None,
        progress: Progress | None = None,
    ) -> None:
        before = sum(1 for t in tasks if t.key in store.done)
        t0 = time.perf_counter()
        try:
            self.results = run_tasks(tasks, store, jobs=jobs, ray_address=ray_address, progress=progress)
        finally:
            close = getattr(progress, "close", None)
            if close is not None:
                close()
        self.wall_seconds = time.perf_counter() - t0
        self.played_now = len(self.results) - before


def speed(results: Sequence[GameResult], played_now: int, wall_seconds: float) -> dict[str, float]:
    """Games per second of playing time (every game's wall time summed, whichever run played it) and of this run.

    >>> speed([], 0, 1.0)
    {'game_seconds_total': 0.0}
    >>> from tessera.arena.play import GameResult
    >>> speed([GameResult("0", "", "nume", [], [0.0], 9, 0.5, 0)] * 4, 2, 4.0)
    {'game_seconds_total': 2.0, 'games_per_second': 2.0, 'games_per_second_this_run': 0.5}
    """
    busy = sum((r.seconds for r in results), 0.0)
    d = {"game_seconds_total": round(busy, 2)}
    if busy > 0:
        d["games_per_second"] = round(len(results) / busy, 3)
    if played_now and wall_seconds > 0:
        d["games_per_second_this_run"] = round(played_now / wall_seconds, 3)
    return d


def budget_text(seconds: float | None, iterations: int | None, clock: str = "wall") -> str:
    """The budget of a run's moves, as the tables' headers say it.

    >>> budget_text(0.5, None, "cpu"), budget_text(None, 200), budget_text(None, None)
    ('0.5 s/move, time counted on the cpu clock', '200 iterations/move', 'default budgets')
    """
    parts = []
    if seconds is not None:
        parts.append(f"{seconds:g} s/move")
    if iterations is not None:
        parts.append(f"{iterations} iterations/move")
    if clock != "wall":
        parts.append(f"time counted on the {clock} clock")
    return ", ".join(parts) or "default budgets"


__all__ = [
    "RESULTS_FILE",
    "Progress",
    "ResultsFile",
    "Run",
    "budget_text",
    "check_options",
    "run_tasks",
    "sort_key",
    "speed",
]
