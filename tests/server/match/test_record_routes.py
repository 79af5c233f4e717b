"""Records out and in (``server/match/record_routes.py``, ``server/match/records.py``; docs/http-api.md).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

import tessera
from tests.server.helpers import SMALL, create, move, play_some, view


@pytest.mark.parametrize("name", ["ikabegama", "nibble", "nymbat", "nume"])
def test_records_round_trip_as_json_and_text(client: TestClient, name: str) -> None:
    """Game records: export/import as a documented JSON record and plain-text move lists."""
    g = create(client, name, mode="hotseat")
    play_some(client, g["id"], g["tokens"], 12)
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["format"] == "tessera-record" and record["game"] == name
    original = view(client, g["id"])
    for payload in (
        {"json": record},
        {"content": client.get(f"/api/games/{g['id']}/record.txt").text, "headers": {"Content-Type": "text/plain"}},
    ):
        r = client.post("/api/records", **payload)
        assert r.status_code == 201, r.text
        copy = view(client, r.json()["id"])
        assert copy["moves"] == original["moves"]
        assert copy["render"]["pieces"] == original["render"]["pieces"]


def test_nelaxtam_record_round_trips(client: TestClient) -> None:
    """Records: simultaneous turns are stored as both orders."""
    g = create(client, "nelaxtam", mode="hotseat")
    state = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state()
    rng = random.Random(5)
    for _ in range(3):
        if state.is_terminal():
            break
        orders = [state.random_move(rng, p) for p in (0, 1)]
        for p in (0, 1):
            assert move(client, g["id"], g["tokens"][str(p)], orders[p], state.move_number()).status_code == 200
        state.play_joint(orders)
    rec = client.get(f"/api/games/{g['id']}/record").json()
    assert all("orders" in t for t in rec["turns"])
    for payload in (
        {"json": rec},
        {"content": client.get(f"/api/games/{g['id']}/record.txt").text, "headers": {"Content-Type": "text/plain"}},
    ):
        r = client.post("/api/records", **payload)
        assert r.status_code == 201, r.text
        assert view(client, r.json()["id"])["moves"] == view(client, g["id"])["moves"]


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        ({"json": {"format": "pgn"}}, "format"),
        (
            {
                "json": {
                    "format": "tessera-record",
                    "version": 1,
                    "game": "nume",
                    "seed": 1,
                    "turns": [{"player": 0, "moves": ["a1"]}],
                }
            },
            "turn 1",
        ),
        ({"content": '[Game "nume(size=2)"]\n1. a1=1\n2. zz9', "headers": {"Content-Type": "text/plain"}}, "turn 2"),
        ({"content": "1. a1=1", "headers": {"Content-Type": "text/plain"}}, "Game"),
        ({"content": "{not json", "headers": {"Content-Type": "application/json"}}, "JSON"),
    ],
)
def test_import_refuses_a_bad_record_saying_why(client: TestClient, payload: dict[str, Any], needle: str) -> None:
    """Bad input always gets a clear error saying what was wrong."""
    r = client.post("/api/records", **payload)
    assert r.status_code == 422 and needle in r.json()["detail"]


def test_text_records_read_moves_that_contain_spaces(client: TestClient) -> None:
    """Text records: a turn's steps are separated by single spaces, yet Nume's `komi 3.5 white` is one move."""
    g = create(client, "nume", mode="hotseat", params={"size": 2, "komi_bidding": True})
    gid, t = g["id"], g["tokens"]
    for i, (seat, mv) in enumerate([("0", "komi 3.5 white"), ("1", "black"), ("1", "a1=1"), ("0", "b2=0")]):
        assert move(client, gid, t[seat], mv, i).status_code == 200
    text = client.get(f"/api/games/{gid}/record.txt").text
    assert "komi 3.5 white" in text
    r = client.post("/api/records", content=text, headers={"Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    assert view(client, r.json()["id"])["moves"] == view(client, gid)["moves"]
