"""The analysis board's routes (``server/analysis/routes.py``).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import tessera
from tessera.server.accounts.store import AccountStore
from tessera.server.match import tables
from tests.server.helpers import create, play_some, view


@pytest.mark.parametrize("name", ["ikabegama", "nume"])
def test_a_record_is_read_into_the_analysis_board_without_creating_a_game(client: TestClient, name: str) -> None:
    """Analysis board "from ... an imported record": `POST /api/analysis/record` reads a JSON or text
    record (docs/records.md) into spec, seed and moves; no game is stored; a bad record is a 422."""
    g = create(client, name, mode="hotseat")
    play_some(client, g["id"], g["tokens"], 6)
    original = view(client, g["id"])
    storage = client.app.state.storage  # type: ignore[attr-defined]

    def stored() -> int:
        with storage.transaction() as tx:
            return len(tables.list_games(tx, public_only=False, limit=1000))

    before = stored()
    for payload in (
        {"json": client.get(f"/api/games/{g['id']}/record").json()},
        {"content": client.get(f"/api/games/{g['id']}/record.txt").text, "headers": {"Content-Type": "text/plain"}},
    ):
        r = client.post("/api/analysis/record", **payload)
        assert r.status_code == 200, r.text
        src = r.json()
        assert src["spec"] == original["spec"] and src["seed"] == original["seed"]
        assert src["moves"] == [[m["player"], m["move"]] for m in original["moves"]]
        at = {"game": src["spec"], "seed": src["seed"], "moves": src["moves"]}
        pos = client.post("/api/analysis/position", json=at)
        assert pos.json()["render"]["pieces"] == original["render"]["pieces"]
    assert stored() == before, "no game was created"
    chess = '[Game "chess"]\n\n1. e4\n'
    bad = client.post("/api/analysis/record", content=chess, headers={"Content-Type": "text/plain"})
    assert bad.status_code == 422 and "cannot be imported" in bad.json()["detail"]


def _analysis(client: TestClient, gid: str, token: str | None = None) -> Any:
    return client.get(f"/api/games/{gid}/analysis", headers={"X-Seat-Token": token} if token else None)


def test_no_engine_for_a_game_in_progress_between_people_whoever_asks(client: TestClient) -> None:
    """Fair play: "no engine for a game in progress — `GET /api/games/{id}/analysis` refused to
    everyone (403 with the reason) until the game ends": the players (by seat token), a spectator
    and a logged-out tab alike, with the refusal's catalogue key; once the game is over it opens."""
    g = create(client, "nume", mode="online", seat=0, public=True)
    gid = g["id"]
    joined = client.post(f"/api/games/{gid}/join").json()
    tokens = {"0": g["tokens"]["0"], str(joined["seat"]): joined["token"]}
    play_some(client, gid, tokens, 2)
    assert view(client, gid)["status"] == "active"
    for token in (tokens["0"], tokens["1"], None):
        r = _analysis(client, gid, token)
        assert r.status_code == 403, r.text
        assert r.json()["key"] == "refusal.analysis.live_game"
        assert "game in progress" in r.json()["detail"]
    client.post(f"/api/games/{gid}/resign", json={"token": tokens["1"]})
    assert view(client, gid)["status"] == "finished"
    for token in (tokens["0"], None):
        r = _analysis(client, gid, token)
        assert r.status_code == 200, r.text
        assert len(r.json()["moves"]) == 2


def test_a_game_waiting_for_its_second_player_has_no_analysis_either(client: TestClient) -> None:
    """An open online game (its invite not yet taken) is in progress: refused."""
    g = create(client, "nume", mode="online", seat=1)
    r = _analysis(client, g["id"])
    assert r.status_code == 403 and r.json()["key"] == "refusal.analysis.live_game"


def test_hot_seat_and_unrated_games_against_the_ai_alone_may_be_analysed_while_they_go_on(client: TestClient) -> None:
    """ "hot-seat and games against the AI alone excepted": no human opponent to cheat against."""
    hot = create(client, "nume", mode="hotseat")
    play_some(client, hot["id"], hot["tokens"], 2)
    assert _analysis(client, hot["id"], hot["tokens"]["0"]).status_code == 200
    ai = create(client, "nume", mode="ai", seat=0, ai_level=1)
    assert view(client, ai["id"])["status"] == "active"
    for token in (ai["tokens"]["0"], None):
        assert _analysis(client, ai["id"], token).status_code == 200


def test_a_rated_game_against_an_ai_account_has_no_analysis_while_it_goes_on(client: TestClient) -> None:
    """A rated game against the AI counts for the person's rating: the engine is refused as between people."""
    ai = create(client, "nume", mode="ai", seat=0, ai_level=1)
    store = AccountStore(client.app.state.storage)  # type: ignore[attr-defined]
    person = store.create_user("fairplayer", "correct horse battery")
    store.bind_game(ai["id"], {0: person, 1: store.ai_user(1)}, rated=True, pool="nume")
    r = _analysis(client, ai["id"])
    assert r.status_code == 403 and r.json()["key"] == "refusal.analysis.live_game"


def test_the_live_game_refusal_is_in_the_five_catalogues() -> None:
    """The refusal's key is said in every language of the client."""
    for lang in ("en", "ko", "es", "de", "fr"):
        cat = json.loads(
            (Path(tessera.__file__).parent / "web" / "locales" / lang / "refusals.json").read_text("utf-8")
        )
        assert cat["refusal"]["analysis"]["live_game"]
