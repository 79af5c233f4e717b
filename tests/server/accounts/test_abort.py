"""Games that start or end properly (issue 37): the first-move countdown runs from the game's
creation for every seat, an abort for people until every seat has moved, and a resignation before
that is an abort (as lichess) — none of them changes a rating."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.server.helpers import first_move, move, view

Browser = Callable[..., TestClient]
User = Callable[[str], TestClient]


def accepted(frm: TestClient, to: TestClient, to_name: str, **body: Any) -> dict[str, Any]:
    """A challenge of ``frm`` to ``to`` made and accepted: the acceptor's answer (game id, seat, token)."""
    r = frm.post("/api/challenges", json={"to": to_name, "game": "nume(size=2)", **body})
    assert r.status_code == 201, r.text
    r = to.post(f"/api/challenges/{r.json()['id']}/accept")
    assert r.status_code == 200, r.text
    return dict(r.json())


def seat_token(b: TestClient, gid: str) -> str:
    r = b.get(f"/api/account/games/{gid}/seat")
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def play_until_every_seat_moved(gid: str, tokens: dict[int, tuple[TestClient, str]]) -> dict[str, Any]:
    """Legal moves by whoever is to move until both seats have made one: the last view."""
    while True:
        b, tok = tokens[0]
        v = view(b, gid, tok)
        if {m["player"] for m in v["moves"]} >= {0, 1}:
            return v
        b, tok = tokens[v["to_move"]]
        v = view(b, gid, tok)
        assert move(b, gid, tok, first_move(v), v["move_number"]).status_code == 200


def test_a_game_whose_first_mover_never_opens_it_is_aborted_with_no_rating_change(user: User, app: FastAPI) -> None:
    """The countdown runs from the game's creation, whether or not the first mover ever connected:
    nobody opens the game, and the clock timers alone abort it (nothing read it meanwhile)."""
    alice, bob = user("Alice"), user("Bob")
    got = accepted(alice, bob, "Bob", rated=True, clock={"initial": 2, "increment": 0}, seat=0)
    gid = got["game_id"]
    service = app.state.service
    deadline = time.time() + 30
    while (row := service.games.stored(gid)[0]).status == "active":
        assert time.time() < deadline, "the game was never aborted"
        time.sleep(0.1)
    assert row.result is not None and row.result["reason"] == "abort"
    assert row.result["winner"] is None and row.result["returns"] is None
    assert alice.get("/api/account").json()["ratings"] == {}
    assert bob.get("/api/account").json()["ratings"] == {}


def test_the_first_move_countdown_is_shown_from_creation_before_anyone_opens_the_game(
    user: User, browser: Browser
) -> None:
    alice, bob = user("Alice"), user("Bob")
    gid = accepted(alice, bob, "Bob", clock={"initial": 300, "increment": 0}, seat=0)["game_id"]
    clock = view(browser(), gid)["clock"]  # a spectator: no seat claimed by looking
    assert clock["first_move"][0] is not None and 0 < clock["first_move"][0] <= 30


def test_either_player_may_abort_until_both_have_moved(user: User) -> None:
    alice, bob = user("Alice"), user("Bob")
    got = accepted(alice, bob, "Bob", rated=True, seat=0)
    gid, bob_token = got["game_id"], got["token"]
    alice_token = seat_token(alice, gid)
    v = view(alice, gid, alice_token)
    assert v["abortable"] is True
    assert move(alice, gid, alice_token, first_move(v), v["move_number"]).status_code == 200
    assert view(bob, gid, bob_token)["abortable"] is True  # Bob has not moved yet
    r = bob.post(f"/api/games/{gid}/abort", json={"token": bob_token})
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["status"] == "finished" and done["abortable"] is False
    assert done["result"]["reason"] == "abort" and done["result"]["returns"] is None
    assert done["result"]["key"] == "result.aborted_by"
    assert alice.get("/api/account").json()["ratings"] == {}
    assert alice.get("/api/users/Alice/games").json()["games"][0]["result"] == "aborted"


def test_no_abort_once_both_have_moved(user: User) -> None:
    alice, bob = user("Alice"), user("Bob")
    got = accepted(alice, bob, "Bob", seat=0)
    gid = got["game_id"]
    seats = {0: (alice, seat_token(alice, gid)), 1: (bob, got["token"])}
    v = play_until_every_seat_moved(gid, seats)
    assert v["abortable"] is False
    r = alice.post(f"/api/games/{gid}/abort", json={"token": seats[0][1]})
    assert r.status_code == 409
    assert r.json()["key"] == "refusal.not_abortable" and "resign instead" in r.json()["detail"]
    assert view(alice, gid, seats[0][1])["status"] == "active"  # nothing changed


def test_an_abort_needs_a_seat_of_the_game(user: User) -> None:
    alice, bob, mallory = user("Alice"), user("Bob"), user("Mallory")
    gid = accepted(alice, bob, "Bob")["game_id"]
    assert mallory.post(f"/api/games/{gid}/abort", json={"token": "not-a-seat-token"}).status_code == 403
    assert view(alice, gid, seat_token(alice, gid))["status"] == "active"


def test_a_resignation_before_both_have_moved_is_an_abort(user: User) -> None:
    """As lichess: resigning a game that could still be aborted aborts it — no loss, no rating change."""
    alice, bob = user("Alice"), user("Bob")
    got = accepted(alice, bob, "Bob", rated=True, seat=0)
    r = bob.post(f"/api/games/{got['game_id']}/resign", json={"token": got["token"]})
    assert r.status_code == 200, r.text
    assert r.json()["result"]["reason"] == "abort" and r.json()["result"]["winner"] is None
    assert alice.get("/api/account").json()["ratings"] == {}
    assert bob.get("/api/account").json()["ratings"] == {}


def test_a_resignation_after_both_have_moved_loses_and_is_rated(user: User) -> None:
    alice, bob = user("Alice"), user("Bob")
    got = accepted(alice, bob, "Bob", rated=True, seat=0)
    gid = got["game_id"]
    play_until_every_seat_moved(gid, {0: (alice, seat_token(alice, gid)), 1: (bob, got["token"])})
    r = bob.post(f"/api/games/{gid}/resign", json={"token": got["token"]})
    assert r.status_code == 200 and r.json()["result"]["reason"] == "resign" and r.json()["result"]["winner"] == 0
    assert alice.get("/api/account").json()["ratings"]["nume"]["games"] == 1


def test_abortable_until_every_seat_has_moved_whatever_the_games_length() -> None:
    """ "allowed until every seat has made a move": a joint turn is every seat's move; a game over is
    never abortable; the answer does not change once every seat has moved, however many moves follow."""
    from tessera.server.match.knowledge import abortable
    from tessera.server.match.tables import MoveRow

    def moves(*players: int) -> list[MoveRow]:
        return [MoveRow(i, p, "m") for i, p in enumerate(players)]

    assert abortable("active", 2, moves())
    assert abortable("active", 2, moves(0, 0, 0))
    assert not abortable("active", 2, moves(0, 1))
    assert not abortable("active", 2, moves(0, 1, *([0, 1] * 500)))
    assert abortable("active", 4, moves(0, 1, 2))
    assert not abortable("active", 2, moves(-1))
    assert not abortable("finished", 2, moves())
    assert not abortable("active", 2, iter(moves(1, 0)))
