"""The catalogue and rules routes (``server/catalog/routes.py``; docs/http-api.md).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import tessera


def test_catalog_lists_every_game_with_parameters(client: TestClient) -> None:
    """Create a game: any game, any parameters — the form is built from the catalogue."""
    data = client.get("/api/catalog").json()
    names = [g["name"] for g in data["games"]]
    assert names == tessera.list_games()
    nume = next(g for g in data["games"] if g["name"] == "nume")
    assert {p["name"] for p in nume["params"]} >= {"size", "variant", "komi"}


@pytest.mark.parametrize("name", tessera.list_games())
def test_rules_page_of_every_game(client: TestClient, name: str) -> None:
    """Side panel: the rules of the game (a rules page per game written for players)."""
    r = client.get(f"/api/rules/{name}")
    assert r.status_code == 200
    assert r.json()["markdown"].startswith("# ")
    assert client.get("/api/rules/chess").status_code == 404
