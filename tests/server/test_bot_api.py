"""The bot API against a real running server (uvicorn in a thread, real sockets): issue 25.

'Tests against a real running server: two reference bots play whole rated games of every game,
a Nelaxtam game where each bot's stream is checked never to carry the other's sealed order, a
four-player Nymbat game with a person and three bots, a stream dropped mid-game and resumed, a
revoked token refused, a burst answered with 429s and no lost move.'
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

import tessera
from tessera.botclient import AcceptRules, Api, BotClient, GameRunner, load_player
from tessera.core.game import SIMULTANEOUS
from tessera.core.records import play_stored
from tessera.server.http.app import create_app
from tests.server.accounts.conftest import PASSWORD
from tests.server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]

SMALL = {
    "nume": "nume(size=2)",
    "nibble": "nibble(colors=9)",
    "ikabegama": "ikabegama(distance=3,max_plies=30)",
    "nymbat": "nymbat(reserve=6,first_limit=6,max_turns=40)",
    "nelaxtam": "nelaxtam(size=10,troops=2,by_sea=1,max_idle_turns=6)",
}
"""A small variant of every game (whole games in a few seconds)."""

FINISH = 120.0
"""Seconds a game between two random bots may take before a test gives up (not a speed target: a
loaded machine runs the server, the bots and the test in one process)."""


@dataclass
class Live:
    base: str
    app: FastAPI


@contextmanager
def live_server(db_url: str) -> Iterator[Live]:
    """The app served by uvicorn on a free port, in a thread of this process."""
    app = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False, rates={})
    port = free_port()
    # the bots' streams stay open to the end: a stop does not wait for them
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert thread.is_alive() and time.time() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield Live(f"http://127.0.0.1:{port}", app)
    finally:
        server.should_exit = True
        thread.join(15)


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Live]:
    """A live server on a fresh SQLite database (no request budget: the burst test sets its own)."""
    monkeypatch.setenv("TESSERA_RATE_BOT", "0")
    with live_server(f"sqlite:///{tmp_path / 'tessera.db'}") as s:
        yield s


def person(base: str, name: str) -> httpx.Client:
    """A browser on ``base`` logged in to a new account."""
    c = httpx.Client(base_url=base, headers={"Origin": base}, timeout=20)
    r = c.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return c


def token_of(browser: httpx.Client, scopes: list[str]) -> str:
    r = browser.post("/api/account/tokens", json={"scopes": scopes})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def bot_account(base: str, name: str) -> str:
    """A new account upgraded to a bot: its token (scopes bot:play and challenge)."""
    token = token_of(person(base, name), ["bot:play", "challenge"])
    r = httpx.post(base + "/api/bot/account/upgrade", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def call(method: str, url: str, token: str, **kw: Any) -> httpx.Response:
    """A request with a bot's token, sent again after ``Retry-After`` when answered 429 (the test
    shares the token with the bot's own client, and the API takes one request at a time per token)."""
    while True:
        r = httpx.request(method, url, headers=bearer(token), timeout=20, **kw)
        if r.status_code != 429:
            return r
        time.sleep(float(r.headers["Retry-After"]))


def challenge(base: str, token: str, to: str, game: str, **kw: Any) -> dict[str, Any]:
    r = call("POST", base + "/api/challenges", token, json={"to": to, "game": game, **kw})
    assert r.status_code == 201, r.text
    return dict(r.json())


PATIENCE = 3.0
"""Every wait's bound is stretched so much: bots are separate threads and processes, and a loaded
machine (the suite runs two workers on two cores) makes them slow — a bound only says when to give up."""


def wait_for(what: Callable[[], Any], message: str, timeout: float = FINISH) -> Any:
    deadline = time.time() + timeout * PATIENCE
    while True:
        got = what()
        if got:
            return got
        assert time.time() < deadline, message
        time.sleep(0.05)


def finished(base: str, game_id: str) -> dict[str, Any] | None:
    view = httpx.get(f"{base}/api/games/{game_id}").json()
    return view if view["status"] == "finished" else None


@contextmanager
def running(bot: BotClient) -> Iterator[BotClient]:
    bot.start()
    try:
        assert bot.connected.wait(10 * PATIENCE), "the bot's event stream did not open"
        yield bot
    finally:
        bot.stop()


