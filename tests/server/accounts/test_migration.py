"""The accounts migration on SQLite and PostgreSQL: existing games keep working."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient

import tessera.server.store.storage as storage_module
from tessera.server.http.app import create_app
from tessera.server.store.storage import make_engine
from tests.server.helpers import first_move, move, view

HERE = Path(storage_module.__file__).parent
ACCOUNT_TABLES = {
    "users",
    "sessions",
    "api_tokens",
    "ratings",
    "rating_history",
    "challenges",
    "seat_accounts",
    "account_games",
    "login_failures",
    "challenge_invitees",
    "rematch_offers",
}


def migrate(url: str, target: str, *, down: bool = False) -> None:
    engine = make_engine(url)
    cfg = Config(str(HERE / "alembic.ini"))
    cfg.set_main_option("script_location", str(HERE / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, target)
    engine.dispose()


def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_a_game_made_before_accounts_keeps_working_after_the_migration_and_back(db_url: str) -> None:
    """'an Alembic migration … working on SQLite and PostgreSQL (existing games keep working)'."""
    migrate(db_url, "0003")
    assert not ACCOUNT_TABLES & tables(db_url)
    # a game stored by the schema before accounts (the service's own statements)
    from tessera.server.match.service import MatchService
    from tessera.server.store.storage import Storage

    old = MatchService(Storage(db_url, migrate=False))
    made = old.create("nibble", mode="hotseat")
    old.storage.dispose()
    migrate(db_url, "head")
    assert tables(db_url) >= ACCOUNT_TABLES
    app = create_app(db_url, ai_mode="thread", ai_seconds=0.01)
    with TestClient(app, headers={"Origin": "http://testserver"}) as c:
        t0 = made.tokens[0]
        v = view(c, made.game_id, t0)
        assert move(c, made.game_id, t0, first_move(v), v["move_number"]).status_code == 200
        assert c.get(f"/api/games/{made.game_id}/accounts").json() == {"rated": False, "pool": None, "seats": {}}
        r = c.post(
            "/api/account/signup",
            json={"username": "Early", "password": "an early password", "tokens": [t0]},
        )
        assert r.status_code == 201 and r.json()["claimed"] == [{"game_id": made.game_id, "seat": 0}]
    # and down again: the accounts tables go, the game stays
    migrate(db_url, "0003", down=True)
    assert not ACCOUNT_TABLES & tables(db_url)
    again = MatchService(Storage(db_url, migrate=False))
    assert again.view(made.game_id, made.tokens[0])["move_number"] == 1
    again.storage.dispose()
    migrate(db_url, "head")
    assert tables(db_url) >= ACCOUNT_TABLES
