"""An arena of many accounts through two real server processes on PostgreSQL, with ``kill -9``.

Two ``tessera serve`` processes share a throwaway PostgreSQL cluster (tests/server/pg.py). ``--players``
accounts sign up (on either process), make a ``play`` token each and join one arena of
``--minutes``. Every ``--step`` seconds the driver reads the tournament from one process and ends
each running game quickly: one seat, drawn at random, resigns with its token on a process drawn at
random (a "quick game"). Halfway through, the second process is killed with ``kill -9`` and a new
one started on the same database. At the end it checks, from the database and from both processes:

- **identical standings**: ``GET /api/tournaments/{id}`` answers the same standings and pairings on
  both processes;
- **no result lost**: every game that ended before the arena's end is recorded (``done``) with the
  places of its stored result, and no pairing is left ``creating``;
- **no one paired twice**: no account is in two pairings whose times overlap.

It prints one JSON object: the figures (games, waves, pairings per second, the latency of reading
the tournament, the checks). A reduced run fits the shared development machine::

    python benchmarks/tournament_load.py --players 40 --minutes 2
    python benchmarks/tournament_load.py --players 200 --minutes 5   # the full run
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PASSWORD = "correct horse battery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One ``tessera serve`` process on the database."""

    def __init__(self, url: str, wave: float) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONPATH": path, "TESSERA_TOURNAMENT_WAVE": str(wave)}
        env.update({"TESSERA_SIGNUPS_PER_ADDRESS": "100000", "TESSERA_SEEK_WAVE": "3600"})
        env.update({f"TESSERA_RATE_{k}": "0" for k in ("CREATE", "MOVE", "ANALYSIS", "IMPORT")})
        cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(self.port), "--db", url, "--ai-threads"]
        cmd += ["--max-connections-per-address", "0"]
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=self.log)

    def wait(self) -> None:
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"the server exited: {self.log.read()[-2000:].decode(errors='replace')}")
            try:
                if httpx.get(self.base + "/api/catalog", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError("the server did not start")

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def sign_up(base: str, name: str) -> str:
    """A new account and a ``play`` token of it."""
    with httpx.Client(base_url=base, headers={"Origin": base}, timeout=60) as c:
        r = c.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        r.raise_for_status()
        r = c.post("/api/account/tokens", json={"scopes": ["play"]})
        r.raise_for_status()
        return str(r.json()["token"])


def run(args: argparse.Namespace, url: str) -> dict[str, Any]:
    rng = random.Random(args.seed)
    servers = [Server(url, args.wave), Server(url, args.wave)]
    out: dict[str, Any] = {"players": args.players, "minutes": args.minutes, "wave_seconds": args.wave}
    try:
        for s in servers:
            s.wait()
        t0 = time.time()
        names = [f"p{i:03d}" for i in range(args.players)]
        with ThreadPoolExecutor(8) as pool:
            tokens = dict(zip(names, pool.map(lambda n: sign_up(servers[int(n[1:]) % 2].base, n), names), strict=True))
        out["signup_seconds"] = round(time.time() - t0, 1)
        auth = {n: {"Authorization": f"Bearer {tok}"} for n, tok in tokens.items()}
        body = {
            "kind": "arena",
            "game": args.game,
            "clock": {"initial": 60, "increment": 0},
            "minutes": args.minutes,
            "rated": True,
            "name": "Load arena",
        }
        r = httpx.post(servers[0].base + "/api/tournaments", json=body, headers=auth[names[0]], timeout=30)
        r.raise_for_status()
        tid = r.json()["id"]
        ends = r.json()["ends_at"]
        with ThreadPoolExecutor(8) as pool:
            list(
                pool.map(
                    lambda n: httpx.post(
                        servers[rng.randrange(2)].base + f"/api/tournaments/{tid}/join", headers=auth[n], timeout=30
                    ).raise_for_status(),
                    names,
                )
            )
        killed = False
        reads: list[float] = []
        resigned: dict[str, float] = {}
        failures = 0
        client = httpx.Client(timeout=30)
        while time.time() < ends + 2 * args.wave + 3:
            if not killed and time.time() >= ends - 60 * args.minutes / 2:
                servers[1].kill9()
                out["killed_at_seconds_into_arena"] = round(time.time() - (ends - 60 * args.minutes), 1)
                servers[1] = Server(url, args.wave)
                servers[1].wait()
                killed = True
            base = servers[rng.randrange(2)].base
            a = time.perf_counter()
            try:
                v = client.get(base + f"/api/tournaments/{tid}").json()
            except httpx.HTTPError:
                failures += 1
                time.sleep(args.step)
                continue
            reads.append(time.perf_counter() - a)
            if v["status"] == "finished":
                break
            running = [p for p in v["pairings"] if p["status"] == "playing" and p["game_id"] not in resigned]

            def resign(p: dict[str, Any]) -> None:
                nonlocal failures
                who = rng.choice(p["players"])
                target = servers[rng.randrange(2)].base
                try:
                    r = client.post(target + f"/api/games/{p['game_id']}/resign", headers=auth[who])
                    if r.status_code == 200:
                        resigned[p["game_id"]] = time.time()
                except httpx.HTTPError:
                    failures += 1

            with ThreadPoolExecutor(8) as pool:
                list(pool.map(resign, running))
            time.sleep(args.step)
        out["finished"] = v["status"] == "finished"
        views = [client.get(s.base + f"/api/tournaments/{tid}").json() for s in servers]
        out["identical_standings"] = views[0]["standings"] == views[1]["standings"]
        out["identical_pairings"] = views[0]["pairings"] == views[1]["pairings"]
        out.update(check_database(url, tid, ends, resigned))
        out["games_resigned"] = len(resigned)
        out["request_failures"] = failures
        out["tournament_read_ms"] = {
            "median": round(1000 * statistics.median(reads), 1),
            "p95": round(1000 * sorted(reads)[int(0.95 * (len(reads) - 1))], 1),
            "n": len(reads),
        }
        out["points_total"] = sum(r["points"] for r in views[0]["standings"])
        out["top"] = [{k: r[k] for k in ("username", "points", "games", "wins")} for r in views[0]["standings"][:3]]
        client.close()
    finally:
        for s in servers:
            s.stop()
    return out


def check_database(url: str, tid: str, ends: float, resigned: dict[str, float]) -> dict[str, Any]:
    from tessera.server.store.storage import games_table
    from tessera.server.tournaments.places import places
    from tessera.server.tournaments.tables import tournament_pairings_table as tp

    engine = sa.create_engine(url)
    with engine.connect() as c:
        rows = (
            c.execute(
                sa.select(tp, games_table.c.status.label("game_status"), games_table.c.result.label("game_result"))
                .select_from(tp.outerjoin(games_table, games_table.c.id == tp.c.game_id))
                .where(tp.c.tournament_id == tid)
            )
            .mappings()
            .all()
        )
    engine.dispose()
    statuses: dict[str, int] = {}
    lost = wrong = 0
    spans: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        if r["game_status"] == "finished" and r["game_id"] in resigned and resigned[r["game_id"]] < ends - 1:
            if r["status"] != "done":
                lost += 1
            else:
                returns = json.loads(r["game_result"])["returns"]
                wrong += json.loads(r["result"]).get("places") != places(returns)
        if r["status"] in ("done", "unfinished", "playing"):
            for u in json.loads(r["users"]):
                spans.setdefault(u, []).append((r["created_at"], r["ended_at"] or float("inf")))
    twice = 0
    for s in spans.values():
        s.sort()
        busy_until = float("-inf")
        for start, end in s:  # a pairing that starts before an earlier one of the same player ended
            twice += start < busy_until
            busy_until = max(busy_until, end)
    return {
        "pairings": statuses,
        "results_lost": lost,
        "results_wrong": wrong,
        "paired_twice_at_once": twice,
        "left_creating": statuses.get("creating", 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--minutes", type=int, default=5)
    ap.add_argument("--game", default="nume(size=3)")
    ap.add_argument("--wave", type=float, default=1.0, help="seconds between the director's waves")
    ap.add_argument("--step", type=float, default=1.0, help="seconds between the driver's looks")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from tests.server.pg import postgres_cluster

    with postgres_cluster() as url:
        print(json.dumps(run(args, url), indent=1))


if __name__ == "__main__":
    main()
