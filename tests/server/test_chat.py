"""Chat in a game (issue 24): 'between the players, and a separate one among spectators; messages at
most 200 characters, rate-limited, stored with the game (not in the public record), mute the
opponent, hidden from a player of a live game when it is the spectators' room.'"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from tessera.server.chat.rooms import CHAT_RATE, MAX_CHARS
from tessera.server.chat.tables import chat_messages_table, chat_mutes_table
from tessera.server.http.app import create_app
from tessera.server.http.limits import Rate
from tessera.server.match.tables import games_table

SITE = "http://testserver"
PASSWORD = "correct horse battery"


@pytest.fixture
def started(db_url: str) -> Iterator[TestClient]:
    """The app, started: its client runs the app's event loop, which its WebSockets share with the hub."""
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    a.state.chat._buckets.rates["chat"] = Rate(0, 1)  # no limit but where a test sets one
    with TestClient(a, headers={"Origin": SITE}) as client:
        yield client


@pytest.fixture
def app(started: TestClient) -> FastAPI:
    a: FastAPI = started.app  # type: ignore[assignment]
    return a


@pytest.fixture
def browser(app: FastAPI) -> Callable[..., TestClient]:
    """A new browser of the site (its own cookies; the site's ``Origin`` unless told otherwise)."""

    def make(origin: str | None = SITE) -> TestClient:
        return TestClient(app, headers={"Origin": origin} if origin else {})

    return make


@pytest.fixture
def c(started: TestClient) -> TestClient:
    return started


def online(c: TestClient) -> tuple[str, str, str]:
    """A public online Nibble game with both seats taken: its id and the two seat tokens."""
    r = c.post("/api/games", json={"game": "nibble", "mode": "online", "public": True})
    assert r.status_code == 201, r.text
    gid, t0 = r.json()["id"], r.json()["tokens"]["0"]
    t1 = c.post(f"/api/games/{gid}/join").json()["token"]
    return gid, t0, t1


def say(c: TestClient, gid: str, room: str, text: str, token: str | None = None) -> Any:
    body: dict[str, Any] = {"room": room, "text": text}
    if token:
        body["token"] = token
    return c.post(f"/api/games/{gid}/chat", json=body)


def history(c: TestClient, gid: str, token: str | None = None, **params: Any) -> Any:
    headers = {"X-Seat-Token": token} if token else {}
    return c.get(f"/api/games/{gid}/chat", params=params, headers=headers)


def texts(answer: Any) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [m["text"] for m in answer.json()["messages"]]


def signed_up(browser: Callable[..., TestClient], name: str) -> TestClient:
    b = browser()
    r = b.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return b


def next_chat(ws: WebSocketTestSession) -> dict[str, Any]:
    """The next chat message a socket receives (views and presence skipped)."""
    while True:
        msg = ws.receive_json()
        if msg["type"] == "chat":
            return dict(msg["message"])


def settle(ws: WebSocketTestSession) -> None:
    """Read a socket up to its answer to a ping (everything pushed before it is consumed)."""
    ws.send_json({"type": "ping"})
    while ws.receive_json()["type"] != "pong":
        pass


# -- the two rooms ---------------------------------------------------------------------------------


def test_players_write_in_the_player_room_and_spectators_in_the_spectator_room(c: TestClient) -> None:
    """'Two rooms: player (between the seated players) and spectator (among spectators)';
    'Author shown by account name or "Guest"/seat name'."""
    gid, t0, t1 = online(c)
    r = say(c, gid, "player", "  good luck  ", t0)
    assert r.status_code == 201, r.text
    m = r.json()
    assert m["room"] == "player" and m["seat"] == 0 and m["text"] == "good luck" and m["author"] == "First"
    assert say(c, gid, "player", "you too", t1).status_code == 201
    r = say(c, gid, "spectator", "what a start")
    assert r.status_code == 201 and r.json()["author"] == "Guest" and r.json()["seat"] is None
    assert texts(history(c, gid, t1)) == ["good luck", "you too"]
    assert texts(history(c, gid)) == ["what a start"]
    h = history(c, gid, t0).json()
    assert h["rooms"] == ["player"] and h["writes"] == "player" and h["muted"] == []
    assert history(c, gid).json()["rooms"] == ["spectator"]


