"""The designer's lab on the server: self-play studies asked by an account, played on the AI pool, stored game by
game, cancellable, taken over after a restart; its refusals."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.arena.play import play_task
from tessera.core.records import replay_text_record
from tessera.server.design.studies import MAX_OPEN, next_task
from tessera.server.design.tables import design_studies_table
from tessera.server.http.app import create_app

SITE = {"Origin": "http://testserver"}
PASSWORD = "correct horse battery"
TWO = ["nume(size=2)", "nume(size=2,komi=2.5)"]


@pytest.fixture
def app(db_url: str) -> Iterator[FastAPI]:
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(a):
        yield a


def account(app: FastAPI, name: str) -> TestClient:
    c = TestClient(app, headers=SITE)
    r = c.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return c


def wait_for(c: TestClient, sid: str, status: str, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        s = c.get(f"/api/design/studies/{sid}").json()
        if s["status"] == status:
            return s
        assert time.monotonic() < deadline, f"study still {s['status']} ({s['played']}/{s['total']})"
        time.sleep(0.2)


def test_a_study_plays_every_variant_and_reports_score_wins_and_metrics(app: FastAPI) -> None:
    """ "Run N self-play games on the server's AI pool … compare two or more variants side by side"."""
    c = account(app, "designer1")
    r = c.post("/api/design/nume/studies", json={"variants": TWO, "agent": "level1", "games": 2})
    assert r.status_code == 201, r.text
    sid = r.json()["id"]
    s = wait_for(c, sid, "done")
    assert s["played"] == s["total"] == 4
    assert s["variants"] == TWO
    for f in s["figures"]:
        assert f["games"] == 2
        assert 0.0 <= f["seat_score"][0] <= 1.0 and len(f["seat_score_ci95"][0]) == 2
        assert "seat_win_rate" in f and "lead_changes" in f["ludii"] and "histogram" in f["length"]
        assert f["examples"]
    key = s["figures"][0]["examples"][0]["key"]
    rec = c.get(f"/api/design/studies/{sid}/record", params={"key": key})
    assert rec.status_code == 200
    assert replay_text_record(rec.text).is_terminal()
    listed = c.get("/api/design/nume/studies").json()["studies"]
    assert [x["id"] for x in listed] == [sid]


def test_a_study_is_the_asking_accounts_alone(app: FastAPI) -> None:
    """Another account's study is not disclosed (404), and a guest may not ask for one (401)."""
    c = account(app, "designer2")
    sid = c.post("/api/design/nume/studies", json={"variants": TWO[:1], "agent": "level1", "games": 1}).json()["id"]
    other = account(app, "nosy")
    assert other.get(f"/api/design/studies/{sid}").status_code == 404
    assert other.post(f"/api/design/studies/{sid}/cancel").status_code == 404
    guest = TestClient(app, headers=SITE)
    r = guest.post("/api/design/nume/studies", json={"variants": TWO, "agent": "level1", "games": 1})
    assert r.status_code == 401


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"variants": ["nume(size=99)"], "agent": "level1", "games": 1}, 422, "variant 'nume(size=99)'"),
        ({"variants": ["nibble"], "agent": "level1", "games": 1}, 422, "not a variant of nume"),
        ({"variants": ["nume(size=2)", "nume(size=2)"], "agent": "level1", "games": 1}, 422, "listed twice"),
        ({"variants": ["nume(size=2)"], "agent": "level5", "games": 1}, 422, "not offered here"),
        ({"variants": ["nume(size=2)"], "agent": "level1", "games": 0}, 422, "greater than or equal"),
        ({"variants": ["nume"] * 5, "agent": "level1", "games": 1}, 422, "at most 4"),
        ({"variants": [], "agent": "level1", "games": 1}, 422, "at least 1"),
    ],
)
def test_a_bad_study_request_is_refused_with_the_reason(
    app: FastAPI, body: dict[str, Any], status: int, words: str
) -> None:
    """Bad input gets a 4xx that says what was wrong, and stores nothing."""
    c = account(app, "designer3")
    r = c.post("/api/design/nume/studies", json=body)
    assert r.status_code == status, r.text
    assert words in r.text
    assert c.get("/api/design/nume/studies").json()["studies"] == []


def test_an_unknown_game_is_a_404_without_building_anything(app: FastAPI) -> None:
    """The page and the API name a game that does not exist: 404."""
    c = account(app, "designer4")
    assert c.post("/api/design/chess/studies", json={"variants": ["chess"]}).status_code == 404
    assert c.get("/design/chess").status_code == 404
    assert c.get("/design/nume").status_code == 200


def test_unfinished_studies_per_account_are_capped(app: FastAPI) -> None:
    """ "Bounded, queued": at most MAX_OPEN unfinished studies per account; the next is a 429 that says why."""
    c = account(app, "designer5")
    body = {"variants": ["nymbat"], "agent": "level3", "games": 200}
    ids = [c.post("/api/design/nymbat/studies", json=body).json()["id"] for _ in range(MAX_OPEN)]
    r = c.post("/api/design/nymbat/studies", json=body)
    assert r.status_code == 429 and "unfinished studies" in r.text
    for sid in ids:
        assert c.post(f"/api/design/studies/{sid}/cancel").json()["status"] == "cancelled"
    assert (
        c.post("/api/design/nume/studies", json={"variants": TWO[:1], "agent": "level1", "games": 1}).status_code == 201
    )


