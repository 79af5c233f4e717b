"""Moderation on the server: reports keep their evidence, blocks hold on challenges, chat and seek
pairing, the moderators' API and page are for admins only, every action is logged and has its
effect, and the engine-use signal counts moves matching the fixed-budget search on constructed games."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import tessera
from tessera.agents.mcts import MCTSAgent
from tessera.cli import main as cli_main
from tessera.server.accounts.store import AccountStore
from tessera.server.accounts.tables import account_games_table, ratings_table, seat_accounts_table
from tessera.server.events import ChatPosted
from tessera.server.http.app import create_app
from tessera.server.http.limits import Rate
from tessera.server.match import tables
from tessera.server.match.tables import GameRow, SeatRow
from tessera.server.moderation import signal
from tessera.server.moderation.store import MIN_SIGNAL_MOVES, ModerationStore

SITE = "http://testserver"
PASSWORD = "correct horse battery"
NIBBLE_BLITZ = {"game": "nibble", "clock": {"initial": 180, "increment": 2}}


@pytest.fixture
def app(db_url: str) -> Iterator[FastAPI]:
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    a.state.chat._buckets.rates["chat"] = Rate(0, 1)
    a.state.seeks.wave_seconds = 3600.0
    with TestClient(a):
        yield a


@pytest.fixture
def user(app: FastAPI) -> Callable[[str], TestClient]:
    """A browser logged in to a new account of that name."""

    def make(name: str) -> TestClient:
        b = TestClient(app, headers={"Origin": SITE}, client=(f"10.0.0.{len(name)}", 50000))
        r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        return b

    return make


def account_id(app: FastAPI, name: str) -> str:
    u = AccountStore(app.state.storage).user(name)
    assert u is not None
    return u.id


def grant(app: FastAPI, name: str) -> None:
    u = AccountStore(app.state.storage).user(name)
    assert u is not None
    assert ModerationStore(app.state.storage).set_admin(u, True)


def game_between(a: TestClient, b: TestClient, b_name: str) -> str:
    ch = a.post("/api/challenges", json={"to": b_name, "game": "nibble", "seat": 0})
    assert ch.status_code in (200, 201), ch.text
    r = b.post(f"/api/challenges/{ch.json()['id']}/accept")
    assert r.status_code == 200, r.text
    gid: str = r.json()["game_id"]
    return gid


def say(c: TestClient, gid: str, room: str, text: str) -> Any:
    return c.post(f"/api/games/{gid}/chat", json={"room": room, "text": text})


def texts(c: TestClient, gid: str) -> list[str]:
    r = c.get(f"/api/games/{gid}/chat")
    assert r.status_code == 200, r.text
    return [m["text"] for m in r.json()["messages"]]


# -- reports ---------------------------------------------------------------------------------------


def test_a_report_of_a_chat_line_keeps_the_lines_text_and_game(app: FastAPI, user: Any) -> None:
    """The evidence is the chat line as it was written (text, game id, room), kept in the report."""
    alice, bob, mod = user("Alice"), user("Bob"), user("Keeper")
    grant(app, "Keeper")
    gid = game_between(alice, bob, "bob")
    line = say(bob, gid, "player", "you are a fool")
    assert line.status_code == 201, line.text
    r = alice.post(
        "/api/reports",
        json={"reason": "abuse", "text": "insults", "game_id": gid, "message_id": line.json()["id"]},
    )
    assert r.status_code == 201, r.text
    queue = mod.get("/api/mod/reports").json()["reports"]
    assert len(queue) == 1
    rep = queue[0]
    assert (rep["reporter"], rep["target"], rep["reason"], rep["text"]) == ("Alice", "Bob", "abuse", "insults")
    assert rep["evidence"]["kind"] == "chat" and rep["evidence"]["text"] == "you are a fool"
    assert rep["evidence"]["game_id"] == gid and rep["evidence"]["room"] == "player"
    assert rep["against"] == 1


def test_a_player_room_line_is_reported_only_by_the_games_players(app: FastAPI, user: Any) -> None:
    """The player room is private: another account cannot report (nor learn of) a line there."""
    alice, bob, carol = user("Alice"), user("Bob"), user("Carol")
    gid = game_between(alice, bob, "bob")
    mid = say(bob, gid, "player", "private words").json()["id"]
    r = carol.post("/api/reports", json={"reason": "abuse", "game_id": gid, "message_id": mid})
    assert r.status_code == 404 and "no such chat line" in r.json()["detail"]
    assert alice.post("/api/reports", json={"reason": "abuse", "game_id": gid, "message_id": mid}).status_code == 201


def test_a_report_of_a_player_keeps_the_profile(app: FastAPI, user: Any) -> None:
    alice, _bob, mod = user("Alice"), user("Bob"), user("Keeper")
    grant(app, "Keeper")
    r = alice.post("/api/reports", json={"reason": "cheating", "text": "too strong", "username": "bob"})
    assert r.status_code == 201, r.text
    rep = mod.get("/api/mod/reports").json()["reports"][0]
    assert rep["evidence"]["kind"] == "profile" and rep["evidence"]["username"] == "Bob"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"reason": "rude", "username": "bob"}, 400, "reason must be one of"),
        ({"reason": "abuse"}, 400, "say what you report"),
        ({"reason": "abuse", "username": "alice"}, 400, "cannot report yourself"),
        ({"reason": "abuse", "username": "nobody"}, 404, "no account named"),
        ({"reason": "abuse", "username": "bob", "text": "x" * 1001}, 400, "too long"),
        ({"reason": "abuse", "game_id": "nosuch", "message_id": 1}, 404, "no such chat line"),
    ],
)
def test_bad_reports_are_refused_with_the_reason(user: Any, body: dict[str, Any], status: int, words: str) -> None:
    alice, _bob = user("Alice"), user("Bob")
    r = alice.post("/api/reports", json=body)
    assert r.status_code == status and words in r.json()["detail"], r.text


def test_reports_need_an_account(app: FastAPI, user: Any) -> None:
    user("Bob")
    r = TestClient(app, headers={"Origin": SITE}).post("/api/reports", json={"reason": "spam", "username": "bob"})
    assert r.status_code == 401


# -- blocks ----------------------------------------------------------------------------------------


def test_a_blocked_players_challenges_are_refused(user: Any) -> None:
    alice, bob = user("Alice"), user("Bob")
    assert alice.put("/api/blocks/bob").json() == {"blocks": ["Bob"]}
    r = bob.post("/api/challenges", json={"to": "alice", "game": "nibble"})
    assert r.status_code == 403 and "does not accept challenges" in r.json()["detail"]
    assert r.json()["key"] == "refusal.moderation.challenge_blocked"
    assert alice.get("/api/challenges").json()["incoming"] == []
    assert alice.delete("/api/blocks/bob").json() == {"blocks": []}
    assert bob.post("/api/challenges", json={"to": "alice", "game": "nibble"}).status_code in (200, 201)


def test_blocking_declines_the_blocked_players_waiting_challenges(app: FastAPI, user: Any) -> None:
    """A challenge the blocked account sent before the block stops waiting (declined); the
    blocker's own challenge to him stays."""
    alice, bob = user("Alice"), user("Bob")
    ch = bob.post("/api/challenges", json={"to": "alice", "game": "nibble"}).json()
    mine = alice.post("/api/challenges", json={"to": "bob", "game": "nibble"}).json()
    alice.put("/api/blocks/bob")
    assert alice.get("/api/challenges").json()["incoming"] == []
    challenge = AccountStore(app.state.storage).challenge(ch["id"])
    assert challenge is not None and challenge["status"] == "declined"
    assert [c["id"] for c in alice.get("/api/challenges").json()["outgoing"]] == [mine["id"]]


