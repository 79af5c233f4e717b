"""Games of four players on the server (four-player Nymbat; issue 16).

"Create a four-player game with any mix of hot-seat humans, online invitees (an invite
link per seat) and AI seats at chosen levels; the game page, clocks, replay, resign (a
resigned player's pieces leave the board, he passes from then on, and the game goes on
among the others; the last one left wins), records and the lobby work with four seats."
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import move, view, wait_for

FOUR = {"players": 4, "reserve": 6, "first_limit": 6, "max_turns": 60}


def create4(client: TestClient, seats: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": "nymbat", "params": FOUR, "seats": seats, **body})
    assert r.status_code == 201, r.text
    return r.json()


def bring_in(client: TestClient, gid: str, token: str, hexes: list[str]) -> None:
    """A first turn: a 1 on each hex, then end (unless the turn ended by itself)."""
    for h in hexes:
        n = view(client, gid, token)["move_number"]
        r = move(client, gid, token, f"{h}=1", n)
        assert r.status_code == 200, r.text
    v = view(client, gid, token)
    if any(a.get("move") == "end" for a in v["render"]["actions"]):
        assert move(client, gid, token, "end", v["move_number"]).status_code == 200


def test_create_a_four_player_game_with_any_mix_of_seats(client: TestClient) -> None:
    """'any mix of hot-seat humans, online invitees (an invite link per seat) and AI seats at chosen levels'"""
    seats = [{"kind": "here"}, {"kind": "invite"}, {"kind": "ai", "level": 3}, {"kind": "invite", "name": "Ann"}]
    g = create4(client, seats, public=True)
    assert set(g["tokens"]) == {"0"} and set(g["invites"]) == {"1", "3"}
    assert g["invites"]["3"].startswith(f"/g/{g['id']}#seat=3&t=")
    v = view(client, g["id"], g["tokens"]["0"])
    assert v["spec"] == "nymbat(players=4,reserve=6,first_limit=6,max_turns=60)"
    assert [(s["name"], s["kind"], s["level"], s["claimed"]) for s in v["seats"]] == [
        ("Red", "human", None, True),
        ("Green", "human", None, False),
        ("AI level 3", "ai", 3, True),
        ("Ann", "human", None, False),
    ]
    assert [p["name"] for p in v["render"]["players"]] == ["Red", "Green", "Blue", "Yellow"]
    # the lobby lists it with four seats and two open ones; joining takes the first free seat
    open_games = client.get("/api/games", params={"status": "open"}).json()["games"]
    mine = next(x for x in open_games if x["id"] == g["id"])
    assert len(mine["seats"]) == 4 and mine["open_seats"] == [1, 3]
    joined = client.post(f"/api/games/{g['id']}/join").json()
    assert joined["seat"] == 1
    # hot-seat: every "here" seat's token goes to the creator
    hot = create4(client, [{"kind": "here"}, {"kind": "here"}, {"kind": "ai", "level": 1}, {"kind": "here"}])
    assert set(hot["tokens"]) == {"0", "1", "3"} and hot["invites"] == {}


@pytest.mark.parametrize(
    ("seats", "needle"),
    [
        ([{"kind": "here"}] * 3, "4 seats, but 3"),
        ([{"kind": "here"}, {"kind": "robot"}, {"kind": "here"}, {"kind": "here"}], "seats[1].kind"),
        ([{"kind": "here"}, {"kind": "ai", "level": 9}, {"kind": "here"}, {"kind": "here"}], "seats[1].level"),
        ([{"kind": "here"}, {"kind": "ai"}, {"kind": "here"}, {"kind": "here"}], "seats[1].level"),
        ([{"kind": "here", "level": 2}, {"kind": "here"}, {"kind": "here"}, {"kind": "here"}], "only an AI seat"),
        (["here", "here", "here", "here"], "seats[0] must be an object"),
    ],
)
def test_bad_seat_choices_are_refused_with_the_reason(client: TestClient, seats: list[Any], needle: str) -> None:
    """Bad input always gets a clear error saying what was wrong."""
    r = client.post("/api/games", json={"game": "nymbat", "params": FOUR, "seats": seats})
    assert r.status_code == 422 and needle in r.text


def test_resign_in_a_four_player_game_lets_the_others_play_on_and_the_last_one_left_wins(
    client: TestClient,
) -> None:
    """'a resigned player's pieces leave the board, he passes from then on, and the game goes on
    among the others; the last one left wins' — and the records replay it."""
    g = create4(client, [{"kind": "here"}] * 4)
    t = g["tokens"]
    gid = g["id"]
    bring_in(client, gid, t["0"], ["o4", "n4"])
    bring_in(client, gid, t["1"], ["k1", "k2"])
    v = view(client, gid, t["1"])
    assert v["to_move"] == 2
    # Green resigns on Blue's turn: his pieces leave, the game goes on
    r = client.post(f"/api/games/{gid}/resign", json={"token": t["1"]})
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["status"] == "active" and v["to_move"] == 2
    assert {p["cell"] for p in v["render"]["pieces"]} == {"o4", "n4"}
    green = v["render"]["players"][1]
    assert green == {**green, "name": "Green", "name_key": "names.green", "resigned": True}
    assert client.post(f"/api/games/{gid}/resign", json={"token": t["1"]}).status_code == 409
    bring_in(client, gid, t["2"], ["b4"])
    bring_in(client, gid, t["3"], ["b8"])
    v = view(client, gid, t["0"])
    assert v["to_move"] == 0  # Green's turn was passed by the rules
    # records: the resignation is a turn of its own; both records import to the same position
    rec = client.get(f"/api/games/{gid}/record").json()
    assert {"player": 1, "moves": ["resign"]} in rec["turns"]
    text = client.get(f"/api/games/{gid}/record.txt").text
    assert "resign 1" in text
    for body in (rec, text):
        kw: dict[str, Any] = (
            {"json": body}
            if isinstance(body, dict)
            else {
                "content": body,
                "headers": {"Content-Type": "text/plain"},
            }
        )
        imp = client.post("/api/records", **kw)
        assert imp.status_code in (200, 201), imp.text
        again = view(client, imp.json()["id"])
        assert again["render"]["pieces"] == v["render"]["pieces"] and again["to_move"] == 0
    # Yellow and Blue resign too: Red is the last one left and wins
    assert client.post(f"/api/games/{gid}/resign", json={"token": t["3"]}).json()["status"] == "active"
    v = client.post(f"/api/games/{gid}/resign", json={"token": t["2"]}).json()
    assert v["status"] == "finished" and v["result"]["winner"] == 0
    assert v["result"]["returns"] == pytest.approx([1.0, -1 / 3, -1 / 3, -1 / 3])


