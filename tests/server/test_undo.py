"""Taking back a move (``server/match/undo.py``; docs/http-api.md, "Taking back a move"): two seats, and four
(four-player Nymbat).

The rules: "Online, an undo is a request: the move is taken back once every other human
seat still in the game has accepted it; AI seats agree by themselves, a player who has
resigned and a seat nobody has taken yet have no say, and one refusal ends the request.
With more than two seats only AI seats may have moved since your move, and a resignation
(also a player out of time) is never taken back."  Hot-seat and human-with-AI games
(everyone at one screen) take back at once, as with two players.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.helpers import create, move, view, wait_for
from tests.server.test_four_players import bring_in, create4

HERE: dict[str, Any] = {"kind": "here"}
INVITE: dict[str, Any] = {"kind": "invite"}


def post(client: TestClient, gid: str, what: str, token: str) -> Any:
    return client.post(f"/api/games/{gid}/{what}", json={"token": token})


def online4(client: TestClient, seats: list[dict[str, Any]]) -> tuple[str, dict[int, str]]:
    """An online four-seat game with every invited seat joined; the game id and every human seat's token."""
    g = create4(client, seats, public=True)
    tokens = {int(k): v for k, v in g["tokens"].items()}
    for _ in g["invites"]:
        joined = client.post(f"/api/games/{g['id']}/join").json()
        tokens[joined["seat"]] = joined["token"]
    return g["id"], tokens


def test_online_undo_needs_every_other_human_seat_to_accept(client: TestClient) -> None:
    """'the move is taken back once every other human seat still in the game has accepted it'"""
    gid, t = online4(client, [HERE, INVITE, INVITE, INVITE])
    bring_in(client, gid, t[0], ["o4", "n4"])
    before = view(client, gid, t[0])
    r = post(client, gid, "undo", t[0])
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["undo_request"] == 0 and v["undo_waiting"] == [1, 2, 3]
    assert v["move_number"] == before["move_number"]
    assert post(client, gid, "undo/accept", t[1]).json()["undo_waiting"] == [2, 3]
    again = post(client, gid, "undo/accept", t[1])
    assert again.status_code == 409 and "already accepted" in again.json()["detail"]
    own = post(client, gid, "undo/accept", t[0])
    assert own.status_code == 409 and "own request" in own.json()["detail"]
    other = post(client, gid, "undo", t[2])
    assert other.status_code == 409 and "answered first" in other.json()["detail"]
    v = post(client, gid, "undo/accept", t[2]).json()
    assert v["undo_waiting"] == [3] and v["move_number"] == before["move_number"]
    v = post(client, gid, "undo/accept", t[3]).json()
    assert v["undo_request"] is None and v["undo_waiting"] is None
    assert v["move_number"] == before["move_number"] - 1
    assert [m["move"] for m in v["moves"]] == [m["move"] for m in before["moves"]][:-1]
    assert v["to_move"] == 0  # Red's turn again, one step back


def test_one_refusal_ends_the_request(client: TestClient) -> None:
    """'one refusal ends the request' (the agreements so far are forgotten)"""
    gid, t = online4(client, [HERE, INVITE, INVITE, INVITE])
    assert move(client, gid, t[0], "o4=1", 0).status_code == 200  # Red's turn goes on
    n = view(client, gid, t[0])["move_number"]
    post(client, gid, "undo", t[0])
    post(client, gid, "undo/accept", t[1])
    v = post(client, gid, "undo/decline", t[3]).json()
    assert v["undo_request"] is None and v["move_number"] == n
    assert post(client, gid, "undo/accept", t[2]).status_code == 409  # nothing left to answer
    soon = post(client, gid, "undo", t[0])  # not again at the position it was declined in
    assert soon.status_code == 409 and soon.json()["key"] == "refusal.undo_declined_wait"
    bring_in(client, gid, t[0], ["n4"])
    v = post(client, gid, "undo", t[0]).json()  # a new request starts from nobody's agreement
    assert v["undo_waiting"] == [1, 2, 3]


def test_a_move_by_another_human_since_yours_cannot_be_taken_back(client: TestClient) -> None:
    """'With more than two seats only AI seats may have moved since your move' — and a human's
    move lets a pending request lapse."""
    gid, t = online4(client, [HERE, INVITE, INVITE, INVITE])
    bring_in(client, gid, t[0], ["o4"])
    v = view(client, gid, t[1])
    assert move(client, gid, t[1], "k1=1", v["move_number"]).status_code == 200
    r = post(client, gid, "undo", t[0])
    assert r.status_code == 409 and "Green has moved since your move" in r.json()["detail"]
    assert view(client, gid, t[0])["undo_request"] is None
    # Green's own request is fine; a move (here his own next step) lets it lapse
    assert post(client, gid, "undo", t[1]).json()["undo_waiting"] == [0, 2, 3]
    v = view(client, gid, t[1])
    assert move(client, gid, t[1], "end", v["move_number"]).status_code == 200
    assert view(client, gid, t[0])["undo_request"] is None


def test_ai_seats_agree_by_themselves_and_their_moves_are_taken_back_too(client: TestClient) -> None:
    """'AI seats agree by themselves' (their replies after your move go back with it)"""
    gid, t = online4(client, [HERE, {"kind": "ai", "level": 1}, {"kind": "ai", "level": 1}, INVITE])
    bring_in(client, gid, t[0], ["o4"])
    v = wait_for(client, gid, t[0], lambda v: v["to_move"] == 3, timeout=60)
    assert {m["player"] for m in v["moves"]} == {0, 1, 2}
    mine = max(m["index"] for m in v["moves"] if m["player"] == 0)  # Red's last step ("end")
    v = post(client, gid, "undo", t[0]).json()
    assert v["undo_waiting"] == [3]
    v = post(client, gid, "undo/accept", t[3]).json()
    assert v["move_number"] == mine and {m["player"] for m in v["moves"]} == {0}
    assert v["to_move"] == 0


