"""The backup drill (issue 42): back up a live server under load, restore into a fresh database, and
check that every acknowledged move is there.  Prints JSON.

A ``tessera serve`` process is started on a fresh database (an SQLite file, or a throwaway
PostgreSQL cluster with ``--db postgres``); ``--clients`` threads play random games of ``--game``
through its HTTP API as fast as it answers, each remembering the moves the server acknowledged.
After ``--warm`` seconds and ``--warm-moves`` acknowledged moves ``tessera admin backup`` runs (the
command an operator runs) while the moves keep coming; the load stops ``--after`` seconds after the
backup finished. ``tessera admin restore`` then loads the backup into a new database, and every game
there is compared with what the clients were told:

- every move acknowledged **before the backup started** is in the restored game;
- the restored game's moves are exactly the first moves the clients had acknowledged (nothing
  invented, nothing reordered: a backup is one consistent state, never half a move).

``tests/server/test_backup.py`` runs a short drill on both databases; this is the full one:

    python benchmarks/backup_drill.py --db sqlite --clients 8 --warm 10 --after 5
    python benchmarks/backup_drill.py --db postgres --clients 8 --warm 10 --after 5
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

import tessera

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server(url: str) -> Iterator[str]:
    """A ``tessera serve`` process on ``url`` (rate limits off: the clients play as fast as it answers)."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TESSERA_RATE_CREATE": "0", "TESSERA_RATE_MOVE": "0"}
    cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", url, "--ai-threads"]
    proc = subprocess.Popen([*cmd, "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 300
        while True:
            if proc.poll() is not None:
                raise RuntimeError("the server exited before it answered")
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.time() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield base
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def tessera_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``tessera ARGS`` as an operator would; raise with its output if it fails."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tessera", *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"tessera {' '.join(args)} failed: {done.stderr.strip()}")
    return done


class Load:
    """Client threads playing random games; what the server acknowledged, and when."""

    def __init__(self, base: str, clients: int, game: str, seed: int) -> None:
        self.base, self.game = base, game
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acked: dict[str, list[tuple[str, float]]] = {}
        """Per game, each acknowledged move and the time its acknowledgement arrived."""
        self.errors: list[str] = []
        self.threads = [threading.Thread(target=self.play, args=(seed + i,), daemon=True) for i in range(clients)]

    def play(self, seed: int) -> None:
        rng = random.Random(seed)
        try:
            with httpx.Client(base_url=self.base, timeout=30) as c:
                while not self.stop.is_set():
                    game_seed = rng.randrange(1 << 30)
                    r = c.post("/api/games", json={"game": self.game, "seed": game_seed})
                    r.raise_for_status()
                    g = r.json()
                    state = tessera.load_game(self.game).new_initial_state(seed=game_seed)
                    with self.lock:
                        self.acked[g["id"]] = []
                    while not state.is_terminal() and not self.stop.is_set():
                        move = state.random_move(rng)
                        body = {"token": g["tokens"][str(state.current_player())], "move": move}
                        r = c.post(
                            f"/api/games/{g['id']}/moves",
                            json={**body, "expected": state.move_number(), "view": False},
                        )
                        r.raise_for_status()
                        state.play(move)
                        with self.lock:
                            self.acked[g["id"]].append((move, time.time()))
        except Exception as e:  # reported, and the drill fails on it
            self.errors.append(f"{type(e).__name__}: {e}")

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(60)

    def moves(self) -> int:
        with self.lock:
            return sum(len(v) for v in self.acked.values())


def restored_moves(url: str) -> dict[str, list[str]]:
    """Every game's stored moves, in order."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            rows = c.exec_driver_sql("SELECT game_id, move FROM moves ORDER BY game_id, move_index").all()
    finally:
        engine.dispose()
    found: dict[str, list[str]] = {}
    for gid, move in rows:
        found.setdefault(gid, []).append(move)
    return found


def drill(
    url: str,
    restore_url: str,
    folder: Path,
    *,
    clients: int,
    warm: float,
    after: float,
    game: str,
    warm_moves: int = 0,
) -> dict[str, Any]:
    """Back up the server on ``url`` under load, restore into ``restore_url``, compare; the figures and
    the problems found (``missing``: acknowledged before the backup began and not restored;
    ``foreign``: restored moves that are not the acknowledged ones).  The backup starts after ``warm``
    seconds of load and at least ``warm_moves`` acknowledged moves."""
    backup_file = folder / "tessera.backup"
    with server(url) as base, Load(base, clients, game, seed=42) as load:
        time.sleep(warm)
        deadline = time.time() + 300
        while load.moves() < warm_moves and not load.errors and time.time() < deadline:
            time.sleep(0.05)
        started = time.time()
        moves_at_start = load.moves()
        tessera_cli("admin", "backup", str(backup_file), "--db", url)
        finished = time.time()
        moves_during = load.moves() - moves_at_start
        time.sleep(after)
    load_errors = list(load.errors)
    t0 = time.time()
    tessera_cli("admin", "restore", str(backup_file), "--db", restore_url)
    restore_seconds = time.time() - t0
    restored = restored_moves(restore_url)
    missing: list[str] = []
    foreign: list[str] = []
    kept = 0
    for gid, acked in load.acked.items():
        must = [m for m, at in acked if at < started]
        got = restored.get(gid, [])
        if got != [m for m, _ in acked[: len(got)]]:
            foreign.append(gid)
        if len(got) < len(must):
            missing.append(gid)
        kept += len(got)
    foreign += [gid for gid in restored if gid not in load.acked]
    return {
        "database": url.split(":", 1)[0],
        "clients": clients,
        "games": len(load.acked),
        "moves_acknowledged": load.moves(),
        "moves_acknowledged_before_backup": sum(1 for a in load.acked.values() for _, at in a if at < started),
        "moves_acknowledged_during_backup": moves_during,
        "moves_restored": kept,
        "backup_seconds": round(finished - started, 3),
        "backup_bytes": backup_file.stat().st_size,
        "restore_seconds": round(restore_seconds, 3),
        "missing": missing,
        "foreign": foreign,
        "load_errors": load_errors,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--clients", type=int, default=8, help="client threads playing (default 8)")
    ap.add_argument("--warm", type=float, default=10.0, help="seconds of load before the backup (default 10)")
    ap.add_argument("--after", type=float, default=5.0, help="seconds of load after it (default 5)")
    ap.add_argument(
        "--warm-moves", type=int, default=500, help="and at least this many acknowledged moves before it (default 500)"
    )
    ap.add_argument("--game", default="nume(size=5)", help="the game played (default nume(size=5))")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tessera-drill-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        if args.db == "sqlite":
            url, restore_url = f"sqlite:///{folder / 'live.db'}", f"sqlite:///{folder / 'restored.db'}"
        else:
            sys.path.insert(0, str(ROOT))
            from tests.server.pg import postgres_cluster

            base = stack.enter_context(postgres_cluster())
            engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
            with engine.connect() as c:
                c.exec_driver_sql("CREATE DATABASE live")
                c.exec_driver_sql("CREATE DATABASE restored")
            engine.dispose()
            root = base.rsplit("/", 1)[0]
            url, restore_url = root + "/live", root + "/restored"
        result = drill(
            url,
            restore_url,
            folder,
            clients=args.clients,
            warm=args.warm,
            after=args.after,
            game=args.game,
            warm_moves=args.warm_moves,
        )
    print(json.dumps(result, indent=2))
    return 0 if not (result["missing"] or result["foreign"] or result["load_errors"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
