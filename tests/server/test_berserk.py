"""lichess's own Python client, berserk, plays on a tessera server unchanged (issue 37): nothing but
berserk on the bot's side — ``berserk.Client(session=TokenSession(token), base_url=server)`` — against
a real server (uvicorn, real sockets) and tessera's reference bot.

Whole games of two games (Nume, and two-player Nymbat whose moves hold spaces: ``lose e6``), a
challenge accepted and one sent with berserk's own calls, a decline (JSON and form-encoded), an abort,
a resignation, the chat, the online bots, the account and a public user; lichess's field names in the
events and game states; errors with ``error``.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

import berserk
import httpx
import pytest
import requests

import tessera
from tessera.botclient import AcceptRules
from tests.server.test_bot_api import (
    PATIENCE,
    SMALL,
    Live,
    bot_account,
    call,
    finished,
    live,  # noqa: F401 (a fixture)
    online_bots,
    person,
    record_moves,
    reference_bot,
    running,
    token_of,
    wait_for,
)

NYMBAT = SMALL["nymbat"]
NUME = SMALL["nume"]


def unescape(moves: str) -> list[str]:
    """A lichess ``moves`` string as tessera's moves (docs/bot-api.md: ``_`` stands for a space)."""
    return [m.replace("_", " ") for m in moves.split()]


