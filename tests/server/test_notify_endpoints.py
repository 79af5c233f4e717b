"""Push endpoints under attack (server-side request forgery) and guests' subscriptions kept in bounds.

A push endpoint is a URL a browser hands the server; the server then POSTs to it.  Attacks: an
endpoint on the server's own machine or network (given directly, or by a name that resolves
there, or that changes its answer after the subscription was stored), and a push service that
redirects the push elsewhere.  A local TCP listener counts every connection: it must see none.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.http.app import create_app
from tessera.server.notify import endpoints
from tessera.server.notify import store as notify_store
from tests.server.test_notify import Browser, online

SITE = "http://testserver"
PUBLIC = "93.184.215.14"
"""A global address the fake DNS gives (nothing is ever sent to it: see ``fake_dns``)."""


@pytest.fixture
def app(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[FastAPI]:
    monkeypatch.delenv("TESSERA_PUSH_INSECURE", raising=False)
    monkeypatch.delenv("TESSERA_PUSH_HOSTS", raising=False)
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(a):
        yield a


def browser(app: FastAPI, address: str = "10.0.0.1") -> TestClient:
    return TestClient(app, headers={"Origin": SITE}, client=(address, 50000))


@contextmanager
def listener() -> Iterator[tuple[int, list[int]]]:
    """A TCP port on 127.0.0.1 that counts the connections it accepts (and closes them)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    accepted: list[int] = []
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            accepted.append(1)
            conn.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(2)
        server.close()


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names answered by a list of addresses, one per lookup (the last one repeats)."""
    answers: dict[str, list[str]] = {}
    real = endpoints.getaddrinfo

    def lookup(host: str, port: Any, *args: Any, **kw: Any) -> Any:
        if host in answers:
            queue = answers[host]
            address = queue.pop(0) if len(queue) > 1 else queue[0]
            return real(address, port, *args, **kw)
        return real(host, port, *args, **kw)

    monkeypatch.setattr(endpoints, "getaddrinfo", lookup)
    return answers


LOCAL_ENDPOINTS = [
    "https://127.0.0.1/x",
    "https://127.1.2.3:8443/x",
    "https://localhost/x",
    "https://[::1]/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://0.0.0.0/x",
    "https://10.0.0.1/x",
    "https://172.16.5.4/x",
    "https://192.168.1.1/x",
    "https://169.254.169.254/latest/meta-data/",
    "https://100.100.100.200/x",
    "https://[fd00:ec2::254]/x",
    "https://[fe80::1]/x",
    "https://224.0.0.1/x",
    "https://user:secret@fcm.googleapis.com/x",
]


@pytest.mark.parametrize("endpoint", LOCAL_ENDPOINTS)
def test_a_push_endpoint_on_a_local_private_or_metadata_address_is_refused(app: FastAPI, endpoint: str) -> None:
    """Loopback, private, link-local (cloud metadata), shared, multicast and unspecified addresses —
    by address or by a name that resolves there (``localhost``) — are refused with a 422 saying
    why, and nothing is stored."""
    c = browser(app)
    _, t0, _ = online(c)
    sub = Browser(endpoint).subscription()
    r = c.post("/api/notify/push/subscribe", json={"subscription": sub, "tokens": [t0]})
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith("subscription.endpoint:")
    assert app.state.notify.store.subscription(endpoint) is None


def test_a_name_that_resolves_to_a_private_address_is_refused(app: FastAPI, fake_dns: dict[str, list[str]]) -> None:
    """'After DNS resolution': the name is public-looking, its address is not."""
    fake_dns["push.example"] = ["10.1.2.3"]
    c = browser(app)
    _, t0, _ = online(c)
    r = c.post(
        "/api/notify/push/subscribe",
        json={"subscription": Browser("https://push.example/x").subscription(), "tokens": [t0]},
    )
    assert r.status_code == 422
    assert r.json()["key"] == "refusal.notify.push_endpoint_local"
    assert r.json()["args"] == {"host": "push.example"}


def test_a_stored_endpoint_on_a_local_address_is_never_contacted_at_send_time(app: FastAPI) -> None:
    """A subscription stored before these checks (or by another way in) pointing at this machine:
    the push is refused at send time, no connection reaches the local port, the subscription is
    dropped."""
    store = app.state.notify.store
    with listener() as (port, accepted):
        endpoint = f"https://127.0.0.1:{port}/push"
        sub_in = Browser(endpoint).subscription()
        store.subscribe(
            endpoint=endpoint,
            p256dh=sub_in["keys"]["p256dh"],
            auth=sub_in["keys"]["auth"],
            user_id=None,
            seats=[],
            lang="en",
            kinds=["turn"],
        )
        sub = store.subscription(endpoint)
        assert app.state.notify.pusher.send(sub, {"kind": "turn"}) is False
        time.sleep(0.3)
        assert accepted == []
    assert store.subscription(endpoint) is None


def test_a_name_rebound_to_a_local_address_after_subscribing_is_not_contacted(
    app: FastAPI, fake_dns: dict[str, list[str]]
) -> None:
    """DNS rebinding: the name resolves to a public address when the subscription is stored and to
    127.0.0.1 when the push is sent: the address is checked again at connection, and nothing
    reaches the local port."""
    c = browser(app)
    _, t0, _ = online(c)
    with listener() as (port, accepted):
        endpoint = f"https://push.example:{port}/x"
        fake_dns["push.example"] = [PUBLIC, "127.0.0.1"]
        r = c.post(
            "/api/notify/push/subscribe", json={"subscription": Browser(endpoint).subscription(), "tokens": [t0]}
        )
        assert r.status_code == 201, r.text
        sub = app.state.notify.store.subscription(endpoint)
        assert app.state.notify.pusher.send(sub, {"kind": "turn"}) is False
        time.sleep(0.3)
        assert accepted == []


@contextmanager
def http_server(answer: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[tuple[int, list[str]]]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(f"POST {self.path}")
            answer(self)

        def do_GET(self) -> None:
            seen.append(f"GET {self.path}")
            answer(self)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_redirect_from_a_push_service_is_not_followed(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    """A push service that answers 307 (or 302) to an internal address: the push fails and nothing
    is sent to the address redirected to (even with local push services allowed, as in tests)."""
    monkeypatch.setenv("TESSERA_PUSH_INSECURE", "1")

    def ok(h: BaseHTTPRequestHandler) -> None:
        h.send_response(201)
        h.send_header("Content-Length", "0")
        h.end_headers()

    with http_server(ok) as (inner_port, inner_seen):
        for status in (307, 302):

            def redirect(h: BaseHTTPRequestHandler, status: int = status) -> None:
                h.send_response(status)
                h.send_header("Location", f"http://127.0.0.1:{inner_port}/internal")
                h.send_header("Content-Length", "0")
                h.end_headers()

            with http_server(redirect) as (port, seen):
                endpoint = f"http://127.0.0.1:{port}/push/{status}"
                sub_in = Browser(endpoint).subscription()
                store = app.state.notify.store
                store.subscribe(
                    endpoint=endpoint,
                    p256dh=sub_in["keys"]["p256dh"],
                    auth=sub_in["keys"]["auth"],
                    user_id=None,
                    seats=[],
                    lang="en",
                    kinds=["turn"],
                )
                assert app.state.notify.pusher.send(store.subscription(endpoint), {"kind": "turn"}) is False
                assert seen == [f"POST /push/{status}"]
        assert inner_seen == []


def test_the_push_host_allow_list_refuses_other_hosts(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch, fake_dns: dict[str, list[str]]
) -> None:
    """``TESSERA_PUSH_HOSTS``: only the push services named (a leading dot: the names under it)."""
    monkeypatch.setenv("TESSERA_PUSH_HOSTS", "fcm.googleapis.com,.push.services.mozilla.com")
    fake_dns["push.example"] = [PUBLIC]
    fake_dns["updates.push.services.mozilla.com"] = [PUBLIC]
    c = browser(app)
    _, t0, _ = online(c)
    refused = c.post(
        "/api/notify/push/subscribe",
        json={"subscription": Browser("https://push.example/x").subscription(), "tokens": [t0]},
    )
    assert refused.status_code == 422 and refused.json()["key"] == "refusal.notify.push_endpoint_not_listed"
    allowed = Browser("https://updates.push.services.mozilla.com/wpush/v2/abc").subscription()
    assert c.post("/api/notify/push/subscribe", json={"subscription": allowed, "tokens": [t0]}).status_code == 201


def test_guests_push_subscriptions_are_capped_per_client_address(app: FastAPI, fake_dns: dict[str, list[str]]) -> None:
    """One address cannot fill the table: beyond the cap its oldest guest subscriptions go; another
    address's are untouched."""
    fake_dns["push.example"] = [PUBLIC]
    cap = notify_store.GUEST_SUBSCRIPTIONS_PER_CLIENT
    other = browser(app, "10.9.9.9")
    _, t_other, _ = online(other)
    kept = Browser("https://push.example/other").subscription()
    assert other.post("/api/notify/push/subscribe", json={"subscription": kept, "tokens": [t_other]}).status_code == 201
    c = browser(app, "10.0.0.7")
    _, t0, _ = online(c)
    made = []
    for i in range(cap + 4):
        sub = Browser(f"https://push.example/{i}").subscription()
        assert c.post("/api/notify/push/subscribe", json={"subscription": sub, "tokens": [t0]}).status_code == 201
        made.append(sub["endpoint"])
    store = app.state.notify.store
    alive = [e for e in made if store.subscription(e) is not None]
    assert alive == made[-cap:]
    assert store.subscription(kept["endpoint"]) is not None