def test_a_blocked_players_chat_does_not_reach_the_blocker(app: FastAPI, user: Any) -> None:
    """A block mutes the blocked account in every game of the blocker (history and pushes alike)."""
    alice, bob = user("Alice"), user("Bob")
    gid = game_between(alice, bob, "bob")
    assert say(bob, gid, "player", "before").status_code == 201
    alice.put("/api/blocks/bob")
    assert say(bob, gid, "player", "after").status_code == 201
    assert texts(alice, gid) == []
    assert alice.get(f"/api/games/{gid}/chat").json()["muted"] == [], "a block is not listed as a mute"
    assert texts(bob, gid) == ["before", "after"], "the blocked player still reads his own lines"
    alice.delete("/api/blocks/bob")
    assert texts(alice, gid) == ["before", "after"]


def test_a_blocked_spectators_chat_does_not_reach_the_blocker_watching(app: FastAPI, user: Any) -> None:
    """Blocks for spectators, as on lichess: the blocked account still watches public games and
    writes in their spectator room, but what he writes reaches neither the history nor the socket
    of a blocker who watches the game signed in (the hub leaves out the spectator sockets of the
    accounts :meth:`Chat.blockers` names); other spectators read it."""
    alice, bob, carol, dan = user("Alice"), user("Bob"), user("Carol"), user("Dan")
    gid = game_between(carol, dan, "dan")
    alice.put("/api/blocks/bob")
    guest = TestClient(app, headers={"Origin": SITE}, client=("10.0.9.9", 50000))
    assert bob.get(f"/api/games/{gid}").status_code == 200, "the blocked account still watches"
    assert say(bob, gid, "spectator", "from bob").status_code == 201
    assert say(guest, gid, "spectator", "from a guest").status_code == 201
    assert texts(alice, gid) == ["from a guest"]
    assert texts(guest, gid) == ["from bob", "from a guest"]
    ids = {name: account_id(app, name) for name in ("Alice", "Bob", "Carol")}
    pushed = ChatPosted(gid, {"room": "spectator", "text": "from bob", "_user": ids["Bob"]}, False, True)
    assert app.state.chat.blockers(pushed, {ids["Alice"], ids["Carol"]}) == {ids["Alice"]}
    alice.delete("/api/blocks/bob")
    assert texts(alice, gid) == ["from bob", "from a guest"]
    assert app.state.chat.blockers(pushed, {ids["Alice"], ids["Carol"]}) == set()


