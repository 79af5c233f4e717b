"""AI ratings anchored (issue 39, point 6): each AI level's rating per game, measured by matches
between the levels (studies/ai_ratings) and stored beside the game (``tessera/games/<game>/levels.json``),
is what the AI account starts with, what the lobby's form and the seek pool's offer show."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

import tessera
from tessera.agents.evidence import level6_evidence, offered_levels
from tessera.server.accounts.tables import history_table, users_table
from tessera.server.ai import ratings as ai_ratings
from tessera.server.ai.ratings import ANCHOR, level_ratings
from tests.server.accounts.test_challenges_ratings import challenge
from tests.server.helpers import every_seat_moves

ROOT = Path(__file__).resolve().parents[3]
User = Callable[[str], TestClient]


def stored(game: str) -> dict[str, dict[str, float]]:
    path = ROOT / "tessera" / "games" / game / "levels.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))["levels"])


@pytest.mark.parametrize("game", tessera.list_games())
def test_every_game_has_its_levels_measured_with_level_one_at_the_anchor(game: str) -> None:
    """'each AI level's rating per game measured … with an anchor stated in the docs (level 1 = 800)':
    every game's folder holds its levels' ratings with the games they rest on and a 95 % interval
    around each, level 1 at the anchor, and the server reads exactly those."""
    levels = stored(game)
    assert sorted(levels, key=int) == ["1", "2", "3", "4", "5"]
    assert levels["1"]["rating"] == ANCHOR
    read = level_ratings(game)
    for key, v in levels.items():
        assert v["low"] <= v["rating"] <= v["high"] and v["games"] >= 0
        assert read[int(key)].rating == v["rating"] and read[int(key)].games == v["games"]
    assert "level 1 = 800" in (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")


def test_an_ai_account_starts_at_its_levels_measured_rating(user: User, app: FastAPI) -> None:
    """'stored as the AI accounts' starting ratings': the first rated game of ai-level3 in Nibble is
    rated from level 3's stored rating (and deviation), not from 1500; the person starts at 1500."""
    alice = user("Alice")
    got = challenge(alice, "ai-level3", game="nibble(colors=9)", rated=True, seat=1)
    gid = got["game_id"]
    every_seat_moves(alice.app, gid)
    assert alice.post(f"/api/games/{gid}/resign", json={"token": got["token"]}).status_code == 200
    with app.state.storage.transaction() as tx:
        before = dict(
            tx.conn.execute(
                sa.select(users_table.c.username, history_table.c.before)
                .join(users_table, users_table.c.id == history_table.c.user_id)
                .where(history_table.c.game_id == gid)
            ).all()
        )
    want = stored("nibble")["3"]["rating"]
    assert before == {"ai-level3": pytest.approx(want), "Alice": pytest.approx(1500.0)}
    after = alice.get("/api/users/ai-level3").json()["ratings"]["nibble"]["rating"]
    assert after > want  # it won: up from its measured rating (a gain sized by its small deviation)


def test_the_lobby_and_the_seek_pool_show_the_stored_ratings(browser: Callable[..., TestClient], app: FastAPI) -> None:
    """'shown consistently (the new-game form, the seek offer "about 1400")': the catalogue gives each
    game's stored level ratings (the form's text reads them), and the seek pool offers the AI level
    at that same rating while its account has no rated game."""
    b = browser()
    games = {g["name"]: g for g in b.get("/api/catalog").json()["games"]}
    for name, g in games.items():
        levels = stored(name)
        expected = {k: round(v["rating"]) for k, v in levels.items()}
        if 6 in offered_levels(name) and "6" not in levels:  # anchored on level 5 by its SPRT's H1 Elo
            expected["6"] = round(levels["5"]["rating"] + level6_evidence(name).test.elo1)
        assert {k: v["rating"] for k, v in g["ai_ratings"].items()} == expected
        assert all(v["measured"] == (k in levels and levels[k]["games"] > 0) for k, v in g["ai_ratings"].items())
    assert "6" in games["nymbat"]["ai_ratings"]  # the committed SPRT accepted Nymbat's level 6
    offered = app.state.seeks.ai_ratings("nume")
    assert offered == {int(k): v["rating"] for k, v in stored("nume").items()}


def test_a_game_without_measured_levels_takes_the_nominal_ratings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game folder without ``levels.json`` (a game being written) takes 800, 1100, 1400, 1700,
    2000, flagged as not measured; a file that cannot be read is logged and ignored the same way."""
    monkeypatch.setattr(ai_ratings, "levels_file", lambda game: tmp_path / "absent.json")
    ai_ratings.level_ratings.cache_clear()
    try:
        assert {k: r.rating for k, r in level_ratings("nume").items()} == ai_ratings.NOMINAL
        assert not any(r.measured for r in level_ratings("nume").values())
        (tmp_path / "absent.json").write_text("{not json")
        ai_ratings.level_ratings.cache_clear()
        assert {k: r.rating for k, r in level_ratings("nume").items()} == ai_ratings.NOMINAL
    finally:
        ai_ratings.level_ratings.cache_clear()
