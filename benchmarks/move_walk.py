"""The walk of one move through the server, counted (docs/architecture.md, "One move").

Runs the web app in this process (uvicorn in a thread, SQLite in a temporary directory), plays a
hot-seat ``nume(size=3)`` game to its third move, then records every function of
``tessera/server`` that runs in the server's threads from the POST of one move (``"view": false``,
as the web client sends it) until the other seat's WebSocket has received the view of that move.
The game engine (``tessera/core``, ``tessera/games``), the libraries and this process's client
are left out; comprehensions and lambdas count as the interpreter runs them (as functions of
their module).  Prints the files, the functions in each, and the totals as JSON with ``--json``;
the returns are told apart by kind (:func:`entries`): into a file still running below the call, into
a file first entered in another flow (the push to the viewers after the request), or to a file
left earlier in the same flow.

It uses only the HTTP and WebSocket API, so it runs unchanged on an older checkout of the
project, for a before/after count::

    python benchmarks/move_walk.py
    git worktree add /tmp/before <commit> && PYTHONPATH=/tmp/before python benchmarks/move_walk.py
"""

from __future__ import annotations

import argparse
import asyncio
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
    """A profile hook for the server's threads: the ``tessera/server`` functions called while on, the
    file of each call in the order they were made (:attr:`trail`), and for each call (:attr:`context`)
    the flow it runs in (the thread and its asyncio task: the request, or the push that follows it)
    and the server files that have a frame below it on the stack (still running)."""

    def __init__(self, root: Path) -> None:
        self.prefix = str(root / "tessera" / "server") + os.sep
        self.on = False
        self.seen: dict[str, set[str]] = defaultdict(set)
        self.trail: list[str] = []
        self.context: list[tuple[tuple[int, int], frozenset[str]]] = []

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not self.on:
            return
        code = frame.f_code
        if code.co_filename.startswith(self.prefix):
            name = code.co_filename[len(self.prefix) :]
            self.seen[name].add(code.co_qualname)
            self.trail.append(name)
            below = set()
            f = frame.f_back
            while f is not None:
                if f.f_code.co_filename.startswith(self.prefix):
                    below.add(f.f_code.co_filename[len(self.prefix) :])
                f = f.f_back
            try:
                task = id(asyncio.current_task())
            except RuntimeError:  # a worker thread: no event loop
                task = 0
            self.context.append(((threading.get_ident(), task), frozenset(below)))


def entries(trail: list[str], context: list[tuple[Any, frozenset[str]]] | None = None) -> dict[str, Any]:
    """How the walk moves between files: ``trail`` is the file of each call in order.  A call in the
    file of the call before it *stays*; a call in another file *enters* that file, and an entry into
    a file the walk had already entered and left is a *return*.  Gives ``{"entries": {file: n},
    "stays": n, "returns": n}``.

    With ``context`` (:attr:`Recorder.context`, one item per call) the returns are told apart in
    ``"returns_by_kind"``: ``"still running"`` (the file has a frame below the call: a driver calling
    its own next step after a helper elsewhere, a middleware's ``send`` wrapper), ``"another flow"``
    (the file's first entry in this thread and task: the push to the viewers, after the request,
    builds its views with the code the request used) and ``"left"`` (entered and left before in the
    same flow, with no frame of it on the stack: a return to a module it left), with the returns of
    the last kind listed in ``"left"``."""
    counts: dict[str, int] = defaultdict(int)
    stays = 0
    before: str | None = None
    kinds = {"still running": 0, "another flow": 0, "left": 0}
    left: list[str] = []
    flows: dict[Any, set[str]] = defaultdict(set)
    for i, name in enumerate(trail):
        if name == before:
            stays += 1
        else:
            counts[name] += 1
            if context is not None:
                flow, below = context[i]
                if counts[name] > 1:
                    if name in below:
                        kinds["still running"] += 1
                    elif name not in flows[flow]:
                        kinds["another flow"] += 1
                    else:
                        kinds["left"] += 1
                        left.append(name)
                flows[flow].add(name)
        before = name
    out: dict[str, Any] = {
        "entries": dict(sorted(counts.items())),
        "stays": stays,
        "returns": sum(n - 1 for n in counts.values()),
    }
    if context is not None:
        out["returns_by_kind"] = kinds
        out["left"] = left
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def first_move(view: dict[str, Any]) -> str:
    a = view["render"]["actions"][0]
    return str(a["move"] if "move" in a else a["template"].replace("{n}", str((a.get("choices") or [1])[0])))


def walk(
    moves_before: int = 2, trail: list[str] | None = None, context: list[tuple[Any, frozenset[str]]] | None = None
) -> dict[str, list[str]]:
    """The server functions one move runs, by file (see the module's text); ``trail``, if given, receives
    the file of each call in order, and ``context`` each call's flow and the files below it on the stack
    (for :func:`entries`)."""
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
    if context is not None:
        context.extend(rec.context)
    return {f: sorted(names) for f, names in sorted(rec.seen.items())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args()
    trail: list[str] = []
    context: list[tuple[Any, frozenset[str]]] = []
    seen = walk(trail=trail, context=context)
    moves = entries(trail, context)
    total = sum(len(v) for v in seen.values())
    if args.json:
        print(json.dumps({"files": len(seen), "functions": total, **moves, "walk": seen}, indent=1))
        return
    for f, names in seen.items():
        print(f"{f} ({len(names)}, entered {moves['entries'].get(f, 0)}x): {', '.join(names)}")
    kinds = ", ".join(f"{n} {kind}" for kind, n in moves["returns_by_kind"].items())
    print(
        f"\n{len(seen)} server files, {total} server functions; {moves['stays']} stays, {moves['returns']} returns"
        f" ({kinds}: {', '.join(moves['left']) or 'none'})"
    )


if __name__ == "__main__":
    main()
