"""Challenges to four-player Nymbat: up to three players named (accounts, AI accounts) and open seats;
the game starts when every person named has accepted; one decline cancels it for all and says who;
rated by the four-player ruling (one rating period against the three others)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tessera.server.accounts import glicko2
from tests.server.accounts.test_challenges_ratings import my_seat
from tests.server.helpers import view

User = Callable[[str], TestClient]
Browser = Callable[..., TestClient]
FOUR = "nymbat(players=4,reserve=6,first_limit=6,max_turns=60)"


def ask(frm: TestClient, to: list[str | None], **body: Any) -> dict[str, Any]:
    r = frm.post("/api/challenges", json={"to": to, "game": FOUR, **body})
    assert r.status_code == 201, r.text
    return r.json()


def test_the_game_starts_when_all_three_have_accepted_and_is_rated_by_the_four_player_ruling(
    user: User, browser: Browser
) -> None:
    red, green, blue, yellow = (user(n) for n in ("Red", "Green", "Blue", "Yellow"))
    c = ask(red, ["Green", "Blue", "Yellow"], rated=True, seat=0)
    assert c["status"] == "pending" and [p["username"] for p in c["players"]] == ["Green", "Blue", "Yellow"]
    for b in (green, blue, yellow):  # every invitee sees it
        assert [x["id"] for x in b.get("/api/challenges").json()["incoming"]] == [c["id"]]
    assert red.post(f"/api/challenges/{c['id']}/accept").status_code == 403  # not his to accept
    r = green.post(f"/api/challenges/{c['id']}/accept")
    assert r.status_code == 200 and r.json()["status"] == "pending" and r.json()["game_id"] is None
    assert [p["status"] for p in r.json()["players"]] == ["accepted", "pending", "pending"]
    # asked again (an answer lost, a process restarted): the same acceptance, counted once, nothing new made
    again = green.post(f"/api/challenges/{c['id']}/accept")
    assert again.status_code == 200 and again.json()["game_id"] is None
    assert [p["status"] for p in again.json()["players"]] == ["accepted", "pending", "pending"]
    assert blue.post(f"/api/challenges/{c['id']}/accept").json()["game_id"] is None
    last = yellow.post(f"/api/challenges/{c['id']}/accept").json()
    gid = last["game_id"]
    assert last["status"] == "accepted" and gid and last["seat"] == 3
    seats = browser().get(f"/api/games/{gid}/accounts").json()
    assert seats["rated"] is True and seats["pool"] == "nymbat"
    assert [seats["seats"][str(s)]["username"] for s in range(4)] == ["Red", "Green", "Blue", "Yellow"]
    tokens = [my_seat(b, gid)["token"] for b in (red, green, blue, yellow)]
    assert view(red, gid, tokens[0])["you"] == 0 and view(red, gid)["public"] is False
    # Red wins: the three others resign; each rating is one period against the three others
    for b, t in zip((green, blue, yellow), tokens[1:], strict=True):
        assert b.post(f"/api/games/{gid}/resign", json={"token": t}).status_code == 200
    start = glicko2.Rating()
    want = glicko2.rate_game([start] * 4, [1.0, -1 / 3, -1 / 3, -1 / 3])
    assert red.get("/api/account").json()["ratings"]["nymbat"]["rating"] == round(want[0].rating)
    assert blue.get("/api/account").json()["ratings"]["nymbat"]["rating"] == round(want[2].rating)


def test_one_decline_cancels_it_for_all_and_says_who(user: User) -> None:
    red, green, blue = user("Red"), user("Green"), user("Blue")
    c = ask(red, ["Green", "Blue", None])
    assert green.post(f"/api/challenges/{c['id']}/accept").status_code == 200
    r = blue.post(f"/api/challenges/{c['id']}/decline", json={"reason": "not tonight"})
    assert r.status_code == 200
    seen = red.get("/api/challenges", params={"pending": False}).json()["outgoing"][0]
    assert seen["status"] == "declined" and seen["declined_by"] == "Blue" and seen["reason"] == "not tonight"
    for b in (green, blue):
        assert b.get("/api/challenges").json()["incoming"] == []  # pending no more, for everyone
        mine = b.get("/api/challenges", params={"pending": False}).json()["incoming"][0]
        assert mine["status"] == "declined" and mine["declined_by"] == "Blue"
    assert green.post(f"/api/challenges/{c['id']}/accept").status_code == 409


def test_open_seats_are_invite_links_for_the_challenger_and_an_ai_seat_plays(user: User, browser: Browser) -> None:
    red, green = user("Red"), user("Green")
    c = ask(red, ["Green", "ai-level1"], seat=1)  # the fourth seat is left open
    assert [p["username"] for p in c["players"]] == ["Green", "ai-level1", None]
    assert [p["status"] for p in c["players"]] == ["pending", "accepted", "accepted"]
    got = green.post(f"/api/challenges/{c['id']}/accept").json()
    gid = got["game_id"]
    assert got["seat"] == 0 and gid  # seats in the order named around the challenger's
    v = view(red, gid)
    assert [s["kind"] for s in v["seats"]] == ["human", "human", "ai", "human"]
    links = red.get("/api/challenges", params={"pending": False}).json()["outgoing"][0]["open_links"]
    assert len(links) == 1 and links[0].startswith(f"/g/{gid}#seat=3&t=")
    assert "open_links" not in green.get("/api/challenges", params={"pending": False}).json()["incoming"][0]
    guest = browser()
    assert view(guest, gid, links[0].rsplit("t=", 1)[1])["you"] == 3
    assert browser().get(f"/api/games/{gid}/accounts").json()["rated"] is False


@pytest.mark.parametrize(
    ("to", "body", "status"),
    [
        (["Green", "Green"], {}, 422),
        (["Red"], {}, 422),
        (["Nobody"], {}, 404),
        ([None, None], {}, 422),
        (["Green", None], {"rated": True}, 422),
        (["Green", "Blue", "Yellow", "Red"], {}, 422),
        (["Green"], {"seat": 4}, 422),
    ],
)
def test_bad_four_player_challenges_are_refused_and_store_nothing(
    user: User, to: list[str | None], body: dict[str, Any], status: int
) -> None:
    red = user("Red")
    user("Green")
    r = red.post("/api/challenges", json={"to": to, "game": FOUR, **body})
    assert r.status_code == status, r.text
    assert red.get("/api/challenges", params={"pending": False}).json()["outgoing"] == []


def test_a_single_name_for_four_seats_says_how(user: User) -> None:
    red = user("Red")
    user("Green")
    r = red.post("/api/challenges", json={"to": "Green", "game": FOUR})
    assert r.status_code == 422 and "list" in r.json()["detail"]