def test_a_blocked_player_is_never_paired_with_the_blocker(app: FastAPI, user: Any) -> None:
    alice, bob = user("Alice"), user("Bob")
    alice.put("/api/blocks/bob")
    for b in (alice, bob):
        assert b.post("/api/seeks", json=NIBBLE_BLITZ).status_code == 201
    assert app.state.seeks.wave() == []
    alice.delete("/api/blocks/bob")
    assert len(app.state.seeks.wave()) == 1


def test_one_cannot_block_oneself(user: Any) -> None:
    alice = user("Alice")
    r = alice.put("/api/blocks/alice")
    assert r.status_code == 400 and "yourself" in r.json()["detail"]


# -- admins ----------------------------------------------------------------------------------------

ADMIN_ROUTES = [
    ("GET", "/mod"),
    ("GET", "/api/mod/reports"),
    ("GET", "/api/mod/accounts/alice"),
    ("POST", "/api/mod/accounts/alice/actions"),
    ("POST", "/api/mod/accounts/alice/signal"),
    ("POST", "/api/mod/reports/1/close"),
    ("GET", "/api/mod/signals"),
    ("GET", "/api/mod/log"),
]


@pytest.mark.parametrize(("method", "path"), ADMIN_ROUTES)
def test_moderation_is_refused_to_everyone_but_admins(app: FastAPI, user: Any, method: str, path: str) -> None:
    """401 for a guest, 403 for an account without the admin role (and for an admin's API token)."""
    user("Alice")
    bob = user("Bob")
    body = {"action": "warn"} if path.endswith("actions") else {}
    guest = TestClient(app, headers={"Origin": SITE})
    assert guest.request(method, path, json=body).status_code == 401
    r = bob.request(method, path, json=body)
    assert r.status_code == 403 and "moderators only" in r.json()["detail"]
    grant(app, "Bob")
    secret = bob.post("/api/account/tokens", json={"scopes": ["play"]}).json()["token"]
    api = TestClient(app, headers={"Authorization": f"Bearer {secret}"})
    assert api.request(method, path, json=body).status_code == 403


def test_each_action_has_its_effect_and_is_logged(app: FastAPI, user: Any) -> None:
    alice, bob, mod = user("Alice"), user("Bob"), user("Keeper")
    grant(app, "Keeper")
    gid = game_between(alice, bob, "bob")

    def act(action: str, note: str = "") -> dict[str, Any]:
        r = mod.post("/api/mod/accounts/bob/actions", json={"action": action, "note": note})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    assert act("warn", "mind your language")["warnings"] == 1
    assert bob.get("/api/warnings").json()["warnings"][0]["note"] == "mind your language"
    assert act("mute")["chat_muted"] is True
    r = say(bob, gid, "player", "hello")
    assert r.status_code == 403 and "muted by the moderators" in r.json()["detail"]
    assert act("unmute")["chat_muted"] is False
    assert say(bob, gid, "player", "hello").status_code == 201
    assert act("engine", "matches the engine")["engine"] is True
    assert act("clear_engine")["engine"] is False
    assert act("close", "spam account")["username"] == "Bob"
    assert bob.get("/api/account").status_code == 401, "a closed account's sessions are revoked"
    r = mod.post("/api/mod/accounts/bob/actions", json={"action": "close"})
    assert r.status_code == 409
    r = mod.post("/api/mod/accounts/bob/actions", json={"action": "ban"})
    assert r.status_code == 400 and "action must be one of" in r.json()["detail"]
    log = mod.get("/api/mod/log").json()["log"]
    assert [x["action"] for x in log] == ["close", "clear_engine", "engine", "unmute", "mute", "warn", "grant"]
    assert all(x["target"] in ("Bob", "Keeper") for x in log)
    assert all(x["moderator"] == "Keeper" for x in log[:-1]) and log[-1]["moderator"] is None
    assert log[0]["note"] == "spam account"
    acct = mod.get("/api/mod/accounts/bob").json()
    assert acct["closed"] is True and acct["log"][0]["action"] == "close"
    assert acct["chat"][0]["text"] == "hello" and acct["games"][0]["id"] == gid


