"""The web client's pages (``server/http/pages.py``).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_static_client_is_served(client: TestClient) -> None:
    """Client served by the package at /, no build step."""
    assert "lobby.js" in client.get("/").text
    assert "game.js" in client.get("/g/anything").text
    assert client.get("/static/js/board.js").status_code == 200