def test_an_accounts_push_subscriptions_are_capped(app: FastAPI, fake_dns: dict[str, list[str]]) -> None:
    fake_dns["push.example"] = [PUBLIC]
    c = browser(app)
    assert (
        c.post("/api/account/signup", json={"username": "Pushy", "password": "correct horse battery"}).status_code
        == 201
    )
    cap = notify_store.SUBSCRIPTIONS_PER_ACCOUNT
    made = []
    for i in range(cap + 3):
        sub = Browser(f"https://push.example/a{i}").subscription()
        assert c.post("/api/notify/push/subscribe", json={"subscription": sub}).status_code == 201
        made.append(sub["endpoint"])
    store = app.state.notify.store
    assert [e for e in made if store.subscription(e) is not None] == made[-cap:]


def test_a_guests_subscription_is_pruned_once_its_games_are_over(app: FastAPI, fake_dns: dict[str, list[str]]) -> None:
    """A guest's subscription whose every game has long ended can receive nothing more: pruned.
    One with a game still on is kept."""
    fake_dns["push.example"] = [PUBLIC]
    c = browser(app)
    gid, t0, _ = online(c)
    _, live_token, _ = online(c)
    over = Browser("https://push.example/over").subscription()
    on = Browser("https://push.example/on").subscription()
    assert c.post("/api/notify/push/subscribe", json={"subscription": over, "tokens": [t0]}).status_code == 201
    assert c.post("/api/notify/push/subscribe", json={"subscription": on, "tokens": [live_token]}).status_code == 201
    assert c.post(f"/api/games/{gid}/resign", json={"token": t0}).status_code == 200
    store = app.state.notify.store
    assert store.prune_guests() == 0  # just over: the game's end is still to be pushed
    assert store.prune_guests(time.time() + 2 * notify_store.GUEST_GRACE) == 1
    assert store.subscription(over["endpoint"]) is None
    assert store.subscription(on["endpoint"]) is not None