def test_an_engine_user_leaves_the_leaderboards(app: FastAPI, user: Any) -> None:
    """Marked as an engine user: his rating is left out of the leaderboard (and back when cleared)."""
    _alice, mod = user("Alice"), user("Keeper")
    grant(app, "Keeper")
    alice_id = account_id(app, "Alice")
    with app.state.storage.transaction(write=True) as tx:
        tx.conn.execute(
            ratings_table.insert().values(
                user_id=alice_id, pool="nibble", rating=1900.0, rd=50.0, vol=0.06, games=30, updated_at=time.time()
            )
        )
    board = mod.get("/api/leaderboard/nibble").json()["players"]
    assert [p["username"] for p in board] == ["Alice"]
    mod.post("/api/mod/accounts/alice/actions", json={"action": "engine"})
    assert mod.get("/api/leaderboard/nibble").json()["players"] == []
    mod.post("/api/mod/accounts/alice/actions", json={"action": "clear_engine"})
    assert [p["username"] for p in mod.get("/api/leaderboard/nibble").json()["players"]] == ["Alice"]


def test_closing_a_report_is_logged_with_it(app: FastAPI, user: Any) -> None:
    alice, _bob, mod = user("Alice"), user("Bob"), user("Keeper")
    grant(app, "Keeper")
    rid = alice.post("/api/reports", json={"reason": "spam", "username": "bob"}).json()["id"]
    r = mod.post(f"/api/mod/reports/{rid}/close", json={"note": "no spam found"})
    assert r.status_code == 200, r.text
    assert mod.get("/api/mod/reports").json()["reports"] == []
    assert mod.get("/api/mod/reports?status=closed").json()["reports"][0]["closed_by"] == "Keeper"
    entry = mod.get("/api/mod/log").json()["log"][0]
    assert (entry["action"], entry["report_id"], entry["target"]) == ("close_report", rid, "Bob")
    assert mod.post(f"/api/mod/reports/{rid}/close", json={}).status_code == 409


def test_admin_grant_and_revoke_from_the_command_line(app: FastAPI, user: Any, db_url: str) -> None:
    mod = user("Keeper")
    assert mod.get("/api/mod/log").status_code == 403
    assert cli_main(["admin", "grant", "keeper", "--db", db_url]) == 0
    assert mod.get("/api/mod/log").status_code == 200
    assert cli_main(["admin", "revoke", "Keeper", "--db", db_url]) == 0
    assert mod.get("/api/mod/log").status_code == 403
    assert cli_main(["admin", "grant", "nobody", "--db", db_url]) == 2


# -- the engine-use signal -------------------------------------------------------------------------

SPEC = "nume(size=3)"
ITERATIONS = 16


def _play(engine_seats: set[int], rng: random.Random, seed: int) -> list[tuple[int, str]]:
    """A game where the seats of ``engine_seats`` always play the search's top move (the search the
    signal runs) and the others play at random."""
    state = tessera.load_game(SPEC).new_initial_state(seed=seed)
    agent = MCTSAgent(seed=signal.SEED)
    moves = []
    while not state.is_terminal():
        cp = state.current_player()
        legal = state.legal_moves()
        if cp in engine_seats and len(legal) > 1:
            agent.reset()
            mv = agent.choose_move(state, iterations=ITERATIONS, rng=signal.SEED)
        else:
            mv = rng.choice(legal)
        moves.append((cp, mv))
        state.play(mv)
    return moves