def test_each_writes_only_in_his_own_room(c: TestClient) -> None:
    """Players write in 'player', spectators (anyone else) in 'spectator'; an unknown room is 400."""
    gid, t0, _t1 = online(c)
    r = say(c, gid, "spectator", "psst", t0)
    assert r.status_code == 403 and "player room" in r.json()["detail"]
    r = say(c, gid, "player", "let me in")
    assert r.status_code == 403 and "spectator room" in r.json()["detail"]
    r = say(c, gid, "lobby", "hi", t0)
    assert r.status_code == 400 and "expected 'player' or 'spectator'" in r.json()["detail"]
    assert texts(history(c, gid, t0)) == [] and texts(history(c, gid)) == []


def test_spectators_never_read_the_player_room(c: TestClient) -> None:
    """Decided (as lichess): the player room is private to the players, during the game and after."""
    gid, t0, t1 = online(c)
    assert say(c, gid, "player", "secret plan", t0).status_code == 201
    r = history(c, gid, room="player")
    assert r.status_code == 403 and "private" in r.json()["detail"]
    assert "secret plan" not in history(c, gid).text
    assert c.post(f"/api/games/{gid}/resign", json={"token": t1}).status_code == 200
    assert history(c, gid, room="player").status_code == 403
    assert "secret plan" not in history(c, gid).text


def test_a_player_of_a_live_game_never_receives_the_spectator_room(c: TestClient) -> None:
    """'a player of a live (unfinished) game never receives the spectators' room (neither by HTTP
    nor by the socket); after the end both rooms may be shown to players'."""
    gid, t0, t1 = online(c)
    with (
        c.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t0}"]) as ws0,
        c.websocket_connect(f"/api/games/{gid}/ws") as spec,
    ):
        settle(ws0)
        settle(spec)
        assert say(c, gid, "spectator", "black should play 3", None).status_code == 201
        assert next_chat(spec)["text"] == "black should play 3"
        assert say(c, gid, "player", "hello", t1).status_code == 201
        got = next_chat(ws0)  # the spectators' message was never pushed to the player: his next is this
        assert got["text"] == "hello" and got["room"] == "player"
        r = history(c, gid, t0, room="spectator")
        assert r.status_code == 403 and "until the game is over" in r.json()["detail"]
        assert "black should play 3" not in history(c, gid, t0).text
        # the game ends: the players may read the spectators' room too
        assert c.post(f"/api/games/{gid}/resign", json={"token": t1}).status_code == 200
        assert texts(history(c, gid, t0, room="spectator")) == ["black should play 3"]
        h = history(c, gid, t0).json()
        assert h["rooms"] == ["player", "spectator"] and h["writes"] == "player"
        assert [m["text"] for m in h["messages"]] == ["black should play 3", "hello"]
        assert say(c, gid, "spectator", "well played", None).status_code == 201
        assert next_chat(ws0)["text"] == "well played"


def test_the_socket_pushes_player_messages_to_players_only(c: TestClient) -> None:
    """'new messages pushed over the game WebSocket (hub) to the allowed readers'."""
    gid, t0, t1 = online(c)
    with (
        c.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t1}"]) as ws1,
        c.websocket_connect(f"/api/games/{gid}/ws") as spec,
    ):
        settle(ws1)
        settle(spec)
        m = say(c, gid, "player", "my turn soon", t0).json()
        assert next_chat(ws1) == m
        assert say(c, gid, "spectator", "hi all").status_code == 201
        assert next_chat(spec)["text"] == "hi all"  # the player message was not pushed to the spectator


# -- the messages ----------------------------------------------------------------------------------


