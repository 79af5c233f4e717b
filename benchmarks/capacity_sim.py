"""The capacity model's terms measured on this machine (issue 42; docs/capacity.md), and its shape
checked with up to 8 server processes on one PostgreSQL.  Prints JSON.

``--processes`` (8) ``tessera serve`` processes start on a throwaway PostgreSQL cluster.  ``--games``
(200) hot-seat games of ``--game`` are created on process 0 and moved through it at a paced
``--rate`` (moves/s, answered by their acknowledgement).  Every other process only *receives* the
moves' ``NOTIFY``.  Two phases of ``--seconds`` each:

``notices``
    no viewer anywhere: what a process pays for each notice of a game nobody watches on it;
``viewers``
    one WebSocket viewer per game, on the processes other than 0 in turn: what a process pays to
    re-read a game changed elsewhere and push it.

For each phase: the CPU per move of the mover process and of PostgreSQL (every ``NOTIFY`` is
delivered to every listening process), the CPU per notice of each receiving process, all less
their idle CPU (measured first for as long); and the memory a game and a socket add to a process.

    python benchmarks/capacity_sim.py --processes 8 --rate 100 --seconds 10
    python benchmarks/capacity_sim.py --processes 2 --rate 100 --seconds 10
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from websockets.sync.client import connect

import tessera

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("server_load", ROOT / "benchmarks" / "server_load.py")
assert _spec and _spec.loader
load = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(load)


@contextmanager
def processes(url: str, count: int) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TESSERA_CONNECTIONS_PER_ADDRESS": "0"}
    env.update({f"TESSERA_RATE_{k}": "0" for k in ("CREATE", "MOVE")})
    started = []
    try:
        for _ in range(count):
            port = load.free_port()
            cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", url, "--ai-threads"]
            cmd += ["--log-level", "warning", "--max-sockets-per-client", "100000"]
            started.append((f"http://127.0.0.1:{port}", subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)))
        for base, proc in started:
            deadline = time.time() + 300
            while True:
                assert proc.poll() is None, "a server exited"
                with contextlib.suppress(httpx.HTTPError):
                    r = httpx.get(base + "/api/status", timeout=2)
                    if r.status_code == 200 and r.json().get("ready"):
                        break
                assert time.time() < deadline, "a server did not start"
                time.sleep(0.2)
        yield started
    finally:
        for _, proc in started:
            proc.send_signal(signal.SIGINT)
        for _, proc in started:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


def cpu_of(pids: list[int], url: str) -> tuple[list[float], float]:
    return [load.proc_cpu(p) for p in pids], sum(load.database_cpu(url).values())


def paced_moves(base: str, games: list[dict[str, Any]], states: dict[str, Any], rate: float, seconds: float) -> int:
    """Play random moves in ``games`` (their positions in ``states``, kept from one call to the next) at
    ``rate`` a second for ``seconds``; the number acknowledged."""
    import random

    rng = random.Random(7)
    done = 0
    lock = threading.Lock()
    stop = time.time() + seconds
    queue = list(games)

    def worker(mine: list[dict[str, Any]]) -> None:
        nonlocal done
        with httpx.Client(base_url=base, timeout=30) as c:
            i = 0
            interval = len(queue) / rate  # each game moves once per `interval` seconds
            next_at = time.time() + rng.random() * interval
            while time.time() < stop:
                g = mine[i % len(mine)]
                i += 1
                st = states[g["id"]]
                if st.is_terminal():
                    continue
                time.sleep(max(0.0, next_at - time.time()))
                next_at += interval / len(mine)
                mv = st.random_move(rng)
                body = {"token": g["tokens"][str(st.current_player())], "move": mv, "expected": st.move_number()}
                r = c.post(f"/api/games/{g['id']}/moves", json={**body, "view": False})
                if r.status_code == 200:
                    st.play(mv)
                    with lock:
                        done += 1

    threads = [threading.Thread(target=worker, args=(queue[k::8],)) for k in range(min(8, len(queue)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return done


def phase(url: str, pids: list[int], run: Any, seconds: float) -> dict[str, Any]:
    before, pg_before = cpu_of(pids, url)
    t0 = time.time()
    moves = run()
    wall = time.time() - t0
    after, pg_after = cpu_of(pids, url)
    return {
        "moves": moves,
        "wall": wall,
        "cpu": [b - a for a, b in zip(before, after, strict=True)],
        "pg": pg_after - pg_before,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=8)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--rate", type=float, default=100.0, help="moves a second through process 0")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--game", default="nume")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.server.pg import postgres_cluster

    out: dict[str, Any] = {
        "processes": args.processes,
        "rate": args.rate,
        "game": args.game,
        "loadavg": os.getloadavg(),
    }
    with postgres_cluster() as base_url:
        engine = sa.create_engine(base_url, isolation_level="AUTOCOMMIT")
        with engine.connect() as c:
            c.exec_driver_sql("CREATE DATABASE sim")
        engine.dispose()
        url = base_url.rsplit("/", 1)[0] + "/sim"
        with processes(url, args.processes) as procs:
            pids = [p.pid for _, p in procs]
            mover = procs[0][0]
            rss0 = [load.proc_rss_mb(p) for p in pids]
            idle = phase(url, pids, lambda: time.sleep(args.seconds) or 0, args.seconds)
            games = []
            with httpx.Client(base_url=mover, timeout=30) as c:
                for i in range(args.games):
                    g = c.post("/api/games", json={"game": args.game, "seed": i}).json()
                    games.append({**g, "seed": i})
            states = {g["id"]: tessera.load_game(args.game).new_initial_state(seed=g["seed"]) for g in games}
            run = lambda: paced_moves(mover, games, states, args.rate, args.seconds)  # noqa: E731
            notices = phase(url, pids, run, args.seconds)
            rss_games = [load.proc_rss_mb(p) for p in pids]
            sockets = contextlib.ExitStack()
            others = [b for b, _ in procs[1:]] or [mover]
            for i, g in enumerate(games):
                where = others[i % len(others)].replace("http", "ws")
                ws = sockets.enter_context(connect(f"{where}/api/games/{g['id']}/ws", open_timeout=30, max_queue=None))
                ws.recv(timeout=30)
            time.sleep(1)
            rss_sockets = [load.proc_rss_mb(p) for p in pids]
            viewers = phase(url, pids, run, args.seconds)
            sockets.close()

    def per(ph: dict[str, Any]) -> dict[str, Any]:
        m = max(ph["moves"], 1)
        idle_rate = [c / idle["wall"] for c in idle["cpu"]]
        extra = [c - r * ph["wall"] for c, r in zip(ph["cpu"], idle_rate, strict=True)]
        pg_idle = idle["pg"] / idle["wall"] * ph["wall"]
        return {
            "moves_per_s": round(ph["moves"] / ph["wall"], 1),
            "mover_ms_per_move": round(extra[0] / m * 1000, 3),
            "receiver_ms_per_notice": [round(e / m * 1000, 3) for e in extra[1:]],
            "postgres_ms_per_move": round((ph["pg"] - pg_idle) / m * 1000, 3),
        }

    n_other = max(1, args.processes - 1)
    out.update(
        {
            "idle_cpu_per_s": [round(c / idle["wall"], 4) for c in idle["cpu"]],
            "notices": per(notices),
            "viewers": per(viewers),
            "rss_start_mb": rss0,
            "mb_per_game": round((rss_games[0] - rss0[0]) / args.games, 3),
            "mb_per_socket": round(
                sum(b - a for a, b in zip(rss_games[1:], rss_sockets[1:], strict=True)) / args.games, 3
            )
            if args.processes > 1
            else None,
            "sockets_per_receiver": args.games / n_other,
            "loadavg_end": os.getloadavg(),
        }
    )
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