def _store_game(app: FastAPI, ids: dict[str, str], seats: list[str], engine: set[str], seed: int) -> None:
    moves = _play({i for i, n in enumerate(seats) if n in engine}, random.Random(seed), seed)
    gid = secrets.token_hex(8)
    now = time.time() + seed  # later games later
    row = GameRow(
        id=gid,
        game="nume",
        spec=SPEC,
        params={"size": 3},
        seed=seed,
        mode="human",
        status="finished",
        public=True,
        result=None,
        clock=None,
        undo_request=None,
        version=len(moves),
        created_at=now,
        updated_at=now,
        seats=[SeatRow(i, secrets.token_hex(8), n, "human", None, True) for i, n in enumerate(seats)],
    )
    with app.state.storage.transaction(write=True) as tx:
        tables.insert_game(tx, row)
        for i, (player, mv) in enumerate(moves):
            tables.insert_move(tx, gid, i, player, mv)
        tx.conn.execute(account_games_table.insert().values(game_id=gid, rated=True, pool="nume", rated_at=now))
        for i, n in enumerate(seats):
            tx.conn.execute(seat_accounts_table.insert().values(game_id=gid, seat=i, user_id=ids[n]))


def test_the_engine_signal_counts_moves_matching_the_search_beside_ordinary_players(app: FastAPI, user: Any) -> None:
    """An account that always plays the search's top move matches on every move; players who play
    their own moves match less, and the account's share stands above their distribution.  The
    signal marks nobody: the account stays unmarked until a moderator acts."""
    names = ["Eve", "Ann", "Ben", "Cy"]
    for n in [*names, "Keeper"]:
        user(n)
    grant(app, "Keeper")
    ids = {n: account_id(app, n) for n in names}
    pairs = [("Eve", "Ann"), ("Ben", "Eve"), ("Ann", "Ben"), ("Ben", "Cy"), ("Cy", "Ann"), ("Eve", "Cy")]
    for k, pair in enumerate(pairs):
        _store_game(app, ids, list(pair), {"Eve"}, seed=k + 1)
    store = ModerationStore(app.state.storage)
    for n in names:
        s = signal.compute(app.state.storage, ids[n], iterations=ITERATIONS)
        assert s.games == 3
        assert s.moves >= MIN_SIGNAL_MOVES
        store.save_signal(ids[n], s.moves, s.matches, s.games, s.iterations)
        if n == "Eve":
            assert s.matches == s.moves, "every move of the engine user is the top move"
        else:
            assert s.matches < s.moves
    moderator = TestClient(app, headers={"Origin": SITE})
    assert moderator.post("/api/account/login", json={"username": "Keeper", "password": PASSWORD}).status_code == 200
    r = moderator.post("/api/mod/accounts/eve/signal", json={"iterations": ITERATIONS})
    assert r.status_code == 200, r.text
    sig = r.json()["signal"]
    assert sig["share"] == 1.0 and sig["iterations"] == ITERATIONS
    assert sig["distribution"]["players"] == 3 and sig["percentile"] == 1.0
    assert sig["distribution"]["p90"] < 1.0
    dist = moderator.get("/api/mod/signals").json()
    assert dist["players"] == 4, "Eve counts among ordinary players until a moderator marks her"
    assert moderator.get("/api/mod/accounts/eve").json()["engine"] is False, "the signal never acts by itself"
    moderator.post("/api/mod/accounts/eve/actions", json={"action": "engine"})
    assert moderator.get("/api/mod/signals").json()["players"] == 3, "a marked engine user leaves the distribution"
    r = moderator.post("/api/mod/accounts/eve/signal", json={"iterations": 0})
    assert r.status_code == 422


def test_the_engine_signal_command_stores_each_accounts_count(
    app: FastAPI, user: Any, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """'tessera admin engine-signal': without names, every account with a rated game."""
    for n in ("Eve", "Ann"):
        user(n)
    ids = {n: account_id(app, n) for n in ("Eve", "Ann")}
    _store_game(app, ids, ["Eve", "Ann"], {"Eve"}, seed=1)
    assert cli_main(["admin", "engine-signal", "--iterations", str(ITERATIONS), "--db", db_url]) == 0
    out = capsys.readouterr().out
    assert "Eve:" in out and "Ann:" in out and "(100.0%)" in out.split("Eve:")[1].splitlines()[0]
    store = ModerationStore(app.state.storage)
    for n in ("Eve", "Ann"):
        got = store.signal(ids[n])
        assert got is not None and got["iterations"] == ITERATIONS and got["games"] == 1
    assert cli_main(["admin", "engine-signal", "nobody", "--db", db_url]) == 2