def reference_bot(base: str, token: str, agent: str = "random(seed=1)", **kw: Any) -> BotClient:
    return BotClient(Api(base, token), load_player(agent), **kw)


def all_finished(runners: list[GameRunner]) -> bool:
    return all(r.finished.is_set() for r in runners)


def is_subsequence(part: list[str], whole: list[str]) -> bool:
    rest = iter(whole)
    return all(any(x == y for y in rest) for x in part)


def online_bots(base: str) -> list[str]:
    return [b["username"] for b in httpx.get(base + "/api/bots/online").json()["bots"]]


def record_moves(base: str, game_id: str) -> list[str]:
    """The stored moves of a game, as the bot streams send them (a joint turn's orders joined by ' | ')."""
    return [m["move"] for m in httpx.get(f"{base}/api/games/{game_id}").json()["moves"]]


# -- whole games -------------------------------------------------------------------------------
def test_two_reference_bots_play_whole_rated_games_of_every_game(live: Live) -> None:
    """'two reference bots play whole rated games of every game': Alpha challenges Beta to a rated game
    of each of the five games; Beta's client accepts (five at once), both play to the end; the games
    are rated in the pools people use, and the bots are marked as bots."""
    ta, tb = bot_account(live.base, "Alpha"), bot_account(live.base, "Beta")
    alpha = reference_bot(live.base, ta, concurrency=5)
    beta = reference_bot(live.base, tb, "random(seed=2)", concurrency=5)
    with running(alpha), running(beta):
        games = {}
        for name, spec in SMALL.items():
            c = challenge(live.base, ta, "Beta", spec, rated=True)
            games[name] = wait_for(
                partial(_challenge_game, live.base, ta, c["id"]), f"Beta did not take the {name} challenge", 20
            )
        for name, gid in games.items():
            view = wait_for(partial(finished, live.base, gid), f"the {name} game did not finish")
            assert view["result"]["reason"] not in ("resign", "flag"), view["result"]  # played to its end
            both = [alpha.games[gid], beta.games[gid]]
            wait_for(partial(all_finished, both), "a bot did not see the end", 10)
            # each bot's last gameState holds every stored move, as records hold them
            for runner in both:
                assert runner.last is not None and runner.last["moves"] == record_moves(live.base, gid)
            seats = httpx.get(f"{live.base}/api/games/{gid}/accounts").json()
            assert seats["rated"] is True and seats["pool"] == name
            # (the rating is written just after the game's end is stored: wait for it, do not race it)
            wait_for(partial(_rated, live.base, gid), f"{name} was not rated: {seats}", 10)
    profile = httpx.get(f"{live.base}/api/users/Alpha").json()
    assert profile["is_bot"] is True and set(profile["ratings"]) == set(SMALL)
    assert profile["counts"]["games"] == len(SMALL)
    full = alpha.games[games["nume"]].lines[0]
    assert full["type"] == "gameFull" and full["rated"] is True
    assert {p["account"]: p["bot"] for p in full["players"]} == {"Alpha": True, "Beta": True}


def _rated(base: str, game_id: str) -> bool:
    seats = httpx.get(f"{base}/api/games/{game_id}/accounts").json()["seats"]
    return all("rating" in s for s in seats.values())


def _challenge_game(base: str, token: str, cid: str) -> str | None:
    r = call("GET", base + "/api/challenges", token, params={"pending": "false"})
    return next((c["game_id"] for c in r.json()["outgoing"] if c["id"] == cid), None)


