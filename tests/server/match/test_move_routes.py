"""Moves and resignations over HTTP (``match/move_routes.py`` driving ``match/moves.py``; docs/http-api.md).

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import json
import random
import re
import threading

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.testclient import TestClient
from starlette.exceptions import HTTPException as StarletteHTTPException

import tessera
from tessera.server.http.app import http_error_handler, validation_error_handler
from tessera.server.match.move_routes import MoveIn
from tests.server.helpers import ACK_FIELDS, SMALL, create, every_seat_moves, move, view


def test_accepted_move_is_stored_and_acknowledged(client: TestClient) -> None:
    """Every accepted move is committed before it is acknowledged."""
    g = create(client, "nume", mode="hotseat")
    t0 = g["tokens"]["0"]
    r = move(client, g["id"], t0, "a1=2", 0)
    assert r.status_code == 200 and r.json()["move_number"] == 1
    assert view(client, g["id"])["moves"] == [{"index": 0, "player": 0, "move": "a1=2"}]


def test_illegal_move_is_refused_with_the_rules_reason(client: TestClient) -> None:
    """Every rejection reaches the client with the rule-level reason (IllegalMove message)."""
    g = create(client, "nume", mode="hotseat")
    t0 = g["tokens"]["0"]
    r = move(client, g["id"], t0, "a1", 0)  # a new group needs a number
    assert r.status_code == 400
    reason = tessera.load_game("nume", size=2).new_initial_state().why_illegal("a1")
    assert r.json()["detail"] == reason
    assert move(client, g["id"], t0, "zz99", 0).status_code == 400
    assert view(client, g["id"])["move_number"] == 0


def test_seat_token_is_checked(client: TestClient) -> None:
    """Authoritative server: checks the seat token."""
    g = create(client, "nume", mode="online", public=True)
    assert move(client, g["id"], "forged-token", "a1=1", 0).status_code == 403
    r = move(client, g["id"], None, "a1=1", 0)
    assert r.status_code == 401 and "token" in r.json()["detail"]


def test_only_the_player_to_move_may_move(client: TestClient) -> None:
    """Authoritative server: checks whose turn it is."""
    g = create(client, "nume", mode="hotseat")
    r = move(client, g["id"], g["tokens"]["1"], "a1=1", 0)
    assert r.status_code == 409 and "not your turn" in r.json()["detail"]


def test_stale_move_number_is_refused_and_a_duplicate_is_idempotent(client: TestClient) -> None:
    """Stale/duplicate submission rejected or idempotent (expected move number)."""
    g = create(client, "nume", mode="hotseat")
    t0, t1 = g["tokens"]["0"], g["tokens"]["1"]
    assert move(client, g["id"], t0, "a1=1", 0).status_code == 200
    again = move(client, g["id"], t0, "a1=1", 0)  # the same request again (a retry)
    assert again.status_code == 200 and again.json()["move_number"] == 1
    stale = move(client, g["id"], t1, "a2=1", 0)
    assert stale.status_code == 409 and "stale" in stale.json()["detail"]
    assert move(client, g["id"], t1, "a2=1", 5).status_code == 409
    assert view(client, g["id"])["move_number"] == 1


def test_a_move_can_be_answered_by_its_acknowledgement_alone(client: TestClient) -> None:
    """'a move is acknowledged only after its row is committed': with ``"view": false`` the answer
    is the acknowledgement alone (the web client gets the new view by its socket), for the stored
    version; a retry of it gets the same acknowledgement, and refusals are unchanged."""
    g = create(client, "nume", mode="hotseat")
    gid, t0, t1 = g["id"], g["tokens"]["0"], g["tokens"]["1"]
    with client.websocket_connect(f"/api/games/{gid}/ws") as ws:
        ws.receive_json()
        body = {"token": t0, "move": " a1=2 ", "expected": 0, "view": False}
        r = client.post(f"/api/games/{gid}/moves", json=body)
        assert r.status_code == 200, r.text
        ack = r.json()
        assert set(ack) == ACK_FIELDS
        stored = view(client, gid, t1)
        assert ack["version"] == stored["version"] and ack["move_number"] == stored["move_number"] == 1
        assert ack["last_move"] == stored["moves"][-1] == {"index": 0, "player": 0, "move": "a1=2"}
        assert (ack["you"], ack["to_move"], ack["status"], ack["result"]) == (0, 1, "active", None)
        while True:  # the socket brings the view of that version
            msg = ws.receive_json()
            if msg["type"] == "state" and msg["view"]["version"] == ack["version"]:
                assert msg["view"]["moves"] == stored["moves"]
                break
    again = client.post(f"/api/games/{gid}/moves", json=body)  # the same request again (a retry)
    assert again.status_code == 200 and again.json() == ack
    stale = client.post(f"/api/games/{gid}/moves", json={**body, "token": t1, "move": "b2=1"})
    assert stale.status_code == 409 and "stale" in stale.json()["detail"]
    assert client.post(f"/api/games/{gid}/moves", json={**body, "view": "maybe"}).status_code == 422
    assert view(client, gid)["version"] == ack["version"]


def test_a_sealed_order_acknowledged_alone_says_only_that_it_is_sealed(client: TestClient) -> None:
    """Sealed orders never leak: the acknowledgement of a Nelaxtam order tells which orders are in,
    not what they are; the second order's acknowledgement is the resolved turn."""
    g = create(client, "nelaxtam", mode="hotseat")
    gid, t0, t1 = g["id"], g["tokens"]["0"], g["tokens"]["1"]
    state = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state()
    o0, o1 = state.random_move(random.Random(1), 0), state.random_move(random.Random(2), 1)
    first = client.post(f"/api/games/{gid}/moves", json={"token": t0, "move": o0, "expected": 0, "view": False})
    assert first.status_code == 200, first.text
    assert first.json()["sealed"] == [True, False] and first.json()["last_move"] is None
    assert first.json()["move_number"] == 0 and o0 not in first.text
    second = client.post(f"/api/games/{gid}/moves", json={"token": t1, "move": o1, "expected": 0, "view": False})
    assert second.status_code == 200, second.text
    assert second.json()["move_number"] == 1 and second.json()["sealed"] in (None, [False, False])
    assert second.json()["last_move"] == view(client, gid)["moves"][-1]


