"""Rematch asked by a seat (guests, a guest and an account, four players): the friend is taken
along — the other seats are told through the game's WebSocket, and when all have accepted each
seat is pushed its own new seat token, seats rotated (two players swap)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from tests.server.accounts.conftest import SITE
from tests.server.helpers import view

Browser = Callable[..., TestClient]
User = Callable[[str], TestClient]


def token_of(link: str) -> str:
    return link.rsplit("t=", 1)[1]


def guests_game(host: TestClient, guest: TestClient, game: str = "nibble") -> tuple[str, str, str]:
    """A finished online game between two guests (seat 1 resigned): id, seat 0's and seat 1's tokens."""
    r = host.post("/api/games", json={"game": game, "mode": "online", "seat": 0})
    assert r.status_code == 201, r.text
    gid, t0 = r.json()["id"], r.json()["tokens"]["0"]
    t1 = token_of(r.json()["invites"]["1"])
    assert view(guest, gid, t1)["you"] == 1  # the friend follows the invite link
    assert guest.post(f"/api/games/{gid}/resign", json={"token": t1}).status_code == 200
    return gid, t0, t1


def rematch_message(ws: WebSocketTestSession, status: str, *, made: bool = False) -> dict[str, Any]:
    """Read pushes until a rematch message with ``status`` (and the new game, with ``made``)."""
    for _ in range(50):
        msg = ws.receive_json()
        if msg["type"] != "rematch" or msg["rematch"] is None:
            continue
        if msg["rematch"]["status"] == status and (not made or msg["rematch"]["game_id"]):
            return msg["rematch"]
    raise AssertionError(f"no rematch message with status {status!r}")


def connect(client: TestClient, gid: str, token: str | None) -> Any:
    return client.websocket_connect(
        f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{token}"] if token else None
    )


def test_a_guest_rematch_reaches_the_friend_live_and_takes_both_to_the_new_game(browser: Browser) -> None:
    """'Rematch … shown live on their page, and both are taken to the new game when it is accepted;
    a rematch of a private game is private; a guest can rematch a guest'."""
    host, friend, stranger = browser(), browser(), browser()
    gid, t0, t1 = guests_game(host, friend)
    with connect(host, gid, t0) as ws0, connect(friend, gid, t1) as ws1, connect(stranger, gid, None) as wss:
        for ws in (ws0, ws1, wss):
            assert ws.receive_json()["type"] == "state"
        r = host.post(f"/api/games/{gid}/rematch", json={"token": t0})
        assert r.status_code == 201, r.text
        asked = r.json()["rematch"]
        assert asked["status"] == "pending" and asked["from"] == 0 and asked["waiting"] == [1]
        seen = rematch_message(ws1, "pending")
        assert seen["from"] == 0 and seen["you"] == 1 and "token" not in seen
        assert friend.get(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": t1}).json()["rematch"]["waiting"] == [1]
        # only a player answers
        assert stranger.post(f"/api/games/{gid}/rematch/accept").status_code == 404
        assert stranger.post(f"/api/games/{gid}/rematch/accept", json={"token": "x" * 40}).status_code == 403
        r = friend.post(f"/api/games/{gid}/rematch/accept", json={"token": t1})
        assert r.status_code == 200, r.text
        mine = r.json()["rematch"]
        new = mine["game_id"]
        assert mine["status"] == "accepted" and mine["seat"] == 0  # seats swapped
        pushed0 = rematch_message(ws0, "accepted", made=True)
        pushed1 = rematch_message(ws1, "accepted", made=True)
        spectator = rematch_message(wss, "accepted", made=True)
    assert pushed0["game_id"] == new and pushed0["seat"] == 1 and pushed0["you"] == 0
    assert pushed1["token"] == mine["token"] and pushed0["token"] != mine["token"]
    assert "token" not in spectator and "seat" not in spectator  # a seat's token reaches that seat only
    v0, v1 = view(host, new, pushed0["token"]), view(friend, new, mine["token"])
    assert (v0["you"], v1["you"]) == (1, 0)
    old = view(host, gid, t0)
    assert [s["name"] for s in v0["seats"]] == [s["name"] for s in old["seats"]][::-1]
    assert v0["game"] == old["game"] and v0["params"] == old["params"]
    assert v0["public"] is False and stranger.post(f"/api/games/{new}/join").status_code == 403
    # the page that opens later (or reconnects) reads its own token
    again = host.get(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": t0}).json()["rematch"]
    assert (
        again["token"] == pushed0["token"]
        and stranger.get(f"/api/games/{gid}/rematch").json()["rematch"].get("token") is None
    )
    # made once: a second acceptance changes nothing
    assert friend.post(f"/api/games/{gid}/rematch/accept", json={"token": t1}).status_code == 409
    assert host.post(f"/api/games/{gid}/rematch", json={"token": t0}).status_code == 409


def test_a_declined_rematch_ends_for_both_and_says_who(browser: Browser) -> None:
    host, friend = browser(), browser()
    gid, t0, t1 = guests_game(host, friend)
    with connect(host, gid, t0) as ws0:
        ws0.receive_json()
        assert host.post(f"/api/games/{gid}/rematch", json={"token": t0}).status_code == 201
        assert host.post(f"/api/games/{gid}/rematch/decline", json={"token": t0}).status_code == 409  # his own
        r = friend.post(f"/api/games/{gid}/rematch/decline", json={"token": t1})
        assert r.status_code == 200, r.text
        told = rematch_message(ws0, "declined")
    assert told["declined_by"] == 1 and told["declined_name"] == view(host, gid)["seats"][1]["name"]
    assert friend.post(f"/api/games/{gid}/rematch/accept", json={"token": t1}).status_code == 409
    # asked again later: a new offer; withdrawn by the asker
    assert friend.post(f"/api/games/{gid}/rematch", json={"token": t1}).json()["rematch"]["from"] == 1
    assert host.delete(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": t0}).status_code == 409  # not his
    r = friend.request("DELETE", f"/api/games/{gid}/rematch", json={"token": t1})
    assert r.status_code == 200 and r.json()["rematch"]["status"] == "cancelled"


def test_both_asking_at_once_is_one_rematch(browser: Browser) -> None:
    """A seat that asks while the other's offer waits accepts it."""
    host, friend = browser(), browser()
    gid, t0, t1 = guests_game(host, friend)
    assert host.post(f"/api/games/{gid}/rematch", json={"token": t0}).status_code == 201
    r = friend.post(f"/api/games/{gid}/rematch", json={"token": t1})
    assert r.status_code == 201 and r.json()["rematch"]["status"] == "accepted"
    assert view(friend, r.json()["rematch"]["game_id"], r.json()["rematch"]["token"])["you"] == 0


def test_a_rematch_is_refused_before_the_end_and_without_another_player(browser: Browser) -> None:
    host = browser()
    r = host.post("/api/games", json={"game": "nibble", "mode": "online"}).json()
    assert host.post(f"/api/games/{r['id']}/rematch", json={"token": r["tokens"]["0"]}).status_code == 409
    ai = host.post("/api/games", json={"game": "nibble", "mode": "ai", "ai_level": 1}).json()
    (tok,) = ai["tokens"].values()
    assert host.post(f"/api/games/{ai['id']}/resign", json={"token": tok}).status_code == 200
    refused = host.post(f"/api/games/{ai['id']}/rematch", json={"token": tok})
    assert refused.status_code == 422 and "computer" in refused.json()["detail"]
    assert host.get(f"/api/games/{ai['id']}/rematch").json() == {"rematch": None}


def test_a_guest_and_an_account_rematch_and_the_account_keeps_its_seat(user: User, browser: Browser) -> None:
    """'Also works for a guest vs an account': the account asks with its session alone."""
    alice, guest = user("Alice"), browser()
    gid, t0, t1 = guests_game(alice, guest)
    assert alice.post("/api/account/claim", json={"tokens": [t0]}).json()["claimed"] == [{"game_id": gid, "seat": 0}]
    with connect(alice, gid, None) as ws0:  # the account's page: its seat found by the session cookie
        assert ws0.receive_json()["view"]["you"] == 0
        r = alice.post(f"/api/games/{gid}/rematch")
        assert r.status_code == 201 and r.json()["rematch"]["from"] == 0, r.text
        r = guest.post(f"/api/games/{gid}/rematch/accept", json={"token": t1})
        assert r.status_code == 200, r.text
        pushed = rematch_message(ws0, "accepted", made=True)
    new = pushed["game_id"]
    seats = browser().get(f"/api/games/{new}/accounts").json()
    # the account's seat only (the guest's has no account); its rating shown as the game page shows it
    assert {k: v["username"] for k, v in seats["seats"].items()} == {"1": "Alice"} and seats["rated"] is False
    assert alice.get(f"/api/account/games/{new}/seat").json() == {"seat": 1, "token": pushed["token"]}


def test_a_cross_site_rematch_with_the_cookie_is_refused(user: User, browser: Browser) -> None:
    alice, guest = user("Alice"), browser()
    gid, t0, _ = guests_game(alice, guest)
    alice.post("/api/account/claim", json={"tokens": [t0]})
    evil = alice.post(f"/api/games/{gid}/rematch", headers={"Origin": "https://evil.example"})
    assert evil.status_code == 403
    assert browser().get(f"/api/games/{gid}/rematch").json() == {"rematch": None}
    assert SITE.startswith("http")


def test_a_four_player_rematch_rotates_the_seats_and_waits_for_every_player(browser: Browser) -> None:
    """'Rematch becomes a challenge to the same opponent(s)': three people and an AI; the AI keeps its
    level, each player moves one seat on, and the game starts when the other two have accepted."""
    people = [browser(), browser(), browser()]
    params = {"players": 4, "reserve": 6, "first_limit": 6, "max_turns": 60}
    seats = [{"kind": "here"}, {"kind": "invite"}, {"kind": "invite"}, {"kind": "ai", "level": 1}]
    r = people[0].post("/api/games", json={"game": "nymbat", "params": params, "seats": seats})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    tokens = [r.json()["tokens"]["0"], token_of(r.json()["invites"]["1"]), token_of(r.json()["invites"]["2"])]
    for p, t in zip(people, tokens, strict=True):
        assert p.post(f"/api/games/{gid}/resign", json={"token": t}).status_code == 200
    assert view(people[0], gid)["status"] == "finished"
    with connect(people[0], gid, tokens[0]) as ws0, connect(people[2], gid, tokens[2]) as ws2:
        ws0.receive_json()
        ws2.receive_json()
        assert people[2].post(f"/api/games/{gid}/rematch", json={"token": tokens[2]}).status_code == 201
        assert rematch_message(ws0, "pending")["waiting"] == [0, 1]
        first = people[0].post(f"/api/games/{gid}/rematch/accept", json={"token": tokens[0]}).json()["rematch"]
        assert first["status"] == "pending" and first["waiting"] == [1] and "token" not in first
        last = people[1].post(f"/api/games/{gid}/rematch/accept", json={"token": tokens[1]}).json()["rematch"]
        got0 = rematch_message(ws0, "accepted", made=True)
        got2 = rematch_message(ws2, "accepted", made=True)
    new = last["game_id"]
    assert (got0["seat"], last["seat"], got2["seat"]) == (1, 2, 3)
    for p, got in zip(people, (got0, last, got2), strict=True):
        assert view(p, new, got["token"])["you"] == got["seat"]
    old, fresh = view(people[0], gid), view(people[0], new)
    assert [s["name"] for s in fresh["seats"]] == [old["seats"][(i - 1) % 4]["name"] for i in range(4)]
    assert fresh["seats"][0]["kind"] == "ai" and fresh["seats"][0]["level"] == 1
    assert fresh["params"]["players"] == 4