def test_a_nelaxtam_bot_stream_never_carries_the_other_bots_sealed_order(live: Live) -> None:
    """'A bot sees exactly its seat's view: never an opponent's sealed order': in every line of each
    bot's game stream, the orders of the open turn are absent (only resolved turns are in ``moves``,
    the same as the record's), while the other bot's order was sealed on the server.  (On PostgreSQL
    across two server processes: test_bot_processes.py.)"""
    ta, tb = bot_account(live.base, "Sealer"), bot_account(live.base, "Peeker")
    a = reference_bot(live.base, ta, "random(seed=3)")
    b = reference_bot(live.base, tb, "random(seed=4)")
    with running(a), running(b):
        c = challenge(live.base, ta, "Peeker", SMALL["nelaxtam"], rated=True, seat=0)
        gid = wait_for(lambda: _challenge_game(live.base, ta, c["id"]), "the challenge was not accepted", 20)
        wait_for(lambda: finished(live.base, gid), "the Nelaxtam game did not finish")
        wait_for(lambda: a.games[gid].finished.is_set() and b.games[gid].finished.is_set(), "a bot missed the end")
        stored = record_moves(live.base, gid)
        runners = {0: a.games[gid], 1: b.games[gid]}
    assert stored and all(" | " in m for m in stored)
    for seat, runner in runners.items():
        other = runners[1 - seat]
        assert len(other.sent) >= len(stored) - 1 > 3  # the other bot sealed an order every turn
        states = [ln if ln["type"] == "gameState" else ln.get("state") for ln in runner.lines]
        for line, st in zip(runner.lines, states, strict=True):
            if st is None:
                continue
            k = len(st["moves"])
            assert st["moves"] == stored[:k], "a stream's moves are the resolved turns as stored"
            if st["status"] == "active":
                assert st["to_move"] == SIMULTANEOUS and isinstance(st["sealed"], list)
                pending = other.sent[k] if k < len(other.sent) else None
                text = json.dumps({k: v for k, v in line.items() if k not in ("moves", "move_list")})
                if pending is not None and len(pending) >= 3 and st["sealed"][1 - seat]:
                    # the other's order for this open turn is sealed on the server: not in the line
                    assert pending not in text and pending not in st["moves"]
        assert any(st and st["status"] == "active" and st["sealed"][1 - seat] for st in states), (
            "the check above must meet at least one line sent while the other's order was sealed"
        )


def test_a_four_player_nymbat_game_with_a_person_and_three_bots(live: Live) -> None:
    """'a four-player Nymbat game with a person and three bots': the game's seats are bound to the
    four accounts (as a four-player challenge makes them); the bots hear of it on their event
    streams, the person plays through her session, and the rated game is played to the end."""
    from tessera.server.accounts.live import announce
    from tessera.server.accounts.store import AccountStore

    ana = person(live.base, "Ana")
    tokens = [bot_account(live.base, f"Bot{i}") for i in (1, 2, 3)]
    bots = [reference_bot(live.base, t, f"random(seed={i})") for i, t in enumerate(tokens)]
    with running(bots[0]), running(bots[1]), running(bots[2]):
        store = AccountStore(live.app.state.storage)
        users = [store.user(n) for n in ("Ana", "Bot1", "Bot2", "Bot3")]
        assert all(u is not None for u in users)
        spec = "nymbat(players=4,reserve=6,first_limit=6,max_turns=60)"
        made = live.app.state.service.create(spec, seat_kinds=[{"kind": "invite"}] * 4, public=False)
        store.bind_game(made.game_id, {i: u for i, u in enumerate(users) if u}, rated=True, pool="nymbat")
        announce(store.storage, live.app.state.service.events, [u.id for u in users if u])
        gid = made.game_id
        wait_for(lambda: all(gid in b.games for b in bots), "a bot did not hear of the game", 10)
        rng = random.Random(5)
        deadline = time.time() + FINISH
        while True:
            view = ana.get(f"/api/games/{gid}").json()
            assert view["you"] == 0
            if view["status"] == "finished":
                break
            if view["to_move"] == 0:
                state = tessera.load_game(view["spec"]).new_initial_state(seed=view["seed"])
                for m in view["moves"]:
                    play_stored(state, m["player"], m["move"])
                r = ana.post(
                    f"/api/games/{gid}/moves", json={"move": state.random_move(rng), "expected": view["move_number"]}
                )
                assert r.status_code in (200, 409), r.text
            assert time.time() < deadline, "the four-player game did not finish"
            time.sleep(0.03)
        for b in bots:
            wait_for(b.games[gid].finished.is_set, "a bot did not see the end", 10)
            full, last = b.games[gid].lines[0], b.games[gid].last
            assert [p["bot"] for p in full["players"]] == [False, True, True, True]
            assert last is not None and last["moves"] == record_moves(live.base, gid)
        assert sum(1 for m in view["moves"] if m["player"] in (1, 2, 3)) > 0
    seats = httpx.get(f"{live.base}/api/games/{gid}/accounts").json()
    assert seats["rated"] and all("rating" in s for s in seats["seats"].values())


