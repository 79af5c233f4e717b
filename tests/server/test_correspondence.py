"""Correspondence time controls: days per move, a deadline per move, a loss on time, an abort
without a first move, deadlines that survive a restart — all on a fake clock (no sleeping for days)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tessera.server.http.app import create_app
from tessera.server.match import clocks, endings, moves, seats, tables, undo, views
from tessera.server.match.clocks import (
    CORRESPONDENCE_DAYS,
    DAY,
    clock_from,
    clock_public,
    clock_start,
    clock_stop,
    clocks_due,
    correspondence_new,
)
from tessera.server.store.storage import Storage
from tests.server.helpers import create, move, view

PATCHED = (clocks, endings, moves, seats, undo, views)


class FakeTime:
    """``time`` as the match layer sees it, with a wall clock that only moves when told."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    """The wall clock of the match layer (moves, flags, views, seats), moved by the test."""
    fake = FakeTime()
    for module in PATCHED:
        monkeypatch.setattr(module, "time", fake)
    return fake


@pytest.fixture
def app_client(db_url: str, fake_time: FakeTime) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)) as c:
        yield c


def days_game(client: TestClient, days: int = 2) -> dict[str, Any]:
    return create(client, "nume", mode="hotseat", clock={"days": days})


# -- the clock itself ------------------------------------------------------------------------


def test_each_move_has_the_whole_days_again() -> None:
    """'days per move': a move made with half a day left sets the mover's time back to the whole days."""
    clock = correspondence_new(3, 2)
    clock["moved"] = [True, True]
    clock_start(clock, [0], 1000.0)
    clock_stop(clock, 0, 1000.0 + 2.5 * DAY, turn_done=True)
    assert clock["remaining"][0] == 3 * DAY
    clock_start(clock, [1], 1000.0 + 2.5 * DAY)
    public = clock_public(clock, 1000.0 + 2.5 * DAY)
    assert public is not None
    assert public["kind"] == "correspondence" and public["days"] == 3
    assert public["deadline"] == [None, 1000.0 + 5.5 * DAY]


@pytest.mark.parametrize("days", CORRESPONDENCE_DAYS)
def test_the_offered_days_per_move_are_accepted(days: int) -> None:
    """'days per move (1, 2, 3, 5, 7, 14)'."""
    clock = clock_from({"days": days}, 2)
    assert clock is not None and clock["initial"] == days * DAY and clock["increment"] == 0


@pytest.mark.parametrize("settings", [{"days": 4}, {"days": 0}, {"days": "2"}, {"days": True}, {"days": 30}])
def test_other_days_per_move_are_refused_with_the_reason(settings: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="days per move must be one of 1, 2, 3, 5, 7, 14"):
        clock_from(settings, 2)


# -- through the API -------------------------------------------------------------------------


def test_the_view_holds_the_deadline_of_the_player_to_move(app_client: TestClient, fake_time: FakeTime) -> None:
    """'the deadline of the player to move is in the view (as an absolute UTC time)'."""
    g = days_game(app_client, 2)
    v = view(app_client, g["id"])
    assert v["clock"]["kind"] == "correspondence" and v["clock"]["days"] == 2
    assert v["clock"]["deadline"] == [pytest.approx(fake_time.now + 2 * DAY, abs=1), None]
    fake_time.advance(DAY)
    v = move(app_client, g["id"], g["tokens"]["0"], "a1=1", 0).json()
    assert v["clock"]["deadline"] == [None, pytest.approx(fake_time.now + 2 * DAY, abs=1)]


def test_a_player_who_misses_the_deadline_loses_on_time(app_client: TestClient, fake_time: FakeTime) -> None:
    """'a player who misses it loses on time'."""
    g = days_game(app_client, 1)
    t = g["tokens"]
    assert move(app_client, g["id"], t["0"], "a1=1", 0).status_code == 200
    fake_time.advance(0.9 * DAY)
    assert move(app_client, g["id"], t["1"], "a2=1", 1).status_code == 200
    fake_time.advance(0.9 * DAY)  # a day per move: 1.8 days in all is no flag
    v = move(app_client, g["id"], t["0"], "c1=1", 2)
    assert v.status_code == 200, v.text
    assert v.json()["status"] == "active"
    fake_time.advance(DAY + 1)
    r = move(app_client, g["id"], t["1"], "c2=1", 3)
    assert r.status_code == 409
    v = view(app_client, g["id"])
    assert v["status"] == "finished" and v["result"]["reason"] == "flag" and v["result"]["winner"] == 0


def test_a_game_with_no_first_move_is_aborted(app_client: TestClient, fake_time: FakeTime) -> None:
    """'a game with no first move is aborted as with real-time clocks' (after the days of a move)."""
    g = days_game(app_client, 3)
    fake_time.advance(2.9 * DAY)
    assert view(app_client, g["id"])["status"] == "active"
    fake_time.advance(0.2 * DAY)
    v = view(app_client, g["id"])
    assert v["status"] == "finished" and v["result"]["reason"] == "abort" and v["result"]["returns"] is None


