"""The fair AI pool: every search (an AI seat's step, an analysis evaluation) runs here.

A pool of worker *processes* sized to the machine (``os.cpu_count()``, at least 2) takes jobs
from per-client queues in **round-robin** order, and a client never has more than
``per_client`` jobs running at once (its quota, AI seats and analysis together), so one
client's games cannot delay another's: with 2 processes and a quota of 1, a client that
floods the server with level-5 games holds one process, and everybody else shares the other.
Analysis evaluations have their own quota on top (``analysis_slots`` running at once, and at
most ``queue_cap`` waiting per client, refused beyond: :class:`PoolBusy`).

A "client" is a string the caller chooses: the account when a request carries one, else the
address.  ``mode="thread"`` runs the same scheduling on threads (tests, ``--ai-threads``).

A search that runs past its budget plus :data:`GRACE` seconds is stopped (process mode): a
watchdog kills the worker processes, its future fails with :class:`SearchTimeout` (the caller
tells its client), the other searches that were running are started again on fresh processes,
and the pool goes on.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import CancelledError, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from tessera.server.ai.orphans import watch_parent

log = logging.getLogger("tessera.server.ai.thinking")

AI = "ai"
ANALYSIS = "analysis"


class PoolBusy(Exception):
    """A client already has as many jobs waiting as it may (``retry_after`` seconds)."""

    def __init__(self, detail: str, retry_after: float) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after


class SearchTimeout(Exception):
    """A search ran past its budget plus the grace and was stopped (its worker process killed)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


GRACE = 10.0
"""Seconds a search may run past its budget before it is stopped (``TESSERA_AI_GRACE``): a fresh
worker process spends a few seconds loading the compiled kernels before its first search."""

DEFAULT_BUDGET = {AI: 10.0, ANALYSIS: 10.0}
"""A job's budget when the caller gives none (the longest level's time; the longest evaluation)."""


@dataclass(eq=False)
class _Job:
    client: str
    kind: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: Future[Any]
    budget: float | None = None
    queued: float = field(default_factory=time.monotonic)
    started: float = 0.0
    inner: Future[Any] | None = None
    """The executor's future of the current run (replaced when the job is started again)."""
    executor: Executor | None = None
    """The executor of the current run."""


def warm_process() -> None:
    """Run in each worker process at start: import the agents and every game module, load the endgame solvers."""
    import tessera

    with contextlib.suppress(ImportError):  # without the agents the AI plays random moves
        import tessera.agents
    for name in tessera.list_games():
        tessera.load_game(name)
    with contextlib.suppress(ImportError):
        from tessera.agents.endgame import warm_solvers

        warm_solvers()  # a level's first solve would otherwise spend its share loading the solver
    time.sleep(0.2)  # hold this process a moment, so the other warm-ups reach the other processes


def default_size() -> int:
    """Worker processes for this machine: one per core, at least 2 (``TESSERA_AI_PROCESSES``)."""
    given = os.environ.get("TESSERA_AI_PROCESSES")
    if given:
        return max(1, int(given))
    return max(2, os.cpu_count() or 2)