# -- streams ----------------------------------------------------------------------------------
class Proxy:
    """A TCP relay to the server whose connections the test can cut (a dropped network)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.open: list[socket.socket] = []
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                with suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every connection open now."""
        self.cuts += 1
        for s in self.open:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
        self.open = []

    def close(self) -> None:
        self.sock.close()
        self.cut()


def test_a_stream_dropped_mid_game_is_opened_again_and_the_game_resumed(live: Live) -> None:
    """'reconnects after a dropped stream and resumes its games': Alpha's connections (its event
    stream and its game stream) are cut in the middle of a game; the client opens both again, the
    server's gameFull gives it the position as it is, and the game is played to the end with every
    move stored once."""
    ta, tb = bot_account(live.base, "Alpha"), bot_account(live.base, "Beta")
    proxy = Proxy(int(live.base.rsplit(":", 1)[1]))
    slow = load_player("random(seed=6)")

    def player(state: Any, seat: int) -> str:
        time.sleep(0.02)  # a thoughtful bot: the cut falls in the middle of the game
        return slow(state, seat)

    alpha = BotClient(Api(f"http://127.0.0.1:{proxy.port}", ta), player)
    beta = reference_bot(live.base, tb, "random(seed=7)")
    try:
        with running(alpha), running(beta):
            c = challenge(live.base, ta, "Beta", SMALL["nibble"], seat=0)
            gid = wait_for(lambda: _challenge_game(live.base, ta, c["id"]), "the challenge was not accepted", 20)
            wait_for(lambda: len(record_moves(live.base, gid)) >= 10, "the game did not start")
            proxy.cut()
            wait_for(lambda: finished(live.base, gid), "the game did not finish after the cut")
            runner = alpha.games[gid]
            wait_for(runner.finished.is_set, "Alpha did not see the end")
            assert alpha.reconnects >= 1 and runner.reconnects >= 1
            fulls = [ln for ln in runner.lines if ln["type"] == "gameFull"]
            assert len(fulls) >= 2 and len(fulls[-1]["state"]["moves"]) >= 10  # resumed mid-game
            stored = httpx.get(f"{live.base}/api/games/{gid}").json()["moves"]
            mine = [m["move"] for m in stored if m["player"] == 0]
            # every move Alpha was told was stored is stored once, in order; at most one move has no
            # answer (the one whose connection was cut, if the opponent moved before it was sent again)
            assert is_subsequence(runner.sent, mine) and len(mine) - len(runner.sent) <= 1
            assert list(alpha.games) == [gid]  # the repeated gameStart resumed the game, not a second runner
    finally:
        proxy.close()


def test_the_event_stream_sends_challenges_declines_and_keeps_alive(live: Live) -> None:
    """'challenge, challengeCanceled, challengeDeclined' with the decline reasons, 'one open stream
    per token' (a newer stream ends the older one), and the online bots list."""
    ta, tb = bot_account(live.base, "Alpha"), bot_account(live.base, "Beta")
    rules = AcceptRules(games={"nume"})
    beta = reference_bot(live.base, tb, rules=rules)
    alpha = httpx.Client(base_url=live.base, headers=bearer(ta), timeout=20)
    with running(beta), alpha, alpha.stream("GET", "/api/stream/event") as s:
        lines = s.iter_lines()
        c = challenge(live.base, ta, "Beta", "nibble", rated=True)
        got = _next(lines)
        assert got["type"] == "challenge" and got["challenge"]["id"] == c["id"]
        assert got["challenge"]["direction"] == "out" and got["challenge"]["to_bot"] is True
        got = _next(lines)  # Beta accepts only Nume: declined with the reason "variant"
        assert got["type"] == "challengeDeclined" and got["challenge"]["reason"] == "variant"
        assert "game or variant" in got["challenge"]["reason_text"]
        c2 = challenge(live.base, ta, "Beta", "nibble")
        assert _next(lines)["type"] == "challenge"
        got = _next(lines)
        assert got["type"] == "challengeDeclined" and got["challenge"]["id"] == c2["id"]
        assert online_bots(live.base) == ["Alpha", "Beta"]
        # a second stream with the same token ends the first one
        with alpha.stream("GET", "/api/stream/event") as s2, pytest.raises(StopIteration):
            assert s2.status_code == 200
            _next(lines)
    # a person's challenge declined by the bot: the key is read in any case, and stored as the key
    pat = person(live.base, "Pat")
    c3 = pat.post("/api/challenges", json={"to": "Beta", "game": "nume(size=2)", "rated": False}).json()
    declined = httpx.post(
        f"{live.base}/api/challenges/{c3['id']}/decline", json={"reason": "toofast"}, headers=bearer(tb)
    )
    assert declined.status_code == 200
    mine = pat.get("/api/challenges", params={"pending": "false"}).json()["outgoing"][0]
    assert mine["status"] == "declined" and mine["reason"] == "tooFast"
    wait_for(lambda: online_bots(live.base) == [], "the bots stayed online", 10)


