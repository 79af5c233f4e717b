"""Tournaments through the real server: a small simulated arena and Swiss event played by people and a
bot, the refusals, the live stream, the recurring schedule, a process stopped in the middle of a
pairing, and two processes directing one database (tessera.server.tournaments, docs/tournaments.md)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.server.accounts.store import AccountStore
from tessera.server.bot.routes import EventReader
from tessera.server.bot.store import BotStore
from tessera.server.http.app import create_app
from tessera.server.match.service import MatchService
from tessera.server.match.tables import games_table
from tessera.server.tournaments import store
from tessera.server.tournaments import waves as waves_module
from tessera.server.tournaments.director import Director
from tessera.server.tournaments.waves import STUCK_SECONDS, Waves
from tests.server.helpers import every_seat_moves

pytest.importorskip("caissify_pairings", reason="the server extras are not installed: pip install -e '.[server]'")

SITE = {"Origin": "http://testserver"}
PASSWORD = "correct horse battery"
ARENA = {"kind": "arena", "game": "nume(size=3)", "clock": {"initial": 300, "increment": 2}, "minutes": 30}


@pytest.fixture
def app(db_url: str) -> Iterator[FastAPI]:
    """The app, started, with its own waves out of the way (each test runs the waves itself)."""
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    a.state.tournaments.waves.wave_seconds = 3600.0
    a.state.seeks.wave_seconds = 3600.0
    with TestClient(a):
        yield a


def director(app: FastAPI) -> Director:
    d: Director = app.state.tournaments
    return d


def waves(app: FastAPI) -> Waves:
    return director(app).waves


@pytest.fixture
def user(app: FastAPI) -> Callable[[str], TestClient]:
    """A browser logged in to a new account of that name."""

    def make(name: str) -> TestClient:
        b = TestClient(app, headers=SITE)
        r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        return b

    return make


@pytest.fixture
def bot(app: FastAPI, user: Callable[[str], TestClient]) -> Callable[[str], TestClient]:
    """A bot account (upgraded through the bot API): a client carrying its bot token."""

    def make(name: str) -> TestClient:
        r = user(name).post("/api/account/tokens", json={"scopes": ["bot:play", "challenge"]})
        assert r.status_code == 201, r.text
        headers = {"Authorization": f"Bearer {r.json()['token']}"}
        b = TestClient(app, headers=headers)
        assert b.post("/api/bot/account/upgrade").status_code == 200
        return b

    return make


def look(b: TestClient, tid: str) -> dict[str, Any]:
    r = b.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def no_one_plays_twice(v: dict[str, Any]) -> None:
    playing = [u for p in v["pairings"] if p["status"] in ("playing", "creating") for u in p["players"]]
    assert len(playing) == len(set(playing)), playing


def points(v: dict[str, Any]) -> dict[str, float]:
    return {r["username"]: r["points"] for r in v["standings"]}


def test_a_small_arena_played_by_people_and_a_bot_through_the_server(
    app: FastAPI, user: Callable[[str], TestClient], bot: Callable[[str], TestClient]
) -> None:
    """Five players (one a bot): whoever is free is paired, a bot's game arrives as ``gameStart`` on its
    event stream, a resignation gives the winner 2 points, the next wave pairs the free players again
    without the pair that just met, and at the end the running games are left out and the table kept."""
    people = {n: user(n) for n in ("ann", "bob", "cat", "dan")}
    robo = bot("robo")
    players = {**people, "robo": robo}
    r = people["ann"].post("/api/tournaments", json={**ARENA, "name": "Test arena"})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    assert r.json()["status"] == "created"
    for b in players.values():
        assert b.post(f"/api/tournaments/{tid}/join").status_code == 200
    w = waves(app)
    now = time.time()
    assert w.wave(now)
    v = look(people["ann"], tid)
    assert v["status"] == "started"
    no_one_plays_twice(v)
    assert sum(1 for p in v["pairings"] if p["status"] == "playing") == 2  # five players: one waits
    robo_user = AccountStore(app.state.storage).user("robo")
    assert robo_user is not None
    reader = EventReader(BotStore(AccountStore(app.state.storage)), robo_user)
    starts = [line for line in reader.read() if line["type"] == "gameStart"]
    robo_game = next((p for p in v["pairings"] if "robo" in p["players"] and p["status"] == "playing"), None)
    assert [s["game"]["id"] for s in starts] == ([robo_game["game_id"]] if robo_game else [])

    met: list[frozenset[str]] = []
    for _ in range(3):
        v = look(people["ann"], tid)
        running = [p for p in v["pairings"] if p["status"] == "playing"]
        before = points(v)
        for p in running:
            loser = p["players"][1]
            gid = p["game_id"]
            if loser == "robo":
                every_seat_moves(app, gid)  # a resignation before every seat moved is an abort
                assert robo.post(f"/api/bot/game/{gid}/resign").status_code == 200
            else:
                mine = players[loser].get(f"/api/tournaments/{tid}").json()["me"]["game"]
                assert mine["game_id"] == gid
                every_seat_moves(app, gid)  # a resignation before every seat moved is an abort
                assert players[loser].post(f"/api/games/{gid}/resign").status_code == 200, gid
            met.append(frozenset(p["players"]))
        now += 15.0
        w.wave(now)
        v = look(people["ann"], tid)
        no_one_plays_twice(v)
        after = points(v)
        for p in running:
            winner = p["players"][0]
            assert after[winner] - before[winner] in (2.0, 4.0)  # 4 once on fire
            assert after[p["players"][1]] == before[p["players"][1]]
        for p in v["pairings"]:
            if p["status"] == "playing":
                assert frozenset(p["players"]) != met[-1] or len(running) == 1
    done = [p for p in v["pairings"] if p["status"] == "done"]
    assert sum(points(v).values()) == sum(sum(row["sheet"]) for row in v["standings"])
    assert sum(points(v).values()) >= 2.0 * len(done)
    still = [p for p in v["pairings"] if p["status"] == "playing"]
    w.wave(now + 31 * 60)
    v = look(people["ann"], tid)
    assert v["status"] == "finished"
    assert {p["id"] for p in v["pairings"] if p["status"] == "unfinished"} == {p["id"] for p in still}
    top = v["standings"][0]
    results = people["ann"].get(f"/api/users/{top['username']}/tournaments").json()["tournaments"]
    assert results[0]["id"] == tid and results[0]["rank"] == 1
    listing = people["ann"].get("/api/tournaments").json()
    assert [t["id"] for t in listing["finished"]] == [tid]


def test_a_swiss_event_through_the_server_with_a_bye_and_a_withdrawal(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    """Three players, two rounds: round 1 is one game and a bye (one point); round 2 starts when the
    round's game is over; a player who withdraws is paired no more; the table has the tie-breaks."""
    ps = {n: user(n) for n in ("ann", "bob", "cat")}
    body = {"kind": "swiss", "game": "nume(size=3)", "days": 2, "rounds": 2, "rated": False}
    tid = ps["ann"].post("/api/tournaments", json=body).json()["id"]
    for b in ps.values():
        assert b.post(f"/api/tournaments/{tid}/join").status_code == 200
    w = waves(app)
    w.wave()
    v = look(ps["ann"], tid)
    assert v["round"] == 1
    games = [p for p in v["pairings"] if p["status"] == "playing"]
    byes = [p for p in v["pairings"] if p["status"] == "bye"]
    assert len(games) == 1 and len(byes) == 1
    w.wave()
    assert look(ps["ann"], tid)["round"] == 1  # the round's game is still running
    loser = games[0]["players"][1]
    every_seat_moves(app, games[0]["game_id"])  # a resignation before every seat moved is an abort
    assert ps[loser].post(f"/api/games/{games[0]['game_id']}/resign").status_code == 200
    w.wave()
    v = look(ps["ann"], tid)
    assert v["round"] == 2
    assert points(v)[byes[0]["players"][0]] == 1.0
    assert {r["username"] for r in v["standings"]} == set(ps)
    assert all("buchholz" in r and "sonneborn_berger" in r for r in v["standings"])
    r2 = [p for p in v["pairings"] if p["round"] == 2 and p["status"] != "bye"]
    assert all(frozenset(p["players"]) != frozenset(games[0]["players"]) for p in r2)
    for p in r2:
        every_seat_moves(app, p["game_id"])  # a resignation before every seat moved is an abort
        assert ps[p["players"][0]].post(f"/api/games/{p['game_id']}/resign").status_code == 200
    assert ps["cat"].post(f"/api/tournaments/{tid}/withdraw").json() == {"ok": True, "id": tid, "joined": False}
    w.wave()
    v = look(ps["ann"], tid)
    assert v["status"] == "finished" and v["round"] == 2
    assert sum(points(v).values()) == pytest.approx(4.0)  # two games and two byes, one point each


