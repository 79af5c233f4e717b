"""Notifications: games waiting for you, and Web Push delivered end to end.

Pushes are sent to a push service on localhost (a small ``http.server`` in the test) and
decrypted there with the subscription's own keys (RFC 8291), as a browser would.
"""

from __future__ import annotations

import base64
import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI
from fastapi.testclient import TestClient

import tessera
from tessera.server.http.app import create_app
from tests.server.helpers import every_seat_moves, run_coroutine


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """A push service on localhost: answers 201 (``/gone/…``: 410) and keeps every request."""

    base: str
    received: list[Received] = field(default_factory=list)


@contextmanager
def push_service() -> Iterator[PushService]:
    svc = PushService("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            svc.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(410 if self.path.startswith("/gone/") else 201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    svc.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield svc
    finally:
        server.shutdown()
        server.server_close()


class Browser:
    """A browser's push subscription: a P-256 key pair and a 16-byte auth secret."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)},
        }

    def decrypt(self, body: bytes) -> dict[str, Any]:
        """The payload of a push (RFC 8291, aes128gcm), decrypted with this subscription's keys."""
        import http_ece

        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        return dict(json.loads(plain.decode("utf-8")))


# -- fixtures ----------------------------------------------------------------------------------
SITE = "http://testserver"
PASSWORD = "correct horse battery"
NELAXTAM = {"size": 10, "troops": 2, "by_sea": 1, "max_idle_turns": 2}


@pytest.fixture
def app(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[FastAPI]:
    monkeypatch.setenv("TESSERA_PUSH_INSECURE", "1")  # the local push service speaks http://
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(a):
        yield a


@pytest.fixture
def browser(app: FastAPI) -> Callable[[], TestClient]:
    """A new browser on the site (its own cookies; the site's Origin, as its pages send)."""
    return lambda: TestClient(app, headers={"Origin": SITE})


@pytest.fixture
def pushes() -> Iterator[PushService]:
    with push_service() as svc:
        yield svc


def signup(b: TestClient, name: str) -> TestClient:
    r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return b


def online(c: TestClient, game: str = "nume", params: dict[str, Any] | None = None) -> tuple[str, str, str]:
    """An online game between two guests: its id and the two seat tokens."""
    r = c.post("/api/games", json={"game": game, "params": params or {"size": 2}, "mode": "online", "public": True})
    assert r.status_code == 201, r.text
    g = r.json()
    joined = c.post(f"/api/games/{g['id']}/join").json()
    return g["id"], g["tokens"]["0"], joined["token"]


def waiting(c: TestClient, *tokens: str) -> dict[str, Any]:
    r = c.post("/api/notify/waiting", json={"tokens": list(tokens)})
    assert r.status_code == 200, r.text
    return r.json()


def play_first(c: TestClient, gid: str, token: str) -> dict[str, Any]:
    v = c.get(f"/api/games/{gid}", headers={"X-Seat-Token": token}).json()
    a = v["render"]["actions"][0]
    mv = a["move"] if "move" in a else a["template"].replace("{n}", str(a.get("choices", [1])[0]))
    r = c.post(f"/api/games/{gid}/moves", json={"token": token, "move": mv, "expected": v["move_number"]})
    assert r.status_code == 200, r.text
    return dict(r.json())


def idle(app: FastAPI) -> None:
    assert app.state.notify.notifier.idle(20.0), "the notifier did not finish its work"


# -- games waiting for you -----------------------------------------------------------------------
def test_waiting_lists_only_the_games_where_a_given_seat_must_move(browser: Callable[[], TestClient]) -> None:
    """'Games waiting for you … in this browser for guests': the games where one of the seats whose
    tokens are shown must act, and never anybody else's."""
    c = browser()
    gid, t0, t1 = online(c)
    other, o0, _ = online(c)  # another game, whose tokens are not shown
    w = waiting(c, t0, t1)
    assert [(g["id"], g["seats"]) for g in w["games"]] == [(gid, [0])] and w["count"] == 1 and not w["account"]
    assert waiting(c, t1)["games"] == []
    play_first(c, gid, t0)
    assert [(g["id"], g["seats"]) for g in waiting(c, t0, t1)["games"]] == [(gid, [1])]
    assert waiting(c, t0)["games"] == []
    assert waiting(c, "no-such-token")["games"] == [] and waiting(c)["games"] == []
    assert other in [g["id"] for g in waiting(c, o0)["games"]]
    entry = waiting(c, t1)["games"][0]
    assert entry["url"] == f"/g/{gid}" and entry["move_number"] == 1 and [p["seat"] for p in entry["players"]] == [0, 1]


def test_waiting_refuses_a_malformed_list_of_tokens(browser: Callable[[], TestClient]) -> None:
    """Bad input gets a clear error: tokens are a list of at most 500 strings."""
    c = browser()
    for body in ({"tokens": "abc"}, {"tokens": [1, 2]}, {"tokens": ["x"] * 501}, {"tokens": [], "more": 1}):
        r = c.post("/api/notify/waiting", json=body)
        assert r.status_code == 422 and r.json()["detail"], body


def test_waiting_in_a_sealed_turn_says_who_has_not_ordered_never_what(browser: Callable[[], TestClient]) -> None:
    """Nelaxtam: every seat that has not sealed its order waits; the list never shows an order."""
    c = browser()
    gid, t0, t1 = online(c, "nelaxtam", NELAXTAM)
    assert [g["seats"] for g in waiting(c, t0, t1)["games"]] == [[0, 1]]
    state = tessera.load_game("nelaxtam", **NELAXTAM).new_initial_state()
    order = state.random_move(random.Random(1), 0)
    r = c.post(f"/api/games/{gid}/moves", json={"token": t0, "move": order, "expected": 0})
    assert r.status_code == 200, r.text
    answer = waiting(c, t0, t1)
    assert [g["seats"] for g in answer["games"]] == [[1]]
    assert order not in json.dumps(answer)


def test_an_account_sees_its_games_waiting_on_every_device(browser: Callable[[], TestClient]) -> None:
    """'across devices for accounts': the games bound to the account, from a second log-in with no token."""
    ann = signup(browser(), "ann")
    bob = signup(browser(), "bob")
    c = ann.post("/api/challenges", json={"to": "bob", "game": "nume(size=2)", "seat": 0}).json()
    game_id = bob.post(f"/api/challenges/{c['id']}/accept").json()["game_id"]
    phone = browser()
    assert phone.post("/api/account/login", json={"username": "ann", "password": PASSWORD}).status_code == 200
    w = waiting(phone)
    assert w["account"] and [(g["id"], g["seats"]) for g in w["games"]] == [(game_id, [0])]
    assert waiting(bob)["games"] == []
    assert waiting(browser())["games"] == []  # a guest with no token sees nothing of theirs


# -- Web Push: keys and subscriptions ------------------------------------------------------------
def test_the_vapid_key_pair_is_made_once_and_survives_a_restart(db_url: str) -> None:
    """'VAPID keys made once and kept with the server's data (survive restarts)'."""
    keys = []
    for _ in range(2):
        with TestClient(create_app(db_url, ai_mode="thread", warm=False)) as c:
            r = c.get("/api/notify/push/key")
            assert r.status_code == 200, r.text
            keys.append(r.json()["key"])
    raw = base64.urlsafe_b64decode(keys[0] + "=" * (-len(keys[0]) % 4))
    assert keys[0] == keys[1] and len(raw) == 65 and raw[0] == 4


def test_a_subscription_is_refused_when_malformed_and_nothing_is_stored(
    app: FastAPI, browser: Callable[[], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bad input gets a clear error and never changes state."""
    c = browser()
    _, t0, _ = online(c)
    sub = Browser("https://push.example/abc").subscription()
    bad = [
        {"subscription": {**sub, "keys": {"p256dh": "short", "auth": sub["keys"]["auth"]}}, "tokens": [t0]},
        {"subscription": {**sub, "keys": {"p256dh": sub["keys"]["p256dh"], "auth": "!!"}}, "tokens": [t0]},
        {"subscription": sub, "tokens": [t0], "kinds": ["everything"]},
        {"subscription": sub, "tokens": ["not-a-seat"]},
        {"subscription": {**sub, "endpoint": "ftp://push.example/x"}, "tokens": [t0]},
    ]
    for body in bad:
        r = c.post("/api/notify/push/subscribe", json=body)
        assert r.status_code in (403, 422) and r.json()["detail"], body
    monkeypatch.delenv("TESSERA_PUSH_INSECURE")
    from tessera.server.notify import endpoints

    real = endpoints.getaddrinfo  # a fake DNS: push.example is a public address
    monkeypatch.setattr(
        endpoints,
        "getaddrinfo",
        lambda host, *a, **kw: real("93.184.215.14" if host == "push.example" else host, *a, **kw),
    )
    r = c.post(
        "/api/notify/push/subscribe", json={"subscription": {**sub, "endpoint": "http://10.0.0.1/x"}, "tokens": [t0]}
    )
    assert r.status_code == 422
    assert app.state.notify.store.subscription(sub["endpoint"]) is None
    assert c.post("/api/notify/push/subscribe", json={"subscription": sub, "tokens": [t0]}).status_code == 201
    assert app.state.notify.store.subscription(sub["endpoint"])["user_id"] is None
    assert c.post("/api/notify/push/unsubscribe", json={"endpoint": sub["endpoint"]}).json() == {"ok": True}
    assert app.state.notify.store.subscription(sub["endpoint"]) is None


# -- Web Push delivered end to end ---------------------------------------------------------------
def subscribe(c: TestClient, svc: PushService, name: str, tokens: list[str], **extra: Any) -> Browser:
    b = Browser(f"{svc.base}/{name}")
    r = c.post("/api/notify/push/subscribe", json={"subscription": b.subscription(), "tokens": tokens, **extra})
    assert r.status_code == 201, r.text
    return b


def delivered(svc: PushService, b: Browser) -> list[dict[str, Any]]:
    path = "/" + b.endpoint.split("/", 3)[3]
    return [b.decrypt(r.body) for r in svc.received if r.path == path]


def test_a_guest_is_pushed_your_turn_then_game_over_decrypted_with_the_subscription_keys(
    app: FastAPI, browser: Callable[[], TestClient], pushes: PushService
) -> None:
    """'your turn' and 'game over' pushes, tied to a guest's seat token, delivered to the push service
    encrypted for the subscription (RFC 8291) and signed with the server's VAPID key (RFC 8292)."""
    c = browser()
    gid, t0, t1 = online(c)
    idle(app)
    waiter = subscribe(c, pushes, "guest-1", [t1], lang="de")
    mover = subscribe(c, pushes, "guest-0", [t0])
    play_first(c, gid, t0)
    idle(app)
    got = delivered(pushes, waiter)
    assert [p["kind"] for p in got] == ["turn"]
    assert got[0]["game_id"] == gid and got[0]["url"] == f"/g/{gid}"
    assert got[0]["title"] == "Du bist am Zug"  # the subscription's language
    assert delivered(pushes, mover) == []  # seat 0 has just moved: not its turn
    request = next(r for r in pushes.received if r.path == "/guest-1")
    key = c.get("/api/notify/push/key").json()["key"]
    assert request.headers["content-encoding"] == "aes128gcm" and int(request.headers["ttl"]) > 0
    assert request.headers["authorization"].startswith("vapid t=") and f"k={key}" in request.headers["authorization"]
    every_seat_moves(app, gid)  # seat 1 moves too (before that, a resignation aborts the game)
    idle(app)
    assert [p["kind"] for p in delivered(pushes, mover)] == ["turn"]
    assert c.post(f"/api/games/{gid}/resign", json={"token": t0}).status_code == 200
    idle(app)
    assert [p["kind"] for p in delivered(pushes, waiter)] == ["turn", "end"]
    assert delivered(pushes, waiter)[1]["body"].endswith("du hast gewonnen.")
    assert [p["kind"] for p in delivered(pushes, mover)] == ["turn", "end"]
    assert "verloren" not in delivered(pushes, mover)[1]["body"]  # English: the default language
    assert delivered(pushes, mover)[1]["body"].endswith("you lost.")


def test_a_push_never_reveals_a_sealed_order(
    app: FastAPI, browser: Callable[[], TestClient], pushes: PushService
) -> None:
    """'never revealing a sealed Nelaxtam order (the payload says whose turn, not what was played)'."""
    c = browser()
    r = c.post("/api/games", json={"game": "nelaxtam", "params": NELAXTAM, "mode": "online", "public": True})
    g = r.json()
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = c.post(f"/api/games/{gid}/join").json()["token"]
    idle(app)
    b0, b1 = subscribe(c, pushes, "n0", [t0]), subscribe(c, pushes, "n1", [t1])
    state = tessera.load_game("nelaxtam", **NELAXTAM).new_initial_state()
    o0, o1 = state.random_move(random.Random(1), 0), state.random_move(random.Random(2), 1)
    assert c.post(f"/api/games/{gid}/moves", json={"token": t0, "move": o0, "expected": 0}).status_code == 200
    idle(app)
    assert c.post(f"/api/games/{gid}/moves", json={"token": t1, "move": o1, "expected": 0}).status_code == 200
    idle(app)
    # the first order sealed tells nobody; both in, the turn is resolved and both must order again
    p0, p1 = delivered(pushes, b0), delivered(pushes, b1)
    assert [p["kind"] for p in p0] == ["turn"] and [p["kind"] for p in p1] == ["turn"]
    for p in p0 + p1:
        assert set(p) == {"kind", "game_id", "url", "title", "body"}
        for order in (o0, o1):
            assert order not in json.dumps(p)
    assert all(o0.encode() not in r.body and o1.encode() not in r.body for r in pushes.received)


def test_an_account_is_pushed_a_challenge_and_its_turn_in_a_bound_game(
    app: FastAPI, browser: Callable[[], TestClient], pushes: PushService
) -> None:
    """Pushes tied to an account: 'challenge received', then 'your turn' in the game made of it."""
    ann = signup(browser(), "ann")
    bob = signup(browser(), "bob")
    b = subscribe(bob, pushes, "bob", [], kinds=["turn", "challenge"])
    assert app.state.notify.store.subscription(b.endpoint)["user_id"] is not None
    c = ann.post("/api/challenges", json={"to": "bob", "game": "nume(size=2)", "seat": 0}).json()
    idle(app)
    got = delivered(pushes, b)
    assert [p["kind"] for p in got] == ["challenge"] and "ann" in got[0]["body"] and "nume" in got[0]["body"]
    gid = bob.post(f"/api/challenges/{c['id']}/accept").json()["game_id"]
    seat = ann.get(f"/api/account/games/{gid}/seat").json()
    idle(app)
    play_first(ann, gid, seat["token"])
    idle(app)
    assert [p["kind"] for p in delivered(pushes, b)] == ["challenge", "turn"]


def test_a_subscription_the_push_service_calls_gone_is_dropped(
    app: FastAPI, browser: Callable[[], TestClient], pushes: PushService
) -> None:
    """A 410 Gone from the push service: the subscription is forgotten."""
    c = browser()
    gid, t0, t1 = online(c)
    gone = subscribe(c, pushes, "gone/x", [t1])
    play_first(c, gid, t0)
    idle(app)
    assert any(r.path == "/gone/x" for r in pushes.received)
    assert app.state.notify.store.subscription(gone.endpoint) is None


def test_an_account_page_is_woken_when_one_of_its_games_changes(
    app: FastAPI, browser: Callable[[], TestClient]
) -> None:
    """The account's live stream (GET /api/account/events) is woken by a move in a bound game, so that
    its pages read their games waiting again."""
    from tessera.server.events import AccountChanged

    ann = signup(browser(), "ann")
    bob = signup(browser(), "bob")
    c = ann.post("/api/challenges", json={"to": "bob", "game": "nume(size=2)", "seat": 0}).json()
    gid = bob.post(f"/api/challenges/{c['id']}/accept").json()["game_id"]
    idle(app)
    seen: list[str] = []
    app.state.service.events.subscribe(lambda e: seen.append(e.user_id) if isinstance(e, AccountChanged) else None)
    seat = ann.get(f"/api/account/games/{gid}/seat").json()
    play_first(ann, gid, seat["token"])
    idle(app)
    ids = {app.state.accounts.user("ann").id, app.state.accounts.user("bob").id}
    assert ids <= set(seen)


def test_the_service_worker_is_served_from_the_root(browser: Callable[[], TestClient]) -> None:
    """'a service worker (served from the site root so its scope covers the pages)'."""
    r = browser().get("/sw.js")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    assert r.headers["cache-control"] == "no-cache"
    assert 'addEventListener("push"' in r.text and "showNotification" in r.text


def test_a_change_announced_by_another_process_wakes_the_accounts_pages_and_pushes_nothing(
    app: FastAPI, browser: Callable[[], TestClient], pushes: PushService
) -> None:
    """Several processes on one PostgreSQL database: a change another process stored arrives as
    ``Changed(local=False)`` (tessera.server.store.bus); the accounts' live pages here are woken, and
    only the process that stored the change pushes (no second push from this one). With no account
    page or stream open here, another process's change is not even read."""
    from tessera.server.events import AccountChanged, Changed

    ann = signup(browser(), "ann")
    bob = signup(browser(), "bob")
    c = ann.post("/api/challenges", json={"to": "bob", "game": "nume(size=2)", "seat": 0}).json()
    gid = bob.post(f"/api/challenges/{c['id']}/accept").json()["game_id"]
    a = subscribe(ann, pushes, "ann", [])
    idle(app)
    app.state.notify.notifier._told.clear()  # as another process: it never told anyone of this game
    seen: list[str] = []
    app.state.service.events.subscribe(lambda e: seen.append(e.user_id) if isinstance(e, AccountChanged) else None)
    notifier = app.state.notify.notifier
    assert not notifier.listening()  # (this test's clients keep no page open)
    app.state.service.events.publish(Changed(gid, local=False))
    idle(app)
    assert seen == []  # nobody here to wake
    ann_id, bob_id = app.state.accounts.user("ann").id, app.state.accounts.user("bob").id
    notifier.listeners = [SimpleNamespace(listening=1)]  # as if Ann's page were open here
    app.state.service.events.publish(Changed(gid, local=False))
    idle(app)
    assert {ann_id, bob_id} <= set(seen)
    assert delivered(pushes, a) == []  # ann's turn: the process that stored the change tells her
    app.state.service.events.publish(Changed(gid, local=True))
    idle(app)
    assert [p["kind"] for p in delivered(pushes, a)] == ["turn"]  # (which a local change does)


def test_a_hot_seat_move_with_no_page_open_here_reads_nothing(app: FastAPI, browser: Callable[[], TestClient]) -> None:
    """'Hot-seat games send none': a hot-seat game's move, with no account page or stream open in this
    process, calls for no push and wakes nobody, so the notifier does not read its seats' accounts
    (a read per move on a busy server); an invitation game's move is read (its seats may be pushed)."""
    notifier = app.state.notify.notifier
    reads: list[list[str]] = []
    real = notifier._bound

    def counted(ids: list[str]) -> Any:
        reads.append(ids)
        return real(ids)

    notifier._bound = counted
    guest = browser()
    hot = guest.post("/api/games", json={"game": "nume(size=2)", "mode": "hotseat"}).json()
    idle(app)
    reads.clear()
    token = hot["tokens"]["0"]
    first = guest.get(f"/api/games/{hot['id']}", headers={"X-Seat-Token": token}).json()["render"]["actions"][0]
    mv = first.get("move") or first["template"].replace("{n}", "1")
    r = guest.post(f"/api/games/{hot['id']}/moves", json={"token": token, "move": mv, "expected": 0})
    assert r.status_code == 200, r.text
    idle(app)
    assert reads == []
    online = guest.post("/api/games", json={"game": "nume(size=2)", "mode": "online"}).json()
    idle(app)
    assert reads == [[online["id"]]] if notifier.pusher is not None else reads == []


def test_a_change_with_nothing_to_do_here_does_not_wake_the_notifiers_thread(app: FastAPI) -> None:
    """With no account page or stream open here, another process's change and a hot-seat game's
    move are not even queued for the notifier's thread (one wake per move of every game on every
    process, for nothing); with a page open here both are."""
    from tessera.server.events import Changed

    notifier = app.state.notify.notifier
    queued: list[Any] = []
    real = notifier._queue

    class Counted:
        def put(self, item: Any) -> None:
            queued.append(item)
            real.put(item)

    notifier._queue = Counted()
    try:
        assert not notifier.listening()
        app.state.service.events.publish(Changed("elsewhere", local=False))
        assert queued == []
        notifier.listeners = [SimpleNamespace(listening=1)]
        app.state.service.events.publish(Changed("elsewhere", local=False))
        assert queued == [("game", "elsewhere", False)]
    finally:
        notifier._queue = real


@pytest.mark.postgres
def test_a_move_on_one_process_wakes_the_opponents_page_streaming_from_another(db_url: str) -> None:
    """Two ``tessera serve`` processes on one PostgreSQL database: Ann moves through process A; Bob's
    account stream on process B is woken, and B lists the game as waiting for him."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share live notices through PostgreSQL only")
    import httpx

    from tests.server.test_processes import serve

    def client(base: str, name: str) -> httpx.Client:
        c = httpx.Client(base_url=base, headers={"Origin": base}, timeout=httpx.Timeout(30.0))
        assert c.post("/api/account/signup", json={"username": name, "password": PASSWORD}).status_code == 201
        return c

    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        ann, bob = client(a, "ann"), client(b, "bob")
        c = ann.post("/api/challenges", json={"to": "bob", "game": "nume(size=2)", "seat": 0}).json()
        gid = bob.post(f"/api/challenges/{c['id']}/accept").json()["game_id"]
        assert bob.post("/api/notify/waiting", json={}).json()["games"] == []
        time.sleep(1.0)  # the notices of the game's creation are delivered before Bob's page opens
        with bob.stream("GET", "/api/account/events") as stream:
            lines = stream.iter_lines()
            events = (line for line in lines if line.startswith("event: "))
            assert next(events) == "event: challenges"  # the page's first reading
            seat = ann.get(f"/api/account/games/{gid}/seat").json()
            view = ann.get(f"/api/games/{gid}", headers={"X-Seat-Token": seat["token"]}).json()
            action = view["render"]["actions"][0]
            mv = action.get("move") or action["template"].replace("{n}", str(action.get("choices", [1])[0]))
            r = ann.post(f"/api/games/{gid}/moves", json={"token": seat["token"], "move": mv, "expected": 0})
            assert r.status_code == 200, r.text
            assert next(events) == "event: challenges"  # woken: read your games again
        w = bob.post("/api/notify/waiting", json={}).json()
        assert [g["id"] for g in w["games"]] == [gid] and w["account"]


def test_the_streams_count_the_accounts_listening_here_as_streams_open_and_close() -> None:
    """'With no account page or stream open here, a change is not queued': the notifier reads whether one
    is open from the accounts' live streams and the bot API's event streams, which count the accounts with
    a stream open as streams open and close (two streams of one account count once)."""

    from tessera.server.accounts.live import AccountStreams
    from tessera.server.bot.streams import BotStreams

    async def run() -> None:
        pages, bots = AccountStreams(), BotStreams()
        a1, a2, b = pages.open("ann"), pages.open("ann"), pages.open("bob")
        assert pages.listening == 2
        pages.close("ann", a1)
        assert pages.listening == 2
        pages.close("ann", a2)
        pages.close("bob", b)
        assert pages.listening == 0
        wake = bots.open_events("botty", "key")
        assert bots.listening == 1
        bots.close_events("botty", "key", wake)
        assert bots.listening == 0

    run_coroutine(run())