def _next(lines: Iterator[str], kind: str | None = None) -> dict[str, Any]:
    """The next line of a stream (of type ``kind``), keep-alive lines passed over."""
    for line in lines:
        if line.strip() and (kind is None or json.loads(line)["type"] == kind):
            return dict(json.loads(line))
    raise StopIteration


def test_the_game_stream_says_when_a_person_opponent_leaves_and_comes_back(live: Live) -> None:
    """'opponentGone': the person's page (its WebSocket) closes in the middle of the game — the bot's
    game stream says the seat is gone, and that it is back when the page opens again."""
    from websockets.sync.client import connect

    pat, tb = person(live.base, "Pat"), bot_account(live.base, "Robo")
    c = pat.post("/api/challenges", json={"to": "Robo", "game": "nume(size=2)", "seat": 0}).json()
    gid = call("POST", f"{live.base}/api/challenges/{c['id']}/accept", tb).json()["game_id"]
    ws_url = live.base.replace("http", "ws") + f"/api/games/{gid}/ws"
    page = {"Cookie": f"tessera_session={pat.cookies['tessera_session']}", "Origin": live.base}
    with httpx.stream("GET", f"{live.base}/api/bot/game/stream/{gid}", headers=bearer(tb), timeout=20) as s:
        lines = s.iter_lines()
        full = _next(lines)
        assert full["type"] == "gameFull" and full["seat"] == 1
        with connect(ws_url, additional_headers=page, open_timeout=10) as ws:
            assert json.loads(ws.recv(timeout=10))["view"]["you"] == 0
            time.sleep(1.5)  # the stream looks at the seats' connections every second
        got = _next(lines, "opponentGone")  # (a gameState came first: her arrival claimed the seat)
        assert got == {"type": "opponentGone", "gone": True, "seats": [0]}
        with connect(ws_url, additional_headers=page, open_timeout=10):
            got = _next(lines, "opponentGone")
        assert got == {"type": "opponentGone", "gone": False, "seats": [0]}


def test_a_revoked_token_is_refused_and_the_client_stops(live: Live) -> None:
    """'a revoked token refused': the streams and the moves answer 401, and the reference client
    stops instead of trying again for ever."""
    owner = person(live.base, "Gone")
    token = token_of(owner, ["bot:play", "challenge"])
    assert httpx.post(live.base + "/api/bot/account/upgrade", headers=bearer(token)).status_code == 200
    tid = owner.get("/api/account/tokens").json()["tokens"][0]["id"]
    assert owner.delete(f"/api/account/tokens/{tid}").status_code == 200
    for method, path in (("GET", "/api/stream/event"), ("POST", "/api/bot/game/x/move"), ("GET", "/api/bots/online")):
        r = httpx.request(method, live.base + path, headers=bearer(token), json={"move": "a1"})
        assert r.status_code == (200 if path == "/api/bots/online" else 401), (path, r.text)
    bot = reference_bot(live.base, token)
    bot.run()  # returns: refused
    assert bot.refused is not None and bot.refused.status == 401


