"""Runs the computer seats: notices when an AI must act, thinks off the event loop, submits.

The AI submits through :meth:`MatchService.play` like any client, with its
seat's token and the move number it thought about, so a move made stale by
an undo or a resignation meanwhile is simply refused.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import random
import threading
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from tessera.server.ai import LEVEL_SECONDS, think
from tessera.server.service import MatchService, ServiceError

log = logging.getLogger("tessera.server.ai")


class AIWorker:
    """Schedules AI moves; ``mode="process"`` thinks in a worker process, ``"thread"`` in a thread."""

    def __init__(self, service: MatchService, *, mode: str = "process", seconds: float | None = None) -> None:
        if mode not in ("process", "thread"):
            raise ValueError(f"AI worker mode {mode!r} is not accepted: expected 'process' or 'thread'")
        self.service = service
        self.seconds = seconds
        self.mode = mode
        self._pool: Executor | None = None
        self._drivers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tessera-ai")
        self._inflight: set[tuple[str, int, int]] = set()
        self._lock = threading.Lock()
        self._closed = False

    def _thinker(self) -> Executor | None:
        if self.mode == "thread":
            return None
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    def schedule(self, game_id: str) -> None:
        """Look whether an AI seat of ``game_id`` must act, and start it thinking."""
        if not self._closed:
            with contextlib.suppress(RuntimeError):  # shutting down
                self._drivers.submit(self._scan, game_id)

    def _scan(self, game_id: str) -> None:
        try:
            jobs = self.service.ai_jobs(game_id)
        except Exception:  # the game vanished or the database is down: nothing to do
            log.exception("AI scan of game %s failed", game_id)
            return
        for job in jobs:
            key = (game_id, int(job["expected"]), int(job["player"]))
            with self._lock:
                if key in self._inflight:
                    continue
                self._inflight.add(key)
            self._drivers.submit(self._run, job, key)

    def _budget(self, job: dict[str, Any]) -> float | None:
        """The server's cap on thinking time (None: the level's own), shortened to fit a clock."""
        seconds = self.seconds
        left = job.get("clock_left")
        if left is not None:
            base = seconds if seconds is not None else LEVEL_SECONDS.get(job["level"], 1.0)
            seconds = max(0.01, min(base, left / 20))
        return seconds

    def _run(self, job: dict[str, Any], key: tuple[str, int, int]) -> None:
        try:
            rng_seed = random.randrange(2**31)
            args = (job["spec"], job["seed"], job["moves"], job["player"], job["level"], self._budget(job), rng_seed)
            pool = self._thinker()
            move = pool.submit(think, *args).result() if pool is not None else think(*args)
            if self._closed:
                return
            try:
                self.service.play(job["game_id"], job["token"], move, job["expected"])
            except ServiceError as e:
                if e.status != 400:
                    return  # stale (undo, resignation, flag): the next scan decides
                log.warning("AI move %r refused (%s); playing a random legal move", move, e.detail)
                fallback = self.service.random_move(job["game_id"], job["player"], rng_seed)
                self.service.play(job["game_id"], job["token"], fallback, job["expected"])
        except ServiceError:
            pass
        except Exception:
            log.exception("AI of game %s failed", job["game_id"])
        finally:
            with self._lock:
                self._inflight.discard(key)

    def close(self) -> None:
        """Stop thinking; wait for the driver threads."""
        self._closed = True
        self._drivers.shutdown(wait=True, cancel_futures=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
