"""The seek pool ("Play now"): seeks, pairing waves by rating closeness, caps, the AI offer."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.accounts.store import AccountStore
from tessera.server.accounts.tables import ratings_table, users_table
from tessera.server.http.app import create_app
from tessera.server.seeks.matching import BASE_GAP, GAP_PER_SECOND, Seek, ai_level_for, allowed_gap, pair_up
from tessera.server.seeks.pool import MAX_SEEKS_PER_CLIENT, STALE_SECONDS, SeekPool, paired_since
from tessera.server.seeks.tables import seeks_table
from tests.server.helpers import view

SITE = {"Origin": "http://testserver"}
PASSWORD = "correct horse battery"
NIBBLE_BLITZ = {"game": "nibble", "clock": {"initial": 180, "increment": 2}}


@pytest.fixture
def app(db_url: str) -> Iterator[FastAPI]:
    """The app, started, with its own waves out of the way (each test runs its waves itself)."""
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    a.state.seeks.wave_seconds = 3600.0
    with TestClient(a):
        yield a


def pool(app: FastAPI) -> SeekPool:
    p: SeekPool = app.state.seeks
    return p


@pytest.fixture
def guest(app: FastAPI) -> Callable[[str], TestClient]:
    """A guest's browser at an address of its own."""

    def make(address: str) -> TestClient:
        return TestClient(app, headers=SITE, client=(address, 50000))

    return make


@pytest.fixture
def user(app: FastAPI) -> Callable[[str], TestClient]:
    """A browser logged in to a new account of that name."""

    def make(name: str) -> TestClient:
        b = TestClient(app, headers=SITE)
        r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        return b

    return make


def seek(b: TestClient, **body: Any) -> dict[str, Any]:
    r = b.post("/api/seeks", json={**NIBBLE_BLITZ, **body})
    assert r.status_code == 201, r.text
    return r.json()


def wait(b: TestClient, s: dict[str, Any], timeout: float = 0.0) -> dict[str, Any]:
    r = b.post(f"/api/seeks/{s['id']}/wait", headers={"X-Seek-Secret": s["secret"]}, json={"timeout": timeout})
    assert r.status_code == 200, r.text
    return r.json()


def set_rating(app: FastAPI, name: str, rating: float, pool_name: str = "nibble") -> None:
    with app.state.storage.transaction(write=True) as tx:
        uid = tx.conn.execute(sa.select(users_table.c.id).where(users_table.c.username_key == name.lower())).scalar()
        tx.conn.execute(
            ratings_table.insert().values(
                user_id=uid, pool=pool_name, rating=rating, rd=60.0, vol=0.06, games=30, updated_at=time.time()
            )
        )


def fake(sid: str, rating: float, created: float, *, client: str | None = None, kind: str = "k") -> Seek:
    return Seek(sid, None, client or sid, "nibble", "nibble", False, {}, kind, rating, 60.0, "open", created, created)


# -- the pairing rule -------------------------------------------------------------------------


def test_pairs_go_by_rating_closeness() -> None:
    """'Paired in waves every few seconds by rating closeness'."""
    seeks = [fake("a", 1500, 0), fake("far", 1590, 1), fake("near", 1520, 2), fake("d", 1600, 3)]
    assert [(x.id, y.id) for x, y in pair_up(seeks, 5)] == [("a", "near"), ("far", "d")]


def test_the_allowed_gap_widens_the_longer_a_player_waits() -> None:
    """'allowed gap widening the longer a player waits (as lichess's pool does)'."""
    assert allowed_gap(0) == BASE_GAP and allowed_gap(10) == BASE_GAP + 10 * GAP_PER_SECOND
    seeks = [fake("a", 1500, 0), fake("b", 1800, 0)]
    assert pair_up(seeks, 5) == []  # 300 apart: too far for a short wait
    assert [(x.id, y.id) for x, y in pair_up(seeks, 25)] == [("a", "b")]


def test_the_newer_seek_gap_also_bounds_the_pair() -> None:
    """A seek made just now is not paired far away because an old seek would accept it."""
    assert pair_up([fake("old", 1500, 0), fake("new", 1800, 99)], 100) == []


def test_a_client_is_never_paired_with_itself_nor_across_kinds() -> None:
    assert pair_up([fake("a", 1500, 0, client="me"), fake("b", 1500, 0, client="me")], 1) == []
    assert pair_up([fake("a", 1500, 0, kind="x"), fake("b", 1500, 0, kind="y")], 1) == []