def test_a_message_is_at_most_200_characters_after_trimming(c: TestClient) -> None:
    """'Messages at most 200 characters (trimmed; empty or too long → 400 saying why)'."""
    gid, t0, _ = online(c)
    r = say(c, gid, "player", "x" * (MAX_CHARS + 1), t0)
    assert r.status_code == 400 and "at most 200 characters (this one has 201)" in r.json()["detail"]
    assert say(c, gid, "player", "   " + "é" * MAX_CHARS + "   ", t0).status_code == 201
    for blank in ("", "    ", "\u3000", "\u200b\u200b"):  # invisible characters alone are empty too
        r = say(c, gid, "player", blank, t0)
        assert r.status_code == 400 and r.json()["detail"] == "the message is empty"
    assert texts(history(c, gid, t0)) == ["é" * MAX_CHARS]


@pytest.mark.parametrize("bad", ["line\nbreak", "nul\x00", "bell\x07", "esc\x1b[31m", "rev\u202eerse", "del\x7f"])
def test_control_characters_are_refused(c: TestClient, bad: str) -> None:
    """'control characters refused' (line breaks and the invisible direction overrides too)."""
    gid, t0, _ = online(c)
    r = say(c, gid, "player", bad, t0)
    assert r.status_code == 400 and "control character" in r.json()["detail"]
    assert texts(history(c, gid, t0)) == []


def test_a_flood_is_answered_429_with_retry_after_per_author(app: FastAPI, c: TestClient) -> None:
    """'rate-limited per author (429 + Retry-After)': one author's flood does not silence another."""
    app.state.chat._buckets.rates["chat"] = CHAT_RATE
    gid, t0, t1 = online(c)
    codes = [say(c, gid, "player", f"spam {i}", t0).status_code for i in range(int(CHAT_RATE.burst) + 3)]
    assert codes[: int(CHAT_RATE.burst)] == [201] * int(CHAT_RATE.burst) and 429 in codes
    r = say(c, gid, "player", "more", t0)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1 and "too many messages" in r.json()["detail"]
    assert say(c, gid, "player", "the other author still speaks", t1).status_code == 201
    assert len(texts(history(c, gid, t1))) == int(CHAT_RATE.burst) + 1


# -- who is who ------------------------------------------------------------------------------------


def test_someone_elses_seat_token_is_refused(c: TestClient) -> None:
    """A seat is proven 'the way moves are authorised': a token of another game, or a made-up one, is
    403; an unknown game is 404; nothing is stored."""
    gid, _t0, _t1 = online(c)
    _other, o0, _o1 = online(c)
    for token in (o0, "not-a-token"):
        r = say(c, gid, "player", "I am black", token)
        assert r.status_code == 403 and "does not hold a seat" in r.json()["detail"]
        assert history(c, gid, token).status_code == 403
    assert say(c, "nosuchgame", "spectator", "hi").status_code == 404
    assert texts(history(c, gid, _t0)) == []


def test_an_account_holding_a_seat_chats_as_that_player_by_its_session_or_bearer_token(
    browser: Callable[..., TestClient],
) -> None:
    """The seat of an account is proven by its session cookie or its bearer token, as for moves; an
    account without a seat is a spectator shown by its name."""
    alice, bob, carol = (signed_up(browser, n) for n in ("Alice", "Bob", "Carol"))
    ch = alice.post("/api/challenges", json={"to": "bob", "game": "nibble", "seat": 0}).json()
    gid = bob.post(f"/api/challenges/{ch['id']}/accept").json()["game_id"]
    r = say(alice, gid, "player", "hi Bob")
    assert r.status_code == 201 and r.json()["seat"] == 0 and r.json()["author"] == "Alice"
    secret = bob.post("/api/account/tokens", json={"scopes": ["play"]}).json()["token"]
    api = TestClient(bob.app, headers={"Authorization": f"Bearer {secret}"})
    r = say(api, gid, "player", "hi Alice")
    assert r.status_code == 201 and r.json()["seat"] == 1 and r.json()["author"] == "Bob"
    r = say(carol, gid, "spectator", "go Alice")
    assert r.status_code == 201 and r.json()["author"] == "Carol" and r.json()["account"] == "Carol"
    assert say(carol, gid, "player", "me too").status_code == 403
    assert texts(history(alice, gid)) == ["hi Bob", "hi Alice"]
    assert texts(history(carol, gid)) == ["go Alice"]
    assert history(bob, gid, room="spectator").status_code == 403


