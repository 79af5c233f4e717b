"""Real server processes (issue 14): two ``tessera serve`` processes on one PostgreSQL database, and
``kill -9`` of a server on SQLite.

- 'A move posted to one process reaches WebSocket viewers connected to another (PostgreSQL
  LISTEN/NOTIFY); AI seats are played exactly once across processes; races stay exactly-one.'
- 'Keep "nothing acknowledged is lost": a move is acknowledged only after its row is committed.'
"""

from __future__ import annotations

import contextlib
import json
import os
import random
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
import pytest
from websockets.sync.client import connect

import tessera
from tests.server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serve(url: str, *extra: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A ``tessera serve`` process on ``url``: its base URL and the process."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.update({f"TESSERA_RATE_{k}": "0" for k in ("CREATE", "MOVE")})  # these tests stream moves as fast as they can
    cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", url, "--ai-threads", *extra]
    cmd += ["--log-level", "warning"]  # stderr is a pipe read only at the end: keep it short
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
            try:
                if httpx.get(base + "/api/games?status=all", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.time() < deadline, "the server did not start"
            time.sleep(0.1)
        yield base, proc
    except BaseException as e:  # the test failed: its report ends with what the server logged
        stop(proc)
        if proc.stderr is not None:
            e.add_note(f"the server's log ({base}):\n{proc.stderr.read().decode(errors='replace')[-4000:]}")
        raise
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """End a server process as Ctrl-C does (killed if it takes more than ``timeout`` seconds)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def move_of(view: dict[str, Any]) -> str:
    a = view["render"]["actions"][0]
    return a["move"] if "move" in a else a["template"].replace("{n}", "1")


@pytest.mark.postgres
def test_two_processes_on_one_postgresql_share_viewers_races_and_ai(db_url: str) -> None:
    """A move posted to process A reaches a viewer on process B; of two moves racing through A and B
    exactly one is stored; an AI seat moves exactly once per turn whichever process the human uses."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share viewers through PostgreSQL only")
    with serve(db_url) as (a, _), serve(db_url, "--ai-seconds", "0.02") as (b, _):
        created = httpx.post(a + "/api/games", json={"game": "nume", "params": {"size": 3}}).json()
        gid, tokens = created["id"], created["tokens"]
        ws_url = b.replace("http", "ws") + f"/api/games/{gid}/ws"
        with connect(ws_url, open_timeout=10) as viewer:
            assert json.loads(viewer.recv(timeout=10))["type"] == "state"
            for n in range(4):
                base = (a, b)[n % 2]  # moves through both processes
                view = httpx.get(f"{base}/api/games/{gid}", headers={"X-Seat-Token": tokens[str(n % 2)]}).json()
                r = httpx.post(
                    f"{base}/api/games/{gid}/moves",
                    json={"token": tokens[str(n % 2)], "move": move_of(view), "expected": n},
                )
                assert r.status_code == 200, r.text
                while True:  # the viewer on B hears of every move, also those posted to A
                    msg = json.loads(viewer.recv(timeout=10))
                    if msg["type"] == "state" and msg["view"]["move_number"] == n + 1:
                        break
            # a race: the same turn through both processes at once
            view = httpx.get(f"{a}/api/games/{gid}", headers={"X-Seat-Token": tokens["0"]}).json()
            targets = [x["template"].replace("{n}", "1") for x in view["render"]["actions"] if "template" in x][:2]
            outcomes: list[int] = []
            barrier = threading.Barrier(2)

            def race(base: str, mv: str) -> None:
                barrier.wait()
                outcomes.append(
                    httpx.post(
                        f"{base}/api/games/{gid}/moves", json={"token": tokens["0"], "move": mv, "expected": 4}
                    ).status_code
                )

            threads = [threading.Thread(target=race, args=(base, mv)) for base, mv in zip((a, b), targets, strict=True)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(outcomes) == [200, 409]
            stored = httpx.get(f"{b}/api/games/{gid}").json()
            assert stored["move_number"] == 5 and len(stored["moves"]) == 5

        # an AI game: the human moves through A and B in turn; the AI answers once per turn
        ai = httpx.post(b + "/api/games", json={"game": "nume", "params": {"size": 3}, "mode": "ai", "ai_level": 1})
        gid, token = ai.json()["id"], ai.json()["tokens"]["0"]
        for n in range(3):
            base = (a, b)[n % 2]
            view = httpx.get(f"{base}/api/games/{gid}", headers={"X-Seat-Token": token}).json()
            deadline = time.time() + 30
            while view["to_move"] != 0:
                assert time.time() < deadline, "the AI did not answer"
                time.sleep(0.05)
                view = httpx.get(f"{base}/api/games/{gid}", headers={"X-Seat-Token": token}).json()
            r = httpx.post(
                f"{base}/api/games/{gid}/moves",
                json={"token": token, "move": move_of(view), "expected": view["move_number"]},
            )
            assert r.status_code == 200, r.text
        deadline = time.time() + 30
        while (final := httpx.get(f"{a}/api/games/{gid}").json())["to_move"] != 0:
            assert time.time() < deadline, "the AI did not answer"
            time.sleep(0.05)
        players = [m["player"] for m in final["moves"]]
        assert players == [0, 1] * 3, players  # exactly one AI move per turn, none doubled


def test_kill_9_loses_no_acknowledged_move(tmp_path: Path) -> None:
    """kill -9 of the server while moves stream in: every acknowledged move is stored after a restart."""
    url = f"sqlite:///{tmp_path / 'k.db'}"
    acked: dict[str, list[str]] = {}
    rng = random.Random(4)
    for _round in range(3):
        with serve(url) as (base, proc):
            stop = threading.Event()

            def play(stop: threading.Event = stop, base: str = base) -> None:
                with contextlib.suppress(httpx.HTTPError):  # killed: the move in flight was never acknowledged
                    stream(stop, base)

            def stream(stop: threading.Event, base: str) -> None:
                with httpx.Client(base_url=base, timeout=5) as c:
                    while not stop.is_set():
                        seed = rng.randrange(1000)
                        g = c.post("/api/games", json={"game": "nume", "params": {"size": 3}, "seed": seed}).json()
                        state = tessera.load_game("nume(size=3)").new_initial_state(seed=seed)
                        acked[g["id"]] = []
                        while not state.is_terminal() and not stop.is_set():
                            mv = state.random_move(rng)
                            body = {"token": g["tokens"][str(state.current_player())], "move": mv}
                            r = c.post(f"/api/games/{g['id']}/moves", json={**body, "expected": state.move_number()})
                            assert r.status_code == 200, r.text
                            state.play(mv)
                            acked[g["id"]].append(mv)

            worker = threading.Thread(target=play)
            worker.start()
            time.sleep(1.5)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            stop.set()
            worker.join(10)
    with serve(url) as (base, _):
        total = 0
        for gid, moves in acked.items():
            stored = [m["move"] for m in httpx.get(f"{base}/api/games/{gid}").json()["moves"]]
            assert stored[: len(moves)] == moves, gid
            total += len(moves)
    assert total > 0
