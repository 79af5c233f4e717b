"""Requests that belong to their moment (issue 39), against SQLite and PostgreSQL: a draw offer or a
takeback request belongs to the position it was made in; two crossing draw offers are one
agreement; a declined request is not made again at once (per seat and game, as lichess:
``tessera.server.match.declines``)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tessera.server.match.declines import DRAW_GAP, UNDO_DECLINES
from tests.server.helpers import create, first_move, move, play_some, view


def post(client: TestClient, gid: str, what: str, token: str) -> Any:
    return client.post(f"/api/games/{gid}/{what}", json={"token": token})


def online(client: TestClient) -> tuple[str, dict[str, str]]:
    g = create(client, "ikabegama", params={}, mode="online", seat=0, public=True)
    joined = client.post(f"/api/games/{g['id']}/join").json()
    return g["id"], {"0": g["tokens"]["0"], "1": joined["token"]}


def step(client: TestClient, gid: str, tokens: dict[str, str]) -> None:
    """One move by whoever is to move."""
    v = view(client, gid, tokens["0"])
    tok = tokens[str(v["to_move"])]
    r = move(client, gid, tok, first_move(view(client, gid, tok)), v["move_number"])
    assert r.status_code == 200, r.text


def test_two_crossing_draw_offers_are_one_agreement(client: TestClient) -> None:
    """ "two crossing requests become one agreement": an offer made while the opponent's stands
    ends the game drawn by agreement, in one transaction."""
    gid, t = online(client)
    assert post(client, gid, "draw", t["0"]).json()["draw_offer"] == 0
    r = post(client, gid, "draw", t["1"])
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "finished" and r.json()["result"]["reason"] == "agreement"


def test_a_takeback_lets_a_pending_draw_offer_lapse(client: TestClient) -> None:
    """ "it lapses when the position changes by any route": a move taken back ends the offer too."""
    gid, t = online(client)
    step(client, gid, t)
    step(client, gid, t)
    assert post(client, gid, "undo", t["1"]).json()["undo_request"] == 1
    assert post(client, gid, "draw", t["1"]).json()["draw_offer"] == 1
    v = post(client, gid, "undo/accept", t["0"]).json()
    assert v["move_number"] == 1 and v["draw_offer"] is None


def test_a_declined_draw_offer_is_not_made_again_before_twenty_moves(client: TestClient) -> None:
    """ "repeated offers after a decline are limited by a rule of their own (per seat and game)",
    answered with a clear message; the opponent may still offer, and after the gap so may the seat."""
    gid, t = online(client)
    post(client, gid, "draw", t["0"])
    post(client, gid, "draw/decline", t["1"])
    again = post(client, gid, "draw", t["0"])
    assert again.status_code == 409, again.text
    assert again.json()["key"] == "refusal.draw_declined_wait" and again.json()["args"] == {"n": DRAW_GAP}
    assert f"after {DRAW_GAP} more moves" in again.json()["detail"]
    assert view(client, gid)["draw_offer"] is None  # nothing was stored, nothing pushed
    play_some(client, gid, t, DRAW_GAP - 1)
    assert post(client, gid, "draw", t["0"]).json()["args"] == {"n": 1}
    play_some(client, gid, t, 1, seed=1)
    assert post(client, gid, "draw", t["0"]).json()["draw_offer"] == 0


def test_a_declined_takeback_request_waits_for_a_move_and_ends_after_three(client: TestClient) -> None:
    """A declined takeback request is not asked again at the same position, and a seat whose
    requests were declined three times in a game may ask no more."""
    gid, t = online(client)
    for n in range(UNDO_DECLINES):
        step(client, gid, t)  # Light (seat 0) moves
        assert post(client, gid, "undo", t["0"]).json()["undo_request"] == 0
        post(client, gid, "undo/decline", t["1"])
        if n == 0:
            soon = post(client, gid, "undo", t["0"])
            assert soon.status_code == 409 and soon.json()["key"] == "refusal.undo_declined_wait", soon.text
        step(client, gid, t)  # Dark moves
    step(client, gid, t)
    done = post(client, gid, "undo", t["0"])
    assert done.status_code == 409 and done.json()["key"] == "refusal.undo_declined_often", done.text
    assert "you may ask no more" in done.json()["detail"]
    assert post(client, gid, "undo", t["1"]).json()["undo_request"] == 1  # the other seat's requests are its own


def test_two_draw_offers_sent_at_the_same_instant_end_in_one_agreement(client: TestClient) -> None:
    """ "two crossing requests become one agreement ... (one transaction; a concurrent test)": both
    offers answered without error, the game over by agreement once."""
    from concurrent.futures import ThreadPoolExecutor

    gid, t = online(client)
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda seat: post(client, gid, "draw", t[seat]), ["0", "1"]))
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    v = view(client, gid)
    assert v["status"] == "finished" and v["result"]["reason"] == "agreement" and v["draw_offer"] is None
