"""The walk of one move through the server, counted (docs/architecture.md, "One move").

Runs the web app in this process (uvicorn in a thread, SQLite in a temporary directory), plays a
hot-seat ``nume(size=3)`` game to its third move, then records every function of
``tessera/server`` that runs in the server's threads from the POST of one move (``"view": false``,
as the web client sends it) until the other seat's WebSocket has received the view of that move.
The game engine (``tessera/core``, ``tessera/games``), the libraries and this process's client
are left out; comprehensions and lambdas count as the interpreter runs them (as functions of
their module).  Prints the files, the functions in each, and the totals as JSON with ``--json``.

It uses only the HTTP and WebSocket API, so it runs unchanged on an older checkout of the
project, for a before/after count::

    python benchmarks/move_walk.py
    git worktree add /tmp/before <commit> && PYTHONPATH=/tmp/before python benchmarks/move_walk.py
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import connect


class Recorder:
    """A profile hook for the server's threads: the ``tessera/server`` functions called while on, and
    the file of each call in the order they were made (:attr:`trail`)."""

    def __init__(self, root: Path) -> None:
        self.prefix = str(root / "tessera" / "server") + os.sep
        self.on = False
        self.seen: dict[str, set[str]] = defaultdict(set)
        self.trail: list[str] = []

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not self.on:
            return
        code = frame.f_code
        if code.co_filename.startswith(self.prefix):
            name = code.co_filename[len(self.prefix) :]
            self.seen[name].add(code.co_qualname)
            self.trail.append(name)


def entries(trail: list[str]) -> dict[str, Any]:
    """How the walk moves between files: ``trail`` is the file of each call in order.  A call in the
    file of the call before it *stays*; a call in another file *enters* that file, and an entry into
    a file the walk had already entered and left is a *return*.  Gives ``{"entries": {file: n},
    "stays": n, "returns": n}``."""
    counts: dict[str, int] = defaultdict(int)
    stays = 0
    before: str | None = None
    for name in trail:
        if name == before:
            stays += 1
        else:
            counts[name] += 1
        before = name
    return {
        "entries": dict(sorted(counts.items())),
        "stays": stays,
        "returns": sum(n - 1 for n in counts.values()),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def first_move(view: dict[str, Any]) -> str:
    a = view["render"]["actions"][0]
    return str(a["move"] if "move" in a else a["template"].replace("{n}", str((a.get("choices") or [1])[0])))


def walk(moves_before: int = 2, trail: list[str] | None = None) -> dict[str, list[str]]:
    """The server functions one move runs, by file (see the module's text); ``trail``, if given, receives
    the file of each call in order (for :func:`entries`)."""
    import tessera
    from tessera.server import create_app  # the package's name for it, in every checkout

    root = Path(tessera.__file__).resolve().parent.parent
    rec = Recorder(root)
    tmp = tempfile.mkdtemp(prefix="tessera-walk-")
    app = create_app(f"sqlite:///{tmp}/walk.db", ai_mode="thread")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.setprofile(rec.hook)  # the server's threads, started from here on

    def run() -> None:
        sys.setprofile(rec.hook)
        server.run()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=300) as http:
        deadline = time.monotonic() + 60
        while True:
            try:
                if http.get("/api/catalog").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        g = http.post("/api/games", json={"game": "nume", "params": {"size": 3}, "mode": "hotseat"}).json()
        gid, tokens = g["id"], g["tokens"]

        def play(seat: int) -> dict[str, Any]:
            v = http.get(f"/api/games/{gid}", headers={"X-Seat-Token": tokens[str(seat)]}).json()
            body = {"token": tokens[str(seat)], "move": first_move(v), "expected": v["move_number"], "view": False}
            return dict(http.post(f"/api/games/{gid}/moves", json=body).json())

        ws_url = base.replace("http", "ws") + f"/api/games/{gid}/ws"
        seat_protocols: Any = ["tessera.seat", f"seat.{tokens['1']}"]  # the seat token: never in the URL
        with connect(ws_url, subprotocols=seat_protocols, open_timeout=300) as ws:
            json.loads(ws.recv(timeout=300))  # the first view
            for i in range(moves_before):  # warm: caches, first calls
                version = play(i % 2)["version"]
                while json.loads(ws.recv(timeout=300)).get("view", {}).get("version") != version:
                    pass
            seat = moves_before % 2
            v = http.get(f"/api/games/{gid}", headers={"X-Seat-Token": tokens[str(seat)]}).json()
            body = {"token": tokens[str(seat)], "move": first_move(v), "expected": v["move_number"], "view": False}
            time.sleep(1.0)  # presence messages and timers of the warm-up are done
            rec.on = True
            version = http.post(f"/api/games/{gid}/moves", json=body).json()["version"]
            while True:
                msg = json.loads(ws.recv(timeout=300))
                if msg.get("type") == "state" and msg["view"]["version"] == version:
                    break
            rec.on = False
    server.should_exit = True
    thread.join(timeout=10)
    threading.setprofile(None)
    if trail is not None:
        trail.extend(rec.trail)
    return {f: sorted(names) for f, names in sorted(rec.seen.items())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()
    trail: list[str] = []
    seen = walk(trail=trail)
    moves = entries(trail)
    total = sum(len(v) for v in seen.values())
    if args.json:
        print(json.dumps({"files": len(seen), "functions": total, **moves, "walk": seen}, indent=1))
        return
    for f, names in seen.items():
        print(f"{f} ({len(names)}, entered {moves['entries'].get(f, 0)}x): {', '.join(names)}")
    print(f"\n{len(seen)} server files, {total} server functions; {moves['stays']} stays, {moves['returns']} returns")


if __name__ == "__main__":
    main()
