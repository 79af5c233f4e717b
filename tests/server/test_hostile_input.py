"""Hostile and malformed input: every bad request is a 4xx with a message, never a 500, and never
changes a game.

Found by attacking a running ``tessera serve`` (docs/http-api.md: "Every refusal is a 4xx with a
JSON body {"detail": "<the reason>"}").  Each test quotes the requirement it checks.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

import tessera

JSON = {"content-type": "application/json"}


def assert_refused(r: Any, status: int | tuple[int, ...] = 422, needle: str = "") -> str:
    """A 4xx whose ``detail`` is a readable string (containing ``needle``)."""
    statuses = (status,) if isinstance(status, int) else status
    assert r.status_code in statuses, (r.status_code, r.text[:300])
    detail = r.json()["detail"]
    assert isinstance(detail, str) and detail, detail
    assert needle.lower() in detail.lower(), detail
    return detail


def new_game(client: TestClient, game: str = "nume", **body: Any) -> dict[str, Any]:
    r = client.post("/api/games", json={"game": game, **body})
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (b'{"game": "nume", "params": {"komi": 1e308}}', "komi"),
        (b'{"game": "nume(komi=1e308)"}', "komi"),
        (b'{"game": "nume", "seed": 1000000000000000000000000000000}', "seed"),
        (b'{"game": "nume", "seed": -1000000000000000000000000000000}', "seed"),
        (b'{"game": "nume", "seed": 9223372036854775808}', "seed"),
        (b'{"game": 5}', "game"),
        (b'{"params": {}}', "game"),
        (b'{"game": "nume", "public": "maybe"}', "public"),
        (b"{not json", "json"),
        (b'{"game": "' + b"x" * 100_000 + b'"}', "game"),
    ],
)
def test_bad_create_input_is_a_4xx_with_a_message_never_a_500(client: TestClient, raw: bytes, needle: str) -> None:
    """A bad request (malformed JSON, wrong types, missing fields, huge strings, unknown game/params)
    gets a 4xx with a message and never a 500."""
    detail = assert_refused(client.post("/api/games", content=raw, headers=JSON), 422, needle)
    assert len(detail) < 2000  # a huge input is not echoed back whole


def test_player_names_are_stored_as_printable_text(client: TestClient) -> None:
    """Names with control characters or lone surrogates (valid JSON escapes) never reach the database raw
    (PostgreSQL refuses NUL; no encoding refuses a lone surrogate): they are cleaned, not a 500."""
    r = client.post("/api/games", content=b'{"game": "nume", "names": ["a\\u0000b\\ud800c", "\\u0007"]}', headers=JSON)
    assert r.status_code == 201, r.text
    seats = client.get(f"/api/games/{r.json()['id']}").json()["seats"]
    assert seats[0]["name"] == "abc"
    assert seats[1]["name"] == "White"  # nothing printable left: the default name


@pytest.mark.parametrize("token", ["é", "\u2603" * 40, "\x00", "x" * 10_000])
def test_any_token_that_holds_no_seat_is_a_403_never_a_500(client: TestClient, token: str) -> None:
    """A bad token gets a 4xx with a message: in the query (refused there whatever it is), the body,
    the header, and the WebSocket."""
    g = new_game(client)
    gid = g["id"]
    assert_refused(client.get(f"/api/games/{gid}", params={"token": token}), 400, "token")
    for path, body in [
        ("moves", {"token": token, "move": "a1=3", "expected": 0}),
        ("resign", {"token": token}),
        ("undo", {"token": token}),
        ("undo/accept", {"token": token}),
        ("undo/decline", {"token": token}),
    ]:
        assert_refused(client.post(f"/api/games/{gid}/{path}", json=body), 403, "token")
    if token.isascii():
        header = token.encode()
    else:  # a header arrives as bytes; Starlette reads them as latin-1
        header = token.encode("utf-8")
    assert_refused(client.get(f"/api/games/{gid}", headers={"X-Seat-Token": header}), 403, "token")  # type: ignore[dict-item]
    with client.websocket_connect(f"/api/games/{gid}/ws", params={"token": token}) as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and "token" in msg["detail"]
    if token.isprintable() and token.isascii():  # a subprotocol is an HTTP token: printable ASCII only
        with client.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{token}"]) as ws:
            msg = ws.receive_json()
            assert msg["type"] == "error" and "token" in msg["detail"]
    assert client.get(f"/api/games/{gid}").json()["moves"] == []


def test_huge_moves_are_refused_briefly_and_change_nothing(client: TestClient) -> None:
    """Huge strings get a 4xx with a short message, and never corrupt state."""
    g = new_game(client)
    gid, t0 = g["id"], g["tokens"]["0"]
    detail = assert_refused(
        client.post(f"/api/games/{gid}/moves", json={"token": t0, "move": "a1 " * 50_000, "expected": 0}),
        422,
        "too long",
    )
    assert len(detail) < 500
    after = client.get(f"/api/games/{gid}").json()
    assert after["moves"] == [] and after["version"] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"move": "a1=3"},
        {"move": "a1=3", "expected": "zero"},
        {"move": "a1=3", "expected": 1.5},
        {"move": 5, "expected": 0},
        {"expected": 0},
    ],
)
def test_malformed_move_requests_get_a_readable_4xx(client: TestClient, body: dict[str, Any]) -> None:
    """Wrong types and missing fields get a 4xx whose detail is a message ({"detail": "<the reason>"})."""
    g = new_game(client)
    assert_refused(client.post(f"/api/games/{g['id']}/moves", json={"token": g["tokens"]["0"], **body}), 422)


@pytest.mark.parametrize("expected", [-1, 10**30, 2**63])
def test_negative_or_absurd_move_numbers_are_stale(client: TestClient, expected: int) -> None:
    """A negative or absurd move number is refused as stale (409) with a message, the game unchanged."""
    g = new_game(client)
    r = client.post(
        f"/api/games/{g['id']}/moves", json={"token": g["tokens"]["0"], "move": "a1=3", "expected": expected}
    )
    assert_refused(r, 409, "stale")
    assert client.get(f"/api/games/{g['id']}").json()["moves"] == []


def _record(client: TestClient) -> dict[str, Any]:
    g = new_game(client, params={"size": 2})
    return dict(client.get(f"/api/games/{g['id']}/record").json())


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"seed": 10**30}, "seed"),
        ({"seed": -(10**30)}, "seed"),
        ({"params": {"komi": 1e308}}, "komi"),
        ({"version": True}, "version"),
        ({"clock": {"increment": 1}}, "clock"),
        ({"result": {"reason": "resign", "winner": True}}, "winner"),
    ],
)
def test_bad_json_records_on_import_get_a_4xx_with_the_reason(
    client: TestClient, change: dict[str, Any], needle: str
) -> None:
    """Bad records on import get a 4xx with a message, never a 500."""
    rec = {**_record(client), **change}
    assert_refused(client.post("/api/records", json=rec), 422, needle)


def test_a_record_with_a_bad_name_is_imported_with_the_name_cleaned(client: TestClient) -> None:
    """A record's player names are display text: a lone surrogate is dropped, not a 500."""
    rec = _record(client)
    raw = json.dumps(rec).replace('"name": "Black"', '"name": "B\\ud800lack"').encode()
    r = client.post("/api/records", content=raw, headers=JSON)
    assert r.status_code == 201, r.text
    assert client.get(f"/api/games/{r.json()['id']}").json()["seats"][0]["name"] == "Black"


