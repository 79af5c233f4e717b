"""Faults the server must survive (issue 29): a search that never ends, storage that turns read-only
or full, and a PostgreSQL restart under a running server.

- 'an AI search or analysis in the worker pool that runs past its budget (plus grace) is
  terminated (the worker process killed and replaced), the client told, the pool healthy afterwards'
- 'storage that is unavailable, full or read-only answers 503 JSON with Retry-After (never a plain
  500)'; 'nothing acknowledged is lost'; the server recovers by itself when storage comes back.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from tessera.server.ai.scheduler import AI, ANALYSIS, FairPool, SearchTimeout


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_search_past_its_budget_is_stopped_its_process_replaced_and_the_pool_goes_on() -> None:
    """'An AI search … that runs past its budget (plus grace) is terminated (the worker process killed
    and replaced), the client told, the pool healthy afterwards.'"""
    pool = FairPool(mode="process", size=2, per_client=1, grace=0.5)
    try:
        before = {pool.submit(f"probe{i}", AI, os.getpid).result(60) for i in range(4)}
        stuck = pool.submit("flooder", ANALYSIS, time.sleep, 3600, budget=0.5)
        time.sleep(0.3)  # the stuck search holds one process; a bystander's search takes the other
        bystander = pool.submit("bystander", AI, time.sleep, 2.0)
        with pytest.raises(SearchTimeout, match="ran past its time"):
            stuck.result(60)
        assert pool.stopped == 1
        assert bystander.result(60) is None, "the bystander's search, running when the processes were killed, ran again"
        after = {pool.submit(f"again{i}", AI, os.getpid).result(60) for i in range(4)}
        assert not after & before, "the worker processes were replaced"
        assert not any(alive(pid) for pid in before), "the killed worker processes are gone"
        assert pool.running() == 0 and pool.queued() == 0
        assert pool.submit("flooder", ANALYSIS, sum, [1, 2, 3]).result(60) == 6, "the stopped client may search again"
    finally:
        pool.close()


def test_a_search_within_its_budget_and_grace_is_never_stopped() -> None:
    """Only searches past budget + grace are stopped: one that finishes in time keeps its result."""
    pool = FairPool(mode="process", size=2, grace=1.0)
    try:
        assert pool.submit("c", AI, time.sleep, 0.6, budget=0.5).result(60) is None
        assert pool.stopped == 0
    finally:
        pool.close()


# -- storage that turns read-only or full (SQLite itself refuses the writes) ------------------------


@contextlib.contextmanager
def sqlite_refusing(app: Any, pragma: str) -> Iterator[None]:
    """While inside, every connection the app's storage takes from its pool runs ``pragma`` first, so
    SQLite itself refuses writes (``query_only``: "attempt to write a readonly database";
    ``max_page_count`` at the file's size: "database or disk is full"); afterwards connections are
    set back as they are taken — the server is not told either way."""
    engine = app.state.storage.engine
    state = {"on": True}

    def checkout(dbapi: Any, record: Any, proxy: Any) -> None:
        cur = dbapi.cursor()
        try:
            if state["on"]:
                cur.execute(pragma)
            else:
                cur.execute("PRAGMA query_only = OFF")
                cur.execute("PRAGMA max_page_count = 1073741823")
        finally:
            cur.close()

    sa.event.listen(engine, "checkout", checkout)
    storage = app.state.storage
    fast = storage._now_connection() if storage.writes_now else None  # the move's own connection, outside the pool
    if fast is not None:
        fast.execute(pragma)
    try:
        yield
    finally:
        state["on"] = False
        if fast is not None:
            fast.execute("PRAGMA query_only = OFF")
            fast.execute("PRAGMA max_page_count = 1073741823")
    # the listener stays, setting connections back (a pooled connection may still carry the pragma)


def play(client: TestClient, game: dict[str, Any], n: int) -> Any:
    """A legal move of the hot-seat game's seat to move, sent as move number ``n``."""
    seat = client.get(f"/api/games/{game['id']}").json()["to_move"]
    token = game["tokens"][str(seat)]
    view = client.get(f"/api/games/{game['id']}", headers={"X-Seat-Token": token}).json()
    a = view["render"]["actions"][0]
    move = a["move"] if "move" in a else a["template"].replace("{n}", "1")
    return client.post(f"/api/games/{game['id']}/moves", json={"token": token, "move": move, "expected": n})


