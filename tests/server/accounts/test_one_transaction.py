"""A multi-step write is one transaction (issue 35): when its last step fails — as when the process
dies there — nothing of it is stored; a game's rating left unwritten by a crash is written at start.

The failure is made by the database refusing the last write of the operation (the accounts bound
to the new game's seats), which is where a ``kill -9`` left the old multi-transaction accept with a
challenge ``accepted`` and no game, or a game nobody could reach."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.accounts.tables import account_games_table, challenges_table
from tessera.server.http.app import create_app
from tessera.server.match.tables import games_table
from tessera.server.seeks.tables import seeks_table
from tessera.server.tournaments.tables import tournament_pairings_table


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


@contextmanager
def write_fails(app: FastAPI, statement: str) -> Iterator[None]:
    """The database fails every statement that starts with ``statement`` (upper case) while the block runs."""
    engine = app.state.storage.engine

    def refuse(conn: Any, cursor: Any, text: str, *args: Any) -> None:
        if " ".join(text.split()).upper().startswith(statement):
            raise RuntimeError("the process died here")

    sa.event.listen(engine, "before_cursor_execute", refuse)
    try:
        yield
    finally:
        sa.event.remove(engine, "before_cursor_execute", refuse)


def failing_client(app: FastAPI, c: TestClient) -> TestClient:
    """``c``'s browser, answering a server error with a 500 instead of raising it."""
    failing = TestClient(app, raise_server_exceptions=False, headers=c.headers, cookies=c.cookies)
    failing.portal = c.portal  # type: ignore[attr-defined]
    return failing


def test_a_rematch_ask_that_fails_when_naming_its_challenge_stores_no_challenge(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    """'one transaction for rematch': the rematch challenge and its naming as the game's one rematch
    are stored together — an ask that dies before the naming leaves no pending challenge behind
    (before: a challenge no game named, and a second one at the next ask)."""
    alice, bob = user("gina"), user("hank")
    cid = alice.post("/api/challenges", json={"to": "hank", "game": "nume(size=3)", "rated": True}).json()["id"]
    gid = bob.post(f"/api/challenges/{cid}/accept").json()["game_id"]
    assert bob.post(f"/api/games/{gid}/resign").status_code == 200
    with write_fails(app, "INSERT INTO REMATCH_CHALLENGES"):
        assert failing_client(app, alice).post(f"/api/games/{gid}/rematch").status_code == 500
    c = challenges_table
    with app.state.storage.transaction() as tx:
        pending = tx.conn.execute(sa.select(sa.func.count()).where(c.c.status == "pending")).scalar()
    assert pending == 0, "a rematch challenge was stored without being named the game's rematch"
    asked = alice.post(f"/api/games/{gid}/rematch")
    assert asked.status_code == 201 and asked.json()["status"] == "pending", asked.text
    agreed = bob.post(f"/api/games/{gid}/rematch")
    assert agreed.status_code in (200, 201) and agreed.json()["game_id"], agreed.text


def test_a_four_seat_challenge_whose_game_failed_after_the_last_acceptance_is_made_when_asked_again(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    """'nothing stuck': the last acceptance of a four-seat challenge is stored, then its game fails
    (the process died between the two); the last invitee accepts again and the game is made, its
    seat his (before: 409 'answered already', and the challenge pending for good)."""
    host, *guests = user("kyle"), user("lena"), user("mona"), user("nora")
    spec = "nymbat(players=4,reserve=6,first_limit=6,max_turns=60)"
    r = host.post("/api/challenges", json={"to": ["lena", "mona", "nora"], "game": spec, "rated": True})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    for g in guests[:2]:
        assert g.post(f"/api/challenges/{cid}/accept").json()["status"] == "pending"
    before = count_games(app)
    with last_write_fails(app):
        assert failing_client(app, guests[2]).post(f"/api/challenges/{cid}/accept").status_code == 500
    assert count_games(app) == before
    again = guests[2].post(f"/api/challenges/{cid}/accept")
    assert again.status_code == 200, again.text
    got = again.json()
    assert got["status"] == "accepted" and got["game_id"]
    view = guests[2].get(f"/api/games/{got['game_id']}", headers={"X-Seat-Token": got["token"]}).json()
    assert view["you"] == got["seat"]


def test_a_tournament_game_whose_pairing_could_not_name_it_is_not_stored(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    """'tournament pairing: no game without its pairing row': an arena game, its pairing (with the game's
    id) and its players' claim are one transaction — when naming the game on its pairing fails (the
    process died there) neither the game nor the pairing is left (before: an orphan game), the players
    are free, and the next wave pairs them."""
    olga, pete = user("olga"), user("pete")
    now = time.time() + 3600  # an hour ahead: the app's own waves (real time) leave it to the test's
    body = {"kind": "arena", "game": "nume(size=3)", "clock": {"initial": 600, "increment": 5}, "minutes": 60}
    tid = olga.post("/api/tournaments", json={**body, "starts_at": now}).json()["id"]
    for p in (olga, pete):
        assert p.post(f"/api/tournaments/{tid}/join").status_code == 200
    waves = app.state.tournaments.waves

    def wave(at: float) -> None:  # (on PostgreSQL another app's wave may hold the directors' lock a moment)
        deadline = time.monotonic() + 30
        while not waves.wave(at):
            assert time.monotonic() < deadline, "no wave ran"
            time.sleep(0.05)

    def pairings() -> list[Any]:
        tp = tournament_pairings_table
        with app.state.storage.transaction() as tx:
            return list(tx.conn.execute(sa.select(tp.c.status, tp.c.game_id).where(tp.c.tournament_id == tid)).all())

    before = count_games(app)
    with write_fails(app, "UPDATE TOURNAMENT_PAIRINGS SET GAME_ID"):
        wave(now)
    assert count_games(app) == before, "a game was stored that no pairing names"
    assert pairings() == [], "a pairing was left without its game"
    wave(now + 1)  # the players were left free: the next wave pairs them
    rows = pairings()
    assert [r.status for r in rows] == ["playing"] and rows[0].game_id, rows
    assert count_games(app) == before + 1