def test_refusals_say_what_was_wrong(app: FastAPI, user: Callable[[str], TestClient]) -> None:
    ann = user("ann")
    guest = TestClient(app, headers=SITE)
    cases = [
        ({**ARENA, "kind": "knockout"}, "kind"),
        ({**ARENA, "days": 3}, "clock"),
        ({k: v for k, v in ARENA.items() if k != "minutes"}, "minutes"),
        ({**ARENA, "game": "chess"}, "chess"),
        ({**ARENA, "starts_at": 1.0}, "starts_at"),
        ({"kind": "swiss", "game": "nume", "days": 3, "rounds": 0}, "rounds"),
        ({**ARENA, "name": " "}, "name"),
    ]
    for body, word in cases:
        r = ann.post("/api/tournaments", json=body)
        assert r.status_code == 422, (body, r.text)
        assert word in r.json()["detail"], r.text
    assert guest.post("/api/tournaments", json=ARENA).status_code == 401
    assert ann.get("/api/tournaments/nope").status_code == 404
    tid = ann.post("/api/tournaments", json=ARENA).json()["id"]
    assert guest.post(f"/api/tournaments/{tid}/join").status_code == 401
    r = ann.post(f"/api/tournaments/{tid}/withdraw")
    assert r.status_code == 409 and "not joined" in r.json()["detail"]
    swiss_id = ann.post("/api/tournaments", json={"kind": "swiss", "game": "nume", "days": 3, "rounds": 3}).json()["id"]
    r = ann.post(f"/api/tournaments/{swiss_id}/berserk")
    assert r.status_code == 409 and "arena" in r.json()["detail"]
    for _ in range(3):
        assert ann.post("/api/tournaments", json=ARENA).status_code == 201
    r = ann.post("/api/tournaments", json=ARENA)  # five not finished: the sixth waits
    assert r.status_code == 429 and "not finished" in r.json()["detail"]
    waves(app).wave(time.time() + 3601)  # a Swiss event no one joined ends after an hour
    r = ann.post(f"/api/tournaments/{swiss_id}/join")
    assert r.status_code == 409 and "finished" in r.json()["detail"]