@pytest.mark.parametrize(
    ("raw", "ctype", "needle"),
    [
        (b'[Game "nume"]\n[Seed "999999999999999999999999999"]\n', "text/plain", "seed"),
        (b'[Game "nume(komi=1e308)"]\n', "text/plain", "komi"),
        (b"[" * 100_000 + b"]" * 100_000, "application/json", "json"),
        (b"x" * (3 * 1024 * 1024), "text/plain", "too large"),
    ],
)
def test_bad_text_records_on_import_get_a_4xx_with_the_reason(
    client: TestClient, raw: bytes, ctype: str, needle: str
) -> None:
    """Bad records on import (absurd seeds, parameters, nesting, size) get a 4xx with a message."""
    assert_refused(client.post("/api/records", content=raw, headers={"content-type": ctype}), (413, 422), needle)


def test_a_long_text_record_line_is_read_in_linear_time(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn's steps are found as legal prefixes of at most a few words, so a line of many words
    is refused at its first illegal word without trying every longer prefix (no quadratic work)."""
    cls = type(tessera.load_game("nume", size=3).new_initial_state())
    original = cls.is_legal
    calls = 0

    def counting(self: Any, move: Any, player: Any = None) -> bool:
        nonlocal calls
        calls += 1
        return bool(original(self, move, player))

    monkeypatch.setattr(cls, "is_legal", counting)
    r = client.post(
        "/api/records",
        content=('[Game "nume(size=3)"]\n1. ' + " ".join(["b2=1"] * 3000)).encode(),
        headers={"content-type": "text/plain"},
    )
    assert_refused(r, 422, "not empty")
    assert calls < 200, calls


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "frame", ["{not json", "[1, 2]", '{"type": "move", "move": "a1=3"}', '"ping"', b"\x00\x01binary"]
)
def test_bad_websocket_messages_get_an_error_and_the_socket_stays_open(client: TestClient, frame: str | bytes) -> None:
    """Bad WebSocket messages get an error with a message; the connection keeps working."""
    g = new_game(client)
    seat = ["tessera.seat", f"seat.{g['tokens']['0']}"]
    with client.websocket_connect(f"/api/games/{g['id']}/ws", subprotocols=seat) as ws:
        assert ws.receive_json()["type"] == "state"
        if isinstance(frame, bytes):
            ws.send_bytes(frame)
        else:
            ws.send_text(frame)
        ws.send_json({"type": "ping"})  # the pong ends the wait even if the bad frame went unanswered
        seen = []
        while (msg := ws.receive_json())["type"] != "pong":
            if msg["type"] not in ("state", "presence"):  # (who is connected may be told at any time)
                seen.append(msg)
        assert len(seen) == 1 and seen[0]["type"] == "error", seen
        assert isinstance(seen[0]["detail"], str) and seen[0]["detail"]


def test_requests_for_unknown_games_leave_nothing_behind(client: TestClient) -> None:
    """Bad game ids get a 404 and never grow the server's memory (one lock per id asked for would)."""
    service = client.app.state.service  # type: ignore[attr-defined]
    before = service.games.in_flight()
    for i in range(100):
        assert_refused(client.get(f"/api/games/nope{i}"), 404, "no game")
    assert service.games.in_flight() <= max(before, 64)


def test_a_retry_of_the_move_that_ended_the_game_gets_the_final_view(client: TestClient) -> None:
    """A duplicate submission is idempotent: "the same move sent again for the move just accepted
    (a retry) is answered with the current view" — also when that move ended the game."""
    g = new_game(client, params={"size": 2}, seed=3)
    gid, tokens = g["id"], g["tokens"]
    state = tessera.load_game("nume", size=2).new_initial_state(seed=3)
    rng = random.Random(4)
    while not state.is_terminal():
        p = state.current_player()
        mv = state.random_move(rng)
        n = state.move_number()
        r = client.post(f"/api/games/{gid}/moves", json={"token": tokens[str(p)], "move": mv, "expected": n})
        assert r.status_code == 200, r.text
        state.play(mv)
    final = r.json()
    assert final["status"] == "finished"
    again = client.post(f"/api/games/{gid}/moves", json={"token": tokens[str(p)], "move": mv, "expected": n})
    assert again.status_code == 200, again.text
    assert again.json()["moves"] == final["moves"] and again.json()["status"] == "finished"


def test_a_retry_of_the_order_that_resolved_a_nelaxtam_turn_is_idempotent(client: TestClient) -> None:
    """A duplicate submission is idempotent: the order that resolved the turn, sent again, gets the current view."""
    g = new_game(client, "nelaxtam", params={"size": 10, "troops": 2, "by_sea": 1}, seed=5)
    gid, t0, t1 = g["id"], g["tokens"]["0"], g["tokens"]["1"]
    state = tessera.load_game("nelaxtam", size=10, troops=2, by_sea=1).new_initial_state(seed=5)
    o0, o1 = state.random_move(random.Random(1), 0), state.random_move(random.Random(2), 1)
    assert client.post(f"/api/games/{gid}/moves", json={"token": t0, "move": o0, "expected": 0}).status_code == 200
    first = client.post(f"/api/games/{gid}/moves", json={"token": t1, "move": o1, "expected": 0})
    assert first.status_code == 200 and first.json()["move_number"] == 1
    again = client.post(f"/api/games/{gid}/moves", json={"token": t1, "move": o1, "expected": 0})
    assert again.status_code == 200, again.text
    assert again.json()["moves"] == first.json()["moves"]
    other = client.post(f"/api/games/{gid}/moves", json={"token": t0, "move": o1, "expected": 0})
    assert_refused(other, 409, "stale")  # not his order: a stale submission, refused


def test_a_flagged_player_cannot_escape_through_an_undo_answer(tmp_path: Any) -> None:
    """Clocks: a flag loses. Answering an undo request checks the clock first, like every other request,
    so a move cannot be taken back after the player to move ran out of time."""
    from tessera.server.match.service import MatchService, ServiceError
    from tessera.server.store.storage import Storage

    service = MatchService(Storage(f"sqlite:///{tmp_path / 'flag.db'}"))
    created = service.create("nume", {"size": 2}, mode="online", clock=(0.3, 0.0), seed=1)
    gid, t0 = created.game_id, created.tokens[0]
    t1 = service.join(gid)[1]
    state = tessera.load_game("nume", size=2).new_initial_state(seed=1)
    rng = random.Random(2)
    for token in (t0, t1):
        mv = state.random_move(rng)
        service.play(gid, token, mv, state.move_number())
        state.play(mv)
    service.undo(gid, t0)  # Black asks to take back; his clock runs meanwhile
    time.sleep(0.4)
    with pytest.raises(ServiceError) as refused:
        service.answer_undo(gid, t1, True)
    assert refused.value.status == 409 and "over" in refused.value.detail
    after = service.view(gid, t1)
    assert after["result"]["reason"] == "flag" and len(after["moves"]) == 2
    service.storage.dispose()


# Bodies no endpoint accepts as they stand: not JSON, JSON of the wrong kind, fields of the wrong types.
HOSTILE_BODIES = (
    b"",
    b"{",
    b"[]",
    b"null",
    b'"x"',
    b"1",
    json.dumps(
        {"game": 1, "token": [], "move": {}, "name": None, "seconds": "x", "moves": "x", "params": [], "seed": "x"}
    ).encode(),
    json.dumps({"game": "nume", "token": "x" * 5000, "params": {"size": 10**9}, "seed": -1, "seconds": 1e308}).encode(),
)


def hostile_requests(client: TestClient, game_id: str, skip: tuple[str, ...]) -> list[str]:
    """Every route of the API (its OpenAPI description) asked with each hostile body (a GET without
    one); what answered otherwise than a 2xx, or a 4xx whose ``detail`` is a readable string.  The
    streams (they stay open) and the routes named in ``skip`` are left out."""
    wrong = []
    site = {"Content-Type": "application/json", "Origin": "http://testserver"}
    for path, operations in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        if path.endswith(("/events", "/event", "/stream")) or "/stream/" in path or path in skip:
            continue
        url = path.replace("{game_id}", game_id).replace("{game}", "nume")
        url = re.sub(r"\{[^}]+\}", "zz", url)
        for method in operations:
            for body in HOSTILE_BODIES if method != "get" else (None,):
                r = client.request(method.upper(), url, content=body, headers=site)
                if r.status_code < 300:
                    continue
                detail = (
                    r.json().get("detail") if r.headers.get("content-type", "").startswith("application/json") else None
                )
                if not 400 <= r.status_code < 500 or not (isinstance(detail, str) and detail):
                    wrong.append(
                        f"{method.upper()} {path} {body[:40] if body else ''!r}: {r.status_code} {r.text[:120]}"
                    )
    return wrong


def test_every_route_answers_hostile_bodies_with_a_4xx_that_says_why(client: TestClient) -> None:
    """ "Bad input always gets a clear error that says what was wrong … a bad request gets a 4xx with a
    message": every route of the API, asked with bodies that are not JSON, JSON of the wrong kind and
    fields of the wrong types, by a guest and by a signed-in account, answers a 4xx whose ``detail``
    says why (or accepts what it may), never a 5xx.  A new route is asked too: the list is the app's
    own OpenAPI description."""
    game_id = new_game(client, mode="hotseat")["id"]
    wrong = hostile_requests(client, game_id, skip=())
    r = client.post(
        "/api/account/signup",
        json={"username": "hostile", "password": "correct horse battery"},
        headers={"Origin": "http://testserver"},
    )
    assert r.status_code == 201, r.text
    # signed in: the routes that end the session are left out (the guest's pass asked them)
    ending = ("/api/account", "/api/account/logout", "/api/account/password")
    wrong += hostile_requests(client, game_id, skip=ending)
    assert not wrong, "\n".join(wrong)
    assert client.get("/api/account").json()["username"] == "hostile"  # the second pass was signed in