@pytest.mark.parametrize(
    ("pragma", "words"),
    [("PRAGMA query_only = ON", "read-only"), (None, "full")],
    ids=["read-only", "full"],
)
def test_sqlite_read_only_or_full_answers_503_and_the_server_recovers_by_itself(
    tmp_path: Path, pragma: str | None, words: str
) -> None:
    """'storage that is unavailable, full or read-only answers 503 JSON with Retry-After (never a
    plain 500)', 'nothing acknowledged is lost', and 'the server recovers by itself when storage
    comes back': moves refused by SQLite itself (read-only; full: no page may be added) are 503, a
    refused move leaves the game as it was, and once SQLite accepts writes the same move is taken."""
    from fastapi.testclient import TestClient

    from tessera.server.http.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'f.db'}", ai_mode="thread", warm=False, rates={})
    with TestClient(app) as client:
        game = client.post("/api/games", json={"game": "nume", "params": {"size": 3}}).json()
        acknowledged = 0
        while acknowledged < 4:
            assert play(client, game, acknowledged).status_code == 200
            acknowledged += 1
        if pragma is None:  # full: the file may not grow by a page (a game's first rows fill new pages)
            with app.state.storage.transaction() as tx:
                pages = tx.conn.exec_driver_sql("PRAGMA page_count").scalar()
            pragma = f"PRAGMA max_page_count = {pages}"
        made: list[str] = []
        with sqlite_refusing(app, pragma):
            for _ in range(500):  # full: games are created until one needs a new page of the file
                r = client.post("/api/games", json={"game": "nume", "params": {"size": 3}})
                if r.status_code != 201:
                    break
                made.append(r.json()["id"])
            assert r.status_code == 503 and r.headers["content-type"] == "application/json", r.text
            assert words in r.json()["detail"] and int(r.headers["retry-after"]) >= 1
            if words == "read-only":  # (a move is a few rows in pages already there: only read-only refuses it)
                assert not made
                r = play(client, game, acknowledged)
                assert r.status_code == 503 and words in r.json()["detail"], r.text
                view = client.get(f"/api/games/{game['id']}").json()
                assert view["move_number"] == acknowledged, "a refused move changed nothing"
        assert play(client, game, acknowledged).status_code == 200, "the server recovered by itself"
        assert client.post("/api/games", json={"game": "nume", "params": {"size": 3}}).status_code == 201
    again = create_app(f"sqlite:///{tmp_path / 'f.db'}", ai_mode="thread", warm=False)
    with TestClient(again) as c:
        assert c.get(f"/api/games/{game['id']}").json()["move_number"] == acknowledged + 1, "nothing acknowledged lost"
        assert all(c.get(f"/api/games/{gid}").status_code == 200 for gid in made)


# -- PostgreSQL restarted under running servers ------------------------------------------------------


def http_move(base: str, game: dict[str, Any], n: int) -> httpx.Response:
    """A legal move of the seat to move in a hot-seat game, sent as move number ``n`` (any answer)."""
    seat = httpx.get(f"{base}/api/games/{game['id']}", timeout=10).json()["to_move"]
    token = game["tokens"][str(seat)]
    view = httpx.get(f"{base}/api/games/{game['id']}", headers={"X-Seat-Token": token}, timeout=10).json()
    a = view["render"]["actions"][0]
    move = a["move"] if "move" in a else a["template"].replace("{n}", "1")
    return httpx.post(
        f"{base}/api/games/{game['id']}/moves", json={"token": token, "move": move, "expected": n}, timeout=30
    )


