"""CPU time of the server's whole ASGI stack per request, middlewares included (docs/architecture.md).

Calls the app built by ``create_app`` directly as an ASGI application, in this process's event loop
(no socket, no HTTP parser), for two requests the stack handles end to end:

* ``GET /healthz`` — the smallest route (no storage): what remains is the middlewares and routing;
* ``POST /api/games/<id>/moves`` with a JSON body that is not a move — a move's path through the rate
  limit, the body's limits, the body read in the route and its refusal (422), without the storage
  or the game engine.

Prints CPU microseconds per request (``time.process_time``), the median of ``--rounds`` rounds.  It
uses only ``create_app`` and ASGI, so it runs unchanged on an older checkout; compare two checkouts
in the same run, interleaved::

    python benchmarks/edge_bench.py --baseline /tmp/before      # a worktree of the older commit
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

BODY = json.dumps({"moves": "a1", "token": "x" * 16, "expected": 3, "view": False}).encode()


def measure(requests: int, rounds: int) -> dict[str, list[float]]:
    """Microseconds of CPU per request, one value per round, for each kind of request."""
    from tessera.server import create_app

    tmp = tempfile.mkdtemp(prefix="tessera-edge-")
    app = create_app(f"sqlite:///{tmp}/edge.db", ai_mode="thread")
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    def scope(method: str, path: str, body: bytes) -> dict[str, Any]:
        headers = [(b"host", b"localhost"), (b"accept-encoding", b"gzip")]
        if body:
            headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 5000),
            "server": ("localhost", 80),
            "app": app,
        }

    async def one(method: str, path: str, body: bytes) -> int:
        done = False

        async def receive() -> dict[str, Any]:
            nonlocal done
            if done:
                await asyncio.sleep(3600)
            done = True
            return {"type": "http.request", "body": body, "more_body": False}

        sent.clear()
        await app(scope(method, path, body), receive, send)
        return int(sent[0]["status"])

    kinds = {"healthz": ("GET", "/healthz", b""), "move_422": ("POST", "/api/games/somegame/moves", BODY)}
    out: dict[str, list[float]] = {k: [] for k in kinds}

    async def run() -> None:
        lifespan_in: asyncio.Queue[Any] = asyncio.Queue()
        lifespan_out: asyncio.Queue[Any] = asyncio.Queue()

        async def lreceive() -> Any:
            return await lifespan_in.get()

        async def lsend(message: Any) -> None:
            await lifespan_out.put(message)

        life = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}}, lreceive, lsend))
        await lifespan_in.put({"type": "lifespan.startup"})
        await lifespan_out.get()
        for name, (method, path, body) in kinds.items():
            status = await one(method, path, body)
            assert status in (200, 422), (name, status)
        for _ in range(rounds):
            for name, (method, path, body) in kinds.items():
                for _ in range(requests // 10):
                    await one(method, path, body)
                t0 = time.process_time()
                for _ in range(requests):
                    await one(method, path, body)
                out[name].append((time.process_time() - t0) / requests * 1e6)
        await lifespan_in.put({"type": "lifespan.shutdown"})
        await lifespan_out.get()
        await life

    asyncio.run(run())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=2000, help="requests per kind per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", help="a checkout of an older commit, measured in turn with this one")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.requests, 1)))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sides = {"this": here} | ({"baseline": os.path.abspath(args.baseline)} if args.baseline else {})
    results: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    for _ in range(args.rounds):  # a fresh process per side and round, the sides interleaved
        for side, root in sides.items():
            env = {**os.environ, "PYTHONPATH": root, "TESSERA_RATE_MOVE": "0", "TESSERA_RATE_CREATE": "0"}
            cmd = [sys.executable, os.path.abspath(__file__), "--child", "--requests", str(args.requests)]
            got = json.loads(subprocess.run(cmd, env=env, cwd=root, check=True, capture_output=True, text=True).stdout)
            for k, v in got.items():
                results[side].setdefault(k, []).extend(v)
    summary = {s: {k: round(statistics.median(v), 1) for k, v in r.items()} for s, r in results.items()}
    if args.json:
        print(json.dumps({"median_us": summary, "rounds": results}, indent=1))
        return
    for side, r in summary.items():
        print(side, " ".join(f"{k} {v} µs" for k, v in r.items()), f"({args.rounds} rounds, CPU per request)")


if __name__ == "__main__":
    main()
