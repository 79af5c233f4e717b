"""Load benchmark of ``tessera serve`` (issue 14): its own bounded client on 127.0.0.1, prints JSON.

Two scenarios, each against a fresh server started here (SQLite file, or a throwaway
PostgreSQL cluster with ``--db postgres``; ``--workers N`` starts N server processes on the
same database, and the client spreads games and viewers over them round-robin):

``saturate``
    ``--games`` (20) hot-seat games of ``--game`` (``nume(size=8)``: 216 cells), each with a
    move always in flight (random legal moves, from a replica of the position kept by the
    client), for ``--seconds`` with every move answered by the mover's new view (the API's
    default), as long with moves answered by their acknowledgement and the change of the
    mover's view (``"change": true``, what the web client sends: light moves), as long with
    moves answered by their acknowledgement alone (``"view": false``), and as long with as many
    concurrent loops of ``GET /api/catalog``.  The four take turns, ``--rounds`` (5) times
    ``--seconds / --rounds`` each, so that the machine's other load, which comes and goes,
    weighs on both sides of each ratio alike.  Reports accepted moves/s for each kind of
    answer, catalog requests/s, the ratios (target >= 0.5; with the ratio of CPU costs, a catalogue
    request's CPU of server, client and database over a move's: what the throughput ratio would be
    were the machine theirs alone) and the latency percentiles (target
    p99 <= 150 ms), and for each kind the server's CPU use, the seconds per second its threads
    waited for a CPU, the client's own CPU use and (PostgreSQL) the database server's CPU use: the
    machine's two cores are shared by all three.
``crowd``
    ``--crowd`` (1000) games, each moving every ``--think`` (5) s on average (exponential
    think times) with a spectator WebSocket per game (a viewer on another server process
    when ``--workers`` > 1).  Reports move latency percentiles (target p99 <= 150 ms),
    errors, whether every viewer received a state for every accepted move, lost moves
    (acknowledged moves missing from the stored game afterwards) and the server's memory.

The server's CPU use (user+system seconds per wall second, from /proc) is reported for each
phase, and in the crowd phase the seconds per second the server's threads were runnable but
waiting for a CPU (``/proc/PID/task/*/schedstat``: other work on the machine had the cores),
the client's own CPU use and how late its event loop wakes up (a 10 ms ticker): a busy
client would inflate the latencies it measures.  The load average of the
machine is reported at the start and the end (the client and the server share the machine;
other jobs on it make every figure worse).  Everything stops by itself: ``--seconds`` per
phase plus set-up and drain.

    pip install -e ".[server,bench]"   # aiohttp for the client
    python benchmarks/server_load.py --db sqlite --seconds 20 --crowd 1000
    python benchmarks/server_load.py --db postgres --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tessera  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentiles(xs: list[float]) -> dict[str, float | None]:
    """p50/p90/p99/max of latencies in ms."""
    if not xs:
        return {"p50": None, "p90": None, "p99": None, "max": None}
    s = sorted(xs)

    def q(f: float) -> float:
        return round(s[min(len(s) - 1, int(f * len(s)))] * 1000, 1)

    return {"p50": q(0.5), "p90": q(0.9), "p99": q(0.99), "max": round(s[-1] * 1000, 1)}


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_runqueue_wait(pid: int) -> dict[str, int]:
    """Nanoseconds each of the process's threads spent runnable but waiting for a CPU
    (``/proc/PID/task/*/schedstat``): time the server wanted to run and the machine's other work
    had the cores.  By thread, so that a thread ending between two readings does not make the
    difference negative (see :func:`runqueue_wait_between`)."""
    out: dict[str, int] = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError, IndexError, ValueError), open(f"/proc/{pid}/task/{task}/schedstat") as f:
            out[f"{pid}/{task}"] = int(f.read().split()[1])
    return out


def runqueue_wait_between(before: dict[str, int], after: dict[str, int]) -> float:
    """Seconds of waiting for a CPU between two readings, over the threads alive at the second one
    (a thread that ended in between is not counted: a lower bound)."""
    return sum(ns - before.get(tid, 0) for tid, ns in after.items()) / 1e9


def database_cpu(url: str) -> dict[int, float]:
    """CPU seconds of each process of the PostgreSQL server listening on ``url``'s port (its
    postmaster and the postmaster's children: backends, writers); empty for SQLite (in the server)."""
    port = url.rsplit(":", 1)[-1].split("/", 1)[0]
    if not url.startswith("postgresql") or not port.isdigit():
        return {}
    master = None
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            if cmd and cmd[0].endswith(b"postgres") and f"-p {port}".encode() in b" ".join(cmd):
                master = int(entry)
    if master is None:
        return {}
    out = {}
    for pid in [master, *(p for p, parent in parents.items() if parent == master)]:
        with contextlib.suppress(OSError):
            out[pid] = proc_cpu(pid)
    return out


def proc_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def quiet_collector() -> None:
    """Keep the client's own garbage collector from pausing it mid-measurement (which would count
    as server latency): the set-up's objects (replicas of 1,000 positions, sockets) are frozen out
    of future collections, and young collections are spaced out as the server does."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)


class LoopLag:
    """How late the client's own event loop wakes up (a 10 ms ticker): a busy client inflates the
    latencies it measures, so this is reported next to them."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append(max(0.0, time.perf_counter() - t - 0.01))

    def __enter__(self) -> LoopLag:
        self._task = asyncio.ensure_future(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()

    def report(self) -> dict[str, float | None]:
        return percentiles(self.lags)


class Servers:
    """``n`` ``tessera serve`` processes on one database."""

    def __init__(self, url: str, n: int, root: Path = ROOT) -> None:
        """``root``: the checkout whose code the processes run (another one: a before/after comparison)."""
        self.url = url
        self.procs: list[subprocess.Popen[bytes]] = []
        self.bases: list[str] = []
        self.logs: list[Any] = []
        env = {**os.environ, "PYTHONPATH": str(root)}
        self.started = time.time()
        for _ in range(n):
            port = free_port()
            cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", url]
            cmd += ["--max-sockets-per-client", "100000", "--ai-threads", "--max-connections-per-address", "0"]
            env.update({f"TESSERA_RATE_{k}": "0" for k in ("CREATE", "MOVE", "ANALYSIS", "IMPORT")})
            log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop(); not a pipe: a server must never block on a full pipe
            self.logs.append(log)
            # (run in ``root``: ``python -m`` puts the working directory first on the module path)
            self.procs.append(subprocess.Popen(cmd, env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=log))
            self.bases.append(f"http://127.0.0.1:{port}")

        print(f"server pids: {' '.join(str(p.pid) for p in self.procs)}", file=sys.stderr, flush=True)

    async def wait_ready(self, session: aiohttp.ClientSession) -> dict[str, float | None]:
        """Wait until every server answers ``GET /api/catalog`` and says its kernels are compiled
        (``GET /api/status``: a server without it counts as ready once it answers the catalogue);
        the seconds from the start to the first catalogue answer and to readiness (the slowest server)."""
        deadline = time.time() + 180
        catalog_s: float = 0.0
        ready_s: float = 0.0
        for base, proc in zip(self.bases, self.procs, strict=True):
            answered = False
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"the server exited: {self.log_tail()}")
                with contextlib.suppress(aiohttp.ClientError):
                    if not answered:
                        async with session.get(base + "/api/catalog") as r:
                            if r.status == 200:
                                answered = True
                                catalog_s = max(catalog_s, time.time() - self.started)
                    if answered:
                        async with session.get(base + "/api/status") as r:
                            if r.status == 404 or (r.status == 200 and (await r.json()).get("ready")):
                                ready_s = max(ready_s, time.time() - self.started)
                                break
                if time.time() > deadline:
                    raise RuntimeError("the server did not start")
                await asyncio.sleep(0.1)
        return {"first_catalog_s": round(catalog_s, 2), "kernels_ready_s": round(ready_s, 2)}

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the servers' standard error."""
        out = []
        for log in self.logs:
            log.seek(0)
            out.append(log.read().decode(errors="replace")[-chars:])
        return "\n".join(out)

    def cpu(self) -> float:
        return sum(proc_cpu(p.pid) for p in self.procs)

    def waited(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.procs:
            out.update(proc_runqueue_wait(p.pid))
        return out

    def rss_mb(self) -> list[float]:
        return [proc_rss_mb(p.pid) for p in self.procs]

    def stop(self) -> None:
        for p in self.procs:
            p.send_signal(signal.SIGINT)
        for p in self.procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in self.logs:
            log.close()


class Player:
    """One hot-seat game played by the client: a replica of its position picks random legal moves."""

    def __init__(self, base: str, spec: str, rng: random.Random) -> None:
        self.base = base
        self.spec = spec
        self.rng = rng
        self.gid = ""
        self.tokens: dict[int, str] = {}
        self.state: Any = None
        self.acked: list[str] = []
        self.games_played = 0
        self.resent = 0

    async def new_game(self, session: aiohttp.ClientSession) -> None:
        seed = self.rng.randrange(2**31)
        async with session.post(self.base + "/api/games", json={"game": self.spec, "seed": seed}) as r:
            if r.status != 201:
                raise RuntimeError(f"create failed: {r.status} {await r.text()}")
            body = await r.json()
        self.gid = body["id"]
        self.tokens = {int(k): v for k, v in body["tokens"].items()}
        self.state = tessera.load_game(self.spec).new_initial_state(seed=seed)
        self.acked = []
        self.games_played += 1

    async def move(
        self, session: aiohttp.ClientSession, base: str | None = None, view: bool = True, change: bool = False
    ) -> tuple[bool, float, str]:
        """One random legal move: (accepted, latency, error text).  ``view`` False: ask for the
        acknowledgement alone, as the web client does (it gets the view by its socket)."""
        s = self.state
        cp = s.current_player()
        mv = s.random_move(self.rng)
        t0 = time.perf_counter()
        payload: dict[str, Any] = {"token": self.tokens[cp], "move": mv, "expected": s.move_number()}
        if not view:
            payload["view"] = False
        if change:
            payload["change"] = True
        url = f"{base or self.base}/api/games/{self.gid}/moves"
        for attempt in (0, 1):
            try:
                async with session.post(url, json=payload) as r:
                    body = await r.read()
                    status = r.status
                break
            except aiohttp.ServerDisconnectedError:
                # the server closed an idle keep-alive connection just as it was reused (HTTP's
                # keep-alive race): send again, as browsers do; a move sent twice is answered as
                # a duplicate, never stored twice
                if attempt:
                    raise
                self.resent += 1
        dt = time.perf_counter() - t0
        if status != 200:
            return False, dt, f"{status}: {body[:200].decode(errors='replace')}"
        s.play(mv)
        self.acked.append(mv)
        return True, dt, ""


async def warm_up(session: aiohttp.ClientSession, players: list[Player], moves: int = 3) -> None:
    """A few unmeasured moves per server first: a fresh process compiles the game's kernels on its first moves."""
    for p in players[:8]:
        for _ in range(moves):
            if not p.state.is_terminal():
                await p.move(session)


async def saturate(servers: Servers, args: argparse.Namespace) -> dict[str, Any]:
    """Moves always in flight on ``args.games`` games (answered by views, then by acknowledgements),
    then catalog requests at the same concurrency, in turns (``args.rounds`` times)."""
    conn = aiohttp.TCPConnector(limit=args.games * 2)
    # aiohttp asks for gzip (as browsers and most HTTP libraries do); --no-gzip asks for plain answers
    plain = {"Accept-Encoding": "identity"} if args.no_gzip else None
    async with aiohttp.ClientSession(connector=conn, headers=plain) as session:
        rng = random.Random(1)
        players = [
            Player(servers.bases[i % len(servers.bases)], args.game, random.Random(rng.random()))
            for i in range(args.games)
        ]
        for p in players:
            await p.new_game(session)
        await warm_up(session, players)
        quiet_collector()
        errors: list[str] = []
        stop = 0.0

        async def mover(p: Player, kind: str, lat: list[float]) -> None:
            while time.time() < stop:
                if p.state.is_terminal():
                    await p.new_game(session)
                ok, dt, err = await p.move(session, view=kind == "view", change=kind == "change")
                if ok:
                    lat.append(dt)
                else:
                    errors.append(err)

        async def reader(i: int, lat: list[float]) -> None:
            base = servers.bases[i % len(servers.bases)]
            while time.time() < stop:
                t = time.perf_counter()
                async with session.get(base + "/api/catalog") as r:
                    await r.read()
                    if r.status == 200:
                        lat.append(time.perf_counter() - t)
                    else:
                        errors.append(f"catalog {r.status}")

        kinds = ("view", "change", "ack", "catalog")
        lats: dict[str, list[float]] = {k: [] for k in kinds}
        lags: dict[str, list[float]] = {k: [] for k in kinds}
        totals = {k: {"wall": 0.0, "cpu": 0.0, "waited": 0.0, "client": 0.0, "db": 0.0} for k in kinds}
        # the three kinds of load in turns (view, ack, catalog, view, ...), each ``seconds / rounds``
        # at a time: a change in the machine's other load touches both sides of each ratio alike
        for _ in range(args.rounds):
            for kind in kinds:
                stop = time.time() + args.seconds / args.rounds
                db0 = database_cpu(servers.url)
                cpu0, wait0, own0, t0 = servers.cpu(), servers.waited(), time.process_time(), time.time()
                with LoopLag() as lag:
                    if kind == "catalog":
                        await asyncio.gather(*(reader(i, lats[kind]) for i in range(args.games)))
                    else:
                        await asyncio.gather(*(mover(p, kind, lats[kind]) for p in players))
                t = totals[kind]
                t["wall"] += time.time() - t0
                t["cpu"] += servers.cpu() - cpu0
                t["waited"] += runqueue_wait_between(wait0, servers.waited())
                t["client"] += time.process_time() - own0
                # (a database process started in the phase counts whole; one ended in it is not counted)
                t["db"] += sum(c - db0.get(pid, 0.0) for pid, c in database_cpu(servers.url).items())
                lags[kind] += lag.lags

        def phase(kind: str) -> dict[str, Any]:
            t = totals[kind]
            return {
                "accepted" if kind != "catalog" else "answered": len(lats[kind]),
                "per_s": round(len(lats[kind]) / t["wall"], 1),
                "latency_ms": percentiles(lats[kind]),
                "server_cpu_cores": round(t["cpu"] / t["wall"], 2),
                "server_waiting_for_cpu_s_per_s": round(t["waited"] / t["wall"], 2),
                "client_cpu_cores": round(t["client"] / t["wall"], 2),
                "database_cpu_cores": round(t["db"] / t["wall"], 2) if args.db == "postgres" else None,
                "client_loop_lag_ms": percentiles(lags[kind]),
            }

        phases = {k: phase(k) for k in kinds}
    catalog_per_s = phases["catalog"]["per_s"]

    def machine_ms(kind: str) -> float | None:
        """CPU of the whole machine's part in one move or request: server, PostgreSQL and client (ms)."""
        ph = phases[kind]
        if not ph["per_s"]:
            return None
        cores = ph["server_cpu_cores"] + ph["client_cpu_cores"] + (ph["database_cpu_cores"] or 0.0)
        return round(1000 * cores / ph["per_s"], 3)

    catalog_ms = machine_ms("catalog")
    out: dict[str, Any] = {
        "games": args.games,
        "game": args.game,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "gzip_accepted": not args.no_gzip,
    }
    for kind in ("view", "change", "ack"):
        ph = phases[kind]
        out[f"moves_answered_by_{kind}"] = {
            "accepted_moves": ph["accepted"],
            "moves_per_s": ph["per_s"],
            "move_latency_ms": ph["latency_ms"],
            **{k: v for k, v in ph.items() if k.startswith(("server_", "client_", "database_"))},
            "ratio_moves_to_catalog": round(ph["per_s"] / catalog_per_s, 2) if catalog_per_s else None,
            "machine_cpu_ms_per_move": machine_ms(kind),
            # the ratio the machine's CPU allows if nothing else ran on it: a catalogue request's CPU
            # (server, client, database) over a move's; the other jobs of a shared machine move the
            # measured ratio, much less this one
            "cpu_ratio_to_catalog": round(catalog_ms / m, 2) if catalog_ms and (m := machine_ms(kind)) else None,
        }
    cat = phases["catalog"]
    out.update(
        {
            "catalog_per_s": catalog_per_s,
            "catalog_latency_ms": cat["latency_ms"],
            "catalog_machine_cpu_ms": catalog_ms,
            "server_cpu_cores_catalog": cat["server_cpu_cores"],
            "server_waiting_for_cpu_s_per_s_catalog": cat["server_waiting_for_cpu_s_per_s"],
            "client_cpu_cores_catalog": cat["client_cpu_cores"],
            "database_cpu_cores_catalog": cat["database_cpu_cores"],
            "errors": len(errors),
            "error_examples": errors[:3],
        }
    )
    return out


async def crowd(servers: Servers, args: argparse.Namespace) -> dict[str, Any]:
    """``args.crowd`` games moving every ``args.think`` s on average, a WebSocket viewer on each."""
    n = args.crowd
    bases = servers.bases
    http = aiohttp.TCPConnector(limit=256, keepalive_timeout=3)  # below uvicorn's 5 s: the client closes first
    wsconn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=http) as session, aiohttp.ClientSession(connector=wsconn) as wss:
        rng = random.Random(2)
        players = [Player(bases[i % len(bases)], args.game, random.Random(rng.random())) for i in range(n)]
        sem = asyncio.Semaphore(32)

        async def setup(p: Player) -> None:
            async with sem:
                await p.new_game(session)

        t_setup = time.time()
        await asyncio.gather(*(setup(p) for p in players))
        await warm_up(session, players)
        seen: list[set[int]] = [set() for _ in range(n)]
        last_moves: list[list[str]] = [[] for _ in range(n)]
        ws_errors: list[str] = []
        sockets: list[aiohttp.ClientWebSocketResponse] = []
        listeners: list[asyncio.Future[None]] = []

        async def open_viewer(i: int) -> None:
            base = bases[(i + 1) % len(bases)]  # another process than the one the moves go to, if any
            url = base.replace("http", "ws") + f"/api/games/{players[i].gid}/ws"
            async with sem:
                ws = await wss.ws_connect(url, heartbeat=None, max_msg_size=0)
            sockets.append(ws)
            first = await ws.receive_json()
            if first.get("type") != "state":
                ws_errors.append(str(first)[:200])
            else:
                seen[i].update(range(first["view"]["move_number"] + 1))  # the warm-up moves came before the viewer
                last_moves[i] = [m["move"] for m in first["view"]["moves"]]  # (a game may not move again)
            listeners.append(asyncio.ensure_future(listen(i, ws)))

        async def listen(i: int, ws: aiohttp.ClientWebSocketResponse) -> None:
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    continue
                data = json.loads(msg.data)
                if data.get("type") == "state":
                    v = data["view"]
                    seen[i].add(v["move_number"])
                    last_moves[i] = [m["move"] for m in v["moves"]]
                elif data.get("type") == "error":
                    ws_errors.append(data["detail"][:200])

        await asyncio.gather(*(open_viewer(i) for i in range(n)))
        setup_s = time.time() - t_setup
        quiet_collector()
        lat: list[float] = []
        errors: list[str] = []
        finished_games: list[tuple[int, str, list[str]]] = []
        stop = time.time() + args.seconds

        async def game_loop(i: int, p: Player) -> None:
            r = random.Random(i)
            await asyncio.sleep(r.uniform(0, args.think))
            while True:
                wait = r.expovariate(1 / args.think)
                if time.time() + wait >= stop:
                    return  # the phase ends before this move: no tail of stragglers after ``stop``
                await asyncio.sleep(wait)
                if p.state.is_terminal():
                    return  # the viewer stays on the finished game; checked below
                ok, dt, err = await p.move(session)
                if ok:
                    lat.append(dt)
                else:
                    errors.append(err)

        cpu0, t0, own0, wait0 = servers.cpu(), time.time(), time.process_time(), servers.waited()
        with LoopLag() as lag:
            await asyncio.gather(*(game_loop(i, p) for i, p in enumerate(players)))
        wall = time.time() - t0
        cpu = (servers.cpu() - cpu0) / wall
        waited = runqueue_wait_between(wait0, servers.waited()) / wall
        client_cpu = (time.process_time() - own0) / wall
        await asyncio.sleep(2.0)  # the last pushes
        rss = servers.rss_mb()
        coalesced = 0  # a push showed a later state (two moves close together): the move is in its list
        stale_final = 0  # a viewer whose last state lacks an acknowledged move: an update really lost
        for i, p in enumerate(players):
            for k in range(1, len(p.acked) + 1):
                if k not in seen[i]:
                    coalesced += 1
            if last_moves[i] != p.acked:
                stale_final += 1
        lost = 0
        checked = 0

        async def verify(p: Player) -> int:
            async with sem, session.get(f"{p.base}/api/games/{p.gid}/record") as r:
                rec = await r.json()
            stored = [m for t in rec["turns"] for m in t.get("moves", t.get("orders", []))]
            return sum(1 for a, b in zip(p.acked, stored + [None] * len(p.acked), strict=False) if a != b)

        results = await asyncio.gather(*(verify(p) for p in players))
        lost = sum(results)
        checked = sum(len(p.acked) for p in players)
        for ws in sockets:
            await ws.close()
        await asyncio.gather(*listeners, return_exceptions=True)
    del finished_games
    return {
        "games": n,
        "viewers": n,
        "think_mean_s": args.think,
        "seconds": args.seconds,
        "setup_s": round(setup_s, 1),
        "accepted_moves": len(lat),
        "moves_per_s": round(len(lat) / wall, 1),
        "move_latency_ms": percentiles(lat),
        "errors": len(errors) + len(ws_errors),
        "error_examples": (errors + ws_errors)[:3],
        "viewer_states_coalesced": coalesced,
        "viewers_missing_a_move": stale_final,
        "moves_checked_in_storage": checked,
        "requests_resent_after_keepalive_close": sum(p.resent for p in players),
        "lost_moves": lost,
        "server_rss_mb": rss,
        "server_cpu_cores": round(cpu, 2),
        "server_waiting_for_cpu_s_per_s": round(waited, 2),
        "client_loop_lag_ms": lag.report(),
        "client_cpu_cores": round(client_cpu, 2),
    }


@contextlib.contextmanager
def database(kind: str) -> Iterator[str]:
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="tessera-bench-") as d:
            yield f"sqlite:///{d}/bench.db"
        return
    from tests.server.pg import postgres_cluster

    with postgres_cluster() as url:
        yield url


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {
        "db": args.db,
        "workers": args.workers,
        "machine": {"cpus": os.cpu_count(), "load_avg_at_start": [round(x, 2) for x in os.getloadavg()]},
        "note": "client and server share this machine (and it is shared with other jobs): figures are noisy",
    }
    for scenario in args.scenarios.split(","):
        with database(args.db) as url:
            servers = Servers(url, args.workers)
            try:
                async with aiohttp.ClientSession() as s:
                    out.setdefault("startup", {})[scenario] = await servers.wait_ready(s)
                client0 = time.process_time()
                if scenario == "saturate":
                    out["saturate"] = await saturate(servers, args)
                elif scenario == "crowd":
                    out["crowd"] = await crowd(servers, args)
                else:
                    raise SystemExit(f"unknown scenario {scenario!r}")
                out[scenario]["client_cpu_s"] = round(time.process_time() - client0, 1)
            except BaseException:
                print(servers.log_tail(), file=sys.stderr)
                raise
            finally:
                servers.stop()
    out["machine"]["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--workers", type=int, default=1, help="server processes on the one database")
    ap.add_argument("--scenarios", default="saturate,crowd")
    ap.add_argument("--game", default="nume(size=8)")
    ap.add_argument("--games", type=int, default=20, help="games in the saturate scenario")
    ap.add_argument("--crowd", type=int, default=1000, help="games (and viewers) in the crowd scenario")
    ap.add_argument("--think", type=float, default=5.0, help="mean think time in the crowd scenario (s)")
    ap.add_argument("--seconds", type=float, default=20.0, help="length of each measured phase")
    ap.add_argument(
        "--rounds", type=int, default=5, help="saturate: the phases in turns, this many times (seconds / rounds each)"
    )
    ap.add_argument(
        "--no-gzip",
        action="store_true",
        help="saturate: ask for plain answers (Accept-Encoding: identity; by default the client accepts gzip)",
    )
    args = ap.parse_args()
    print(json.dumps(asyncio.run(main_async(args)), indent=2))


if __name__ == "__main__":
    main()
