"""The server passes the games' keyed texts on: a refusal's key and arguments beside its English
``detail``, and the result's and status's keys in the views.

"Each refusal has a stable code/key + args beside the English detail and the HTTP 400 carries
{"detail", "key", "args"} without breaking clients that read detail."
"""

from __future__ import annotations

from fastapi.testclient import TestClient

import tessera
from tests.server.helpers import create, every_seat_moves, move, view


def test_a_refused_move_carries_its_key_and_arguments_beside_the_english_detail(client: TestClient) -> None:
    """The 400 of an illegal move: the same English detail as before, and the game's key and args."""
    g = create(client, "nume", mode="hotseat")
    r = move(client, g["id"], g["tokens"]["0"], "a1", 0)  # a new group needs a number
    assert r.status_code == 400
    reason = tessera.load_game("nume", size=2).new_initial_state().why_illegal("a1")
    cells = tessera.load_game("nume", size=2).cells
    assert r.json() == {
        "detail": reason,
        "error": reason,
        "key": "refusal.nume.starts_number",
        "args": {"hex": "a1", "n": cells},
    }


def test_a_sealed_order_refused_carries_its_key(client: TestClient) -> None:
    """Nelaxtam: an order the rules refuse comes back with the order check's key."""
    g = create(client, "nelaxtam", mode="hotseat")
    r = client.post(f"/api/games/{g['id']}/moves", json={"token": g["tokens"]["0"], "move": "1@a1 1@a2", "expected": 0})
    assert r.status_code == 400
    body = r.json()
    assert body["key"].startswith("refusal.nelaxtam.") and body["detail"]


def test_moving_out_of_turn_and_after_the_end_are_refused_with_keys(client: TestClient) -> None:
    """Not your turn (409) and the game is over (409) carry keys; the end names how it ended, by key."""
    g = create(client, "nume", mode="hotseat")
    t0, t1 = g["tokens"]["0"], g["tokens"]["1"]
    r = move(client, g["id"], t1, "a1=1", 0)
    assert r.status_code == 409 and r.json()["key"] == "refusal.not_your_seat"
    assert "not your turn" in r.json()["detail"]
    every_seat_moves(client.app, g["id"])  # before that, a resignation aborts the game
    assert client.post(f"/api/games/{g['id']}/resign", json={"token": t0}).status_code == 200
    r = move(client, g["id"], t0, "a1=1", view(client, g["id"])["move_number"])
    body = r.json()
    assert r.status_code == 409 and body["key"] == "refusal.game_over_how"
    assert body["args"]["how"]["key"] == "result.resigned"


def test_a_resignation_result_and_the_final_status_carry_keys(client: TestClient) -> None:
    """The server's own end sentence (a resignation) has its key and arguments, in the result and the status."""
    g = create(client, "ikabegama", mode="online", public=True)
    every_seat_moves(client.app, g["id"])  # before that, a resignation aborts the game
    client.post(f"/api/games/{g['id']}/resign", json={"token": g["tokens"]["0"]})
    v = view(client, g["id"])
    res = v["result"]
    assert res["text"] == "Light resigned: Dark wins"
    assert res["key"] == "result.resigned"
    assert res["args"] == {
        "loser": {"key": "names.light", "args": {}, "text": "Light"},
        "winner": {"key": "names.dark", "args": {}, "text": "Dark"},
    }
    assert (v["render"]["status_key"], v["render"]["status"]) == ("result.resigned", res["text"])


def test_draw_and_undo_refusals_carry_keys(client: TestClient) -> None:
    """The refusals of the game page's other buttons come with keys too: no undo to take back, no
    draw offer to answer, a game whose rules allow no draw (the game's own keyed reason), a stale move."""
    g = create(client, "nibble", mode="hotseat")
    gid, t0 = g["id"], g["tokens"]["0"]
    r = client.post(f"/api/games/{gid}/undo", json={"token": t0})
    assert r.status_code == 409 and r.json()["key"] == "refusal.undo_nothing"
    r = client.post(f"/api/games/{gid}/draw", json={"token": t0})
    assert r.status_code == 422 and r.json()["key"] == "refusal.no_draws_nibble"
    assert r.json()["detail"] == "Nibble has no draws (a tie cannot happen)"
    r = move(client, gid, t0, view(client, gid, t0)["render"]["actions"][0]["move"], 5)
    assert r.status_code == 409 and r.json()["key"] == "refusal.stale_number"
    assert r.json()["args"] == {"expected": 5, "n": 0}


def test_a_malformed_request_is_refused_with_a_key_naming_its_fields(client: TestClient) -> None:
    """A request the API cannot read (a 422): pydantic's English detail as before, and a key with the
    fields that were wrong, so the page says it in the player's language."""
    r = client.post("/api/games", json={"game": 5, "params": {"size": 2}})
    assert r.status_code == 422
    assert r.json()["key"] == "refusal.invalid_request" and r.json()["args"] == {"fields": "game"}
    assert r.json()["detail"].startswith("game: ")
    r = client.post("/api/games", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["args"] == {"fields": "body"}
    assert "not valid JSON" in r.json()["detail"]
