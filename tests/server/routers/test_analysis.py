"""The analysis board's routes (``server/routers/analysis.py``).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

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
            return len(tx.list_games(public_only=False, limit=1000))

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
