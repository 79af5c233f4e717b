"""Draw offers (issue 15, docs/http-api.md), against SQLite and PostgreSQL.

"A seated player offers a draw, the opponent accepts or declines; an offer lapses when the
offerer's opponent moves; accepted, the game ends drawn with ``result.reason`` "agreement"."
Only games whose rules allow a draw (docs/rules/README.md) take offers.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tessera.games.ikabegama import IkabegamaState
from tessera.server.http.app import create_app
from tests.server.helpers import SMALL, create, move, view, wait_for


def post(client: TestClient, gid: str, what: str, token: str | None) -> Any:
    return client.post(f"/api/games/{gid}/{what}", json={"token": token} if token else None)


def test_an_online_draw_offer_is_answered_pushed_to_viewers_and_stored(client: TestClient, db_url: str) -> None:
    """Online: the offer is pushed live, can be declined, is refused twice, and once accepted the game
    is over drawn ("agreement") with a sentence; a fresh server on the same database shows it."""
    g = create(client, "ikabegama", mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    assert view(client, gid)["draws"] is True
    with client.websocket_connect(f"/api/games/{gid}/ws") as spectator:
        spectator.receive_json()
        r = post(client, gid, "draw", t0)
        assert r.status_code == 200, r.text
        assert r.json()["draw_offer"] == 0 and r.json()["status"] == "active"
        while True:  # the spectator sees the offer without asking
            msg = spectator.receive_json()
            if msg["type"] == "state" and msg["view"]["draw_offer"] == 0:
                break
    twice = post(client, gid, "draw", t0)
    assert twice.status_code == 409 and "already offered" in twice.json()["detail"]
    own = post(client, gid, "draw/accept", t0)
    assert own.status_code == 409 and "your own" in own.json()["detail"]
    assert post(client, gid, "draw", None).status_code == 401  # a spectator offers nothing
    assert post(client, gid, "draw/accept", None).status_code == 401
    assert post(client, gid, "draw", "not-a-seat").status_code == 403
    declined = post(client, gid, "draw/decline", t1).json()
    assert declined["draw_offer"] is None and declined["status"] == "active"
    assert post(client, gid, "draw/accept", t1).status_code == 409  # nothing left to accept

    assert post(client, gid, "draw", t1).json()["draw_offer"] == 1
    done = post(client, gid, "draw/accept", t0).json()
    assert done["status"] == "finished" and done["draw_offer"] is None
    assert done["result"]["reason"] == "agreement" and done["result"]["winner"] is None
    assert done["result"]["returns"] == [0.0, 0.0]
    assert done["result"]["text"] == "Draw by agreement: Dark offered a draw and Light accepted"
    over = post(client, gid, "draw", t0)
    assert over.status_code == 409 and "over" in over.json()["detail"]
    assert post(client, gid, "draw/accept", t1).status_code == 409

    with TestClient(create_app(db_url, ai_mode="thread", ai_seconds=0.01)) as other:  # nothing acknowledged is lost
        again = view(other, gid)
        assert again["status"] == "finished" and again["result"]["reason"] == "agreement"
    assert "(agreement)" in client.get(f"/api/games/{gid}/record.txt").text


def test_a_draw_offer_lapses_when_the_offerers_opponent_moves(client: TestClient) -> None:
    """An offer stands while the offerer plays on, and lapses when his opponent moves instead of answering."""
    g = create(client, "ikabegama", mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    assert post(client, gid, "draw", t0).json()["draw_offer"] == 0
    v = view(client, gid, t0)
    r = move(client, gid, t0, v["render"]["actions"][0]["move"], 0)
    assert r.status_code == 200 and r.json()["draw_offer"] == 0  # the offerer's own move keeps it
    v = view(client, gid, t1)
    r = move(client, gid, t1, v["render"]["actions"][0]["move"], 1)
    assert r.status_code == 200 and r.json()["draw_offer"] is None
    gone = post(client, gid, "draw/accept", t1)
    assert gone.status_code == 409 and "lapses" in gone.json()["detail"]


def test_a_nelaxtam_draw_offer_lapses_when_the_turn_is_resolved(client: TestClient) -> None:
    """Simultaneous turns: the opponent's sealed order is his move, so the offer lapses."""
    import random

    import tessera

    g = create(client, "nelaxtam", mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    state = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state()
    assert post(client, gid, "draw", t0).json()["draw_offer"] == 0
    assert move(client, gid, t0, state.random_move(random.Random(1), 0), 0).json()["draw_offer"] == 0
    r = move(client, gid, t1, state.random_move(random.Random(2), 1), 0)
    assert r.status_code == 200 and r.json()["draw_offer"] is None


def test_hot_seat_players_agree_a_draw_at_one_screen(client: TestClient) -> None:
    """Hot-seat: one screen holds both seats; the offer is answered with the other seat's token."""
    g = create(client, "nymbat", mode="hotseat")
    gid, t0, t1 = g["id"], g["tokens"]["0"], g["tokens"]["1"]
    assert post(client, gid, "draw", t0).json()["draw_offer"] == 0
    done = post(client, gid, "draw/accept", t1).json()
    assert done["status"] == "finished" and done["result"]["reason"] == "agreement"
    assert done["result"]["text"] == "Draw by agreement: Red offered a draw and Blue accepted"


@pytest.mark.parametrize(
    ("game", "params", "needle"),
    [
        ("nibble", {}, "Nibble has no draws"),
        ("nume", {"size": 2}, "komi is not a whole number"),
        ("nume", {"size": 2, "komi_bidding": True}, "komi is not a whole number"),
    ],
)
def test_a_game_without_draws_refuses_an_offer(
    client: TestClient, game: str, params: dict[str, Any], needle: str
) -> None:
    """docs/rules/README.md: Nibble — "a tie cannot happen"; Nume — with a half-point komi "there are no ties"."""
    g = create(client, game, mode="hotseat", params=params)
    assert view(client, g["id"])["draws"] is False
    r = post(client, g["id"], "draw", g["tokens"]["0"])
    assert r.status_code == 422 and needle in r.json()["detail"]
    assert view(client, g["id"])["status"] == "active"


def test_nume_with_a_whole_number_komi_takes_draw_offers(client: TestClient) -> None:
    """docs/rules/nume.md: "with a whole number a tie is possible and is a draw"."""
    g = create(client, "nume", mode="hotseat", params={"size": 2, "komi": 1})
    assert post(client, g["id"], "draw", g["tokens"]["0"]).json()["draw_offer"] == 0


def test_the_ai_declines_a_draw_unless_its_evaluation_says_it_is_losing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vs AI: the AI answers at once; at the start (evaluation 0) it declines, when its evaluation for
    its own side is at most −0.5 it accepts."""
    g = create(client, "ikabegama", mode="ai", ai_level=1, seat=0)
    gid, t0 = g["id"], g["tokens"]["0"]
    r = post(client, gid, "draw", t0)
    assert r.status_code == 200, r.text
    no = r.json()
    assert no["status"] == "active" and no["draw_offer"] is None and "declines" in no["draw_answer"]
    wait_for(client, gid, t0, lambda v: v["to_move"] == 0)
    seen: list[int] = []

    def losing(self: IkabegamaState, player: int) -> float:
        seen.append(player)
        return -0.9

    monkeypatch.setattr(IkabegamaState, "evaluate", losing)
    yes = post(client, gid, "draw", t0).json()
    assert yes["draw_answer"] == "accepted" and 1 in seen
    assert yes["status"] == "finished" and yes["result"]["reason"] == "agreement"


def test_an_agreed_draw_survives_export_and_import(client: TestClient) -> None:
    """Records: a JSON record whose result is a draw by agreement imports as that finished game."""
    g = create(client, "ikabegama", mode="hotseat")
    post(client, g["id"], "draw", g["tokens"]["0"])
    post(client, g["id"], "draw/accept", g["tokens"]["1"])
    record = client.get(f"/api/games/{g['id']}/record").json()
    r = client.post("/api/records", json=record)
    assert r.status_code == 201, r.text
    copy = view(client, r.json()["id"])
    assert copy["status"] == "finished" and copy["result"]["reason"] == "agreement"
    record["game"], record["params"], record["seed"] = "nibble", {}, 1
    bad = client.post("/api/records", json=record)
    assert bad.status_code == 422 and "Nibble has no draws" in bad.json()["detail"]