class FairPool:
    """Round-robin across clients, ``per_client`` running jobs per client, ``analysis_slots`` for analysis."""

    def __init__(
        self,
        *,
        mode: str = "process",
        size: int | None = None,
        per_client: int = 1,
        analysis_slots: int | None = None,
        queue_cap: int = 4,
        grace: float | None = None,
    ) -> None:
        if mode not in ("process", "thread"):
            raise ValueError(f"AI pool mode {mode!r} is not accepted: expected 'process' or 'thread'")
        self.mode = mode
        self.size = size or default_size()
        self.per_client = max(1, per_client)
        self.analysis_slots = analysis_slots if analysis_slots is not None else max(1, self.size // 2)
        self.queue_cap = queue_cap
        self.grace = grace if grace is not None else float(os.environ.get("TESSERA_AI_GRACE") or GRACE)
        self._active: set[_Job] = set()  # jobs running in the executor
        self._watchdog: threading.Thread | None = None
        self.stopped = 0
        """Searches stopped for running past their budget."""
        self._queues: dict[str, deque[_Job]] = {}
        self._order: deque[str] = deque()  # clients with waiting jobs, in round-robin order
        self._running: dict[str, int] = {}
        self._running_kind: dict[str, int] = {AI: 0, ANALYSIS: 0}
        self._busy = 0
        self._lock = threading.Lock()
        self._executor: Executor | None = None
        self._closed = False
        self.on_wait: Callable[[float], Any] | None = None
        """Told each job's wait in the queue (seconds): the metrics' histogram."""

    # -- the executor ------------------------------------------------------------------------
    def _exec(self) -> Executor:
        if self._executor is None:
            if self.mode == "thread":
                self._executor = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="tessera-search")
            else:
                ctx = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(
                    max_workers=self.size,
                    mp_context=ctx,
                    initializer=watch_parent,  # no worker outlives a killed server (tessera.server.ai.orphans)
                    initargs=(os.getpid(),),
                )
        return self._executor

    def warm(self) -> None:
        """Start the worker processes now and load the agents in each (a first search in a cold process
        would otherwise spend seconds importing and loading compiled kernels)."""
        with self._lock:
            if self.mode != "process" or self._closed:  # (the warm-up may end after the server stopped)
                return
            ex = self._exec()
        for _ in range(self.size):
            with contextlib.suppress(RuntimeError):  # closed meanwhile
                ex.submit(warm_process)

    # -- submitting ----------------------------------------------------------------------------
    def submit(
        self, client: str, kind: str, fn: Callable[..., Any], *args: Any, budget: float | None = None
    ) -> Future[Any]:
        """Queue ``fn(*args)`` for ``client``; the future holds its result.  Analysis beyond the
        client's queue cap is refused (:class:`PoolBusy`).  ``budget``: the seconds the search may
        take (default :data:`DEFAULT_BUDGET`); past it and the grace it is stopped (:class:`SearchTimeout`)."""
        fut: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the AI pool is closed")
            q = self._queues.setdefault(client, deque())
            if kind == ANALYSIS and sum(1 for j in q if j.kind == ANALYSIS) >= self.queue_cap:
                raise PoolBusy(
                    f"too many evaluations waiting: at most {self.queue_cap} per client; try again shortly",
                    retry_after=2.0,
                )
            q.append(_Job(client, kind, fn, args, fut, budget))
            if client not in self._order:
                self._order.append(client)
            ready = self._pick()
        self._start(ready)
        return fut

    def queued(self) -> int:
        """Jobs waiting for a process."""
        with self._lock:
            return sum(len(q) for q in self._queues.values())

    def running(self) -> int:
        """Jobs running now."""
        return self._busy

    def _eligible(self, job: _Job) -> bool:
        if self._running.get(job.client, 0) >= self.per_client:
            return False
        return not (job.kind == ANALYSIS and self._running_kind[ANALYSIS] >= self.analysis_slots)

    def _pick(self) -> list[_Job]:
        """Jobs to start now (under the lock): the next eligible client in turn, while a process is free."""
        out: list[_Job] = []
        while self._busy < self.size and self._order:
            for _ in range(len(self._order)):
                client = self._order[0]
                self._order.rotate(-1)
                q = self._queues[client]
                job = next((j for j in q if self._eligible(j)), None)
                if job is None:
                    continue
                q.remove(job)
                if not q:
                    del self._queues[client]
                    self._order.remove(client)
                self._running[client] = self._running.get(client, 0) + 1
                self._running_kind[job.kind] += 1
                self._busy += 1
                out.append(job)
                break
            else:
                break  # every waiting client is at its quota
        return out

    def _start(self, jobs: list[_Job]) -> None:
        for job in jobs:
            if self.on_wait is not None:
                self.on_wait(time.monotonic() - job.queued)
            self._launch(job)

    def _launch(self, job: _Job) -> None:
        """Run ``job`` in the executor (a fresh one if the old one broke)."""
        job.started = time.monotonic()
        ex = self._exec()
        try:
            inner = ex.submit(job.fn, *job.args)
        except (RuntimeError, BrokenProcessPool) as e:
            self._broken(e, ex)
            ex = self._exec()
            inner = ex.submit(job.fn, *job.args)
        with self._lock:
            job.inner = inner
            job.executor = ex
            self._active.add(job)
        self._watch()
        inner.add_done_callback(functools.partial(self._done, job))

    def _broken(self, e: BaseException, executor: Executor | None) -> None:
        """A worker process of ``executor`` died (killed, out of memory): log it and start a fresh pool
        (unless that executor was already replaced)."""
        with self._lock:
            if executor is None or executor is not self._executor:
                return
            self._executor = None
        log.error("an AI worker process died (%s); starting a new pool", e)
        executor.shutdown(wait=False, cancel_futures=True)

    def _done(self, job: _Job, inner: Future[Any]) -> None:
        with self._lock:
            if inner is not job.inner:
                return  # a run stopped by the watchdog (the job failed, or runs again elsewhere)
            job.inner = None
            replaced = job.executor is not self._executor
        exc: BaseException | None = CancelledError() if inner.cancelled() else inner.exception()
        if isinstance(exc, BrokenProcessPool):
            if replaced and not self._closed:  # its processes were killed for another job: run it again
                self._launch(job)
                return
            self._broken(exc, job.executor)
        self._finish(job, inner.result() if exc is None else None, exc)

    def _finish(self, job: _Job, result: Any, exc: BaseException | None) -> None:
        """The job is over: free its slot, start the next ones, then settle its future."""
        with self._lock:
            self._active.discard(job)
            self._running[job.client] -= 1
            if not self._running[job.client]:
                del self._running[job.client]
            self._running_kind[job.kind] -= 1
            self._busy -= 1
            ready = [] if self._closed else self._pick()
        if exc is not None:
            job.future.set_exception(exc)
        else:
            job.future.set_result(result)
        self._start(ready)

    # -- stopping overlong searches ----------------------------------------------------------
    def _watch(self) -> None:
        """Start the watchdog thread (process mode: a thread cannot be stopped from outside)."""
        if self.mode != "process" or self._watchdog is not None:
            return
        self._watchdog = threading.Thread(target=self._patrol, name="tessera-ai-watchdog", daemon=True)
        self._watchdog.start()

    def _patrol(self) -> None:
        while not self._closed:
            time.sleep(0.1)
            self.stop_overdue()

    def stop_overdue(self) -> list[_Job]:
        """Stop the searches past their budget plus the grace: kill the worker processes, fail those
        jobs with :class:`SearchTimeout`, run the other running jobs again on fresh processes."""
        now = time.monotonic()
        with self._lock:
            late = [j for j in self._active if j.inner is not None and now - j.started > self._limit(j)]
            if not late:
                return []
            others = [j for j in self._active if j not in late and j.inner is not None]
            for j in (*late, *others):
                j.inner = None  # their runs in the old processes no longer count
            old, self._executor = self._executor, None
        self.stopped += len(late)
        for j in late:
            log.error(
                "an AI search (%s for %s) ran %.1f s, past its budget of %.1f s and the grace: stopping its process",
                j.kind,
                j.client,
                now - j.started,
                self._budget(j),
            )
        if old is not None:
            kill_processes(old)
        for j in others:
            self._launch(j)
        for j in late:
            what = "evaluation" if j.kind == ANALYSIS else "AI search"
            self._finish(
                j,
                None,
                SearchTimeout(f"the {what} ran past its time ({self._budget(j):g} s) and was stopped; try again"),
            )
        return late

    def _budget(self, job: _Job) -> float:
        return job.budget if job.budget is not None else DEFAULT_BUDGET.get(job.kind, 10.0)

    def _limit(self, job: _Job) -> float:
        return self._budget(job) + self.grace

    def close(self) -> None:
        """Refuse new jobs, cancel the waiting ones, stop the processes."""
        with self._lock:
            self._closed = True
            waiting = [j for q in self._queues.values() for j in q]
            self._queues.clear()
            self._order.clear()
        for j in waiting:
            j.future.cancel()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


def kill_processes(executor: Executor) -> None:
    """Kill a process pool's worker processes (SIGKILL) and let it go."""
    procs = list((getattr(executor, "_processes", None) or {}).values())
    for p in procs:
        with contextlib.suppress(Exception):
            p.kill()
    executor.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(5)