def test_a_cancelled_study_keeps_its_games_and_plays_no_more(app: FastAPI) -> None:
    """ "Cancellable": a cancelled study stops, keeps what it played, and is not taken up again."""
    c = account(app, "designer6")
    sid = c.post("/api/design/nume/studies", json={"variants": TWO, "agent": "level1", "games": 50}).json()["id"]
    deadline = time.monotonic() + 60
    while c.get(f"/api/design/studies/{sid}").json()["played"] < 1:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    s = c.post(f"/api/design/studies/{sid}/cancel").json()
    assert s["status"] == "cancelled"
    time.sleep(1.5)
    after = c.get(f"/api/design/studies/{sid}").json()
    assert after["status"] == "cancelled" and after["played"] <= s["played"] + 1
    assert app.state.design.sweep() == 0


def test_a_study_stopped_by_a_restart_goes_on_where_it_was(db_url: str) -> None:
    """ "Nothing acknowledged is ever lost": the games stored before a stop stay, and the next start finishes it."""
    first = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(first):
        c = account(first, "designer7")
        sid = c.post("/api/design/nume/studies", json={"variants": TWO, "agent": "level1", "games": 3}).json()["id"]
        deadline = time.monotonic() + 60
        while c.get(f"/api/design/studies/{sid}").json()["played"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    storage = first.state.storage
    del storage
    second = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(second):
        c = TestClient(second, headers=SITE)
        assert c.post("/api/account/login", json={"username": "designer7", "password": PASSWORD}).status_code == 200
        s = wait_for(c, sid, "done")
        assert s["played"] == 6
        with second.state.storage.transaction() as tx:
            row = tx.conn.execute(sa.select(design_studies_table).where(design_studies_table.c.id == sid)).one()
        assert row.holder is None


def test_a_game_stored_while_the_server_stops_leaves_no_lease_behind(db_url: str) -> None:
    """'A clean stop gives its leases up': a game that finishes while the server stops is kept, and
    storing it does not renew the lease the stop has just released — else the restarted server's sweep
    skipped the study for GAME_BUDGET + 60 s (CI's 'study still running (2/6)')."""
    app = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(app):
        c = account(app, "designer9")
        sid = c.post("/api/design/nume/studies", json={"variants": TWO, "agent": "level1", "games": 3}).json()["id"]
        studies = app.state.design
        with studies.storage.transaction() as tx:
            row = tx.conn.execute(sa.select(design_studies_table).where(design_studies_table.c.id == sid)).one()
        task = next_task(row)
        assert task is not None
        done: Future[Any] = Future()
        done.set_result(play_task(task))
        real = studies.storage.transaction
        stopped: list[bool] = []

        def stop_then_store(*args: Any, **kw: Any) -> Any:
            if kw.get("write") and not stopped:  # past its check of the stop, the game is about to be stored
                stopped.append(True)
                studies.storage.transaction = real
                studies.close()  # the server stops: it releases the leases first
            return real(*args, **kw)

        studies.storage.transaction = stop_then_store
        try:
            studies._finished(sid, task, done)
        finally:
            studies.storage.transaction = real
        assert stopped
        with app.state.storage.transaction() as tx:
            row = tx.conn.execute(sa.select(design_studies_table).where(design_studies_table.c.id == sid)).one()
        assert task.key in {d["key"] for d in json.loads(row.results)}  # the game is kept
        assert row.holder is None and row.lease_until == 0.0


def test_a_claim_written_while_the_server_stops_is_given_up(db_url: str) -> None:
    """'A clean stop gives its leases up': when the stop comes while the next game's claim is being
    written (the stop released the leases first), the claim is given up too — else the restarted
    server waited out a dead process's lease (GAME_BUDGET + 60 s) before it played on."""
    app = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(app):
        c = account(app, "designer8")
        sid = c.post("/api/design/nume/studies", json={"variants": TWO, "agent": "level1", "games": 3}).json()["id"]
        studies = app.state.design
        real = studies.storage.transaction
        stopping: list[bool] = []

        def stop_then_claim(*args: Any, **kw: Any) -> Any:
            if kw.get("write") and not stopping:  # past its check of the stop, the claim is about to be written
                stopping.append(True)
                studies.storage.transaction = real
                studies.close()  # the server stops: it releases the leases first
            return real(*args, **kw)

        with studies._lock:
            studies._inflight.pop(sid, None)  # as if its game had just finished
        studies.storage.transaction = stop_then_claim
        try:
            studies._next(sid)
        finally:
            studies.storage.transaction = real
        assert stopping
        with app.state.storage.transaction() as tx:
            row = tx.conn.execute(sa.select(design_studies_table).where(design_studies_table.c.id == sid)).one()
        assert row.holder is None and row.lease_until == 0.0