def test_the_ai_offered_is_the_level_closest_in_rating() -> None:
    """'offered the AI at about their rating'."""
    levels = {1: 800.0, 2: 1100.0, 3: 1400.0, 4: 1700.0, 5: 2000.0}
    assert ai_level_for(levels, 1500) == 3 and ai_level_for(levels, 1900) == 5 and ai_level_for(levels, 100) == 1


# -- seeking and being paired ----------------------------------------------------------------


def test_two_accounts_seeking_the_same_game_are_paired_and_both_told(app: FastAPI, user: Any) -> None:
    """'A pairing creates the game (seats bound to the accounts) and tells both clients at once'."""
    alice, bob = user("Alice"), user("Bob")
    set_rating(app, "Alice", 1600)
    set_rating(app, "Bob", 1650)
    a, b = seek(alice, rated=True), seek(bob, rated=True)
    assert a["status"] == "open" and a["rating"] == 1600 and a["rated"] is True
    assert {s["id"] for s in alice.get("/api/seeks").json()["seeks"]} == {a["id"], b["id"]}
    made = pool(app).wave()
    assert len(made) == 1
    wa, wb = wait(alice, a), wait(bob, b)
    assert wa["status"] == wb["status"] == "paired" and wa["game_id"] == wb["game_id"] == made[0]
    assert {wa["seat"], wb["seat"]} == {0, 1}
    assert wa["link"] == f"/g/{made[0]}#seat={wa['seat']}&t={wa['token']}"
    v = view(alice, made[0], wa["token"])
    assert v["status"] == "active" and v["you"] == wa["seat"] and v["clock"]["initial"] == 180
    assert all(s["claimed"] for s in v["seats"]), "both seats are taken: the clocks start"
    accounts = alice.get(f"/api/games/{made[0]}/accounts").json()
    assert accounts["rated"] is True
    assert alice.get("/api/seeks").json()["seeks"] == [], "paired seeks no longer stand"
    assert [p["game_id"] for p in paired_since(app.state.storage, users(app)["alice"], 0)] == made


def users(app: FastAPI) -> dict[str, str]:
    with app.state.storage.transaction() as tx:
        return {k: i for i, k in tx.conn.execute(sa.select(users_table.c.id, users_table.c.username_key)).all()}


def test_a_wait_is_answered_at_once_when_the_pairing_happens(app: FastAPI, guest: Any) -> None:
    """A long-poll held open on the seek returns as soon as the wave pairs it, with the seat."""
    import threading

    g1, g2 = guest("10.0.0.1"), guest("10.0.0.2")
    a, b = seek(g1), seek(g2)
    answer: list[dict[str, Any]] = []
    waiter = threading.Thread(target=lambda: answer.append(wait(g1, a, timeout=20)))
    waiter.start()
    while not pool(app)._wakes:  # the wait is held open
        time.sleep(0.01)
    pool(app).wave()
    waiter.join()
    assert answer[0]["status"] == "paired" and answer[0]["token"]
    assert wait(g2, b)["game_id"] == answer[0]["game_id"]


def test_guests_are_paired_in_casual_games_only(app: FastAPI, guest: Any) -> None:
    """'guests only in casual games (a guest asking rated gets a 4xx saying why)'."""
    g = guest("10.0.0.3")
    r = g.post("/api/seeks", json={**NIBBLE_BLITZ, "rated": True})
    assert r.status_code == 403 and "rated games need an account" in r.json()["detail"]
    assert g.get("/api/seeks").json()["seeks"] == []


def test_bots_may_not_seek(app: FastAPI) -> None:
    """'bots may not seek'."""
    store = AccountStore(app.state.storage)
    bot = store.ai_user(3)
    b = TestClient(app, headers=SITE, cookies={"tessera_session": store.new_session(bot)})
    r = b.post("/api/seeks", json=NIBBLE_BLITZ)
    assert r.status_code == 403 and "bot accounts may not seek" in r.json()["detail"]


def test_a_correspondence_seek_makes_a_correspondence_game(app: FastAPI, guest: Any) -> None:
    a = seek(guest("10.0.0.4"), clock={"days": 3})
    seek(guest("10.0.0.5"), clock={"days": 3})
    seek(guest("10.0.0.6"), clock={"days": 5})  # another time control: not paired with those
    assert len(pool(app).wave()) == 1
    w = wait(guest("10.0.0.4"), a)
    clock = view(guest("10.0.0.4"), w["game_id"], w["token"])["clock"]
    assert clock["kind"] == "correspondence" and clock["days"] == 3 and any(clock["deadline"])