@pytest.mark.postgres
def test_a_postgresql_restart_under_two_servers_answers_503_loses_nothing_and_both_recover(db_url: str) -> None:
    """'PostgreSQL restarted under a running server: moves get 503 + Retry-After with a clear message,
    nothing acknowledged is lost, and the server recovers by itself (moves accepted again, the change
    listener resyncs)': while the database is down every move is refused 503 JSON; afterwards moves
    through either process are accepted and a viewer on the other process sees them."""
    from tests.server import pg
    from tests.server.test_processes import serve

    if not db_url.startswith("postgresql"):
        pytest.skip("a PostgreSQL restart")
    if os.environ.get("TESSERA_TEST_POSTGRES_URL"):
        pytest.skip("the cluster was not started by the tests: it is not restarted")
    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        game = httpx.post(a + "/api/games", json={"game": "nume", "params": {"size": 3}}).json()
        acknowledged = 0
        for base in (a, b, a):
            assert http_move(base, game, acknowledged).status_code == 200
            acknowledged += 1
        ctl = pg.CLUSTERS[int(sa.engine.make_url(db_url).port or 5432)]
        token = game["tokens"][str(httpx.get(f"{a}/api/games/{game['id']}").json()["to_move"])]
        view = httpx.get(f"{a}/api/games/{game['id']}", headers={"X-Seat-Token": token}).json()
        act = view["render"]["actions"][0]
        move = act["move"] if "move" in act else act["template"].replace("{n}", "1")
        ws_url = b.replace("http", "ws") + f"/api/games/{game['id']}/ws"
        with connect(ws_url, open_timeout=10) as viewer:  # a viewer on B, connected through the outage
            assert json.loads(viewer.recv(timeout=10))["type"] == "state"
            ctl("stop")
            try:
                for base in (a, b):
                    r = httpx.post(
                        f"{base}/api/games/{game['id']}/moves",
                        json={"token": token, "move": move, "expected": acknowledged},
                        timeout=60,
                    )
                    assert r.status_code == 503, r.text
                    assert r.headers["content-type"] == "application/json" and int(r.headers["retry-after"]) >= 1
                    assert "storage" in r.json()["detail"]
            finally:
                ctl("start")
            deadline = time.monotonic() + 60
            while True:  # the servers reconnect by themselves: the same move is accepted once the database is back
                r = http_move(a, game, acknowledged)
                if r.status_code == 200:
                    acknowledged += 1
                    break
                assert r.status_code == 503 and time.monotonic() < deadline, r.text
                time.sleep(0.5)
            seen = 0
            while seen < acknowledged:  # B's change listener came back (a resync): its viewer hears of the move
                left = deadline - time.monotonic()
                assert left > 0, f"the viewer on B saw move {seen}, not {acknowledged}"
                msg = json.loads(viewer.recv(timeout=left))
                if msg["type"] == "state":
                    seen = msg["view"]["move_number"]
        for base in (a, b):
            assert httpx.get(f"{base}/api/games/{game['id']}").json()["move_number"] == acknowledged, "nothing lost"


def test_an_ai_seat_whose_search_was_stopped_still_plays_and_says_so(tmp_path: Path) -> None:
    """'… is terminated …, the client told': when the pool stops an AI seat's search, the seat plays
    a random legal move (nothing was planned yet) instead of leaving the game stuck, and its progress
    report says the search was stopped."""
    from concurrent.futures import Future

    from tessera.server.events import Thinking
    from tessera.server.http.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'ai.db'}", ai_mode="thread", warm=False)
    reports: list[Any] = []
    with TestClient(app) as client:
        app.state.service.events.subscribe(lambda e: reports.append(e.info) if isinstance(e, Thinking) else None)

        def stopped(*args: Any, **kwargs: Any) -> Future[Any]:
            fut: Future[Any] = Future()
            fut.set_exception(SearchTimeout("the AI search ran past its time (0.1 s) and was stopped; try again"))
            return fut

        app.state.worker.pool.submit = stopped
        game = client.post("/api/games", json={"game": "nume", "params": {"size": 2}, "mode": "ai", "seat": 0}).json()
        assert play(client, game, 0).status_code == 200
        deadline = time.monotonic() + 30
        while client.get(f"/api/games/{game['id']}").json()["move_number"] < 2:
            assert time.monotonic() < deadline, "the AI seat never played after its search was stopped"
            time.sleep(0.05)
        assert any(r and "stopped" in r for r in reports), reports


def test_an_evaluation_that_was_stopped_is_answered_503_with_the_reason(tmp_path: Path) -> None:
    """'the client told': an analysis evaluation stopped by the pool is a 503 JSON with Retry-After
    saying so, not a 500."""
    from concurrent.futures import Future

    from tessera.server.http.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'an.db'}", ai_mode="thread", warm=False)
    with TestClient(app) as client:

        def stopped(*args: Any, **kwargs: Any) -> Future[Any]:
            fut: Future[Any] = Future()
            fut.set_exception(SearchTimeout("the evaluation ran past its time (1 s) and was stopped; try again"))
            return fut

        app.state.pool.submit = stopped
        r = client.post("/api/analysis/evaluate", json={"game": "nume", "seed": 1, "moves": [], "seconds": 1})
        assert r.status_code == 503 and r.headers["content-type"] == "application/json", r.text
        assert "was stopped" in r.json()["detail"] and int(r.headers["retry-after"]) >= 1