@pytest.mark.parametrize(
    "clock, detail",
    [
        ({"days": 4}, "days per move must be one of 1, 2, 3, 5, 7, 14"),
        ({"days": 2, "initial": 60}, "not both"),
        ({"increment": 2}, "time per game must be"),
    ],
)
def test_a_bad_correspondence_clock_is_refused(app_client: TestClient, clock: dict[str, Any], detail: str) -> None:
    before = app_client.get("/api/games", params={"status": "all"}).json()["games"]
    r = app_client.post("/api/games", json={"game": "nume", "clock": clock})
    assert r.status_code == 422 and detail in r.json()["detail"]
    assert app_client.get("/api/games", params={"status": "all"}).json()["games"] == before


def test_the_lobby_shows_days_per_move(app_client: TestClient) -> None:
    g = create(app_client, "nume", mode="online", public=True, clock={"days": 7})
    listed = {x["id"]: x for x in app_client.get("/api/games").json()["games"]}
    assert listed[g["id"]]["clock"] == {"initial": 7 * DAY, "increment": 0.0, "kind": "correspondence", "days": 7}


# -- deadlines days away survive a restart ----------------------------------------------------


def test_clocks_due_reads_deadlines_from_storage(app_client: TestClient, db_url: str, fake_time: FakeTime) -> None:
    """'the clock timers handle days-long deadlines (deadlines come from storage)': a game is due
    for a timer when its deadline falls within the next sweep."""
    g = days_game(app_client, 1)
    storage = Storage(db_url)
    try:
        assert g["id"] not in clocks_due(storage, 60, fake_time.now)
        assert g["id"] in clocks_due(storage, 60, fake_time.now + DAY - 30)
        assert g["id"] in clocks_due(storage, 60, fake_time.now + 2 * DAY)
    finally:
        storage.dispose()


def test_a_missed_deadline_is_flagged_after_a_restart_without_anyone_looking(db_url: str, fake_time: FakeTime) -> None:
    """A deadline passes while the server is down: the restarted server flags it by itself (its sweep
    reads storage at start-up), with no one opening the game."""
    with TestClient(create_app(db_url, ai_mode="thread", warm=False)) as first:
        g = days_game(first, 1)
        assert move(first, g["id"], g["tokens"]["0"], "a1=1", 0).status_code == 200
        assert move(first, g["id"], g["tokens"]["1"], "a2=1", 1).status_code == 200
    fake_time.advance(DAY + 5)
    storage = Storage(db_url)
    with TestClient(create_app(db_url, ai_mode="thread", warm=False)):
        status = None
        for _ in range(200):  # the sweep runs at start-up; wait for its flag, looking only at storage
            with storage.transaction() as tx:
                row = tables.get_game(tx, g["id"])
            assert row is not None
            status = row.status
            if status == "finished":
                break
            time.sleep(0.05)
        assert status == "finished" and row.result is not None and row.result["reason"] == "flag"
        assert row.result["winner"] == 1
    storage.dispose()


# -- challenges --------------------------------------------------------------------------------


def test_a_challenge_offers_days_per_move(db_url: str, fake_time: FakeTime) -> None:
    """'Offered in the create-game form and in challenges (the challenge clock field)'."""
    app = create_app(db_url, ai_mode="thread", warm=False)
    with TestClient(app):
        site = {"Origin": "http://testserver"}
        alice, bob = TestClient(app, headers=site), TestClient(app, headers=site)
        for b, name in ((alice, "Alice"), (bob, "Bob")):
            assert b.post("/api/account/signup", json={"username": name, "password": "pw-12345678"}).status_code == 201
        bad = alice.post("/api/challenges", json={"to": "Bob", "game": "nibble", "clock": {"days": 6}})
        assert bad.status_code == 422 and "days per move" in bad.json()["detail"]
        r = alice.post("/api/challenges", json={"to": "Bob", "game": "nibble", "clock": {"days": 3}, "seat": 0})
        assert r.status_code == 201, r.text
        assert r.json()["clock"] == {"days": 3}
        acc = bob.post(f"/api/challenges/{r.json()['id']}/accept")
        assert acc.status_code == 200, acc.text
        gid = acc.json()["game_id"]
        mine = alice.get(f"/api/account/games/{gid}/seat").json()
        view(alice, gid, mine["token"])  # both players arrive: the clock starts
        v = view(bob, gid, acc.json()["token"])
        assert v["clock"]["kind"] == "correspondence" and v["clock"]["days"] == 3
        assert v["clock"]["deadline"][0] == pytest.approx(fake_time.now + 3 * DAY, abs=1)


def test_a_correspondence_game_keeps_its_clock_through_its_record(app_client: TestClient) -> None:
    """An unfinished game's record names its days per move; imported, it is a correspondence game again
    (not a real-time clock of days, which would be refused)."""
    g = days_game(app_client, 7)
    assert move(app_client, g["id"], g["tokens"]["0"], "a1=1", 0).status_code == 200
    record = app_client.get(f"/api/games/{g['id']}/record").json()
    assert record["clock"] == {"initial": 7 * DAY, "increment": 0.0, "kind": "correspondence", "days": 7}
    r = app_client.post("/api/records", json=record)
    assert r.status_code == 201, r.text
    clock = view(app_client, r.json()["id"])["clock"]
    assert clock["kind"] == "correspondence" and clock["days"] == 7 and clock["remaining"] == [7 * DAY, 7 * DAY]