def test_a_cross_site_post_with_the_cookie_is_refused(browser: Callable[..., TestClient]) -> None:
    """'cross-site POST refused as the other cookie writes are' (Origin of another site, or none)."""
    alice, bob = signed_up(browser, "Alice"), signed_up(browser, "Bob")
    ch = alice.post("/api/challenges", json={"to": "bob", "game": "nibble", "seat": 0}).json()
    gid = bob.post(f"/api/challenges/{ch['id']}/accept").json()["game_id"]
    cookie = {"tessera_session": alice.cookies["tessera_session"]}
    for origin in ("http://evil.example", None):
        evil = browser(origin)
        evil.cookies.update(cookie)
        r = say(evil, gid, "player", "sent by another site")
        assert r.status_code == 403 and "cross-site" in r.json()["detail"]
        r = evil.post(f"/api/games/{gid}/chat/mute", json={"seat": 1})
        assert r.status_code == 403
    assert texts(history(alice, gid)) == []


# -- mutes -----------------------------------------------------------------------------------------


def test_a_player_mutes_the_opponent_and_unmutes_him(c: TestClient) -> None:
    """'a player can mute a seat … so its messages are not shown to them': left out of his history
    and his pushes, kept on the server for his seat; the opponent still reads both."""
    gid, t0, t1 = online(c)
    assert say(c, gid, "player", "before", t1).status_code == 201
    r = c.post(f"/api/games/{gid}/chat/mute", json={"seat": 1, "token": t0})
    assert r.status_code == 200 and r.json() == {"muted": [{"seat": 1}]}
    assert texts(history(c, gid, t0)) == [] and history(c, gid, t0).json()["muted"] == [{"seat": 1}]
    with c.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t0}"]) as ws0:
        settle(ws0)
        assert say(c, gid, "player", "muted words", t1).status_code == 201
        assert say(c, gid, "player", "my own words", t0).status_code == 201
        assert next_chat(ws0)["text"] == "my own words"
    assert texts(history(c, gid, t1)) == ["before", "muted words", "my own words"]
    r = c.post(f"/api/games/{gid}/chat/unmute", json={"seat": 1, "token": t0})
    assert r.status_code == 200 and r.json() == {"muted": []}
    assert texts(history(c, gid, t0)) == ["before", "muted words", "my own words"]


def test_mutes_are_refused_to_spectators_and_of_oneself(c: TestClient) -> None:
    """Only players mute; a seat out of range, one's own seat, or no target is refused, nothing stored."""
    gid, t0, _t1 = online(c)
    assert c.post(f"/api/games/{gid}/chat/mute", json={"seat": 1}).status_code == 403
    for body in ({"seat": 0}, {"seat": 7}, {}, {"seat": 1, "account": "x"}):
        r = c.post(f"/api/games/{gid}/chat/mute", json={**body, "token": t0})
        assert r.status_code == 400, (body, r.text)
    assert c.post(f"/api/games/{gid}/chat/mute", json={"account": "nobody", "token": t0}).status_code == 404
    assert history(c, gid, t0).json()["muted"] == []


def test_a_player_mutes_a_spectator_account_after_the_end(browser: Callable[..., TestClient]) -> None:
    """'mute a seat (or an account)': a spectator with an account, seen by the players once the game is over."""
    c = browser()
    gid, t0, t1 = online(c)
    carol = signed_up(browser, "Carol")
    assert say(carol, gid, "spectator", "boring game").status_code == 201
    assert say(c, gid, "spectator", "nice one").status_code == 201
    assert c.post(f"/api/games/{gid}/resign", json={"token": t1}).status_code == 200
    assert texts(history(c, gid, t0)) == ["boring game", "nice one"]
    r = c.post(f"/api/games/{gid}/chat/mute", json={"account": "carol", "token": t0})
    assert r.status_code == 200 and r.json() == {"muted": [{"account": "Carol"}]}
    assert texts(history(c, gid, t0)) == ["nice one"]
    assert texts(history(c, gid, t1)) == ["boring game", "nice one"]