def test_three_ai_seats_answer_the_human_in_turn(client: TestClient) -> None:
    """AI seats at chosen levels play their turns; the human's turn comes back round."""
    seats = [{"kind": "here"}, {"kind": "ai", "level": 1}, {"kind": "ai", "level": 2}, {"kind": "ai", "level": 3}]
    g = create4(client, seats, clock={"initial": 600, "increment": 0})
    t0 = g["tokens"]["0"]
    bring_in(client, g["id"], t0, ["o4"])
    v = wait_for(client, g["id"], t0, lambda v: v["to_move"] == 0 or v["status"] != "active", timeout=60)
    assert v["status"] == "active" and v["to_move"] == 0  # nobody can win on a first turn
    assert [m["player"] for m in v["moves"]][:2] == [0, 0]
    assert {m["player"] for m in v["moves"]} == {0, 1, 2, 3}
    assert v["clock"] is not None and len(v["clock"]["remaining"]) == 4
    assert v["clock"]["running"] == [0]


def test_a_player_out_of_time_leaves_and_the_others_play_on(client: TestClient) -> None:
    """Clocks with four seats: the flagged player resigns (his pieces leave, he passes from then on)
    and the game goes on among the others, with their clocks."""
    g = create4(client, [{"kind": "here"}] * 4, clock={"initial": 2, "increment": 0})
    t = g["tokens"]
    v = wait_for(client, g["id"], t["1"], lambda v: v["moves"], timeout=15)
    assert (v["moves"][0]["player"], v["moves"][0]["move"]) == (0, "resign")
    assert v["render"]["players"][0].get("resigned") is True
    assert v["clock"]["remaining"][0] == 0
    if len(v["moves"]) == 1:  # (a very slow machine may have let Green's two seconds run out too)
        assert v["status"] == "active" and v["to_move"] == 1 and v["clock"]["running"] == [1]
