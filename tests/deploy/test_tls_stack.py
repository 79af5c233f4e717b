"""The deployment of ``deploy/`` run for real (issue 42): two ``tessera serve`` processes, started as
``tessera@.service`` starts them, on a PostgreSQL cluster, behind nginx with ``deploy/nginx/tessera.conf``
and a certificate from a local authority; a game is played through it.

- 'a test that runs that stack on this machine and plays a game through it with WebSockets, secure
  cookies and the client's address passed through'
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

import tessera
from tests.deploy.stack import Process, client_tls, nginx_binary, running_stack
from tests.server.conftest import CI

pytestmark = [pytest.mark.deploy, pytest.mark.postgres]

ALICE, BOB, WATCHER, DIRECT = "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"
"""Loopback addresses the clients connect from, so that each is told apart from the proxy (127.0.0.1)."""


def client_from(address: str, base: str, tls: Any) -> httpx.Client:
    """An HTTPS client whose connections come from ``address``."""
    transport = httpx.HTTPTransport(verify=tls, local_address=address)
    return httpx.Client(base_url=base, transport=transport, timeout=20, headers={"Origin": base})


def logged(procs: list[Process], request_id: str) -> dict[str, object]:
    """The request line a process wrote for ``request_id`` (written once the answer was sent: waited for)."""
    deadline = time.time() + 10
    while time.time() < deadline:
        for p in procs:
            for line in p.lines():
                if line.get("request_id") == request_id and line.get("message") == "request":
                    return line
        time.sleep(0.05)
    raise AssertionError(f"no process logged the request {request_id}")


@pytest.fixture
def stack_db(postgres_url: str) -> str:
    """A new database on the test cluster (nginx must be installed: CI fails without it, others skip)."""
    if nginx_binary() is None:
        if CI:
            pytest.fail("the deployment tests must run under CI: nginx is not installed")
        pytest.skip("nginx is not installed (scripts/test.sh installs it)")
    import uuid

    import sqlalchemy as sa

    name = "deploy_" + uuid.uuid4().hex[:10]
    engine = sa.create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return postgres_url.rsplit("/", 1)[0] + "/" + name


def test_a_game_through_nginx_with_tls_websockets_secure_cookies_and_real_addresses(
    stack_db: str, tmp_path: Path
) -> None:
    """Sign-up, an online game between an account and a guest and a spectator's live socket, all over
    TLS through nginx to two processes: every move reaches the spectator whichever process stored it,
    the session cookie is Secure and HttpOnly, each request is logged with its client's own address
    (never the proxy's, never an address the client claims), and plain HTTP is redirected to HTTPS."""
    with running_stack(stack_db, tmp_path) as (base, plain, procs, certs):
        tls = client_tls(certs)
        redirect = httpx.get(plain + "/g/abc", follow_redirects=False)
        assert redirect.status_code == 301
        assert redirect.headers["location"].startswith("https://")

        with client_from(ALICE, base, tls) as alice, client_from(BOB, base, tls) as bob:
            r = alice.post("/api/account/signup", json={"username": "alice", "password": "a long secret 42"})
            assert r.status_code == 201, r.text
            cookie = r.headers["set-cookie"].lower()
            assert "secure" in cookie and "httponly" in cookie, cookie
            assert r.headers.get("strict-transport-security", "").startswith("max-age=")
            assert alice.get("/api/account").json()["username"] == "alice"  # the cookie is sent back over TLS

            r = alice.post("/api/games", json={"game": "nume(size=3)", "mode": "online", "public": True})
            assert r.status_code == 201, r.text
            gid, alice_token = r.json()["id"], r.json()["tokens"]["0"]
            created_by = logged(procs, r.headers["x-request-id"])
            assert created_by["client"] == ALICE, created_by
            r = bob.post(f"/api/games/{gid}/join")
            assert r.status_code == 200, r.text
            bob_token = r.json()["token"]
            assert logged(procs, r.headers["x-request-id"])["client"] == BOB

            ws_url = base.replace("https", "wss") + f"/api/games/{gid}/ws"
            with connect(ws_url, ssl=tls, source_address=(WATCHER, 0), open_timeout=20) as watcher:
                first = json.loads(watcher.recv(timeout=20))
                assert first["type"] == "state"
                state = tessera.load_game(first["view"]["spec"]).new_initial_state(seed=first["view"]["seed"])
                tokens = [alice_token, bob_token]
                served: set[int] = set()
                for n in range(6):
                    player = (alice, bob)[n % 2]
                    move = state.legal_moves()[0]
                    state.play(move)
                    r = player.post(
                        f"/api/games/{gid}/moves",
                        json={"token": tokens[n % 2], "move": move, "expected": n},
                        headers={"X-Forwarded-For": "203.0.113.9"},  # a client's claim: nginx replaces it
                    )
                    assert r.status_code == 200, r.text
                    line = logged(procs, r.headers["x-request-id"])
                    assert line["client"] == (ALICE, BOB)[n % 2], line
                    served |= {p.port for p in procs if any(x == line for x in p.lines())}
                    while True:  # the spectator hears of every move, whichever process stored it
                        msg = json.loads(watcher.recv(timeout=20))
                        if msg["type"] == "state" and msg["view"]["move_number"] == n + 1:
                            break
                assert len(served) == 2, "nginx sent every move to one process"  # its round robin: moves alternate

        # straight to a process, not through the proxy: a forwarded address is not believed
        direct = httpx.Client(transport=httpx.HTTPTransport(local_address=DIRECT), timeout=10)
        with direct:
            r = direct.get(f"http://127.0.0.1:{procs[0].port}/api/catalog", headers={"X-Forwarded-For": "203.0.113.9"})
        assert r.status_code == 200
        assert logged(procs, r.headers["x-request-id"])["client"] == DIRECT
        # the metrics are not served through the proxy
        assert httpx.get(base + "/metrics", verify=tls).status_code == 404