def test_a_resignation_is_never_taken_back_and_a_resigned_player_has_no_say(client: TestClient) -> None:
    """'a player who has resigned and a seat nobody has taken yet have no say' and 'a resignation
    (also a player out of time) is never taken back'"""
    gid, t = online4(client, [HERE, INVITE, INVITE, INVITE])
    assert post(client, gid, "resign", t[3]).json()["status"] == "active"
    bring_in(client, gid, t[0], ["o4"])
    assert post(client, gid, "undo", t[0]).json()["undo_waiting"] == [1, 2]
    late = post(client, gid, "undo/accept", t[3])
    assert late.status_code == 409 and "resigned" in late.json()["detail"]
    post(client, gid, "undo/decline", t[1])
    mine = post(client, gid, "undo", t[3])
    assert mine.status_code == 409 and "you have resigned" in mine.json()["detail"]
    # a resignation after your move: your move stays
    assert post(client, gid, "resign", t[2]).json()["status"] == "active"
    r = post(client, gid, "undo", t[0])
    assert r.status_code == 409 and "Blue has resigned since" in r.json()["detail"]
    # hot-seat: the last move is taken back at once, but never a resignation
    hot = create4(client, [HERE] * 4)
    h = hot["tokens"]
    bring_in(client, hot["id"], h["0"], ["o4"])
    assert post(client, hot["id"], "resign", h["2"]).status_code == 200
    r = post(client, hot["id"], "undo", h["0"])
    assert r.status_code == 409 and "never taken back" in r.json()["detail"]


def test_with_nobody_else_to_ask_the_move_is_taken_back_at_once(client: TestClient) -> None:
    """'a seat nobody has taken yet [has] no say': an online game whose invitees have not come yet,
    and a game of humans at one screen with AI seats, take back at once."""
    g = create4(client, [HERE, INVITE, INVITE, INVITE])
    t0 = g["tokens"]["0"]
    assert move(client, g["id"], t0, "o4=1", 0).status_code == 200
    v = post(client, g["id"], "undo", t0).json()
    assert v["move_number"] == 0 and v["undo_request"] is None
    ai = create4(client, [HERE, {"kind": "ai", "level": 1}, HERE, {"kind": "ai", "level": 1}])
    a0 = ai["tokens"]["0"]
    assert move(client, ai["id"], a0, "o4=1", 0).status_code == 200
    v = post(client, ai["id"], "undo", a0).json()
    assert v["move_number"] == 0 and v["undo_request"] is None


def test_undo_is_free_in_hot_seat(client: TestClient) -> None:
    """Undo: free in hot-seat."""
    g = create(client, "nume", mode="hotseat")
    t0, t1 = g["tokens"]["0"], g["tokens"]["1"]
    move(client, g["id"], t0, "a1=1", 0)
    move(client, g["id"], t1, "b1=1", 1)
    v = client.post(f"/api/games/{g['id']}/undo", json={"token": t0}).json()
    assert v["move_number"] == 1 and [m["move"] for m in v["moves"]] == ["a1=1"]


def test_undo_against_the_ai_takes_back_the_ai_reply_too(client: TestClient) -> None:
    """Undo: free vs AI (your last move and the AI's reply are taken back)."""
    g = create(client, "nume", mode="ai", ai_level=1)
    t0 = g["tokens"]["0"]
    move(client, g["id"], t0, "a1=1", 0)
    wait_for(client, g["id"], t0, lambda v: v["move_number"] == 2)
    v = client.post(f"/api/games/{g['id']}/undo", json={"token": t0}).json()
    assert v["move_number"] == 0 and v["render"]["actions"]


def test_undo_online_is_a_request_the_opponent_answers(client: TestClient) -> None:
    """Undo as a request the opponent accepts."""
    g = create(client, "nume", mode="online", public=True)
    t0 = g["tokens"]["0"]
    t1 = client.post(f"/api/games/{g['id']}/join").json()["token"]
    move(client, g["id"], t0, "a1=1", 0)
    r = client.post(f"/api/games/{g['id']}/undo", json={"token": t0}).json()
    assert r["undo_request"] == 0 and r["move_number"] == 1
    own = client.post(f"/api/games/{g['id']}/undo/accept", json={"token": t0})
    assert own.status_code == 409 and "own" in own.json()["detail"]
    d = client.post(f"/api/games/{g['id']}/undo/decline", json={"token": t1}).json()
    assert d["undo_request"] is None and d["move_number"] == 1
    assert client.post(f"/api/games/{g['id']}/undo/accept", json={"token": t1}).status_code == 409
    again = client.post(f"/api/games/{g['id']}/undo", json={"token": t0})
    assert again.status_code == 409 and again.json()["key"] == "refusal.undo_declined_wait"
    g = create(client, "nume", mode="online", public=True)  # accepted: the move is taken back
    t0 = g["tokens"]["0"]
    t1 = client.post(f"/api/games/{g['id']}/join").json()["token"]
    move(client, g["id"], t0, "a1=1", 0)
    client.post(f"/api/games/{g['id']}/undo", json={"token": t0})
    a = client.post(f"/api/games/{g['id']}/undo/accept", json={"token": t1}).json()
    assert a["move_number"] == 0 and a["undo_request"] is None
    nothing = client.post(f"/api/games/{g['id']}/undo", json={"token": t1})
    assert nothing.status_code == 409 and "no move" in nothing.json()["detail"]