@pytest.mark.parametrize(
    "body, status, detail",
    [
        ({"game": "chess", "clock": {"initial": 60}}, 422, "game: unknown game"),
        ({"game": "nymbat(players=4)", "clock": {"initial": 60}}, 422, "pairs two-player games"),
        ({"game": "nibble", "clock": {"days": 4}}, 422, "days per move must be one of"),
        ({"game": "nibble", "clock": {"initial": -5}}, 422, "time per game must be"),
        ({"game": "nibble"}, 422, "a seek needs a time control"),
        ({"game": "nibble", "clock": {"initial": 60}, "colour": "white"}, 422, "colour"),
    ],
)
def test_bad_seeks_are_refused_with_the_reason(
    app: FastAPI, guest: Any, body: dict[str, Any], status: int, detail: str
) -> None:
    g = guest("10.0.0.7")
    r = g.post("/api/seeks", json=body)
    assert r.status_code == status and detail in r.json()["detail"], r.text
    assert g.get("/api/seeks").json()["seeks"] == []


def test_one_standing_seek_per_client_per_game_and_a_cap_in_all(app: FastAPI, user: Any) -> None:
    """'one standing seek per client per game kind'; at most a few at a time."""
    carol = user("Carol")
    first = seek(carol)
    r = carol.post("/api/seeks", json={"game": "nibble", "clock": {"days": 1}})
    assert r.status_code == 409 and "already have a standing seek for nibble" in r.json()["detail"]
    for game in ("nume", "ikabegama")[: MAX_SEEKS_PER_CLIENT - 1]:
        seek(carol, game=game)
    r = carol.post("/api/seeks", json={**NIBBLE_BLITZ, "game": "nelaxtam"})
    assert r.status_code == 429 and f"at most {MAX_SEEKS_PER_CLIENT} standing seeks" in r.json()["detail"]
    assert carol.delete(f"/api/seeks/{first['id']}").status_code == 200  # the account's own, without the secret
    seek(carol)


def test_seeking_is_rate_limited(app: FastAPI, user: Any) -> None:
    dave = user("Dave")
    codes = []
    for _ in range(10):
        r = dave.post("/api/seeks", json=NIBBLE_BLITZ)
        codes.append(r.status_code)
        if r.status_code == 201:
            assert dave.delete(f"/api/seeks/{r.json()['id']}").status_code == 200
    assert 429 in codes
    r = dave.post("/api/seeks", json=NIBBLE_BLITZ)
    assert r.status_code == 429 and "too many seeks" in r.json()["detail"] and int(r.headers["Retry-After"]) >= 1


def test_only_the_seeker_can_cancel_or_see_the_pairing(app: FastAPI, guest: Any, user: Any) -> None:
    """'deleting someone else's seek → 4xx with a message'."""
    mine, other = guest("10.0.0.8"), guest("10.0.0.9")
    s = seek(mine)
    for b, headers in ((other, {}), (other, {"X-Seek-Secret": "not-the-secret"}), (user("Eve"), {})):
        r = b.delete(f"/api/seeks/{s['id']}", headers=headers)
        assert r.status_code == 403 and "this seek is not yours" in r.json()["detail"]
        r = b.post(f"/api/seeks/{s['id']}/wait", headers=headers, json={"timeout": 0})
        assert r.status_code == 403
    assert other.delete("/api/seeks/nope", headers={"X-Seek-Secret": "x"}).status_code == 404
    listed = mine.get("/api/seeks").json()["seeks"]
    assert [x["id"] for x in listed] == [s["id"]] and listed[0]["mine"] is True and "secret" not in listed[0]
    assert other.get("/api/seeks").json()["seeks"][0]["mine"] is False
    assert mine.delete(f"/api/seeks/{s['id']}", headers={"X-Seek-Secret": s["secret"]}).json() == {"ok": True}
    assert mine.get("/api/seeks").json()["seeks"] == []
    r = mine.delete(f"/api/seeks/{s['id']}", headers={"X-Seek-Secret": s["secret"]})
    assert r.status_code == 409 and "cancelled" in r.json()["detail"]


def test_a_cancelled_seek_is_not_paired(app: FastAPI, guest: Any) -> None:
    g1, g2 = guest("10.0.1.1"), guest("10.0.1.2")
    a = seek(g1)
    seek(g2)
    g1.delete(f"/api/seeks/{a['id']}", headers={"X-Seek-Secret": a["secret"]})
    assert pool(app).wave() == []


def test_a_seek_nobody_waits_on_lapses(app: FastAPI, guest: Any) -> None:
    """A closed tab's seek is not paired: a seek not heard from for STALE_SECONDS lapses."""
    g1, g2 = guest("10.0.1.3"), guest("10.0.1.4")
    a = seek(g1)
    seek(g2)
    assert pool(app).wave(now=time.time() + STALE_SECONDS + 5) == []
    assert wait(g1, a)["status"] == "expired"