def test_upgrade_is_for_an_account_without_games_and_a_bot_makes_no_games_of_its_own(live: Live) -> None:
    """'an account with no games becomes a bot with POST /api/bot/account/upgrade and a bearer token
    holding the bot:play scope (irreversible; a bot cannot join seeks or play hot-seat)'."""
    pat = person(live.base, "Pat")
    r = pat.post("/api/bot/account/upgrade")
    assert r.status_code == 403 and "token" in r.json()["detail"]
    plain = token_of(pat, ["challenge"])
    r = httpx.post(live.base + "/api/bot/account/upgrade", headers=bearer(plain))
    assert r.status_code == 403 and "bot:play" in r.json()["detail"]
    assert (
        httpx.get(live.base + "/api/bot/game/stream/x", headers=bearer(token_of(pat, ["bot:play"]))).status_code == 403
    )
    # an account that played is refused
    made = pat.post("/api/challenges", json={"to": "ai-level1", "game": "nume(size=2)"})
    assert made.status_code == 201, made.text
    r = httpx.post(live.base + "/api/bot/account/upgrade", headers=bearer(token_of(pat, ["bot:play"])))
    assert r.status_code == 409 and "no game" in r.json()["detail"]
    # a bot: refused a second time, and kept out of game creation and the lobby's seats
    tb = bot_account(live.base, "Robo")
    assert httpx.post(live.base + "/api/bot/account/upgrade", headers=bearer(tb)).status_code == 409
    open_game = pat.post("/api/games", json={"game": "nume(size=2)", "mode": "online", "public": True}).json()
    for path, body in (
        ("/api/games", {"game": "nume(size=2)"}),
        (f"/api/games/{open_game['id']}/join", None),
        ("/api/records", {"record": '[Game "nume(size=2)"]\n'}),
    ):
        r = httpx.post(live.base + path, json=body, headers=bearer(tb))
        assert r.status_code == 403 and "bot" in r.json()["detail"], (path, r.text)
    profile = httpx.get(live.base + "/api/users/Robo").json()
    assert profile["is_bot"] is True
    # a person challenges the bot (profiles offer it) and the bot plays its seat by the bot API only
    c = pat.post("/api/challenges", json={"to": "Robo", "game": "nume(size=2)"}).json()
    acc = httpx.post(f"{live.base}/api/challenges/{c['id']}/accept", headers=bearer(tb))
    assert acc.status_code == 200, acc.text
    gid = acc.json()["game_id"]
    with httpx.stream("GET", f"{live.base}/api/bot/game/stream/{gid}", headers=bearer(tb), timeout=10) as s:
        full = _next(s.iter_lines())
    assert full["type"] == "gameFull" and [p["bot"] for p in full["players"]] in ([True, False], [False, True])
    seat = full["seat"]
    if full["state"]["to_move"] == seat:
        bad = httpx.post(f"{live.base}/api/bot/game/{gid}/move", json={"move": "zz9"}, headers=bearer(tb))
        assert bad.status_code == 400 and "not a move" in bad.json()["detail"]


