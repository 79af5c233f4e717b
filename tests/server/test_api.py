"""The HTTP and WebSocket API (docs/http-api.md), against SQLite and PostgreSQL.

Each test quotes the requirement it checks.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

import tessera

SMALL: dict[str, dict[str, Any]] = {
    "ikabegama": {"distance": 2, "board": "hexhex:3", "max_plies": 30},
    "nume": {"size": 2},
    "nibble": {},
    "nymbat": {"reserve": 6, "first_limit": 6, "max_turns": 8},
    "nelaxtam": {"size": 10, "troops": 2, "by_sea": 1, "max_idle_turns": 2},
}


def create(client: TestClient, game: str = "ikabegama", **body: Any) -> dict[str, Any]:
    body.setdefault("params", SMALL.get(game, {}))
    r = client.post("/api/games", json={"game": game, **body})
    assert r.status_code == 201, r.text
    return r.json()


def view(client: TestClient, gid: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}", params={"token": token} if token else None)
    assert r.status_code == 200, r.text
    return r.json()


def move(client: TestClient, gid: str, token: str | None, mv: str, expected: int) -> Any:
    return client.post(f"/api/games/{gid}/moves", json={"token": token, "move": mv, "expected": expected})


def wait_for(client: TestClient, gid: str, token: str | None, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.time() + timeout
    while True:
        v = view(client, gid, token)
        if pred(v):
            return v
        assert time.time() < deadline, f"timed out waiting; last view status {v['status']} move {v['move_number']}"
        time.sleep(0.05)


def first_move(v: dict[str, Any]) -> str:
    a = v["render"]["actions"][0]
    return a["move"] if "move" in a else a["template"].replace("{n}", str(a.get("choices", [1])[0]))


# -- catalogue and rules -----------------------------------------------------------------


def test_catalog_lists_every_game_with_parameters(client: TestClient) -> None:
    """Create a game: any game, any parameters — the form is built from the catalogue."""
    data = client.get("/api/catalog").json()
    names = [g["name"] for g in data["games"]]
    assert names == tessera.list_games()
    nume = next(g for g in data["games"] if g["name"] == "nume")
    assert {p["name"] for p in nume["params"]} >= {"size", "variant", "komi"}


@pytest.mark.parametrize("name", tessera.list_games())
def test_rules_page_of_every_game(client: TestClient, name: str) -> None:
    """Side panel: the rules of the game (a rules page per game written for players)."""
    r = client.get(f"/api/rules/{name}")
    assert r.status_code == 200
    assert r.json()["markdown"].startswith("# ")
    assert client.get("/api/rules/chess").status_code == 404


def test_static_client_is_served(client: TestClient) -> None:
    """Client served by the package at /, no build step."""
    assert "lobby.js" in client.get("/").text
    assert "game.js" in client.get("/g/anything").text
    assert client.get("/static/js/board.js").status_code == 200


# -- creating ----------------------------------------------------------------------------


def test_create_gives_unguessable_seat_tokens_and_links(client: TestClient) -> None:
    """A game page and an invite link per seat; seat credentials are unguessable tokens."""
    hot = create(client, "nume", mode="hotseat")
    assert set(hot["tokens"]) == {"0", "1"} and hot["tokens"]["0"] != hot["tokens"]["1"]
    assert all(len(t) >= 40 for t in hot["tokens"].values())
    online = create(client, "nume", mode="online", seat=1)
    assert set(online["tokens"]) == {"1"} and set(online["invites"]) == {"0"}
    assert online["invites"]["0"].startswith(f"/g/{online['id']}#seat=0&t=")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "nume", "params": {"size": 99}}, "size"),
        ({"game": "nume", "params": {"colour": 1}}, "colour"),
        ({"game": "nume", "mode": "telepathy"}, "mode"),
        ({"game": "nume", "seat": 2}, "seat"),
        ({"game": "nume", "mode": "ai", "ai_level": 9}, "ai_level"),
    ],
)
def test_create_refuses_bad_input_with_the_reason(client: TestClient, body: dict[str, Any], needle: str) -> None:
    """Bad input always gets a clear error saying what was wrong."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 422
    assert needle in json.dumps(r.json()["detail"])


