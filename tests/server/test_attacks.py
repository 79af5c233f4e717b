"""Issue 29's attacks, run against a real ``tessera serve`` on loopback (bounded in count and time).

'A server no single client can take down': one client floods the server (AI games, analysis
evaluations, game creation, slow headers, many connections, huge WebSocket frames) from one
loopback address (127.0.0.x: Linux routes the whole 127/8 to the loopback interface) while a
bystander plays from another; the bystander's figures and the status codes are asserted.

The timing bounds are the issue's targets doubled (a loaded 2-core machine): 'a bystander's level-1
reply within 2 s and its level-5 reply within its level's time + 1 s'.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tessera.server.ai.thinking import LEVEL_SECONDS
from tests.server.pg import free_port
from tests.server.test_processes import stop

pytestmark = pytest.mark.attack

ROOT = Path(__file__).resolve().parents[2]
SLACK = float(os.environ.get("TESSERA_ATTACK_SLACK", "2.0"))
"""The issue's bounds are multiplied by this on a loaded test machine (``TESSERA_ATTACK_SLACK=1``:
the issue's own bounds, for a run on a quiet machine)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server with 2 AI worker processes, a 1 s header timeout and 20 connections per address."""
    port = free_port()
    db = tmp_path_factory.mktemp("attack") / "tessera.db"
    cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", f"sqlite:///{db}"]
    cmd += ["--ai-processes", "2", "--header-timeout", "1", "--max-connections-per-address", "20"]
    cmd += ["--log-level", "warning"]
    log = tempfile.TemporaryFile()  # noqa: SIM115 - a server must never block on a full pipe
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"the server exited: {log.read().decode()[-2000:]}")
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.time() < deadline, "the server did not start"
            time.sleep(0.2)
        yield base
    finally:
        stop(proc, 20)
        log.close()


def client_from(base: str, address: str) -> httpx.Client:
    """An HTTP client whose connections come from ``address`` (a loopback address)."""
    return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=30)


def ai_game(c: httpx.Client, level: int) -> dict[str, Any]:
    """A Nume game against the AI at ``level``, the AI to move first (the person takes seat 1)."""
    r = c.post("/api/games", json={"game": "nume", "params": {"size": 3}, "mode": "ai", "seat": 1, "ai_level": level})
    assert r.status_code == 201, r.text
    return dict(r.json())


def seconds_to_first_ai_move(c: httpx.Client, gid: str, limit: float) -> float:
    """How long the AI's first move of game ``gid`` took to appear (polled; gives up after ``limit``)."""
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        if c.get(f"/api/games/{gid}").json()["move_number"] >= 1:
            return time.perf_counter() - started
        time.sleep(0.05)
    return float("inf")


def test_games_whose_every_seat_is_an_ai_are_refused_to_a_guest(server: str) -> None:
    """'games whose every seat is an AI are limited (e.g. accounts only, a few at a time)': a guest's is 403."""
    with client_from(server, "127.0.0.2") as c:
        seats = [{"kind": "ai", "level": 5}, {"kind": "ai", "level": 5}]
        r = c.post("/api/games", json={"game": "nume", "params": {"size": 3}, "seats": seats})
        assert r.status_code == 403 and "account" in r.json()["detail"]
        assert c.get("/api/games", params={"status": "all"}).json()["games"] == []


def test_a_bystanders_ai_replies_in_time_while_another_client_floods_the_ai_and_analysis(server: str) -> None:
    """Attacks 1 and 6: one client starts many games against level 5 and asks for many 5-second
    evaluations; a bystander's level-1 reply comes within 2 s and its level-5 reply within the
    level's time + 1 s (both × SLACK), the flood's surplus evaluations are refused 429 with
    Retry-After, and a waiting AI seat shows that it waits (``ai_waiting``)."""
    stop = threading.Event()
    answers: list[httpx.Response] = []
    with client_from(server, "127.0.0.3") as attacker, client_from(server, "127.0.0.4") as bystander:
        flood = [ai_game(attacker, 5) for _ in range(12)]

        def evaluate() -> None:
            with client_from(server, "127.0.0.3") as c:
                while not stop.is_set():
                    body = {"game": "nume(size=3)", "moves": [], "seconds": 5.0}
                    r = c.post("/api/analysis/evaluate", json=body, timeout=60)
                    answers.append(r)
                    if r.status_code == 429:
                        time.sleep(0.2)

        threads = [threading.Thread(target=evaluate) for _ in range(6)]
        for t in threads:
            t.start()
        try:
            time.sleep(1.0)  # the flood is queued
            waiting = [attacker.get(f"/api/games/{g['id']}").json() for g in flood]
            assert any("ai_waiting" in v for v in waiting), "no flooded game shows its AI waiting"
            one = ai_game(bystander, 1)
            level1 = seconds_to_first_ai_move(bystander, one["id"], 30)
            five = ai_game(bystander, 5)
            level5 = seconds_to_first_ai_move(bystander, five["id"], 60)
        finally:
            stop.set()
            for t in threads:
                t.join(60)
    print(f"bystander under attack: level-1 reply {level1:.2f} s, level-5 reply {level5:.2f} s")
    assert level1 <= 2.0 * SLACK, f"the bystander's level-1 reply took {level1:.1f} s"
    assert level5 <= (LEVEL_SECONDS[5] + 1.0) * SLACK, f"the bystander's level-5 reply took {level5:.1f} s"
    refused = [r for r in answers if r.status_code == 429]
    assert refused and all(int(r.headers["retry-after"]) >= 1 and r.json()["detail"] for r in refused)
    assert {r.status_code for r in answers} <= {200, 429}


