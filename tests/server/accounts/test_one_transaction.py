"""A multi-step write is one transaction (issue 35): when its last step fails — as when the process
dies there — nothing of it is stored; a game's rating left unwritten by a crash is written at start.

The failure is made by the database refusing the last write of the operation (the accounts bound
to the new game's seats), which is where a ``kill -9`` left the old multi-transaction accept with a
challenge ``accepted`` and no game, or a game nobody could reach."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.accounts.tables import account_games_table, challenges_table
from tessera.server.app import create_app
from tessera.server.seeks.tables import seeks_table
from tessera.server.storage import games_table


@contextmanager
def last_write_fails(app: FastAPI) -> Iterator[None]:
    """The database fails every ``INSERT`` into ``account_games`` while the block runs."""
    engine = app.state.storage.engine

    def refuse(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO ACCOUNT_GAMES"):
            raise RuntimeError("the process died here")

    sa.event.listen(engine, "before_cursor_execute", refuse)
    try:
        yield
    finally:
        sa.event.remove(engine, "before_cursor_execute", refuse)


def count_games(app: FastAPI) -> int:
    with app.state.storage.transaction() as tx:
        return int(tx.conn.execute(sa.select(sa.func.count()).select_from(games_table)).scalar() or 0)


def test_an_accept_that_fails_at_its_last_step_leaves_the_challenge_pending_and_no_game(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    alice, bob = user("alice"), user("bob")
    cid = alice.post("/api/challenges", json={"to": "bob", "game": "nume(size=3)", "rated": True}).json()["id"]
    before = count_games(app)
    failing = TestClient(app, raise_server_exceptions=False, headers=bob.headers, cookies=bob.cookies)
    failing.portal = bob.portal  # type: ignore[attr-defined]
    with last_write_fails(app):
        assert failing.post(f"/api/challenges/{cid}/accept").status_code == 500
    with app.state.storage.transaction() as tx:
        row = tx.conn.execute(sa.select(challenges_table).where(challenges_table.c.id == cid)).mappings().one()
    assert (row["status"], row["game_id"]) == ("pending", None), "half an accept was stored"
    assert count_games(app) == before, "a game was stored without its accept"
    r = bob.post(f"/api/challenges/{cid}/accept")
    assert r.status_code == 200, "the challenge can still be accepted"
    assert (
        bob.get(f"/api/games/{r.json()['game_id']}", headers={"X-Seat-Token": r.json()["token"]}).json()["you"]
        == r.json()["seat"]
    )


def test_a_pairing_that_fails_at_its_last_step_leaves_both_seeks_standing_and_no_game(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    a, b = user("carol"), user("dave")
    body = {"game": "nume(size=3)", "rated": True, "clock": {"initial": 600, "increment": 5}}
    ids = [c.post("/api/seeks", json=body).json()["id"] for c in (a, b)]
    before = count_games(app)
    with last_write_fails(app):
        assert app.state.seeks.wave() == []
    with app.state.storage.transaction() as tx:
        statuses = [
            tx.conn.execute(sa.select(seeks_table.c.status, seeks_table.c.game_id).where(seeks_table.c.id == i)).one()
            for i in ids
        ]
    assert [tuple(s) for s in statuses] == [("open", None), ("open", None)], "one seeker paired, the other not"
    assert count_games(app) == before, "an orphan game was stored"
    assert len(app.state.seeks.wave()) == 1, "the seeks pair at the next wave"


def test_a_finished_rated_game_left_unrated_by_a_crash_is_rated_at_start_before_any_read(
    db_url: str, app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    alice, bob = user("erin"), user("frank")
    cid = alice.post("/api/challenges", json={"to": "frank", "game": "nume(size=3)", "rated": True}).json()["id"]
    got = bob.post(f"/api/challenges/{cid}/accept").json()
    with app.state.storage.transaction(write=True) as tx:  # the end stored, the process gone before the rating
        tx.conn.execute(
            games_table.update().where(games_table.c.id == got["game_id"]).values(status="finished", result=None)
        )
    ag = account_games_table
    with app.state.storage.transaction() as tx:
        assert tx.conn.execute(sa.select(ag.c.rated_at).where(ag.c.game_id == got["game_id"])).scalar() is None
    with TestClient(create_app(db_url, ai_mode="thread", warm=False)):  # a restart: no request made
        pass
    with app.state.storage.transaction() as tx:
        rated_at = tx.conn.execute(sa.select(ag.c.rated_at).where(ag.c.game_id == got["game_id"])).scalar()
    assert rated_at is not None, "the rating waited for a read after the restart"