def test_unknown_game_is_404(client: TestClient) -> None:
    """Every rejection reaches the client as a 4xx JSON {"detail": ...}."""
    r = client.get("/api/games/nope")
    assert r.status_code == 404 and "nope" in r.json()["detail"]


# -- moves: the authoritative checks -----------------------------------------------------


def test_accepted_move_is_stored_and_acknowledged(client: TestClient) -> None:
    """Every accepted move is committed before it is acknowledged."""
    g = create(client, "nume", mode="hotseat")
    t0 = g["tokens"]["0"]
    r = move(client, g["id"], t0, "a1=2", 0)
    assert r.status_code == 200 and r.json()["move_number"] == 1
    assert view(client, g["id"])["moves"] == [{"index": 0, "player": 0, "move": "a1=2"}]


def test_view_version_grows_with_every_change_so_clients_keep_the_newest(client: TestClient) -> None:
    """Live updates: a client receiving views out of order keeps the newest (the view's version)."""
    g = create(client, "nume", mode="hotseat")
    t0, t1 = g["tokens"]["0"], g["tokens"]["1"]
    v0 = view(client, g["id"])["version"]
    assert view(client, g["id"])["version"] == v0  # reading changes nothing
    v1 = move(client, g["id"], t0, "a1=1", 0).json()["version"]
    v2 = move(client, g["id"], t1, "b1=1", 1).json()["version"]
    v3 = client.post(f"/api/games/{g['id']}/undo", json={"token": t1}).json()["version"]
    assert v0 < v1 < v2 < v3
    assert move(client, g["id"], t1, "zz", 1).status_code == 400
    assert view(client, g["id"])["version"] == v3  # a refused move stores nothing


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


ACK_FIELDS = {"id", "you", "version", "move_number", "to_move", "sealed", "status", "result", "last_move"}


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
    v = client.post(f"/api/games/{g['id']}/resign", json={"token": g["tokens"]["0"]}).json()
    assert v["status"] == "finished"
    assert v["result"]["winner"] == 1 and v["result"]["reason"] == "resign"
    assert v["render"]["result"]["text"] == v["result"]["text"] and v["render"]["actions"] == []


def test_spectators_see_the_game_but_cannot_act(client: TestClient) -> None:
    """Anyone else may watch as a spectator."""
    g = create(client, "nume", mode="online", public=True)
    v = view(client, g["id"])
    assert v["you"] is None and v["render"]["actions"] == []
    assert client.post(f"/api/games/{g['id']}/undo", json={}).status_code == 401


# -- undo ---------------------------------------------------------------------------------


def test_undo_is_free_in_hot_seat(client: TestClient) -> None:
    """Undo: free in hot-seat."""
    g = create(client, "nume", mode="hotseat")
    t0, t1 = g["tokens"]["0"], g["tokens"]["1"]
    move(client, g["id"], t0, "a1=1", 0)
    move(client, g["id"], t1, "b1=1", 1)
    v = client.post(f"/api/games/{g['id']}/undo", json={"token": t0}).json()
    assert v["move_number"] == 1 and [m["move"] for m in v["moves"]] == ["a1=1"]


def test_undo_against_the_ai_takes_back_the_ai_reply_too(client: TestClient) -> None:
    """Undo: free vs AI (your last move and the AI's reply are taken back)."""
    g = create(client, "nume", mode="ai", ai_level=1)
    t0 = g["tokens"]["0"]
    move(client, g["id"], t0, "a1=1", 0)
    wait_for(client, g["id"], t0, lambda v: v["move_number"] == 2)
    v = client.post(f"/api/games/{g['id']}/undo", json={"token": t0}).json()
    assert v["move_number"] == 0 and v["render"]["actions"]


