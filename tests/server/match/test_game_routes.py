"""Creating, listing, viewing and joining games (``server/match/game_routes.py``; docs/http-api.md).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import create, move, play_some, view


def test_create_gives_unguessable_seat_tokens_and_links(client: TestClient) -> None:
    """A game page and an invite link per seat; seat credentials are unguessable tokens."""
    hot = create(client, "nume", mode="hotseat")
    assert set(hot["tokens"]) == {"0", "1"} and hot["tokens"]["0"] != hot["tokens"]["1"]
    assert all(len(t) >= 40 for t in hot["tokens"].values())
    online = create(client, "nume", mode="online", seat=1)
    assert set(online["tokens"]) == {"1"} and set(online["invites"]) == {"0"}
    assert online["invites"]["0"].startswith(f"/g/{online['id']}#seat=0&t=")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "nume", "params": {"size": 99}}, "size"),
        ({"game": "nume", "params": {"colour": 1}}, "colour"),
        ({"game": "nume", "mode": "telepathy"}, "mode"),
        ({"game": "nume", "seat": 2}, "seat"),
        ({"game": "nume", "mode": "ai", "ai_level": 9}, "ai_level"),
    ],
)
def test_create_refuses_bad_input_with_the_reason(client: TestClient, body: dict[str, Any], needle: str) -> None:
    """Bad input always gets a clear error saying what was wrong."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 422
    assert needle in json.dumps(r.json()["detail"])


def test_unknown_game_is_404(client: TestClient) -> None:
    """Every rejection reaches the client as a 4xx JSON {"detail": ...}."""
    r = client.get("/api/games/nope")
    assert r.status_code == 404 and "nope" in r.json()["detail"]


def test_view_version_grows_with_every_change_so_clients_keep_the_newest(client: TestClient) -> None:
    """Live updates: a client receiving views out of order keeps the newest (the view's version)."""
    g = create(client, "nume", mode="hotseat")
    t0, t1 = g["tokens"]["0"], g["tokens"]["1"]
    v0 = view(client, g["id"])["version"]
    assert view(client, g["id"])["version"] == v0  # reading changes nothing
    v1 = move(client, g["id"], t0, "a1=1", 0).json()["version"]
    v2 = move(client, g["id"], t1, "b1=1", 1).json()["version"]
    v3 = client.post(f"/api/games/{g['id']}/undo", json={"token": t1}).json()["version"]
    assert v0 < v1 < v2 < v3
    assert move(client, g["id"], t1, "zz", 1).status_code == 400
    assert view(client, g["id"])["version"] == v3  # a refused move stores nothing


def test_spectators_see_the_game_but_cannot_act(client: TestClient) -> None:
    """Anyone else may watch as a spectator."""
    g = create(client, "nume", mode="online", public=True)
    v = view(client, g["id"])
    assert v["you"] is None and v["render"]["actions"] == []
    assert client.post(f"/api/games/{g['id']}/undo", json={}).status_code == 401


def test_replay_positions_step_through_a_finished_game(client: TestClient) -> None:
    """Replay browser for finished games (step back and forth)."""
    g = create(client, "nume", mode="hotseat")
    played = play_some(client, g["id"], g["tokens"], 18)
    v = view(client, g["id"])
    assert v["status"] == "finished" and len(played) == 18
    start = client.get(f"/api/games/{g['id']}/positions/0").json()
    assert start["pieces"] == [] and start["actions"] == []
    mid = client.get(f"/api/games/{g['id']}/positions/5").json()
    assert len(mid["pieces"]) == 5 and mid["move_number"] == 5
    end = client.get(f"/api/games/{g['id']}/positions/18").json()
    assert end["result"] == v["result"]
    assert client.get(f"/api/games/{g['id']}/positions/19").status_code == 422


def test_lobby_lists_open_games_and_join_takes_the_free_seat(client: TestClient) -> None:
    """Lobby listing open games; online between two browsers."""
    g = create(client, "nume", mode="online", public=True)
    hidden = create(client, "nume", mode="hotseat")
    listed = [x["id"] for x in client.get("/api/games?status=open").json()["games"]]
    assert g["id"] in listed and hidden["id"] not in listed
    j = client.post(f"/api/games/{g['id']}/join")
    assert j.status_code == 200 and j.json()["seat"] == 1
    assert g["id"] not in [x["id"] for x in client.get("/api/games?status=open").json()["games"]]
    full = client.post(f"/api/games/{g['id']}/join")
    assert full.status_code == 409 and "taken" in full.json()["detail"]
    assert client.get("/api/games?status=bogus").status_code == 422


def test_a_name_is_limited_by_what_it_draws_not_only_by_its_characters(client: TestClient) -> None:
    """ "Names are limited by what they draw (grapheme clusters and combining marks)": one letter and
    79 combining marks (80 characters) is refused with the reason; a name written with a few marks
    per letter (Vietnamese, decomposed) is kept as given."""
    streak = "a" + "\u0301" * 79
    r = client.post(
        "/api/games", json={"game": "nume", "params": {"size": 2}, "mode": "hotseat", "names": [streak, "Bo"]}
    )
    assert r.status_code == 422 and "combining marks" in r.json()["detail"], r.text
    r = client.post(
        "/api/games",
        json={
            "game": "nume",
            "params": {"size": 2},
            "mode": "hotseat",
            "seats": [{"kind": "here", "name": streak}, {"kind": "here"}],
        },
    )
    assert r.status_code == 422 and "combining marks" in r.json()["detail"], r.text
    viet = "Nguye\u0302\u0303n"  # ễ written as e + circumflex + tilde
    g = client.post(
        "/api/games", json={"game": "nume", "params": {"size": 2}, "mode": "hotseat", "names": [viet, "Bo"]}
    )
    assert g.status_code == 201, g.text
    assert view(client, g.json()["id"])["seats"][0]["name"] == viet
