"""Runs the computer seats: notices when an AI must act, thinks off the event loop, submits.

The worker hears of changes through the event interface (:class:`tessera.server.events.Changed`)
and submits through the move pipeline (:meth:`MatchService.play`) like any client, with its
seat's token and the move number it thought about, so a move made stale by
an undo or a resignation meanwhile is simply refused.

A level's time covers the AI's **whole turn**: a multi-step turn (Nymbat,
Nibble, Nume's bidding) is planned step by step within one budget
(:func:`tessera.server.ai.thinking.think_step`), then played.  While it thinks the
worker reports its progress (elapsed time, steps chosen so far, the search's
depth or iterations) as :class:`tessera.server.events.Thinking` events; at a simultaneous
turn the chosen order itself is never reported.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from tessera.server.ai.scheduler import AI, FairPool, SearchTimeout
from tessera.server.ai.thinking import LEVEL_SECONDS, think_step
from tessera.server.events import Changed, Event, Thinking
from tessera.server.http.errors import ServiceError
from tessera.server.http.logs import CONTEXT
from tessera.server.match.service import MatchService

log = logging.getLogger("tessera.server.ai.thinking")

_ACTING_FOR: contextvars.ContextVar[str | None] = contextvars.ContextVar("tessera_ai_client", default=None)


class AIWorker:
    """Schedules AI moves; each step of a turn is a job of the fair pool (tessera.server.ai.scheduler):
    ``mode="process"`` thinks in worker processes, ``"thread"`` in threads."""

    def __init__(
        self,
        service: MatchService,
        *,
        mode: str = "process",
        seconds: float | None = None,
        pool: FairPool | None = None,
    ) -> None:
        if mode not in ("process", "thread"):
            raise ValueError(f"AI worker mode {mode!r} is not accepted: expected 'process' or 'thread'")
        self.service = service
        self.seconds = seconds
        self.mode = mode
        self.pool = pool or FairPool(mode=mode)
        self._drivers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tessera-ai")
        self._inflight: set[tuple[str, int, int]] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._turns: set[tuple[str, int]] = set()  # (game, player) whose turn is being planned or played
        self._clients: dict[str, str] = {}
        self._waiting: dict[str, float] = {}  # game -> when its AI turn was queued (wall clock)
        service.events.subscribe(self.on_event, Changed, where={"local": True, "ai": True})

    MAX_CLIENTS = 100_000
    """Games whose client is remembered (the oldest are forgotten first: they count as their own client)."""

    def claim(self, game_id: str, client: str) -> None:
        """``game_id``'s AI turns count against ``client``'s quota (its creator or the player who moved)."""
        with self._lock:
            self._clients.pop(game_id, None)
            self._clients[game_id] = client
            while len(self._clients) > self.MAX_CLIENTS:
                del self._clients[next(iter(self._clients))]

    @contextlib.contextmanager
    def acting_for(self, client: str) -> Iterator[None]:
        """Games created in this block (in this thread) are charged to ``client`` from their first
        AI turn on (the turn is scheduled before the creating request learns the game's id)."""
        token = _ACTING_FOR.set(client)
        try:
            yield
        finally:
            _ACTING_FOR.reset(token)

    def client_of(self, game_id: str) -> str:
        """The client a game's AI turns are charged to (unknown: the game itself)."""
        return self._clients.get(game_id) or f"game:{game_id}"

    def waiting_since(self, game_id: str) -> float | None:
        """When (epoch seconds) an AI seat of ``game_id`` started waiting for its move, or None."""
        return self._waiting.get(game_id)

    def on_event(self, event: Event) -> None:
        """A change made by this process may have put an AI seat to move: look (games without an AI
        seat are skipped)."""
        if isinstance(event, Changed) and event.local and event.ai:
            # the AI's reply counts against the client whose request made the change (the player who
            # moved: the edge keeps the request's client in the log context) or created the game
            request = CONTEXT.get()
            client = _ACTING_FOR.get() or (request.get("client") if request else None)
            if client is not None:
                self.claim(event.game_id, client)
            if self._may_act(event.game_id):
                self.schedule(event.game_id)

    def _may_act(self, game_id: str) -> bool:
        """Whether an AI seat may have to act after a change made here: False if the game in memory
        (current after a change by this process) is over or has no AI seat, as after every move of
        a hot-seat game; then no scan is started.  A scan reloads the game in a thread of its own (a
        read of its stored version under the game's lock): for a game without an AI seat that was a
        database transaction per move, and a thread competing with the event loop for the
        interpreter lock, to learn nothing."""
        live = self.service.games.cached(game_id)
        if live is None:
            return True
        row = live.row
        return row.status == "active" and any(s.kind == "ai" for s in row.seats)

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
            self._begin(job, key)

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

    def _begin(self, job: dict[str, Any], key: tuple[str, int, int]) -> None:
        """Plan the AI's whole turn, step by step within the turn's budget, each step a pool job;
        reports progress after each step, then plays the turn (on a driver thread)."""
        level = int(job["level"])
        total = self._budget(job)
        if total is None:
            total = LEVEL_SECONDS.get(level, 1.0)
        plan: dict[str, Any] = {
            "job": job,
            "key": key,
            "total": total,
            "moves": [(int(p), str(m)) for p, m in job["moves"]],
            "steps": [],
            "started": time.perf_counter(),
            "info": {"player": int(job["player"]), "level": level, "budget": total, "elapsed": 0.0, "steps": []},
        }
        self._waiting.setdefault(job["game_id"], time.time())
        self._report(job["game_id"], {**plan["info"], "waiting": True})
        self._next_step(plan)

    def _next_step(self, plan: dict[str, Any]) -> None:
        job = plan["job"]
        left = plan["total"] - (time.perf_counter() - plan["started"])
        args: tuple[Any, ...] = (job["spec"], job["seed"], list(plan["moves"]), int(job["player"]), int(job["level"]))
        args += (plan["total"], left, random.randrange(2**31))
        try:
            fut = self.pool.submit(self.client_of(job["game_id"]), AI, think_step, *args, budget=max(left, 0.01))
        except RuntimeError:  # closing
            self._end(plan)
            return
        fut.add_done_callback(lambda f: self._stepped(plan, f))

    def _stepped(self, plan: dict[str, Any], fut: Future[Any]) -> None:
        job = plan["job"]
        self._waiting.pop(job["game_id"], None)
        if fut.cancelled() or self._closed:
            self._end(plan)
            return
        exc = fut.exception()
        if isinstance(exc, SearchTimeout):  # stopped: play what was planned, else a random legal move
            log.warning("AI of game %s: %s", job["game_id"], exc.detail)
            self._report(job["game_id"], {**plan["info"], "stopped": exc.detail})
            if not plan["steps"]:
                plan["steps"].append(self.service.random_move(job["game_id"], job["player"], random.randrange(2**31)))
            self._drivers.submit(self._play, plan)
            return
        if exc is not None:
            log.error("AI of game %s failed: %r", job["game_id"], exc)
            self._end(plan)
            return
        out = fut.result()
        steps: list[str] = plan["steps"]
        steps.append(out["move"])
        plan["moves"].append((int(job["player"]), out["move"]))
        info = plan["info"]
        info.update(elapsed=round(time.perf_counter() - plan["started"], 3), stats=out["stats"])
        info["steps"] = [] if job.get("simultaneous") else list(steps)
        self._report(job["game_id"], dict(info))
        if out["more"] and len(steps) < self.MAX_STEPS:
            self._next_step(plan)
            return
        try:
            self._drivers.submit(self._play, plan)
        except RuntimeError:
            self._end(plan)

    def _play(self, plan: dict[str, Any]) -> None:
        job = plan["job"]
        game_id, player = job["game_id"], job["player"]
        try:
            expected = int(job["expected"])
            for i, move in enumerate(plan["steps"]):
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
            self._end(plan)

    def _end(self, plan: dict[str, Any]) -> None:
        job, key = plan["job"], plan["key"]
        game_id = job["game_id"]
        with self._lock:
            self._inflight.discard(key)
            self._turns.discard((game_id, job["player"]))
        self._waiting.pop(game_id, None)
        self._report(game_id, None)
        if not self._closed:
            self.schedule(game_id)  # a turn played only in part, or the AI's next turn

    def _report(self, game_id: str, info: dict[str, Any] | None) -> None:
        self.service.events.publish(Thinking(game_id, info))  # a subscriber's failure is logged there

    def close(self) -> None:
        """Stop thinking; wait for the driver threads."""
        self._closed = True
        self.pool.close()
        self._drivers.shutdown(wait=True, cancel_futures=True)