def test_a_berserk_win_scores_three_only_when_the_berserker_made_seven_moves(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    """lichess: berserk halves one's clock for an extra point on a win, "you only get the extra point
    if you play at least 7 moves".  The clock is halved when the game is made; a berserk win after
    seven moves each scores 3, one after a single move each scores 2."""
    a, b = user("ann"), user("bob")
    tid = a.post("/api/tournaments", json=ARENA).json()["id"]
    for x in (a, b):
        x.post(f"/api/tournaments/{tid}/join")
    now = time.time()
    for k, each in enumerate((7, 1)):
        assert a.post(f"/api/tournaments/{tid}/berserk").json()["berserk"] is True
        waves(app).wave(now + 20 * k)
        p = look(a, tid)["pairings"][0]
        assert p["status"] == "playing"
        seat = p["players"].index("ann")
        assert p["berserk"][seat] is True
        clock = a.get(f"/api/games/{p['game_id']}").json()["clock"]
        assert clock["remaining"][seat] <= 150.0 < clock["remaining"][1 - seat]  # half of 300 s
        every_seat_moves(app, p["game_id"], each=each)  # a resignation before every seat moved is an abort
        assert b.post(f"/api/games/{p['game_id']}/resign").status_code == 200
        waves(app).wave(now + 20 * k + 1)
    v = look(a, tid)
    assert [p["result"]["moves"][p["players"].index("ann")] >= 7 for p in reversed(v["pairings"])] == [True, False]
    row = next(r for r in v["standings"] if r["username"] == "ann")
    assert row["sheet"] == [3.0, 2.0] and row["berserks"] == 1


def test_no_new_game_starts_in_the_arenas_last_seconds(app: FastAPI, user: Callable[[str], TestClient]) -> None:
    """lichess: no new games are started in an arena's last seconds (here LAST_SECONDS, 20 s): two free
    players are not paired then, and are paired just before."""
    a, b = user("ann"), user("bob")
    tid = a.post("/api/tournaments", json={**ARENA, "minutes": 1}).json()["id"]
    for x in (a, b):
        x.post(f"/api/tournaments/{tid}/join")
    ends = look(a, tid)["ends_at"]
    waves(app).wave(ends - waves_module.LAST_SECONDS + 0.5)
    assert look(a, tid)["pairings"] == []
    waves(app).wave(ends - waves_module.LAST_SECONDS - 0.5)
    assert [p["status"] for p in look(a, tid)["pairings"]] == ["playing"]


def test_a_player_is_never_paired_with_one_he_blocks(app: FastAPI, user: Callable[[str], TestClient]) -> None:
    """Moderation blocks: "a user who blocked another is never paired with them when avoidable" — in
    an arena it always is (they wait for someone else); in a Swiss round the blocked pair is kept
    apart when the round can be paired otherwise."""
    bs = {n: user(n) for n in ("ann", "bob", "cat", "dan")}
    assert bs["ann"].put("/api/blocks/bob").status_code == 200
    tid = bs["ann"].post("/api/tournaments", json=ARENA).json()["id"]
    for n in ("ann", "bob"):
        bs[n].post(f"/api/tournaments/{tid}/join")
    now = time.time()
    waves(app).wave(now)
    assert look(bs["ann"], tid)["pairings"] == []  # the only two free players: one blocks the other
    bs["cat"].post(f"/api/tournaments/{tid}/join")
    waves(app).wave(now + 1)
    [p] = look(bs["ann"], tid)["pairings"]
    assert "cat" in p["players"] and set(p["players"]) != {"ann", "bob"}
    swiss_body = {"kind": "swiss", "game": "nume(size=3)", "days": 2, "rounds": 3}
    sid = bs["bob"].post("/api/tournaments", json=swiss_body).json()["id"]
    for b in bs.values():
        b.post(f"/api/tournaments/{sid}/join")
    for r in range(3):
        waves(app).wave(now + 2 + r)
        v = look(bs["ann"], sid)
        games = [p for p in v["pairings"] if p["round"] == r + 1]
        assert len(games) == 2 and all(set(p["players"]) != {"ann", "bob"} for p in games)
        for p in games:
            every_seat_moves(app, p["game_id"])  # a resignation before every seat moved is an abort
            assert bs[p["players"][0]].post(f"/api/games/{p['game_id']}/resign").status_code == 200


def test_the_live_stream_sends_the_tournament_and_ends_when_it_is_finished(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    a = user("ann")
    tid = a.post("/api/tournaments", json={**ARENA, "minutes": 1}).json()["id"]
    a.post(f"/api/tournaments/{tid}/join")
    waves(app).wave(time.time() + 120)
    with a.stream("GET", f"/api/tournaments/{tid}/stream") as r:
        assert r.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(x) for x in r.iter_lines() if x.strip()]
    assert len(lines) == 1 and lines[0]["status"] == "finished" and lines[0]["id"] == tid
    assert [row["username"] for row in lines[0]["standings"]] == ["ann"]


def test_a_recurring_schedule_announces_its_next_tournament_once(app: FastAPI) -> None:
    w = waves(app)
    w.schedules = [{"name": "Hourly Nume", **ARENA, "minutes": 45, "every_minutes": 60}]
    now = time.time()
    w.wave(now)
    w.wave(now + 1)
    made = app.state.storage
    listing = store.listing(made, now)["created"]
    assert [t["schedule"] for t in listing] == ["Hourly Nume"]
    assert listing[0]["starts_at"] == (now // 3600 + 1) * 3600


def test_schedules_from_the_environment_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESSERA_TOURNAMENT_SCHEDULE", '[{"name": "x", "every_minutes": 0}]')
    with pytest.raises(ValueError, match="every_minutes"):
        waves_module.schedules_from_env()
    monkeypatch.setenv("TESSERA_TOURNAMENT_SCHEDULE", json.dumps([{**ARENA, "name": "h", "every_minutes": 60}]))
    assert waves_module.schedules_from_env()[0]["name"] == "h"


class Died(BaseException):
    """A process killed at this point (not an ``Exception``: nothing catches it)."""


def test_a_process_stopped_in_the_middle_of_a_pairing_leaves_nothing_half_made(
    app: FastAPI, user: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An arena game, its seats' accounts, its pairing and its players' claim are one transaction:
    killed inside it (after the pairing and the seats were written, before the commit), nothing is
    stored — no game, no pairing, its players free and paired by the next wave; killed right after
    it, the game is whole (``playing``, seats bound) and no one is paired twice."""
    bs = {n: user(n) for n in ("ann", "bob", "cat", "dan")}
    tid = bs["ann"].post("/api/tournaments", json=ARENA).json()["id"]
    for b in bs.values():
        b.post(f"/api/tournaments/{tid}/join")
    w = waves(app)
    real_bind, real_announce = waves_module.bind_seats, waves_module.announce
    calls = {"bind": 0}

    def die_binding_the_second_game(*a: Any, **k: Any) -> None:
        calls["bind"] += 1
        real_bind(*a, **k)
        if calls["bind"] == 2:
            raise Died

    monkeypatch.setattr(waves_module, "bind_seats", die_binding_the_second_game)
    now = time.time()
    with pytest.raises(Died):
        w.wave(now)
    storage = app.state.storage
    games = sa.select(sa.func.count()).select_from(games_table)
    with storage.transaction() as tx:
        assert tx.conn.execute(games).scalar_one() == 1  # the second game's transaction was rolled back whole
    v = look(bs["ann"], tid)
    assert [p["status"] for p in v["pairings"]] == ["playing"]
    monkeypatch.setattr(waves_module, "bind_seats", real_bind)
    w._running = threading.Lock()  # the dead wave's lock died with its process
    monkeypatch.setattr(waves_module, "announce", lambda *a, **k: (_ for _ in ()).throw(Died()))
    with pytest.raises(Died):  # killed right after the second game's transaction
        w.wave(now + 1)
    monkeypatch.setattr(waves_module, "announce", real_announce)
    w._running = threading.Lock()
    w.wave(now + 2)
    v = look(bs["ann"], tid)
    no_one_plays_twice(v)
    assert sorted(p["status"] for p in v["pairings"]) == ["playing", "playing"]
    with storage.transaction() as tx:
        assert tx.conn.execute(games).scalar_one() == 2
    for p in v["pairings"]:
        accounts = bs["ann"].get(f"/api/games/{p['game_id']}/accounts").json()
        assert sorted(s["username"] for s in accounts["seats"].values()) == sorted(p["players"])
        mine = bs[p["players"][0]].get(f"/api/tournaments/{tid}").json()["me"]["game"]
        assert mine == {"game_id": p["game_id"], "seat": 0}


def test_two_processes_directing_one_database_pair_no_one_twice_and_show_one_table(
    app: FastAPI, user: Callable[[str], TestClient], db_url: str
) -> None:
    """Two directors (two server processes as far as the database can tell) run waves at once: no one
    is in two games at a time, and both show the same standings."""
    bs = {f"p{i}": user(f"p{i}") for i in range(8)}
    tid = bs["p0"].post("/api/tournaments", json=ARENA).json()["id"]
    for b in bs.values():
        b.post(f"/api/tournaments/{tid}/join")
    other = MatchService(app.state.service.storage.__class__(db_url))
    try:
        directors = [director(app), Director(other)]
        now = time.time()
        for k in range(4):
            threads = [threading.Thread(target=d.waves.wave, args=(now + 15 * k,)) for d in directors]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            v = look(bs["p0"], tid)
            no_one_plays_twice(v)
            for p in v["pairings"]:
                if p["status"] == "playing":
                    every_seat_moves(app, p["game_id"])  # a resignation before every seat moved is an abort
                    bs[p["players"][k % 2]].post(f"/api/games/{p['game_id']}/resign")
        directors[1].waves.wave(now + 100)
        views = [d.view(tid) for d in directors]
        assert views[0]["standings"] == views[1]["standings"]
        assert views[0]["pairings"] == views[1]["pairings"]
        assert sum(1 for p in views[0]["pairings"] if p["status"] == "done") >= 8
    finally:
        other.storage.dispose()


def test_a_four_player_arena_seats_four_accounts_at_one_table_and_scores_by_place(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    """Four-player Nymbat: five players free, one table of four (the fifth waits); every seat is bound
    to its account; once the game is over its places give 4, 2, 1, 0."""
    bs = {n: user(n) for n in ("ann", "bob", "cat", "dan", "eve")}
    body = {**ARENA, "game": "nymbat(players=4)"}
    tid = bs["ann"].post("/api/tournaments", json=body).json()["id"]
    assert look(bs["ann"], tid)["seats"] == 4
    for b in bs.values():
        b.post(f"/api/tournaments/{tid}/join")
    waves(app).wave()
    v = look(bs["ann"], tid)
    [p] = v["pairings"]
    assert len(p["players"]) == 4 and p["status"] == "playing"
    accounts = bs["ann"].get(f"/api/games/{p['game_id']}/accounts").json()
    assert [accounts["seats"][str(i)]["username"] for i in range(4)] == p["players"]
    for name in p["players"][:3]:  # three resign in turn: the last one standing wins
        assert bs[name].post(f"/api/games/{p['game_id']}/resign").status_code == 200
    waves(app).wave()
    v = look(bs["ann"], tid)
    done = next(x for x in v["pairings"] if x["id"] == p["id"])
    assert done["status"] == "done"
    got = points(v)
    assert done["places"][3] == 1 and got[p["players"][3]] == 4.0  # the last one standing
    assert sum(got[n] for n in p["players"]) == 7.0  # 4 + 2 + 1 + 0, shared where places are shared


def test_a_player_who_made_no_first_move_is_withdrawn_until_he_joins_again(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    """lichess: a game aborted because a player never moved scores nothing, and that player is paused
    (withdrawn) so that he is not paired again while away; the one who moved stays in."""
    from tessera.server.match.tables import games_table
    from tests.server.helpers import first_move, move

    a, b = user("ann"), user("bob")
    tid = a.post("/api/tournaments", json=ARENA).json()["id"]
    for x in (a, b):
        x.post(f"/api/tournaments/{tid}/join")
    waves(app).wave()
    [p] = look(a, tid)["pairings"]
    mover = {"ann": a, "bob": b}[p["players"][0]]
    g = mover.get(f"/api/games/{p['game_id']}").json()
    assert move(mover, p["game_id"], None, first_move(g), g["move_number"]).status_code == 200
    with app.state.storage.transaction(write=True) as tx:  # the second seat's first-move time ran out
        result = {"winner": None, "returns": None, "reason": "abort", "text": "Game aborted"}
        tx.conn.execute(
            games_table.update()
            .where(games_table.c.id == p["game_id"])
            .values(status="finished", result=json.dumps(result))
        )
    waves(app).wave(time.time() + 15)
    v = look(a, tid)
    assert [x["status"] for x in v["pairings"]] == ["done"] and v["pairings"][0]["result"] == {"aborted": True}
    rows = {r["username"]: r for r in v["standings"]}
    assert rows[p["players"][1]]["withdrawn"] and not rows[p["players"][0]]["withdrawn"]
    assert points(v) == {"ann": 0.0, "bob": 0.0}


def test_a_swiss_round_is_stored_whole_and_a_game_a_stopped_process_did_not_make_is_made_later(
    app: FastAPI, user: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round's number, its bye and its pairings are one transaction; killed before a game was made,
    the pairing waits (nobody else is paired in its place) and the repair makes its game."""
    bs = {n: user(n) for n in ("ann", "bob", "cat", "dan", "eve")}
    body = {"kind": "swiss", "game": "nume(size=3)", "days": 2, "rounds": 2}
    tid = bs["ann"].post("/api/tournaments", json=body).json()["id"]
    for b in bs.values():
        b.post(f"/api/tournaments/{tid}/join")
    w = waves(app)
    real_create = w.service.create
    monkeypatch.setattr(w.service, "create", lambda *a, **k: (_ for _ in ()).throw(Died()))
    now = time.time()
    with pytest.raises(Died):
        w.wave(now)
    v = look(bs["ann"], tid)
    assert v["round"] == 1
    assert sorted(p["status"] for p in v["pairings"]) == ["bye", "creating", "creating"]
    monkeypatch.setattr(w.service, "create", real_create)
    w._running = threading.Lock()
    w.wave(now + 1)
    assert sorted(p["status"] for p in look(bs["ann"], tid)["pairings"]) == ["bye", "creating", "creating"]
    w.wave(now + STUCK_SECONDS + 1)
    v = look(bs["ann"], tid)
    assert v["round"] == 1
    assert sorted(p["status"] for p in v["pairings"]) == ["bye", "playing", "playing"]
    seated = [u for p in v["pairings"] for u in p["players"]]
    assert sorted(seated) == sorted(bs)


def test_a_swiss_round_advances_when_its_deadline_passes_and_running_games_count_as_draws(
    app: FastAPI, user: Callable[[str], TestClient]
) -> None:
    bs = {n: user(n) for n in ("ann", "bob", "cat", "dan")}
    body = {"kind": "swiss", "game": "nume(size=3)", "days": 1, "rounds": 2}
    tid = bs["ann"].post("/api/tournaments", json=body).json()["id"]
    for b in bs.values():
        b.post(f"/api/tournaments/{tid}/join")
    w = waves(app)
    now = time.time()
    w.wave(now)
    v = look(bs["ann"], tid)
    assert v["round"] == 1 and v["round_ends"] == pytest.approx(now + waves_module.round_seconds({"days": 1}, 2))
    w.wave(v["round_ends"] - 1)
    assert look(bs["ann"], tid)["round"] == 1
    w.wave(v["round_ends"] + 1)
    v = look(bs["ann"], tid)
    assert v["round"] == 2
    first = [p for p in v["pairings"] if p["round"] == 1]
    assert [p["result"] for p in first] == [{"lapsed": True}] * 2
    assert points(v) == {n: 0.5 for n in bs}
