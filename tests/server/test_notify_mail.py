"""E-mail notifications: an address verified by a link, the digest of games waiting for you (at
most one per interval, across server processes), and its one-click unsubscribe — delivered to a
local SMTP server (aiosmtpd) started by the test."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.http.app import create_app
from tessera.server.notify.tables import email_tokens_table
from tests.server.helpers import run_coroutine

SITE = "http://testserver"
PASSWORD = "correct horse battery"


class Inbox:
    """What the local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))  # type: ignore[arg-type]
        return "250 OK"

    def wait(self, n: int, timeout: float = 20.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < n:
            assert time.monotonic() < deadline, f"{len(self.messages)} messages received, {n} expected"
            time.sleep(0.02)
        return self.messages


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def inbox(monkeypatch: pytest.MonkeyPatch) -> Iterator[Inbox]:
    from aiosmtpd.controller import Controller

    box = Inbox()
    port = _free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("TESSERA_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("TESSERA_SMTP_PORT", str(port))
    monkeypatch.setenv("TESSERA_SMTP_SECURITY", "none")
    monkeypatch.setenv("TESSERA_MAIL_FROM", "tessera <noreply@tessera.test>")
    monkeypatch.setenv("TESSERA_SITE_ORIGIN", SITE)  # e-mail links start with it (required)
    try:
        yield box
    finally:
        controller.stop()


@pytest.fixture
def app(db_url: str, inbox: Inbox) -> Iterator[FastAPI]:
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(a):
        yield a


@pytest.fixture
def browser(app: FastAPI) -> Callable[[], TestClient]:
    return lambda: TestClient(app, headers={"Origin": SITE})


def signup(b: TestClient, name: str) -> TestClient:
    assert b.post("/api/account/signup", json={"username": name, "password": PASSWORD}).status_code == 201
    return b


def link_in(msg: EmailMessage) -> str:
    body = msg.get_body(("plain",))
    assert body is not None
    found = re.search(r"http://testserver/\S+", body.get_content())
    assert found, body.get_content()
    return found.group(0)


def follow(b: TestClient, link: str) -> Any:
    """Open the e-mail's link (a page that changes nothing) and press its button (a POST)."""
    page = b.get(link)
    assert page.status_code == 200 and "method='post'" in page.text
    token = dict(p.split("=", 1) for p in urlsplit(link).query.split("&"))["token"]
    return b.post(
        "/api/notify/email/verify",
        content=f"token={token}",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )


def verified(b: TestClient, inbox: Inbox, address: str, n: int = 1) -> None:
    r = b.post("/api/notify/email", json={"email": address})
    assert r.status_code == 202, r.text
    r = follow(b, link_in(inbox.wait(n)[n - 1]))
    assert r.status_code == 303 and r.headers["location"].startswith("/account?email=verified")


def waiting_game(ann: TestClient, bob: TestClient) -> str:
    """A game between ann (to move) and bob, made by a challenge."""
    c = ann.post("/api/challenges", json={"to": "bob", "game": "nume(size=2)", "seat": 0}).json()
    return str(bob.post(f"/api/challenges/{c['id']}/accept").json()["game_id"])


def rounds(app: FastAPI, now: float) -> int:
    return int(run_coroutine(app.state.notify.digests.round(now)))  # not in a loop a browser test left


# -- the address ---------------------------------------------------------------------------------
def test_an_address_is_verified_by_a_link_whose_token_is_stored_hashed_and_used_once(
    app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox
) -> None:
    """'add/verify by a link (token hashed, expiring)'."""
    ann = signup(browser(), "ann")
    assert ann.get("/api/notify/email").json() == {"email": None, "available": True}
    r = ann.post("/api/notify/email", json={"email": "ann@example.org", "lang": "fr"})
    assert r.status_code == 202 and r.json() == {"email": "ann@example.org", "verified": False}
    msg = inbox.wait(1)[0]
    assert msg["To"] == "ann@example.org" and "vérifiez" in msg["Subject"]
    assert inbox.envelopes[0] == ("noreply@tessera.test", ["ann@example.org"])
    link = link_in(msg)
    token = dict(p.split("=", 1) for p in urlsplit(link).query.split("&"))["token"]
    with app.state.storage.transaction() as tx:
        stored = [r.token_hash for r in tx.conn.execute(sa.select(email_tokens_table))]
    assert stored and token not in stored and all(len(h) == 64 for h in stored)
    assert ann.get("/api/notify/email").json()["email"]["verified"] is False
    r = follow(ann, link)
    assert r.status_code == 303 and r.headers["location"] == "/account?email=verified#notifications"
    assert ann.get("/api/notify/email").json()["email"] == {
        "email": "ann@example.org",
        "verified": True,
        "digest_hours": 0,
    }
    again = follow(ann, link)  # used once
    assert again.headers["location"] == "/account?email=invalid#notifications"


def test_an_expired_or_replaced_link_verifies_nothing(
    app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox
) -> None:
    ann = signup(browser(), "ann")
    ann.post("/api/notify/email", json={"email": "old@example.org"})
    old = link_in(inbox.wait(1)[0])
    ann.post("/api/notify/email", json={"email": "new@example.org"})
    new = link_in(inbox.wait(2)[1])
    assert follow(ann, old).headers["location"].startswith("/account?email=invalid")
    with app.state.storage.transaction(write=True) as tx:
        tx.conn.execute(email_tokens_table.update().values(expires_at=time.time() - 1))
    assert follow(ann, new).headers["location"].startswith("/account?email=invalid")
    assert ann.get("/api/notify/email").json()["email"]["verified"] is False


def test_a_bad_address_or_a_guest_is_refused_and_nothing_is_sent(
    app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox
) -> None:
    """Bad input gets a clear error and never changes state."""
    ann = signup(browser(), "ann")
    for bad in ("not an address", "a@b", "x\r\nBcc: victim@example.org@example.org", "a" * 250 + "@example.org"):
        r = ann.post("/api/notify/email", json={"email": bad})
        assert r.status_code == 422 and r.json()["detail"], bad
    assert browser().post("/api/notify/email", json={"email": "g@example.org"}).status_code == 401
    assert ann.post("/api/notify/email/digest", json={"hours": 12}).status_code == 409  # no address yet
    r = ann.post("/api/notify/email/digest", json={"hours": 7})
    assert r.status_code == 422
    assert ann.get("/api/notify/email").json()["email"] is None and inbox.messages == []


def test_without_smtp_settings_no_address_is_taken(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """SMTP settings come from the environment; without TESSERA_SMTP_HOST the server sends no e-mail."""
    monkeypatch.delenv("TESSERA_SMTP_HOST", raising=False)
    with TestClient(create_app(db_url, ai_mode="thread", warm=False), headers={"Origin": SITE}) as c:
        signup(c, "ann")
        r = c.post("/api/notify/email", json={"email": "ann@example.org"})
        assert r.status_code == 503 and "TESSERA_SMTP_HOST" in r.json()["detail"]
        assert c.get("/api/notify/email").json() == {"email": None, "available": False}


# -- the digest --------------------------------------------------------------------------------------
def test_the_digest_lists_the_games_waiting_at_most_once_per_interval_with_one_click_unsubscribe(
    app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox
) -> None:
    """'a digest of games waiting for you at most once per chosen interval … a one-click unsubscribe
    link (RFC 8058 List-Unsubscribe headers too)'."""
    ann, bob = signup(browser(), "ann"), signup(browser(), "bob")
    verified(ann, inbox, "ann@example.org")
    gid = waiting_game(ann, bob)
    now = time.time()
    assert rounds(app, now) == 0  # the digest is off until chosen
    assert ann.post("/api/notify/email/digest", json={"hours": 12}).json() == {"digest_hours": 12}
    assert rounds(app, now) == 1
    digest = inbox.wait(2)[1]
    body = digest.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert digest["To"] == "ann@example.org" and "(1)" in digest["Subject"]
    assert f"http://testserver/g/{gid}" in body and "bob" in body
    unsubscribe = digest["List-Unsubscribe"].strip("<>")
    assert unsubscribe.startswith("http://testserver/api/notify/email/unsubscribe?") and unsubscribe in body
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert rounds(app, now + 3600) == 0  # within the interval
    assert rounds(app, now + 13 * 3600) == 0  # the interval passed, but nothing new is waiting
    waiting_game(ann, bob)  # a second game waiting for ann: something new
    assert rounds(app, now + 13 * 3600) == 1
    assert "(2)" in inbox.wait(3)[2]["Subject"]
    assert rounds(app, now + 14 * 3600) == 0

    # the link: a page with one button (a GET changes nothing), the POST unsubscribes
    page = browser().get(unsubscribe)
    assert page.status_code == 200 and "<form method='post'>" in page.text
    assert ann.get("/api/notify/email").json()["email"]["digest_hours"] == 12
    forged = unsubscribe[:-4] + "0000"
    assert browser().post(forged, content=b"List-Unsubscribe=One-Click").status_code == 404
    assert ann.get("/api/notify/email").json()["email"]["digest_hours"] == 12
    r = TestClient(app).post(
        unsubscribe,
        content=b"List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200
    assert ann.get("/api/notify/email").json()["email"]["digest_hours"] == 0
    waiting_game(ann, bob)
    assert rounds(app, now + 40 * 3600) == 0


def test_two_server_processes_send_one_digest(db_url: str, inbox: Inbox) -> None:
    """'across processes: one sender at a time': two apps on one database run a round at the same
    moment; the account gets one digest."""
    first, second = (create_app(db_url, ai_mode="thread", warm=False) for _ in range(2))
    with TestClient(first, headers={"Origin": SITE}) as a, TestClient(second, headers={"Origin": SITE}) as b:
        ann, bob = signup(a, "ann"), signup(TestClient(second, headers={"Origin": SITE}), "bob")
        verified(ann, inbox, "ann@example.org")
        ann.post("/api/notify/email/digest", json={"hours": 24})
        waiting_game(ann, bob)
        now = time.time()
        sent: list[int] = []
        start = threading.Barrier(2)

        def run(app: FastAPI) -> None:
            start.wait()
            sent.append(rounds(app, now))

        threads = [threading.Thread(target=run, args=(x,)) for x in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(sent) == [0, 1]
        assert len(inbox.messages) == 2  # the verification, and one digest
        assert b.get("/api/catalog").status_code == 200


def test_the_digest_sender_runs_in_the_server_as_a_periodic_task(
    db_url: str, inbox: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'The digest sender runs in the server as a periodic task'."""
    monkeypatch.setenv("TESSERA_DIGEST_CHECK", "0.2")
    with TestClient(create_app(db_url, ai_mode="thread", warm=False), headers={"Origin": SITE}) as c:
        ann = signup(c, "ann")
        bob = signup(TestClient(c.app, headers={"Origin": SITE}), "bob")
        verified(ann, inbox, "ann@example.org")
        ann.post("/api/notify/email/digest", json={"hours": 24})
        gid = waiting_game(ann, bob)
        digest = inbox.wait(2)[1]
        assert "(1)" in digest["Subject"] and gid in digest.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def test_a_deleted_accounts_address_is_forgotten_and_gets_no_digest(
    app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox
) -> None:
    """An account deleted: its address, links and digest go with it (the next round forgets them)."""
    from tessera.server.notify.tables import email_table

    ann, bob = signup(browser(), "ann"), signup(browser(), "bob")
    verified(ann, inbox, "ann@example.org")
    ann.post("/api/notify/email/digest", json={"hours": 12})
    waiting_game(ann, bob)
    r = ann.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code == 200, r.text
    assert rounds(app, time.time()) == 0
    with app.state.storage.transaction() as tx:
        assert tx.conn.execute(sa.select(email_table)).all() == []
        assert tx.conn.execute(sa.select(email_tokens_table)).all() == []
    assert len(inbox.messages) == 1  # the verification only


def test_verification_mails_are_limited_per_hour(app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox) -> None:
    """An account asks for at most 5 verification e-mails an hour (429 after, nothing sent or stored)."""
    ann = signup(browser(), "ann")
    for i in range(5):
        assert ann.post("/api/notify/email", json={"email": f"ann{i}@example.org"}).status_code == 202
    inbox.wait(5)
    r = ann.post("/api/notify/email", json={"email": "ann9@example.org"})
    assert r.status_code == 429 and r.json()["detail"]
    assert ann.get("/api/notify/email").json()["email"]["email"] == "ann4@example.org"
    assert len(inbox.messages) == 5


def test_opening_the_verification_link_verifies_nothing_until_its_button_is_pressed(
    app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox
) -> None:
    """Mail scanners and link previews open links: the GET shows a page whose button POSTs the token;
    only the POST verifies."""
    ann = signup(browser(), "ann")
    ann.post("/api/notify/email", json={"email": "ann@example.org"})
    link = link_in(inbox.wait(1)[0])
    scanner = TestClient(app)  # no cookie, no Origin
    for _ in range(3):
        page = scanner.get(link, follow_redirects=False)
        assert page.status_code == 200 and "<form method='post'" in page.text
        assert page.headers["cache-control"] == "no-store" and page.headers["referrer-policy"] == "no-referrer"
    assert ann.get("/api/notify/email").json()["email"]["verified"] is False
    assert follow(scanner, link).headers["location"] == "/account?email=verified#notifications"
    assert ann.get("/api/notify/email").json()["email"]["verified"] is True


def test_the_verification_link_starts_with_the_site_origin_never_the_host_header(
    app: FastAPI, browser: Callable[[], TestClient], inbox: Inbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request with a forged Host header still gets a link on the configured origin."""
    monkeypatch.setenv("TESSERA_SITE_ORIGIN", "https://tessera.example.org")
    ann = TestClient(app, base_url="http://evil.example", headers={"Origin": "https://tessera.example.org"})
    signup(ann, "ann")
    assert ann.post("/api/notify/email", json={"email": "ann@example.org"}).status_code == 202
    body = inbox.wait(1)[0].get_body(("plain",))
    assert body is not None
    content = body.get_content()
    assert "https://tessera.example.org/api/notify/email/verify?token=" in content
    assert "evil.example" not in content


def test_without_a_site_origin_no_e_mail_is_sent_and_the_start_up_says_why(
    db_url: str, inbox: Inbox, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """SMTP set, TESSERA_SITE_ORIGIN not: the server starts, logs an error naming the setting, and
    refuses to send a link (503) instead of building it from the request."""
    monkeypatch.delenv("TESSERA_SITE_ORIGIN")
    with caplog.at_level("ERROR"), TestClient(create_app(db_url, ai_mode="thread", warm=False)) as c:
        assert any("TESSERA_SITE_ORIGIN" in r.getMessage() for r in caplog.records)
        b = TestClient(c.app, headers={"Origin": SITE})
        signup(b, "ann")
        assert b.get("/api/notify/email").json()["available"] is False
        r = b.post("/api/notify/email", json={"email": "ann@example.org"})
        assert r.status_code == 503 and r.json()["key"] == "refusal.notify.no_site_origin"
    assert inbox.messages == []