class BerserkBot:
    """A bot written as for lichess: berserk's calls only (and tessera's rules to choose a move)."""

    def __init__(self, base: str, token: str) -> None:
        self.client = berserk.Client(session=berserk.TokenSession(token), base_url=base)
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.declines: dict[str, str] = {}
        """Game names the bot declines, with the reason."""
        self.states: dict[str, list[dict[str, Any]]] = {}
        self.fulls: dict[str, dict[str, Any]] = {}
        self.said: set[str] = set()
        self.chats: dict[str, list[dict[str, Any]]] = {}
        self.idle: set[str] = set()
        """Game names whose games the bot leaves to the test (it reads their streams, plays nothing)."""
        self.threads: list[threading.Thread] = []
        self.errors: list[str] = []
        """What the server refused the bot (none is expected)."""

    def start(self) -> None:
        t = threading.Thread(target=self._events, daemon=True)
        t.start()

    def _events(self) -> None:
        try:
            for event in self.client.bots.stream_incoming_events():
                self.events.put(event)
                if event["type"] == "challenge" and event["challenge"]["destUser"]["id"] == "berserker":
                    c = event["challenge"]
                    reason = self.declines.get(c["variant"]["short"])
                    if c["variant"]["short"] in self.idle:
                        pass  # left to the test
                    elif reason is not None:
                        self.client.bots.decline_challenge(c["id"], reason)
                    else:
                        self.client.bots.accept_challenge(c["id"])
                elif event["type"] == "gameStart":
                    gid = event["game"]["gameId"]
                    if gid not in self.states:
                        self.states[gid] = []
                        t = threading.Thread(target=self.play, args=(gid,), daemon=True)
                        self.threads.append(t)
                        t.start()
        except (berserk.exceptions.ApiError, requests.RequestException):
            return  # the server stopped

    def play(self, gid: str) -> None:
        """The game's stream: a random legal move whenever it is the bot's turn."""
        import random

        rng = random.Random(7)
        full: dict[str, Any] | None = None
        answered = -1  # the number of moves the bot last answered (a state may repeat a position)
        try:
            for line in self.client.bots.stream_game_state(gid):
                if line["type"] == "gameFull":
                    full, st = line, line["state"]
                    self.fulls[gid] = line
                elif line["type"] == "gameState":
                    st = line
                else:
                    if line["type"] == "chatLine":
                        self.chats.setdefault(gid, []).append(line)
                    continue
                assert full is not None
                self.states[gid].append(st)
                if st["status"] != "started":
                    return
                if full["variant"]["short"] in self.idle:
                    continue
                if full["variant"]["short"] == "nume" and gid not in self.said:
                    self.said.add(gid)
                    self.client.bots.post_message(gid, "good luck")
                seat = 0 if full["white"]["id"] == "berserker" else 1
                state = tessera.load_game(full["variant"]["key"]).new_initial_state(seed=full["seed"])
                for move in unescape(st["moves"]):
                    state.play(move)
                if state.current_player() == seat and len(state.history()) != answered:
                    answered = len(state.history())
                    self.client.bots.make_move(gid, rng.choice(state.legal_moves()))
        except berserk.exceptions.ResponseError as e:
            self.errors.append(f"{gid}: {e.status_code} {e.cause}")
        except (berserk.exceptions.ApiError, requests.RequestException):
            return

    def next_event(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        while True:
            event = self.events.get(timeout=timeout * PATIENCE)
            if event["type"] == kind:
                return event


@pytest.fixture
def bots(live: Live) -> Iterator[tuple[Live, BerserkBot, str]]:  # noqa: F811
    """A berserk bot (``Berserker``) and tessera's reference bot (``Ref``, random moves) on one server."""
    token = token_of(person(live.base, "Berserker"), ["bot:play", "challenge"])
    b = BerserkBot(live.base, token)
    b.client.account.upgrade_to_bot()
    ref_token = bot_account(live.base, "Ref")
    ref = reference_bot(
        live.base, ref_token, rules=AcceptRules(games={"nume", "nymbat", "nibble", "ikabegama"}), concurrency=2
    )
    with running(ref):
        b.start()
        yield live, b, ref_token


def test_berserk_reads_the_account_public_users_and_online_bots(bots: tuple[Live, BerserkBot, str]) -> None:
    """account.get with the scopes the docs recommend for a bot (bot:play, challenge): id, username,
    title BOT; users.get_public_data; bots.get_online_bots (NDJSON)."""
    live_, b, _ = bots
    me = b.client.account.get()
    assert (me["id"], me["username"], me["title"]) == ("berserker", "Berserker", "BOT")
    ref = b.client.users.get_public_data("Ref")
    assert (ref["id"], ref["username"], ref["title"]) == ("ref", "Ref", "BOT")
    wait_for(lambda: online_bots(live_.base) == ["Berserker", "Ref"], "the bots are not online", 30)
    online = list(b.client.bots.get_online_bots())
    assert sorted(u["id"] for u in online) == ["berserker", "ref"] and all(u["title"] == "BOT" for u in online)


def test_berserk_plays_whole_games_of_two_games(bots: tuple[Live, BerserkBot, str]) -> None:
    """A challenge from the reference bot accepted with berserk (Nume), and one sent with berserk's
    challenges.create (two-player Nymbat, whose moves hold spaces): both played to the end, every move
    sent in the path; the events and states carry lichess's names."""
    live_, b, ref_token = bots
    c = call(
        "POST",
        live_.base + "/api/challenges",
        ref_token,
        json={"to": "Berserker", "game": NUME, "rated": True, "clock": {"initial": 180, "increment": 2}, "seat": 1},
    )
    assert c.status_code == 201, c.text
    seen = b.next_event("challenge")["challenge"]
    assert seen["id"] == c.json()["id"] and seen["challenger"]["name"] == "Ref" and seen["challenger"]["title"] == "BOT"
    assert seen["destUser"]["id"] == "berserker" and seen["variant"]["key"] == NUME
    assert seen["speed"] == "blitz" and seen["timeControl"] == {
        "type": "clock",
        "limit": 180,
        "increment": 2,
        "show": "3+2",
    }
    assert seen["color"] == "black" and seen["rated"] is True  # the challenger's colour: seat 1
    start = b.next_event("gameStart")["game"]
    first = start["gameId"]
    assert start["fullId"] == first and start["color"] == "white" and start["opponent"]["username"] == "Ref"
    assert isinstance(start["isMyTurn"], bool) and start["variant"]["key"] == NUME
    view = wait_for(lambda: finished(live_.base, first) or b.errors, "the Nume game did not finish")
    assert not b.errors, b.errors
    assert view["result"]["reason"] not in ("resign", "flag", "abort"), view["result"]

    made = b.client.challenges.create(
        "Ref", rated=True, clock_limit=180, clock_increment=2, color="white", variant=NYMBAT
    )
    assert made["challenge"]["destUser"]["id"] == "ref" and made["color"] == "white"
    second = wait_for(lambda: _game_of(live_.base, ref_token, made["id"]), "Ref did not accept", 30)
    view = wait_for(lambda: finished(live_.base, second) or b.errors, "the Nymbat game did not finish")
    assert not b.errors, b.errors
    assert view["result"]["reason"] not in ("resign", "flag", "abort"), view["result"]

    for gid in (first, second):
        wait_for(lambda gid=gid: b.states[gid] and b.states[gid][-1]["status"] != "started", "no last state", 10)
        last = b.states[gid][-1]
        assert unescape(last["moves"]) == record_moves(live_.base, gid) == last["move_list"]
        assert last["status"] in ("variantEnd", "draw") and last["game_status"] == "finished"
        assert {"wtime", "btime", "winc", "binc"} <= set(last)  # berserk made them timedeltas
        if last["status"] == "variantEnd":
            assert last["winner"] in ("white", "black")
    full = b.fulls[first]
    assert full["white"]["id"] == "berserker" and full["black"]["title"] == "BOT" and full["speed"] == "blitz"
    said = b.chats.get(first, [])
    assert [(m["username"], m["text"], m["room"]) for m in said] == [("Berserker", "good luck", "player")]


def _game_of(base: str, token: str, cid: str) -> str | None:
    r = call("GET", base + "/api/challenges", token, params={"pending": "false"})
    mine = [c for c in r.json()["incoming"] + r.json()["outgoing"] if c["id"] == cid]
    return mine[0]["game_id"] if mine and mine[0]["game_id"] else None


def test_berserk_declines_aborts_and_resigns(bots: tuple[Live, BerserkBot, str]) -> None:
    """decline_challenge (its JSON reason, and lichess's form-encoded one), abort_game before both have
    moved (no result), resign_game after; a refused move's answer carries ``error``."""
    live_, b, ref_token = bots
    b.declines["ikabegama"] = "tooFast"
    c = call("POST", live_.base + "/api/challenges", ref_token, json={"to": "Berserker", "game": SMALL["ikabegama"]})
    assert c.status_code == 201, c.text
    wait_for(lambda: _challenge(live_.base, ref_token, c.json()["id"])["status"] == "declined", "not declined", 20)
    assert _challenge(live_.base, ref_token, c.json()["id"])["reason"] == "tooFast"
    # lichess's documentation sends the reason form-encoded: the bot's berserk session posts it so
    b.idle.add("nibble")
    c = call("POST", live_.base + "/api/challenges", ref_token, json={"to": "Berserker", "game": "nibble(colors=9)"})
    while b.next_event("challenge")["challenge"]["id"] != c.json()["id"]:
        pass  # the earlier challenge's line
    r = b.client.bots._r.session.post(f"{live_.base}/api/challenge/{c.json()['id']}/decline", data={"reason": "casual"})
    assert r.status_code == 200, r.text
    assert _challenge(live_.base, ref_token, c.json()["id"])["reason"] == "casual"

    # an abort: Berserker (white) has not moved; nothing is rated
    made = b.client.challenges.create("Ref", rated=True, color="white", variant="nibble(colors=9)")
    gid = wait_for(lambda: _game_of(live_.base, ref_token, made["id"]), "Ref did not accept", 30)
    with pytest.raises(berserk.exceptions.ResponseError) as bad:
        b.client.bots.make_move(gid, "zz")
    assert bad.value.status_code == 400 and bad.value.cause["error"] == bad.value.cause["detail"]
    b.client.bots.abort_game(gid)
    view = finished(live_.base, gid)
    assert view is not None and view["result"]["reason"] == "abort" and view["result"]["returns"] is None
    wait_for(lambda: b.states.get(gid) and b.states[gid][-1]["status"] == "aborted", "no aborted state", 10)
    assert httpx.get(f"{live_.base}/api/users/Berserker").json()["ratings"] == {}

    # a resignation once both have moved: a loss, rated
    made = b.client.challenges.create("Ref", rated=True, color="white", variant="nibble(colors=9)")
    gid = wait_for(lambda: _game_of(live_.base, ref_token, made["id"]), "Ref did not accept", 30)
    wait_for(lambda: b.fulls.get(gid), "no gameFull", 10)
    seed = b.fulls[gid]["seed"]
    while True:
        st = b.states[gid][-1]
        state = tessera.load_game("nibble(colors=9)").new_initial_state(seed=seed)
        for move in unescape(st["moves"]):
            state.play(move)
        if {p for p, _ in state.history()} >= {0, 1}:
            break
        played = len(state.history())
        if state.current_player() == 0:
            b.client.bots.make_move(gid, state.legal_moves()[0])
        wait_for(lambda played=played: len(b.states[gid][-1]["moves"].split()) > played, "no move came", 30)
    b.client.bots.resign_game(gid)
    view = finished(live_.base, gid)
    assert view is not None and view["result"]["reason"] == "resign" and view["result"]["winner"] == 1
    wait_for(lambda: b.states[gid][-1]["status"] == "resign", "no resign state", 10)
    assert b.states[gid][-1]["winner"] == "black"
    assert httpx.get(f"{live_.base}/api/users/Berserker").json()["ratings"]["nibble"]["games"] == 1


def _challenge(base: str, token: str, cid: str) -> dict[str, Any]:
    r = call("GET", base + "/api/challenges", token, params={"pending": "false"})
    return next(c for c in r.json()["incoming"] + r.json()["outgoing"] if c["id"] == cid)


def test_a_person_plays_through_berserks_board_client(bots: tuple[Live, BerserkBot, str]) -> None:
    """The board API (a person's token with ``play``): berserk's board.stream_game_state, make_move,
    offer_draw, post_message and resign_game."""
    live_, _, ref_token = bots
    token = token_of(person(live_.base, "Pia"), ["play", "challenge"])
    pia = berserk.Client(session=berserk.TokenSession(token), base_url=live_.base)
    made = pia.challenges.create("Ref", rated=False, color="white", variant="ikabegama")
    gid = wait_for(lambda: _game_of(live_.base, ref_token, made["id"]), "Ref did not accept", 30)
    lines: list[dict[str, Any]] = []

    def read() -> None:
        try:
            lines.extend(pia.board.stream_game_state(gid))
        except (berserk.exceptions.ApiError, requests.RequestException):
            return

    threading.Thread(target=read, daemon=True).start()
    wait_for(lambda: lines and lines[0]["type"] == "gameFull", "no gameFull", 10)
    full = lines[0]
    assert full["white"]["id"] == "pia" and full["black"]["title"] == "BOT"
    state = tessera.load_game("ikabegama").new_initial_state(seed=full["seed"])
    pia.board.make_move(gid, state.legal_moves()[0])
    wait_for(lambda: len(_states(lines)[-1]["moves"].split()) >= 2, "Ref did not answer", 30)
    pia.board.post_message(gid, "well played")
    wait_for(lambda: any(x["type"] == "chatLine" and x["text"] == "well played" for x in lines), "no chat", 10)
    pia.board.offer_draw(gid)
    wait_for(
        lambda: any(st["wdraw"] for st in _states(lines)) or _states(lines)[-1]["status"] == "draw", "no offer", 10
    )
    if _states(lines)[-1]["status"] == "started":
        pia.board.resign_game(gid)
        wait_for(lambda: _states(lines)[-1]["status"] == "resign", "no resign state", 10)
        assert _states(lines)[-1]["winner"] == "black"


def _states(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x["state"] if x["type"] == "gameFull" else x for x in lines if x["type"] in ("gameFull", "gameState")]
