"""Accounts wired into the game server: an account plays its bound seat without a seat token
(HTTP and the game WebSocket), a rated game is rated before its end is published, and an
account's challenges reach its open pages live (``GET /api/account/events``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.accounts import routes
from tessera.server.events import AccountChanged, Changed, Event
from tests.server.accounts.conftest import SITE
from tests.server.accounts.test_challenges_ratings import Browser, User, challenge, play_challenge


def test_an_account_plays_its_bound_seat_with_its_session_and_no_seat_token(user: User, browser: Browser) -> None:
    """'A seat bound to an account is played with that account's session or bearer token (no seat
    token needed); anonymous seats keep their tokens.'"""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", seat=0)
    gid = got["game_id"]
    assert alice.get(f"/api/games/{gid}").json()["you"] == 0
    assert bob.get(f"/api/games/{gid}").json()["you"] == 1
    assert browser().get(f"/api/games/{gid}").json()["you"] is None  # a spectator
    # a cross-site page holding Bob's cookie cannot act for him
    cross = browser(origin="https://evil.example")
    cross.cookies.set("tessera_session", bob.cookies["tessera_session"])
    assert cross.post(f"/api/games/{gid}/resign").status_code == 403
    assert bob.get(f"/api/games/{gid}").json()["status"] == "active"
    # Bob resigns through his session alone
    r = bob.post(f"/api/games/{gid}/resign")
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "finished" and r.json()["result"]["winner"] == 0


def test_a_bearer_token_with_the_play_scope_plays_the_seat(user: User, browser: Browser) -> None:
    """'… played with that account's session or bearer token'; a token without ``play`` is a spectator."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", seat=0)
    gid = got["game_id"]
    play = bob.post("/api/account/tokens", json={"scopes": ["play"]}).json()["token"]
    other = bob.post("/api/account/tokens", json={"scopes": ["challenge"]}).json()["token"]
    script = TestClient(bob.app)
    assert script.get(f"/api/games/{gid}", headers={"Authorization": f"Bearer {other}"}).json()["you"] is None
    assert script.get(f"/api/games/{gid}", headers={"Authorization": f"Bearer {play}"}).json()["you"] == 1
    assert script.get(f"/api/games/{gid}", headers={"Authorization": "Bearer nonsense"}).status_code == 401


def test_the_game_websocket_plays_the_accounts_seat_from_the_sites_own_pages(user: User) -> None:
    """The game WebSocket without a seat token: the session's seat when the page is the site's own;
    a cross-site page that opens it with the cookie is refused (403)."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", seat=0)
    gid = got["game_id"]
    with bob.websocket_connect(f"/api/games/{gid}/ws", headers={"Origin": SITE}) as ws:
        msg = ws.receive_json()
        assert msg["type"] == "state" and msg["view"]["you"] == 1
    with bob.websocket_connect(f"/api/games/{gid}/ws", headers={"Origin": "https://evil.example"}) as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and "cross-site" in msg["detail"]


def test_a_rated_game_is_rated_before_its_end_is_published(user: User, app: FastAPI) -> None:
    """'once a game is finished and committed … ratings must be there when the end is published':
    every subscriber told of the end (the hub among them) already finds the rating change."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", rated=True, seat=0)
    gid = got["game_id"]
    seen: list[dict[str, Any]] = []
    store = app.state.accounts

    def probe(event: Event) -> None:
        if isinstance(event, Changed) and event.game_id == gid:
            seen.append(store.game_accounts(gid))

    app.state.service.events.subscribe(probe)
    assert bob.post(f"/api/games/{gid}/resign").status_code == 200
    assert seen, "the end was not published"
    last = seen[-1]["seats"]
    assert last["0"]["rating"]["change"] > 0 > last["1"]["rating"]["change"]


class Stream:
    """An open ``GET /api/account/events`` read event by event."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines = lines

    def next(self) -> dict[str, Any]:
        event = None
        for line in self.lines:
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "challenges":
                return json.loads(line[6:])  # type: ignore[no-any-return]
        raise AssertionError("the stream ended")

    def until(self, what: Callable[[dict[str, Any]], Any], most: int = 20) -> dict[str, Any]:
        """The first message for which ``what`` holds (a page may be woken more often than once per
        action: another change of its games wakes it too, and it reads everything again)."""
        for _ in range(most):
            msg = self.next()
            if what(msg):
                return msg
        raise AssertionError(f"no message in {most} matched")


@pytest.fixture
def short_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streams end soon, so that a test never waits on one left open."""
    monkeypatch.setattr(routes, "STREAM_LIFETIME", 20.0)
    monkeypatch.setattr(routes, "STREAM_KEEPALIVE", 0.5)


def test_a_challenge_reaches_the_challenged_page_live_and_acceptance_the_challengers(
    user: User, browser: Browser, short_streams: None
) -> None:
    """'incoming challenges appear live with Accept/Decline (a reason)': the challenged account's
    open stream gets the challenge without asking again; the challenger's gets the game once it is
    accepted, and the reason once one is declined."""
    alice, bob = user("Alice"), user("Bob")
    assert browser().get("/api/account/events").status_code == 401
    with (
        bob.stream("GET", "/api/account/events") as rb,
        alice.stream("GET", "/api/account/events") as ra,
    ):
        assert rb.headers["content-type"].startswith("text/event-stream")
        b, a = Stream(rb.iter_lines()), Stream(ra.iter_lines())
        assert b.next()["incoming"] == [] and a.next()["outgoing"] == []
        c = challenge(alice, "Bob", rated=True, seat=1)
        now = b.until(lambda m: m["incoming"])
        assert [x["id"] for x in now["incoming"]] == [c["id"]] and now["incoming"][0]["from"] == "Alice"
        assert [x["id"] for x in a.until(lambda m: m["outgoing"])["outgoing"]] == [c["id"]]
        accepted = bob.post(f"/api/challenges/{c['id']}/accept").json()
        settled = a.until(lambda m: m["settled"])["settled"]
        assert settled[0]["id"] == c["id"] and settled[0]["status"] == "accepted"
        assert settled[0]["game_id"] == accepted["game_id"]
        b.until(lambda m: m["incoming"] == [])
        d = challenge(alice, "Bob")
        assert [x["id"] for x in b.until(lambda m: m["incoming"])["incoming"]] == [d["id"]]
        assert a.until(lambda m: any(x["id"] == d["id"] for x in m["outgoing"]))["outgoing"][0]["id"] == d["id"]
        assert bob.post(f"/api/challenges/{d['id']}/decline", json={"reason": "bedtime"}).status_code == 200
        mine = a.until(lambda m: any(x["id"] == d["id"] for x in m["settled"]))["settled"]
        assert mine[0]["id"] == d["id"] and mine[0]["status"] == "declined" and mine[0]["reason"] == "bedtime"


def test_a_challenge_wakes_only_the_two_accounts_pages(user: User, app: FastAPI) -> None:
    """Carol's pages are not told of a challenge between Alice and Bob."""
    alice, _bob, _carol = user("Alice"), user("Bob"), user("Carol")
    told: list[str] = []

    def probe(event: Event) -> None:
        if isinstance(event, AccountChanged):
            told.append(event.user_id)

    app.state.service.events.subscribe(probe)
    challenge(alice, "Bob")
    ids = {app.state.accounts.user(n).id: n for n in ("Alice", "Bob", "Carol")}
    assert sorted(ids[t] for t in told) == ["Alice", "Bob"]
