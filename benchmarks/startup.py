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

``--cold`` (issue 39): the first game of a fresh checkout, as README command 1 makes it.  An empty
numba cache (a fresh ``NUMBA_CACHE_DIR``), then what ``scripts/serve.py`` runs before it prints the
address (``python -m tessera.server.ai.warmup``: wall and CPU seconds), then, for each game, a new
server on a new database: from the moment it answers (its address is printed) to the **first AI
move** of a new game against the AI (level 2; the AI has the first move), wall seconds and the CPU
seconds of the server and its AI processes.  Target: 5 s.  ``--no-prepare`` skips the preparation
(the server compiles as it goes: the figure before issue 39).

    python benchmarks/startup.py --cold
    python benchmarks/startup.py --cold --no-prepare --games nume
    python benchmarks/startup.py --cold --reuse-cache   # serve.py run again: the cache is there
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


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its living descendants (the server and its AI processes)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += cpu_seconds(p)
        except (OSError, IndexError, ValueError):
            continue
        todo += children.get(p, [])
    return total


def first_ai_move(game: str, env: dict[str, str], limit: float = 300) -> dict[str, float]:
    """A new server on a new database; from its first answer to the AI's first move of a new game of
    ``game`` against level 2 (the person sits in seat 1): wall seconds and the CPU seconds used by then."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", f"sqlite:///{tmp}/cold.db"]
        proc = subprocess.Popen(
            [*cmd, "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        spawned = time.monotonic()
        try:
            with httpx.Client(timeout=limit) as client:
                while True:  # the address is printed when the server answers
                    if proc.poll() is not None:
                        raise RuntimeError("the server exited")
                    try:
                        client.get(base + "/api/status", timeout=2)
                        break
                    except httpx.HTTPError:
                        time.sleep(0.02)
                url_at = time.monotonic()
                cpu_at_url = tree_cpu(proc.pid)
                made = client.post(
                    base + "/api/games", json={"game": game, "mode": "ai", "seat": 1, "ai_level": 2}
                ).json()
                gid = made["id"]
                while True:
                    view = client.get(f"{base}/api/games/{gid}").json()
                    sealed = view.get("sealed") or []  # a simultaneous turn: the AI's order sealed
                    if view["move_number"] >= 1 or (sealed and sealed[0]):
                        break
                    if time.monotonic() - url_at > limit:
                        raise RuntimeError(f"{game}: no AI move in {limit} s")
                    time.sleep(0.02)
                done = time.monotonic()
                return {
                    "server_start": round(url_at - spawned, 3),
                    "first_ai_move": round(done - url_at, 3),
                    "cpu_to_first_ai_move": round(tree_cpu(proc.pid) - cpu_at_url, 3),
                }
        finally:
            stop(proc)


def cold(games: list[str], prepare: bool, fresh: bool = True) -> dict[str, Any]:
    """The ``--cold`` benchmark: an empty numba cache (``fresh``; else the checkout's own cache, as a
    second run of serve.py finds it), the install's preparation, then each game's first AI move."""
    import resource

    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPATH": str(TREE)}
        if fresh:
            env["NUMBA_CACHE_DIR"] = cache
        else:
            env.pop("NUMBA_CACHE_DIR", None)
        out: dict[str, Any] = {"target_seconds": 5.0, "prepared": prepare, "fresh_cache": fresh, "games": {}}
        if prepare:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            subprocess.run([sys.executable, "-m", "tessera.server.ai.warmup"], env=env, check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            out["prepare_wall"] = round(time.monotonic() - t0, 2)
            out["prepare_cpu"] = round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2)
        for game in games:
            out["games"][game] = first_ai_move(game, env)
            print(game, out["games"][game], file=sys.stderr, flush=True)
        out["worst_first_ai_move"] = max(g["first_ai_move"] for g in out["games"].values())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="the first game of a fresh checkout (see above)")
    ap.add_argument("--no-prepare", action="store_true", help="--cold without the install's preparation")
    ap.add_argument(
        "--reuse-cache", action="store_true", help="--cold on the checkout's own numba cache (a later run of serve.py)"
    )
    ap.add_argument("--games", nargs="*", default=None, help="--cold: the games (default all)")
    ap.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument(
        "--compare",
        type=Path,
        default=None,
        help="another checkout's root: its server is started in turn with this one's",
    )
    args = ap.parse_args()
    if args.cold:
        import tessera

        print(json.dumps(cold(args.games or tessera.list_games(), not args.no_prepare, not args.reuse_cache), indent=2))
        return
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