# -- storage ---------------------------------------------------------------------------------------


def test_chat_is_stored_with_the_game_but_never_in_its_record(c: TestClient) -> None:
    """'stored with the game … but not in the public record (records/exports must not contain chat)'."""
    gid, t0, t1 = online(c)
    assert say(c, gid, "player", "zebra-player-words", t0).status_code == 201
    assert say(c, gid, "spectator", "quokka-spectator-words").status_code == 201
    assert c.post(f"/api/games/{gid}/resign", json={"token": t1}).status_code == 200
    shown = [
        c.get(f"/api/games/{gid}/record").text,
        c.get(f"/api/games/{gid}/record.txt").text,
        c.get(f"/api/games/{gid}").text,
        c.get(f"/api/games/{gid}", headers={"X-Seat-Token": t0}).text,
        c.get("/api/games", params={"status": "all"}).text,
    ]
    assert all(s for s in shown)
    for text in shown:
        assert "zebra" not in text and "quokka" not in text
    assert texts(history(c, gid, t0)) == ["zebra-player-words", "quokka-spectator-words"]


def test_an_accounts_export_holds_no_chat(browser: Callable[..., TestClient]) -> None:
    """The account export is a game export too: it holds no chat."""
    alice, bob = signed_up(browser, "Alice"), signed_up(browser, "Bob")
    ch = alice.post("/api/challenges", json={"to": "bob", "game": "nibble", "seat": 0}).json()
    gid = bob.post(f"/api/challenges/{ch['id']}/accept").json()["game_id"]
    assert say(alice, gid, "player", "walrus-words").status_code == 201
    r = alice.get("/api/account/export")
    assert r.status_code == 200 and gid in r.text and "walrus" not in r.text


def test_chat_is_deleted_with_its_game(app: FastAPI, c: TestClient) -> None:
    """'deleted with the game if games are ever deleted' (ON DELETE CASCADE)."""
    gid, t0, t1 = online(c)
    other, o0, _ = online(c)
    assert say(c, gid, "player", "bye", t0).status_code == 201
    assert say(c, other, "player", "stays", o0).status_code == 201
    assert c.post(f"/api/games/{gid}/chat/mute", json={"seat": 0, "token": t1}).status_code == 200
    engine = app.state.storage.engine
    with engine.begin() as conn:
        conn.execute(games_table.delete().where(games_table.c.id == gid))
    with engine.connect() as conn:
        left = conn.execute(sa.select(chat_messages_table.c.game_id)).scalars().all()
        mutes = conn.execute(sa.select(chat_mutes_table.c.game_id)).scalars().all()
    assert left == [other] and mutes == []


def test_history_after_an_id_gives_only_newer_messages(c: TestClient) -> None:
    """``?after=`` (a client catching up after a lost connection) gets only the messages after that id."""
    gid, t0, t1 = online(c)
    first = say(c, gid, "player", "one", t0).json()
    say(c, gid, "player", "two", t1)
    assert texts(history(c, gid, t0, after=first["id"])) == ["two"]
    body = json.dumps(history(c, gid, t0).json())
    assert "_user" not in body and "user_id" not in body


def test_a_deleted_accounts_messages_show_the_neutral_name(browser: Callable[..., TestClient], c: TestClient) -> None:
    """'Author shown by account name': once the account is deleted, its messages show the neutral
    name and no account to mute (its name is not shown again)."""
    gid, _t0, _t1 = online(c)
    carol = signed_up(browser, "Carol")
    assert say(carol, gid, "spectator", "hello from Carol").json()["author"] == "Carol"
    r = carol.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert r.status_code in (200, 204), r.text
    [m] = history(c, gid).json()["messages"]
    assert m["text"] == "hello from Carol" and m["author"] == "Deleted player" and m["account"] is None