def test_undo_online_is_a_request_the_opponent_answers(client: TestClient) -> None:
    """Undo as a request the opponent accepts."""
    g = create(client, "nume", mode="online", public=True)
    t0 = g["tokens"]["0"]
    t1 = client.post(f"/api/games/{g['id']}/join").json()["token"]
    move(client, g["id"], t0, "a1=1", 0)
    r = client.post(f"/api/games/{g['id']}/undo", json={"token": t0}).json()
    assert r["undo_request"] == 0 and r["move_number"] == 1
    own = client.post(f"/api/games/{g['id']}/undo/accept", json={"token": t0})
    assert own.status_code == 409 and "own" in own.json()["detail"]
    d = client.post(f"/api/games/{g['id']}/undo/decline", json={"token": t1}).json()
    assert d["undo_request"] is None and d["move_number"] == 1
    assert client.post(f"/api/games/{g['id']}/undo/accept", json={"token": t1}).status_code == 409
    client.post(f"/api/games/{g['id']}/undo", json={"token": t0})
    a = client.post(f"/api/games/{g['id']}/undo/accept", json={"token": t1}).json()
    assert a["move_number"] == 0 and a["undo_request"] is None
    nothing = client.post(f"/api/games/{g['id']}/undo", json={"token": t1})
    assert nothing.status_code == 409 and "no move" in nothing.json()["detail"]


# -- AI -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", tessera.list_games())
def test_the_ai_answers_in_every_game(client: TestClient, name: str) -> None:
    """Vs AI: the AI thinks in a worker and submits through the same checks."""
    g = create(client, name, mode="ai", ai_level=1, seat=1)  # the AI moves first (or orders at once)
    t1 = g["tokens"]["1"]
    if name == "nelaxtam":
        v = wait_for(client, g["id"], t1, lambda v: v["sealed"] == [True, False])
        assert v["render"]["order"]["opponent_submitted"] is True
        order = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state().random_move(random.Random(3), 1)
        r = move(client, g["id"], t1, order, 0)
        assert r.status_code == 200, r.text
        assert r.json()["move_number"] == 1
    else:
        v = wait_for(client, g["id"], t1, lambda v: v["to_move"] == 1 or v["status"] != "active")
        assert v["moves"] and all(m["player"] in (0, -2) for m in v["moves"])


# -- Nelaxtam secrecy ----------------------------------------------------------------------