def test_after_a_while_the_ai_is_offered_at_about_the_players_rating(app: FastAPI, user: Any) -> None:
    """'After a set time with no opponent, the player is offered the AI at about their rating.'"""
    frank = user("Frank")
    set_rating(app, "Frank", 1750)
    s = seek(frank, rated=True)
    assert s["ai_offer"] is None
    r = frank.post(f"/api/seeks/{s['id']}/ai", headers={"X-Seek-Secret": s["secret"]})
    assert r.status_code == 409 and "the AI is offered after" in r.json()["detail"]
    pool(app).ai_after = 0.0
    offer = wait(frank, s)["ai_offer"]
    # the level whose starting rating (measured, tessera/games/nibble/levels.json) is nearest Frank's
    from tessera.server.ai.ratings import level_ratings

    ratings = {lv: round(r.rating) for lv, r in level_ratings("nibble").items()}
    want = min(ratings, key=lambda lv: (abs(ratings[lv] - 1750), lv))
    assert want >= 3 and offer == {"level": want, "rating": ratings[want], "account": f"ai-level{want}"}
    r = frank.post(f"/api/seeks/{s['id']}/ai", headers={"X-Seek-Secret": s["secret"]})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["status"] == "ai" and got["game_id"]
    v = view(frank, got["game_id"], got["token"])
    assert v["you"] == got["seat"] and v["seats"][1 - got["seat"]]["kind"] == "ai"
    accounts = frank.get(f"/api/games/{got['game_id']}/accounts").json()
    assert accounts["rated"] is True
    with app.state.storage.transaction() as tx:
        status = tx.conn.execute(sa.select(seeks_table.c.status).where(seeks_table.c.id == s["id"])).scalar()
    assert status == "ai"


def test_one_pairer_at_a_time_across_processes(app: FastAPI, guest: Any) -> None:
    """'one pairer at a time': while another process holds the pairer's advisory lock (PostgreSQL),
    this process's wave pairs nothing; once it is released the wave pairs."""
    from tessera.server.seeks.pool import PAIRER_LOCK

    storage = app.state.storage
    if storage.engine.dialect.name != "postgresql":
        pytest.skip("the advisory lock is PostgreSQL's")
    seek(guest("10.0.2.1"))
    seek(guest("10.0.2.2"))
    other = sa.create_engine(storage.url)
    with other.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        assert conn.execute(sa.select(sa.func.pg_try_advisory_lock(PAIRER_LOCK))).scalar()
        assert pool(app).wave() == []
        assert len(guest("10.0.2.3").get("/api/seeks").json()["seeks"]) == 2
        conn.execute(sa.select(sa.func.pg_advisory_unlock(PAIRER_LOCK)))
    other.dispose()
    assert len(pool(app).wave()) == 1


def test_a_seek_left_half_paired_by_a_stopped_process_stands_again(app: FastAPI, guest: Any) -> None:
    """A seek left 'pairing' (by a version that paired in several transactions and stopped between
    them) stands again: a later wave puts it back and pairs it."""
    from tessera.server.seeks.pool import STUCK_SECONDS

    a, _ = seek(guest("10.0.3.1")), seek(guest("10.0.3.2"))
    with app.state.storage.transaction(write=True) as tx:
        tx.conn.execute(seeks_table.update().values(status="pairing", updated_at=time.time()))
    assert pool(app).wave() == [], "a pairing under way is left alone"
    made = pool(app).wave(now=time.time() + STUCK_SECONDS + 1)
    assert len(made) == 1 and wait(guest("10.0.3.1"), a)["game_id"] == made[0]


def test_a_seeker_who_keeps_waiting_keeps_his_seek(app: FastAPI, guest: Any) -> None:
    """Each wait says the seeker is still there: an old seek still waited on does not lapse."""
    g1, g2 = guest("10.0.4.1"), guest("10.0.4.2")
    kept, left = seek(g1, game="nume"), seek(g2, game="nume", clock={"days": 1})
    with app.state.storage.transaction(write=True) as tx:
        tx.conn.execute(seeks_table.update().values(seen_at=time.time() - STALE_SECONDS + 5))
    assert wait(g1, kept)["status"] == "open"
    pool(app).wave(now=time.time() + 10)
    assert wait(g1, kept)["status"] == "open"
    assert wait(g2, left)["status"] == "expired"


def test_a_cross_site_seek_with_the_session_cookie_is_refused(app: FastAPI, user: Any) -> None:
    """A cookie-authenticated write from another site is refused (CSRF), and nothing is stored."""
    gina = user("Gina")
    r = gina.post("/api/seeks", json=NIBBLE_BLITZ, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    assert gina.get("/api/seeks").json()["seeks"] == []