def test_a_burst_is_answered_with_429s_and_no_move_is_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'too many gets a 429 with Retry-After, and the reference client obeys it': a burst of the same
    move sent at once gets 429s (one request at a time per token, and the bucket) and the move is
    stored once; then both bots send every move of a game faster than the bucket allows, through the
    reference client's requests, which wait out each 429: every move is stored, none twice."""
    monkeypatch.setenv("TESSERA_RATE_BOT", "3/4")
    with live_server(f"sqlite:///{tmp_path / 'tessera.db'}") as live:
        ta, tb = bot_account(live.base, "Alpha"), bot_account(live.base, "Beta")
        c = challenge(live.base, ta, "Beta", SMALL["nume"], seat=0)
        time.sleep(1.5)  # the bucket refills after the set-up's requests
        acc = httpx.post(f"{live.base}/api/challenges/{c['id']}/accept", headers=bearer(tb))
        assert acc.status_code == 200, acc.text
        gid = acc.json()["game_id"]
        spec = SMALL["nume"]
        state = tessera.load_game(spec).new_initial_state()
        first = state.random_move(random.Random(1))
        answers: list[httpx.Response] = []
        barrier = threading.Barrier(8)

        def send() -> None:
            barrier.wait()
            answers.append(
                httpx.post(
                    f"{live.base}/api/bot/game/{gid}/move", json={"move": first, "expected": 0}, headers=bearer(ta)
                )
            )

        threads = [threading.Thread(target=send) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        busy = [r for r in answers if r.status_code == 429]
        assert busy and all(int(r.headers["Retry-After"]) >= 1 for r in busy)
        assert {r.status_code for r in answers} <= {200, 409, 429}
        assert record_moves(live.base, gid) == [first]  # stored once
        state.play(first)
        apis = {0: Api(live.base, ta), 1: Api(live.base, tb)}
        rng = random.Random(2)
        sent = [first]
        while not state.is_terminal():
            move = state.random_move(rng)
            r = apis[state.current_player()].post(
                f"/api/bot/game/{gid}/move", {"move": move, "expected": state.move_number()}
            )
            assert r.status_code == 200, r.text
            state.play(move)
            sent.append(move)
        assert apis[0].waited + apis[1].waited > 0, "the bucket should have answered some moves 429"
        assert record_moves(live.base, gid) == sent
        assert finished(live.base, gid)


# -- the documentation's bot -------------------------------------------------------------------
def doc_bot() -> str:
    """The bot written with plain httpx in docs/bot-api.md (the block after '<!-- bot.py -->')."""
    text = (ROOT / "docs" / "bot-api.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- bot\.py -->\s*```python\n(.*?)```", text, re.S)
    assert found, "docs/bot-api.md holds the bot's code"
    return found.group(1)


def test_the_bot_in_the_documentation_plays_the_tessera_bot_command(live: Live, tmp_path: Path) -> None:
    """'a 30-line bot written with plain httpx that a reader can copy': the code of docs/bot-api.md,
    run as it is, accepts a challenge and plays a game to the end — against the reference client run
    as the command ``tessera bot --server URL --token T --agent SPEC --log-dir DIR``, which logs the
    game and writes it into DIR."""
    code = doc_bot()
    assert len([line for line in code.strip().splitlines() if line.strip()]) <= 40  # lines of code
    ta, tb = bot_account(live.base, "Alpha"), bot_account(live.base, "Copied")
    script = tmp_path / "bot.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TESSERA_SERVER": live.base, "TESSERA_TOKEN": tb}
    logs = tmp_path / "games"
    command = [sys.executable, "-m", "tessera", "bot", "--server", live.base, "--token", ta, "--agent", "random"]
    command += ["--accept", "nume", "--log-dir", str(logs)]
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for cmd in ([sys.executable, str(script)], command)
    ]
    try:
        # (two new Python processes importing the engine: slow on a loaded machine)
        wait_for(lambda: online_bots(live.base) == ["Alpha", "Copied"], "the two bots did not connect", 90)
        c = challenge(live.base, ta, "Copied", SMALL["nume"], rated=True)
        gid = wait_for(lambda: _challenge_game(live.base, ta, c["id"]), "the documented bot did not accept", 60)
        view = wait_for(lambda: finished(live.base, gid), "the game with the documented bot did not finish")
        assert view["result"]["reason"] not in ("resign", "flag"), view["result"]
        log = wait_for(lambda: (logs / f"{gid}.json").is_file() and logs / f"{gid}.json", "no game log", 10)
        kept = json.loads(log.read_text())
        assert (
            kept["last"]["status"] == "finished" and kept["game"]["players"][kept["game"]["seat"]]["account"] == "Alpha"
        )
        assert kept["sent"] == [
            m for m, p in zip(kept["last"]["moves"], kept["last"]["movers"], strict=True) if p == kept["game"]["seat"]
        ]
    finally:
        errors = []
        for proc in procs:
            proc.terminate()
            errors.append(proc.communicate(timeout=10)[1].decode())
    assert "Traceback" not in errors[0], errors[0][-2000:]
    assert f"game {gid} finished" in errors[1], errors[1][-2000:]