def test_nelaxtam_orders_stay_sealed_until_both_are_in(client: TestClient) -> None:
    """Each player's orders are stored sealed and never sent to the opponent or spectators
    through any endpoint (state, history, WebSocket, export) until both are in."""
    g = create(client, "nelaxtam", mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    state = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state()
    o0, o1 = state.random_move(random.Random(1), 0), state.random_move(random.Random(2), 1)
    with (
        client.websocket_connect(f"/api/games/{gid}/ws?token={t1}") as ws1,
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


# -- clocks ---------------------------------------------------------------------------------


def test_a_flag_loses(client: TestClient) -> None:
    """Optional clocks (time per game + increment; a flag loses) — once each player has made his
    first move, from which his clock runs (lichess-style)."""
    g = create(client, "nume", mode="hotseat", clock={"initial": 0.3, "increment": 0})
    assert move(client, g["id"], g["tokens"]["0"], "a1=1", 0).status_code == 200
    v = move(client, g["id"], g["tokens"]["1"], "a2=1", 1).json()
    assert v["clock"]["running"] == [0]
    time.sleep(0.45)
    r = move(client, g["id"], g["tokens"]["0"], "b1=1", 2)
    assert r.status_code == 409
    v = view(client, g["id"])
    assert v["status"] == "finished" and v["result"]["reason"] == "flag" and v["result"]["winner"] == 1


def test_the_increment_is_added_after_a_turn(client: TestClient) -> None:
    """Clock: time per game + increment.  The first move costs no time: the clock starts with it."""
    g = create(client, "nume", mode="hotseat", clock={"initial": 60, "increment": 5})
    v = move(client, g["id"], g["tokens"]["0"], "a1=1", 0).json()
    assert v["clock"]["remaining"][0] == 65 and v["clock"]["running"] == []
    assert v["clock"]["first_move"][1] is not None, "White's first-move countdown runs instead of his clock"


def test_clocks_start_with_each_players_first_move(client: TestClient) -> None:
    """Issue 15: "clocks start with each player's first move (lichess-style)": before his first move a
    player's time does not run (only a first-move countdown); after it, it runs on his turns."""
    g = create(client, "nume", mode="hotseat", clock={"initial": 60, "increment": 0})
    v = view(client, g["id"])
    assert v["clock"]["running"] == [] and v["clock"]["first_move"][0] is not None
    assert v["clock"]["first_move"][1] is None, "White is not to move yet: no countdown"
    time.sleep(0.2)
    v = move(client, g["id"], g["tokens"]["0"], "a1=1", 0).json()
    assert v["clock"]["remaining"] == [60, 60]
    v = move(client, g["id"], g["tokens"]["1"], "a2=1", 1).json()
    # Black's clock runs again from here: his 0.2 s before the first move were never charged
    assert v["clock"]["remaining"][1] == 60 and v["clock"]["remaining"][0] > 59.8 and v["clock"]["running"] == [0]
    assert v["clock"]["first_move"] == [None, None]


def test_a_game_with_no_first_move_in_time_is_aborted_without_a_result(client: TestClient) -> None:
    """Issue 15: "a game with no first move within a set time is aborted without a result"."""
    g = create(client, "nume", mode="hotseat", clock={"initial": 0.3, "increment": 0})
    assert move(client, g["id"], g["tokens"]["0"], "a1=1", 0).status_code == 200
    time.sleep(0.45)  # White's first-move time (the whole 0.3 s clock here) passes
    r = move(client, g["id"], g["tokens"]["1"], "a2=1", 1)
    assert r.status_code == 409
    v = view(client, g["id"])
    assert v["status"] == "finished"
    assert v["result"]["reason"] == "abort" and v["result"]["winner"] is None and v["result"]["returns"] is None
    assert v["result"]["text"] == "Game aborted: White made no first move in time (no result)"


def test_the_first_move_limit_is_30_seconds_or_the_whole_short_clock() -> None:
    """30 s for the first move, the whole clock if shorter, a twentieth of a long clock (at most an hour)."""
    from tessera.server.service import first_move_limit

    assert first_move_limit(5) == 5 and first_move_limit(300) == 30 and first_move_limit(600) == 30
    assert first_move_limit(3600) == 180 and first_move_limit(86400) == 3600


# -- records and replay ---------------------------------------------------------------------


def play_some(client: TestClient, gid: str, tokens: dict[str, str], n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    played = []
    for _ in range(n):
        v = view(client, gid, tokens["0"])
        if v["status"] != "active":
            break
        p = v["to_move"]
        v = view(client, gid, tokens[str(p)])
        acts = v["render"]["actions"]
        a = rng.choice(acts)
        mv = a["move"] if "move" in a else a["template"].replace("{n}", str((a.get("choices") or a["number"])[0]))
        r = move(client, gid, tokens[str(p)], mv, v["move_number"])
        assert r.status_code == 200, r.text
        played.append(r.json()["moves"][-1]["move"])
    return played


@pytest.mark.parametrize("name", ["ikabegama", "nibble", "nymbat", "nume"])
def test_records_round_trip_as_json_and_text(client: TestClient, name: str) -> None:
    """Game records: export/import as a documented JSON record and plain-text move lists."""
    g = create(client, name, mode="hotseat")
    play_some(client, g["id"], g["tokens"], 12)
    record = client.get(f"/api/games/{g['id']}/record").json()
    assert record["format"] == "tessera-record" and record["game"] == name
    original = view(client, g["id"])
    for payload in (
        {"json": record},
        {"content": client.get(f"/api/games/{g['id']}/record.txt").text, "headers": {"Content-Type": "text/plain"}},
    ):
        r = client.post("/api/records", **payload)
        assert r.status_code == 201, r.text
        copy = view(client, r.json()["id"])
        assert copy["moves"] == original["moves"]
        assert copy["render"]["pieces"] == original["render"]["pieces"]


def test_nelaxtam_record_round_trips(client: TestClient) -> None:
    """Records: simultaneous turns are stored as both orders."""
    g = create(client, "nelaxtam", mode="hotseat")
    state = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state()
    rng = random.Random(5)
    for _ in range(3):
        if state.is_terminal():
            break
        orders = [state.random_move(rng, p) for p in (0, 1)]
        for p in (0, 1):
            assert move(client, g["id"], g["tokens"][str(p)], orders[p], state.move_number()).status_code == 200
        state.play_joint(orders)
    rec = client.get(f"/api/games/{g['id']}/record").json()
    assert all("orders" in t for t in rec["turns"])
    for payload in (
        {"json": rec},
        {"content": client.get(f"/api/games/{g['id']}/record.txt").text, "headers": {"Content-Type": "text/plain"}},
    ):
        r = client.post("/api/records", **payload)
        assert r.status_code == 201, r.text
        assert view(client, r.json()["id"])["moves"] == view(client, g["id"])["moves"]


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        ({"json": {"format": "pgn"}}, "format"),
        (
            {
                "json": {
                    "format": "tessera-record",
                    "version": 1,
                    "game": "nume",
                    "seed": 1,
                    "turns": [{"player": 0, "moves": ["a1"]}],
                }
            },
            "turn 1",
        ),
        ({"content": '[Game "nume(size=2)"]\n1. a1=1\n2. zz9', "headers": {"Content-Type": "text/plain"}}, "turn 2"),
        ({"content": "1. a1=1", "headers": {"Content-Type": "text/plain"}}, "Game"),
        ({"content": "{not json", "headers": {"Content-Type": "application/json"}}, "JSON"),
    ],
)
def test_import_refuses_a_bad_record_saying_why(client: TestClient, payload: dict[str, Any], needle: str) -> None:
    """Bad input always gets a clear error saying what was wrong."""
    r = client.post("/api/records", **payload)
    assert r.status_code == 422 and needle in r.json()["detail"]


def test_replay_positions_step_through_a_finished_game(client: TestClient) -> None:
    """Replay browser for finished games (step back and forth)."""
    g = create(client, "nume", mode="hotseat")
    played = play_some(client, g["id"], g["tokens"], 18)
    v = view(client, g["id"])
    assert v["status"] == "finished" and len(played) == 18
    start = client.get(f"/api/games/{g['id']}/positions/0").json()
    assert start["pieces"] == [] and start["actions"] == []
    mid = client.get(f"/api/games/{g['id']}/positions/5").json()
    assert len(mid["pieces"]) == 5 and mid["move_number"] == 5
    end = client.get(f"/api/games/{g['id']}/positions/18").json()
    assert end["result"] == v["result"]
    assert client.get(f"/api/games/{g['id']}/positions/19").status_code == 422


# -- lobby, joining, WebSocket --------------------------------------------------------------


def test_lobby_lists_open_games_and_join_takes_the_free_seat(client: TestClient) -> None:
    """Lobby listing open games; online between two browsers."""
    g = create(client, "nume", mode="online", public=True)
    hidden = create(client, "nume", mode="hotseat")
    listed = [x["id"] for x in client.get("/api/games?status=open").json()["games"]]
    assert g["id"] in listed and hidden["id"] not in listed
    j = client.post(f"/api/games/{g['id']}/join")
    assert j.status_code == 200 and j.json()["seat"] == 1
    assert g["id"] not in [x["id"] for x in client.get("/api/games?status=open").json()["games"]]
    full = client.post(f"/api/games/{g['id']}/join")
    assert full.status_code == 409 and "taken" in full.json()["detail"]
    assert client.get("/api/games?status=bogus").status_code == 422


def test_websocket_pushes_moves_and_connection_status(client: TestClient) -> None:
    """Live updates over WebSocket; a player's connection status is shown to the other;
    reconnecting clients resume from the stored state."""
    g = create(client, "nume", mode="online", public=True)
    gid, t0 = g["id"], g["tokens"]["0"]
    t1 = client.post(f"/api/games/{gid}/join").json()["token"]
    with client.websocket_connect(f"/api/games/{gid}/ws?token={t0}") as ws0:
        first = ws0.receive_json()
        assert first["type"] == "state" and first["view"]["you"] == 0
        with client.websocket_connect(f"/api/games/{gid}/ws?token={t1}") as ws1:
            ws1.receive_json()
            seen = ws0.receive_json()  # a small presence message, not a whole view
            while seen["type"] != "presence" or not seen["connected"][1]:
                seen = ws0.receive_json()
            assert seen == {"type": "presence", "connected": [True, True]}
            move(client, gid, t0, "a1=3", 0)
            pushed = ws1.receive_json()
            while pushed.get("type") != "state" or pushed["view"]["move_number"] != 1:
                pushed = ws1.receive_json()
            assert pushed["view"]["you"] == 1 and pushed["view"]["moves"][0]["move"] == "a1=3"
            assert pushed["view"]["seats"][0]["connected"] and pushed["view"]["seats"][1]["connected"]
        gone = ws0.receive_json()
        while gone.get("type") != "presence" or gone["connected"][1]:
            gone = ws0.receive_json()
    with client.websocket_connect(f"/api/games/{gid}/ws?token={t1}") as again:
        resumed = again.receive_json()["view"]
        assert resumed["move_number"] == 1 and resumed["render"]["actions"]
    with client.websocket_connect(f"/api/games/{gid}/ws?token=wrong") as bad:
        assert bad.receive_json() == {"type": "error", "detail": f"this token does not hold a seat in game {gid}"}


def test_text_records_read_moves_that_contain_spaces(client: TestClient) -> None:
    """Text records: a turn's steps are separated by single spaces, yet Nume's `komi 3.5 white` is one move."""
    g = create(client, "nume", mode="hotseat", params={"size": 2, "komi_bidding": True})
    gid, t = g["id"], g["tokens"]
    for i, (seat, mv) in enumerate([("0", "komi 3.5 white"), ("1", "black"), ("1", "a1=1"), ("0", "b2=0")]):
        assert move(client, gid, t[seat], mv, i).status_code == 200
    text = client.get(f"/api/games/{gid}/record.txt").text
    assert "komi 3.5 white" in text
    r = client.post("/api/records", content=text, headers={"Content-Type": "text/plain"})
    assert r.status_code == 201, r.text
    assert view(client, r.json()["id"])["moves"] == view(client, gid)["moves"]


def test_serve_command_is_registered_with_its_options() -> None:
    """`tessera serve [--host] [--port] [--db URL]`; the printed database URL hides a password."""
    import argparse

    from tessera.server.cli import _safe, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--port", "9000", "--db", "sqlite:///x.db"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 9000, "sqlite:///x.db") and callable(args.func)
    assert _safe("postgresql+psycopg://bob:secret@db:5432/t") == "postgresql+psycopg://bob:***@db:5432/t"


@pytest.mark.parametrize("name", ["ikabegama", "nume"])
def test_a_record_is_read_into_the_analysis_board_without_creating_a_game(client: TestClient, name: str) -> None:
    """Analysis board "from ... an imported record": `POST /api/analysis/record` reads a JSON or text
    record (docs/records.md) into spec, seed and moves; no game is stored; a bad record is a 422."""
    g = create(client, name, mode="hotseat")
    play_some(client, g["id"], g["tokens"], 6)
    original = view(client, g["id"])
    storage = client.app.state.storage  # type: ignore[attr-defined]

    def stored() -> int:
        with storage.transaction() as tx:
            return len(tx.list_games(public_only=False, limit=1000))

    before = stored()
    for payload in (
        {"json": client.get(f"/api/games/{g['id']}/record").json()},
        {"content": client.get(f"/api/games/{g['id']}/record.txt").text, "headers": {"Content-Type": "text/plain"}},
    ):
        r = client.post("/api/analysis/record", **payload)
        assert r.status_code == 200, r.text
        src = r.json()
        assert src["spec"] == original["spec"] and src["seed"] == original["seed"]
        assert src["moves"] == [[m["player"], m["move"]] for m in original["moves"]]
        at = {"game": src["spec"], "seed": src["seed"], "moves": src["moves"]}
        pos = client.post("/api/analysis/position", json=at)
        assert pos.json()["render"]["pieces"] == original["render"]["pieces"]
    assert stored() == before, "no game was created"
    chess = '[Game "chess"]\n\n1. e4\n'
    bad = client.post("/api/analysis/record", content=chess, headers={"Content-Type": "text/plain"})
    assert bad.status_code == 422 and "cannot be imported" in bad.json()["detail"]