def test_racing_submissions_for_one_turn_exactly_one_accepted(client: TestClient) -> None:
    """Two racing submissions for one turn: exactly one accepted."""
    g = create(client, "nume", mode="hotseat")
    t0 = g["tokens"]["0"]
    codes: list[int] = []
    barrier = threading.Barrier(6)

    def go(cell: str) -> None:
        barrier.wait()
        codes.append(move(client, g["id"], t0, f"{cell}=1", 0).status_code)

    threads = [threading.Thread(target=go, args=(c,)) for c in ("a1", "a2", "a3", "a4", "b1", "b2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200, 409, 409, 409, 409, 409]
    assert len(view(client, g["id"])["moves"]) == 1


def test_moves_are_refused_once_the_game_is_over(client: TestClient) -> None:
    """Authoritative server: checks that the game is not over."""
    g = create(client, "nume", mode="hotseat")
    t0 = g["tokens"]["0"]
    assert client.post(f"/api/games/{g['id']}/resign", json={"token": t0}).status_code == 200
    r = move(client, g["id"], t0, "a1=1", 0)
    assert r.status_code == 409 and "over" in r.json()["detail"]
    assert client.post(f"/api/games/{g['id']}/resign", json={"token": t0}).status_code == 409


def test_resign_gives_the_game_to_the_opponent(client: TestClient) -> None:
    """Resign."""
    g = create(client, "ikabegama", mode="online", public=True)
    every_seat_moves(client.app, g["id"])  # before that, a resignation aborts the game
    v = client.post(f"/api/games/{g['id']}/resign", json={"token": g["tokens"]["0"]}).json()
    assert v["status"] == "finished"
    assert v["result"]["winner"] == 1 and v["result"]["reason"] == "resign"
    assert v["render"]["result"]["text"] == v["result"]["text"] and v["render"]["actions"] == []


def test_nelaxtam_orders_stay_sealed_until_both_are_in(client: TestClient) -> None:
    """Each player's orders are stored sealed and never sent to the opponent or spectators
    through any endpoint (state, history, WebSocket, export) until both are in."""
    g = create(client, "nelaxtam", mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    state = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state()
    o0, o1 = state.random_move(random.Random(1), 0), state.random_move(random.Random(2), 1)
    with (
        client.websocket_connect(f"/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t1}"]) as ws1,
        client.websocket_connect(f"/api/games/{gid}/ws") as ws_spec,
    ):
        ws1.receive_json()
        ws_spec.receive_json()
        r = move(client, gid, t0, o0, 0)
        assert r.status_code == 200
        mine = r.json()
        assert mine["render"]["order"]["submitted"] and mine["render"]["order"]["pending"] == o0
        leaks = [
            json.dumps(view(client, gid, t1)),
            json.dumps(view(client, gid)),
            json.dumps(client.get(f"/api/games/{gid}/record").json()),
            client.get(f"/api/games/{gid}/record.txt").text,
            json.dumps(client.get(f"/api/games/{gid}/positions/0").json()),
            json.dumps(client.get("/api/games?status=all").json()),
        ]
        for ws in (ws1, ws_spec):  # read pushes until the sealed order shows as sealed
            ws.send_json({"type": "refresh"})
            while True:
                msg = ws.receive_json()
                leaks.append(json.dumps(msg))
                if msg["type"] == "state" and msg["view"]["sealed"] == [True, False]:
                    break
        for text in leaks:
            assert o0 not in text
            for token in o0.split():  # a landing square may be offered as a choice, never sealed content
                assert not re.search(r'"(pending|order|move)": "[^"]*' + re.escape(token) + r"(?![0-9])", text)
        other = view(client, gid, t1)
        assert other["sealed"] == [True, False] and other["render"]["order"]["opponent_submitted"]
        again = move(client, gid, t0, o1.replace("@", "@"), 0)
        assert again.status_code in (400, 409)
        r = move(client, gid, t1, o1, 0)
        assert r.status_code == 200 and r.json()["move_number"] == 1
        assert r.json()["moves"] == [{"index": 0, "player": -2, "move": f"{o0} | {o1}"}]


def test_nelaxtam_illegal_order_gets_the_rules_reason(client: TestClient) -> None:
    """The server checks the whole order with is_legal(order, player) and returns the rule's reason."""
    g = create(client, "nelaxtam", mode="hotseat")
    r = move(client, g["id"], g["tokens"]["0"], "1@a1 2@a1", 0)
    assert r.status_code == 400
    state = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state()
    assert r.json()["detail"] == state.why_illegal("1@a1 2@a1", 0)


BODIES = [
    (b"", "application/json"),
    (b"{", "application/json"),
    (b"\xff\xfe", "application/json"),
    (b'{"move": "\xff", "expected": 0}', "application/json"),
    (b"[]", "application/json"),
    (b"null", "application/json"),
    (b'"d3"', "application/json"),
    (b'{"move": 5, "expected": 0}', "application/json"),
    (b'{"expected": 0}', "application/json"),
    (b'{"move": "zz99", "expected": "zero"}', "application/json"),
    (b'{"move": "zz99", "expected": 1.5}', "application/json"),
    (b'{"move": "zz99", "view": "maybe"}', "application/json"),
    (b'{"move": "zz99", "expected": 0, "token": 7}', "application/json"),
    (b'{"move": "zz99", "expected": 0}', "text/plain"),
    (b'{"move": "zz99", "expected": 0}', None),
    (b'{"move": "zz99", "expected": 0}', "application/x-www-form-urlencoded"),
    (b'{"move": "zz99", "expected": 0}', "application/vnd.api+json"),
    (b'{"move": "zz99", "expected": 0}', "application/json; charset=utf-8"),
    (b'{"move": "zz99", "expected": 0}', "APPLICATION/JSON"),
]


def test_the_move_route_refuses_a_bad_body_as_a_declared_body_would(client: TestClient) -> None:
    """The move's route reads its body itself (FastAPI's machinery for it cost more than the rest of
    the route): every body FastAPI would refuse for a declared ``MoveIn`` is refused the same way
    (status, message, fields), and every body it would accept is accepted."""
    declared = FastAPI()
    declared.add_exception_handler(RequestValidationError, validation_error_handler)
    declared.add_exception_handler(StarletteHTTPException, http_error_handler)  # as create_app does

    @declared.post("/api/games/{game_id}/moves")
    async def post(game_id: str, body: MoveIn, request: Request) -> dict[str, object]:
        return {"move": body.move}

    reference = TestClient(declared)
    g = create(client, "nume", mode="hotseat")
    url = f"/api/games/{g['id']}/moves"
    for raw, content_type in BODIES:
        headers = {"x-seat-token": g["tokens"]["0"]}
        headers |= {} if content_type is None else {"content-type": content_type}
        ours, theirs = client.post(url, content=raw, headers=headers), reference.post(url, content=raw, headers=headers)
        if theirs.status_code == 200:  # read alike: the move itself is then refused by the rules
            assert ours.status_code == 400 and "zz99" in ours.json()["detail"], (raw, content_type, ours.text)
        else:
            assert (ours.status_code, ours.json()) == (theirs.status_code, theirs.json()), (raw, content_type)
    assert view(client, g["id"])["version"] == 0
