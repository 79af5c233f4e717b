"""Start-up benchmark of ``tessera serve`` (issue 29): how long after the process starts does it answer?

Prepares an SQLite database with one hot-seat game per game type (made by a first server, so
numba's on-disk caches are warm: the case of a restart), then starts ``tessera serve`` again
``--runs`` times and, from the moment the process is spawned, polls as fast as it can:

- ``catalog``: ``GET /api/catalog``
- ``lobby``: ``GET /api/games``
- ``view``: ``GET /api/games/{id}`` of the stored Nume game (loads it, replays its moves)
- ``move``: ``POST /api/games/{id}/moves`` on that game (a game type whose kernels are cached)
- ``ready``: ``GET /api/status`` says every game is warm

and prints, as JSON, the median seconds to each first answer (target: catalogue, lobby, view
and move within 2 s of the process starting), with the CPU seconds the server process spent
until then.  Each server is stopped after it is ready.

The CPU seconds are the steadier figure on a shared machine: the wall-clock ones grow with
whatever else the cores are doing.  ``--compare PATH`` starts another checkout's server (on its
own SQLite file) in turn with this one's, for an A/B in one run.

    python benchmarks/startup.py --runs 3
    python benchmarks/startup.py --runs 5 --compare ../main   # this tree against another checkout
    python benchmarks/startup.py --db postgres  # a throwaway PostgreSQL cluster (tests/server/pg.py)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROBES = ("catalog", "lobby", "view", "move", "ready")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TREE = ROOT
"""The source tree whose server is started (``--tree``: compare two checkouts)."""


def spawn(url: str, port: int, tree: Path | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(tree or TREE)}
    cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", url, "--log-level", "warning"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_ready(base: str, proc: subprocess.Popen[bytes], limit: float = 180) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            if httpx.get(base + "/api/status", timeout=2).json().get("ready"):
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.2)
    raise RuntimeError("the server was not ready in time")


def prepare(url: str, tree: Path | None = None) -> dict[str, Any]:
    """A first server: compiles (or loads) every kernel and stores a Nume game with a few moves."""
    port = free_port()
    proc = spawn(url, port, tree)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, proc)
        made = httpx.post(base + "/api/games", json={"game": "nume", "params": {"size": 3}}, timeout=30).json()
        gid, tokens = made["id"], made["tokens"]
        with httpx.Client(timeout=30) as client:
            for _ in range(2):
                assert play_one(client, base, gid, tokens), "the first server refused a move"
        return {"id": gid, "tokens": tokens}
    finally:
        stop(proc)


def first_move(view: dict[str, Any]) -> str:
    a = view["render"]["actions"][0]
    return str(a["move"] if "move" in a else a["template"].replace("{n}", "1"))


def one_run(url: str, game: dict[str, Any], tree: Path | None = None) -> dict[str, float]:
    """Seconds from spawning the server to each probe's first answer (and CPU seconds used by then)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    gid = game["id"]
    started = time.monotonic()
    proc = spawn(url, port, tree)
    got: dict[str, float] = {}
    client = httpx.Client(timeout=30)
    try:
        while any(p not in got for p in PROBES):
            if proc.poll() is not None:
                raise RuntimeError("the server exited")
            for probe in PROBES:
                if probe in got:
                    continue
                try:
                    ok = answer(client, base, probe, gid, game["tokens"])
                except httpx.HTTPError:
                    ok = False
                if ok:
                    got[probe] = time.monotonic() - started
                    got[probe + "_cpu"] = cpu_seconds(proc.pid)
            time.sleep(0.01)
            if time.monotonic() - started > 180:
                raise RuntimeError(f"no answer in 180 s: {sorted(got)}")
    finally:
        client.close()
        stop(proc)
    return got


def answer(client: httpx.Client, base: str, probe: str, gid: str, tokens: dict[str, str]) -> bool:
    if probe == "catalog":
        return client.get(base + "/api/catalog").status_code == 200
    if probe == "lobby":
        return client.get(base + "/api/games").status_code == 200
    if probe == "view":
        return client.get(f"{base}/api/games/{gid}").status_code == 200
    if probe == "ready":
        r = client.get(base + "/api/status")
        return r.status_code == 200 and bool(r.json().get("ready"))
    return play_one(client, base, gid, tokens)


def play_one(client: httpx.Client, base: str, gid: str, tokens: dict[str, str]) -> bool:
    """A legal move of the seat to move (True when it was accepted)."""
    view = client.get(f"{base}/api/games/{gid}")
    if view.status_code != 200:
        return False
    token = tokens[str(view.json()["to_move"])]
    seen = client.get(f"{base}/api/games/{gid}", headers={"X-Seat-Token": token})
    if seen.status_code != 200:
        return False
    v = seen.json()
    r = client.post(
        f"{base}/api/games/{gid}/moves", json={"token": token, "move": first_move(v), "expected": v["move_number"]}
    )
    return r.status_code == 200


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument(
        "--compare",
        type=Path,
        default=None,
        help="another checkout's root: its server is started in turn with this one's",
    )
    args = ap.parse_args()
    with contextlib.ExitStack() as stack:
        if args.db == "postgres":
            from tests.server.pg import postgres_cluster

            url = stack.enter_context(postgres_cluster())
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
            url = f"sqlite:///{tmp}/startup.db"
        game = prepare(url)
        if args.compare is not None:  # the other tree on its own database (its schema may differ)
            other_url = f"sqlite:///{stack.enter_context(tempfile.TemporaryDirectory())}/other.db"
            other_game = prepare(other_url, args.compare)
        runs, other = [], []
        for _ in range(args.runs):  # interleaved, so both sides see the same load on the machine
            runs.append(one_run(url, game))
            if args.compare is not None:
                other.append(one_run(other_url, other_game, args.compare))
    out: dict[str, Any] = {"db": args.db, "runs": len(runs), "target_seconds": 2.0}
    for key in runs[0]:
        out[key] = round(statistics.median(r[key] for r in runs), 3)
    if other:
        out["compare"] = {key: round(statistics.median(r[key] for r in other), 3) for key in other[0]}
        out["compare_tree"] = str(args.compare)
    out["all"] = runs
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
