"""Prometheus metrics (``GET /metrics``), when the server is started with them (``--metrics`` or
``TESSERA_METRICS=1``; needs ``prometheus-client``, in the server extra).

=================================  =========================================================
``tessera_requests_total``         HTTP requests by route, method and status
``tessera_request_seconds``        their duration (histogram)
``tessera_errors_total``           answers 5xx by route (storage unavailable: 503)
``tessera_moves_total``            moves accepted over HTTP
``tessera_ai_queue``               AI searches waiting for a worker process
``tessera_ai_running``             AI searches running
``tessera_ai_wait_seconds``        how long searches waited for a process (histogram)
``tessera_sockets``                open game WebSockets
``tessera_processes``              server processes counted (``--workers``: all of them)
=================================  =========================================================

Each app has its own registry (several apps in one test process do not collide).

With several server processes (``tessera serve --workers N --metrics``) every process writes its
figures to files in ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode; ``serve``
makes the directory) and ``/metrics``, whichever process answers, reports the whole server:
counters and histograms summed over the processes, the gauges the sum of the live processes'
values (each process refreshes its own every second).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class Metrics:
    """The app's collectors, and the ASGI middleware that counts requests."""

    REFRESH = 1.0
    """Seconds between two refreshes of this process's gauges (multiprocess mode)."""

    def __init__(self, pool: Any, hub: Any) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.shared = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None
        """The multiprocess directory (None: this process alone)."""
        self.registry = CollectorRegistry()
        r = self.registry
        live: dict[str, Any] = {"multiprocess_mode": "livesum"} if self.shared else {}
        self.requests = Counter("tessera_requests", "HTTP requests", ["route", "method", "status"], registry=r)
        self.seconds = Histogram("tessera_request_seconds", "HTTP request duration", ["route"], registry=r)
        self.errors = Counter("tessera_errors", "HTTP answers 5xx", ["route", "status"], registry=r)
        self.moves = Counter("tessera_moves", "moves accepted over HTTP", registry=r)
        queue = Gauge("tessera_ai_queue", "AI searches waiting for a worker process", registry=r, **live)
        running = Gauge("tessera_ai_running", "AI searches running", registry=r, **live)
        self.ai_wait = Histogram(
            "tessera_ai_wait_seconds",
            "time AI searches waited for a process",
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
            registry=r,
        )
        pool.on_wait = self.ai_wait.observe
        sockets = Gauge("tessera_sockets", "open game WebSockets", registry=r, **live)
        processes = Gauge("tessera_processes", "server processes", registry=r, **live)
        processes.set(1)
        figures = {
            queue: lambda: float(pool.queued()),
            running: lambda: float(pool.running()),
            sockets: lambda: float(sum(len(c) for c in hub.games.values())),
        }
        if not self.shared:
            for gauge, read in figures.items():
                gauge.set_function(read)
            return
        self._figures = figures
        threading.Thread(target=self._refresh, name="tessera-metrics", daemon=True).start()
        atexit.register(_dead, os.getpid())

    def _refresh(self) -> None:
        """Write this process's gauges to the shared files, every :attr:`REFRESH` seconds."""
        while True:
            for gauge, read in self._figures.items():
                with contextlib.suppress(Exception):  # a figure that cannot be read now: at the next refresh
                    gauge.set(read())
            time.sleep(self.REFRESH)

    def render(self) -> bytes:
        """The metrics in Prometheus's text format."""
        from prometheus_client import CollectorRegistry, generate_latest

        if not self.shared:
            return bytes(generate_latest(self.registry))
        from prometheus_client.multiprocess import MultiProcessCollector

        whole = CollectorRegistry()
        MultiProcessCollector(whole, self.shared)
        return bytes(generate_latest(whole))


def _dead(pid: int) -> None:
    """A process that ends leaves the live gauges (its counters stay in the sums)."""
    from prometheus_client import multiprocess

    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        multiprocess.mark_process_dead(pid, directory)


class MetricsMiddleware:
    """Counts each HTTP request by its route's template (``/api/games/{game_id}``), not its path."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def seen(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, seen)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            m = self.metrics
            m.requests.labels(route, scope.get("method", ""), str(status)).inc()
            m.seconds.labels(route).observe(time.perf_counter() - started)
            if status >= 500:
                m.errors.labels(route, str(status)).inc()
            if status == 200 and route == "/api/games/{game_id}/moves":
                m.moves.inc()
