"""Runs the computer seats: notices when an AI must act, thinks off the event loop, submits.

The worker hears of changes through the event interface (:class:`tessera.server.events.Changed`)
and submits through the move pipeline (:meth:`MatchService.play`) like any client, with its
seat's token and the move number it thought about, so a move made stale by
an undo or a resignation meanwhile is simply refused.

A level's time covers the AI's **whole turn**: a multi-step turn (Nymbat,
Nibble, Nume's bidding) is planned step by step within one budget
(:func:`tessera.server.ai.think_step`), then played.  While it thinks the
worker reports its progress (elapsed time, steps chosen so far, the search's
depth or iterations) as :class:`tessera.server.events.Thinking` events; at a simultaneous
turn the chosen order itself is never reported.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import random
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from tessera.server.ai import LEVEL_SECONDS, think_step
from tessera.server.errors import ServiceError
from tessera.server.events import Changed, Event, Thinking
from tessera.server.service import MatchService

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
        self._turns: set[tuple[str, int]] = set()  # (game, player) whose turn is being planned or played
        service.events.subscribe(self.on_event)

    def on_event(self, event: Event) -> None:
        """A change made by this process may have put an AI seat to move: look (games without an AI
        seat are skipped)."""
        if isinstance(event, Changed) and event.local and event.ai:
            self.schedule(event.game_id)

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
                if key in self._inflight or (game_id, key[2]) in self._turns:
                    continue
                self._inflight.add(key)
                self._turns.add((game_id, key[2]))
            self._drivers.submit(self._run, job, key)

    def _budget(self, job: dict[str, Any]) -> float | None:
        """The server's cap on thinking time (None: the level's own), shortened to fit a clock."""
        seconds = self.seconds
        left = job.get("clock_left")
        if left is not None:
            base = seconds if seconds is not None else LEVEL_SECONDS.get(job["level"], 1.0)
            seconds = max(0.01, min(base, left / 20))
        return seconds

    MAX_STEPS = 500
    """A turn planned longer than this is played as far as planned (then the next scan goes on)."""

    def _run(self, job: dict[str, Any], key: tuple[str, int, int]) -> None:
        game_id, player = job["game_id"], job["player"]
        try:
            steps = self._plan(job)
            if self._closed:
                return
            expected = int(job["expected"])
            for i, move in enumerate(steps):
                try:
                    self.service.play(game_id, job["token"], move, expected + i)
                except ServiceError as e:
                    if e.status != 400:
                        return  # stale (undo, resignation, flag): the next scan decides
                    log.warning("AI move %r refused (%s); playing a random legal move", move, e.detail)
                    fallback = self.service.random_move(game_id, player, random.randrange(2**31))
                    self.service.play(game_id, job["token"], fallback, expected + i)
                    return
        except ServiceError:
            pass
        except Exception:
            log.exception("AI of game %s failed", game_id)
        finally:
            with self._lock:
                self._inflight.discard(key)
                self._turns.discard((game_id, player))
            self._report(game_id, None)
            if not self._closed:
                self.schedule(game_id)  # a turn played only in part, or the AI's next turn

    def _plan(self, job: dict[str, Any]) -> list[str]:
        """The AI's whole turn, step by step within the turn's budget; reports progress after each step."""
        level = int(job["level"])
        total = self._budget(job)
        if total is None:
            total = LEVEL_SECONDS.get(level, 1.0)
        player = int(job["player"])
        moves = [(int(p), str(m)) for p, m in job["moves"]]
        secret = bool(job.get("simultaneous"))
        started = time.perf_counter()
        steps: list[str] = []
        info: dict[str, Any] = {"player": player, "level": level, "budget": total, "elapsed": 0.0, "steps": []}
        self._report(job["game_id"], dict(info))
        pool = self._thinker()
        while len(steps) < self.MAX_STEPS and not self._closed:
            left = total - (time.perf_counter() - started)
            args = (job["spec"], job["seed"], moves, player, level, total, left, random.randrange(2**31))
            out = pool.submit(think_step, *args).result() if pool is not None else think_step(*args)
            steps.append(out["move"])
            moves.append((player, out["move"]))
            info.update(elapsed=round(time.perf_counter() - started, 3), stats=out["stats"])
            info["steps"] = [] if secret else list(steps)
            self._report(job["game_id"], dict(info))
            if not out["more"]:
                break
        return steps

    def _report(self, game_id: str, info: dict[str, Any] | None) -> None:
        self.service.events.publish(Thinking(game_id, info))  # a subscriber's failure is logged there

    def close(self) -> None:
        """Stop thinking; wait for the driver threads."""
        self._closed = True
        self._drivers.shutdown(wait=True, cancel_futures=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