def test_a_bot_chats_with_its_opponent_in_the_player_room_and_never_reads_the_spectators(live: Live) -> None:
    """docs/bot-api.md: "``POST /api/bot/game/{id}/chat {"room", "text"}``" and the game stream's
    ``chatLine``: the bot's words reach the person's room; the person's reach the bot's stream; a
    spectator's words in the spectators' room never reach a player of a live game."""
    pat, tb = person(live.base, "Pia"), bot_account(live.base, "Chatty")
    c = pat.post("/api/challenges", json={"to": "Chatty", "game": "nume(size=2)", "seat": 0}).json()
    gid = call("POST", f"{live.base}/api/challenges/{c['id']}/accept", tb).json()["game_id"]
    with httpx.stream("GET", f"{live.base}/api/bot/game/stream/{gid}", headers=bearer(tb), timeout=20) as s:
        lines = s.iter_lines()
        assert _next(lines)["type"] == "gameFull"
        r = call("POST", f"{live.base}/api/bot/game/{gid}/chat", tb, json={"room": "player", "text": "good luck"})
        assert r.status_code == 201, r.text
        said = {"type": "chatLine", "room": "player", "username": "Chatty", "text": "good luck"}
        assert _next(lines, "chatLine") == said
        seen = pat.get(f"/api/games/{gid}/chat", params={"room": "player"}).json()["messages"]
        assert [m["text"] for m in seen] == ["good luck"]
        watcher = httpx.Client(base_url=live.base, headers={"Origin": live.base}, timeout=20)
        assert watcher.post(f"/api/games/{gid}/chat", json={"room": "spectator", "text": "hi all"}).status_code == 201
        assert pat.post(f"/api/games/{gid}/chat", json={"room": "player", "text": "thanks"}).status_code == 201
        got = _next(lines, "chatLine")
        assert got["text"] == "thanks" and got["room"] == "player"  # "hi all" (spectators) never came
        too_long = call("POST", f"{live.base}/api/bot/game/{gid}/chat", tb, json={"room": "player", "text": "x" * 201})
        assert too_long.status_code == 400 and "200" in too_long.json()["detail"]
        wrong = call("POST", f"{live.base}/api/bot/game/{gid}/chat", tb, json={"room": "spectator", "text": "hey"})
        assert wrong.status_code in (400, 403), wrong.text


def test_a_move_stored_while_a_game_stream_opens_is_sent_on_it(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    """'a game stream listens before it reads': the opponent's move is stored just after the stream
    read the position it opens with (as a busy server interleaves them); the stream must still send
    that move's ``gameState`` (a stream that read first and listened after missed it for ever, and its
    bot waited with the opponent)."""
    ta, tb = bot_account(live.base, "Alpha"), bot_account(live.base, "Beta")
    c = challenge(live.base, ta, "Beta", SMALL["nume"], seat=0)  # Alpha moves first
    acc = httpx.post(f"{live.base}/api/challenges/{c['id']}/accept", headers=bearer(tb))
    assert acc.status_code == 200, acc.text
    gid = acc.json()["game_id"]
    first = tessera.load_game(SMALL["nume"]).new_initial_state().random_move(random.Random(3))
    service = live.app.state.service
    real_view = service.view
    played: list[int] = []

    def view_then_move(game_id: str, *args: Any, **kw: Any) -> Any:
        view = real_view(game_id, *args, **kw)
        if game_id == gid and not played:  # Beta's stream read the position: Alpha moves now
            r = httpx.post(
                f"{live.base}/api/bot/game/{gid}/move", json={"move": first, "expected": 0}, headers=bearer(ta)
            )
            played.append(r.status_code)
        return view

    monkeypatch.setattr(service, "view", view_then_move)
    with httpx.stream("GET", f"{live.base}/api/bot/game/stream/{gid}", headers=bearer(tb), timeout=20) as s:
        lines = s.iter_lines()
        full = _next(lines)
        assert full["type"] == "gameFull" and full["seat"] == 1 and played == [200]
        deadline = time.monotonic() + 10 * PATIENCE
        while True:  # keep-alives (empty lines) come every 6 s: the move must come before the deadline
            line = next(lines)
            if line.strip():
                obj = json.loads(line)
                if obj["type"] == "gameState":
                    break
            assert time.monotonic() < deadline, "the move stored while the stream opened was never sent"
    assert obj["move_list"] == [first] or obj["moves"] == first, obj


def test_a_stopping_server_waits_for_open_streams_only_its_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """'a stop waits for open requests at most TESSERA_SHUTDOWN_GRACE seconds': bot streams never end
    by themselves, so uvicorn is given a bound; a value that is not a number of seconds is refused."""
    from tessera.server.cli import SHUTDOWN_GRACE, shutdown_grace

    monkeypatch.delenv("TESSERA_SHUTDOWN_GRACE", raising=False)
    assert shutdown_grace() == SHUTDOWN_GRACE
    monkeypatch.setenv("TESSERA_SHUTDOWN_GRACE", "0.5")
    assert shutdown_grace() == 0.5
    for bad in ("soon", "-1", "nan"):
        monkeypatch.setenv("TESSERA_SHUTDOWN_GRACE", bad)
        with pytest.raises(ValueError, match="TESSERA_SHUTDOWN_GRACE"):
            shutdown_grace()