def test_game_creation_is_limited_per_address_with_429_and_retry_after(server: str) -> None:
    """Attack 7: 'No limit on creating games' — one address creating games as fast as it can is
    answered 429 with Retry-After and a JSON detail once past its burst; another address is not."""
    with client_from(server, "127.0.0.5") as attacker, client_from(server, "127.0.0.6") as bystander:
        codes = []
        for _ in range(40):
            r = attacker.post("/api/games", json={"game": "nume", "params": {"size": 2}})
            codes.append(r.status_code)
            if r.status_code == 429:
                assert int(r.headers["retry-after"]) >= 1 and "too many" in r.json()["detail"]
        assert set(codes) == {201, 429} and codes.count(201) <= 25
        assert bystander.post("/api/games", json={"game": "nume", "params": {"size": 2}}).status_code == 201


def test_a_connection_trickling_its_header_is_dropped(server: str) -> None:
    """Attack 2: 'connections trickling header bytes were all open after 40 s' — now each is closed
    once the header timeout (1 s here) passes without a complete request head."""
    port = int(server.rsplit(":", 1)[1])
    socks = []
    for _ in range(5):
        s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.7", 0))
        s.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    started = time.perf_counter()
    for s in socks:
        with s:
            assert _closed_by_server(s)  # closed by the server, not by our 10 s timeout
    assert time.perf_counter() - started < 10


def _closed_by_server(s: socket.socket) -> bool:
    """Trickle one more header line and read: True once the server has closed the connection. A server
    that closed before the line arrived answers it with a reset (seen on CI: the fifth socket's line
    reached a connection closed a second earlier), which is a close all the same; a timeout raises."""
    try:
        s.sendall(b"X-Slow: 1\r\n")
        return s.recv(100) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True


def test_after_an_answer_the_header_timeout_runs_again_for_the_next_request(server: str) -> None:
    """'a complete request head within the header timeout of opening (or of its previous answer)': a
    kept-alive connection asking again every 0.4 s stays open past several timeouts (each new request
    disarms the previous answer's timer, which holds the answered request only weakly), and once it
    trickles its next head it is closed."""
    port = int(server.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.10", 0)) as s:
        answers = b""
        for i in range(8):  # 3.2 s of requests on one connection, with a 1 s header timeout
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            while answers.count(b'{"status":"ok"}') <= i:  # (an answer may come in several pieces)
                piece = s.recv(4096)
                assert piece, f"the connection was closed after {i} answers"
                answers += piece
            time.sleep(0.4)
        assert answers.count(b"HTTP/1.1 200") == 8
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        started = time.perf_counter()
        assert _closed_by_server(s)  # the head never completed
        assert time.perf_counter() - started < 10


def test_open_connections_per_address_are_capped(server: str) -> None:
    """'a cap on open connections per address': past 20 (this server's cap) a new connection from
    the same address is closed at once; another address is served."""
    port = int(server.rsplit(":", 1)[1])
    held = [socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.8", 0)) for _ in range(20)]
    try:
        extra = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.8", 0))
        with extra:
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            with contextlib.suppress(ConnectionResetError):
                assert extra.recv(100) == b""
        with client_from(server, "127.0.0.9") as other:
            assert other.get("/healthz").status_code == 200
    finally:
        for s in held:
            s.close()


def test_a_websocket_frame_over_the_limit_is_refused_before_it_is_read(server: str) -> None:
    """Attack 3: 'WebSocket frames up to 16 MiB are read whole' — a 1 MiB frame now closes the socket
    with 1009 (message too big), as uvicorn reads the frame's length before its body."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with client_from(server, "127.0.0.10") as c:
        g = c.post("/api/games", json={"game": "nume", "params": {"size": 2}}).json()
    with connect(server.replace("http", "ws") + f"/api/games/{g['id']}/ws", max_size=None) as ws:
        ws.recv(timeout=10)
        with pytest.raises(ConnectionClosed) as closed:
            ws.send("x" * (1024 * 1024))
            for _ in range(5):
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_health_and_readiness(server: str) -> None:
    """'GET /healthz (liveness) and GET /readyz (storage reachable, migrations current)'."""
    assert httpx.get(server + "/healthz").json() == {"status": "ok"}
    ready = httpx.get(server + "/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
