"""Challenges, seats bound to accounts, rated games, history, leaderboard, deletion and export."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from tessera.server.accounts import glicko2
from tessera.server.accounts.auth import accounts, seat_token_for
from tessera.server.accounts.rating import rate_finished_game, rate_pending
from tessera.server.accounts.store import DELETED_NAME, AccountStore
from tessera.server.accounts.tables import history_table
from tessera.server.ai.ratings import level_rating
from tests.server.accounts.conftest import PASSWORD
from tests.server.helpers import every_seat_moves, first_move, move, view

Browser = Callable[..., TestClient]
User = Callable[[str], TestClient]


def challenge(frm: TestClient, to: str, **body: Any) -> dict[str, Any]:
    r = frm.post("/api/challenges", json={"to": to, "game": "nibble", **body})
    assert r.status_code == 201, r.text
    return r.json()


def play_challenge(frm: TestClient, to: TestClient, to_name: str, *, moved: bool = True, **body: Any) -> dict[str, Any]:
    """A challenge made and accepted, and (``moved``) a move by each seat — a resignation before that
    would abort the game: the acceptor's answer (game id, seat, token)."""
    c = challenge(frm, to_name, **body)
    r = to.post(f"/api/challenges/{c['id']}/accept")
    assert r.status_code == 200, r.text
    if moved:
        every_seat_moves(to.app, r.json()["game_id"])
    return r.json()


def my_seat(b: TestClient, gid: str) -> dict[str, Any]:
    r = b.get(f"/api/account/games/{gid}/seat")
    assert r.status_code == 200, r.text
    return r.json()


def store_of(app: FastAPI) -> AccountStore:
    class _R:
        pass

    req: Any = _R()
    req.app = app
    return accounts(req)


def test_a_challenge_is_seen_by_both_and_accepting_binds_both_seats(user: User, browser: Browser) -> None:
    """'accepting creates the game with both seats bound to the two accounts'."""
    alice, bob = user("Alice"), user("Bob")
    c = challenge(alice, "bob", rated=True, clock={"initial": 300, "increment": 2}, seat=0)
    assert c["status"] == "pending" and c["from"] == "Alice" and c["to"] == "Bob" and c["rated"] is True
    assert [x["id"] for x in bob.get("/api/challenges").json()["incoming"]] == [c["id"]]
    assert [x["id"] for x in alice.get("/api/challenges").json()["outgoing"]] == [c["id"]]
    assert alice.post(f"/api/challenges/{c['id']}/accept").status_code == 403  # not his to accept
    carol = user("Carol")
    assert carol.post(f"/api/challenges/{c['id']}/accept").status_code == 404
    r = bob.post(f"/api/challenges/{c['id']}/accept")
    assert r.status_code == 200, r.text
    got = r.json()
    gid = got["game_id"]
    assert got["seat"] == 1  # Alice asked for the first seat
    assert bob.post(f"/api/challenges/{c['id']}/accept").status_code == 409
    seats = browser().get(f"/api/games/{gid}/accounts").json()
    assert seats["rated"] is True and seats["pool"] == "nibble"
    assert {k: v["username"] for k, v in seats["seats"].items()} == {"0": "Alice", "1": "Bob"}
    a = my_seat(alice, gid)
    assert a["seat"] == 0 and my_seat(bob, gid) == {"seat": 1, "token": got["token"]}
    v = view(alice, gid, a["token"])
    assert [p["name"] for p in v["seats"]] == ["Alice", "Bob"] and v["you"] == 0
    # the game is private: nobody else takes a seat from the lobby
    assert browser().post(f"/api/games/{gid}/join").status_code == 403


def test_another_account_cannot_act_in_the_game(user: User, browser: Browser) -> None:
    """'act in another account's game': no seat token for a stranger, and no move without one."""
    alice, bob, mallory = user("Alice"), user("Bob"), user("Mallory")
    got = play_challenge(alice, bob, "Bob", seat=0, moved=False)
    gid = got["game_id"]
    assert mallory.get(f"/api/account/games/{gid}/seat").status_code == 404
    a = my_seat(alice, gid)
    v = view(alice, gid, a["token"])
    r = mallory.post(f"/api/games/{gid}/moves", json={"move": first_move(v), "expected": v["move_number"]})
    assert r.status_code in (401, 403)
    r = mallory.post(f"/api/games/{gid}/resign", json={"token": "not-a-seat-token"})
    assert r.status_code == 403
    assert view(alice, gid, a["token"])["move_number"] == v["move_number"]  # nothing changed
    # the rightful player moves
    assert move(alice, gid, a["token"], first_move(v), v["move_number"]).status_code == 200


def test_decline_with_a_reason_and_cancel(user: User) -> None:
    alice, bob = user("Alice"), user("Bob")
    c = challenge(alice, "Bob")
    r = bob.post(f"/api/challenges/{c['id']}/decline", json={"reason": "later, please"})
    assert r.status_code == 200
    out = alice.get("/api/challenges", params={"pending": "false"}).json()["outgoing"][0]
    assert out["status"] == "declined" and out["reason"] == "later, please"
    assert bob.post(f"/api/challenges/{c['id']}/accept").status_code == 409
    c2 = challenge(alice, "Bob")
    assert bob.delete(f"/api/challenges/{c2['id']}").status_code == 403  # only the challenger cancels
    assert alice.delete(f"/api/challenges/{c2['id']}").status_code == 200
    assert bob.post(f"/api/challenges/{c2['id']}/accept").status_code == 409
    assert bob.get("/api/challenges").json()["incoming"] == []


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"to": "Nobody99", "game": "nibble"}, 404),
        ({"to": "Alice", "game": "nibble"}, 422),
        ({"to": "Bob", "game": "chess"}, 422),
        ({"to": "Bob", "game": "nymbat(players=4)"}, 422),
        ({"to": "Bob", "game": "nibble", "seat": 2}, 422),
        ({"to": "Bob", "game": "nibble", "clock": {"initial": 0}}, 422),
        ({"to": "Bob", "game": "nibble", "extra": 1}, 422),
        ({"to": "ai-level9", "game": "nibble"}, 404),
        ({"to": "ai-level6", "game": "nibble"}, 422),  # level 6 only where a stored SPRT offers it
    ],
)
def test_bad_challenges_are_refused_and_store_nothing(user: User, body: dict[str, Any], status: int) -> None:
    alice, bob = user("Alice"), user("Bob")
    r = alice.post("/api/challenges", json=body)
    assert r.status_code == status, r.text
    assert isinstance(r.json()["detail"], str)
    assert alice.get("/api/challenges").json() == {"incoming": [], "outgoing": []}
    assert bob.get("/api/challenges").json() == {"incoming": [], "outgoing": []}


def test_a_guest_cannot_challenge(browser: Browser, user: User) -> None:
    user("Bob")
    assert browser().post("/api/challenges", json={"to": "Bob", "game": "nibble"}).status_code == 401


def test_a_rated_game_to_the_end_changes_both_ratings_by_the_glicko2_formula(
    user: User, browser: Browser, app: FastAPI
) -> None:
    """'rating updates when a rated game ends' — each rated game is one rating period (lichess)."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", rated=True, seat=0)
    gid = got["game_id"]
    # Bob resigns: Alice wins
    r = bob.post(f"/api/games/{gid}/resign", json={"token": got["token"]})
    assert r.status_code == 200 and r.json()["status"] == "finished"
    want_a, want_b = glicko2.rate_game([glicko2.Rating(), glicko2.Rating()], [1.0, -1.0])
    ra = alice.get("/api/account").json()["ratings"]["nibble"]
    rb = bob.get("/api/account").json()["ratings"]["nibble"]
    assert ra == {"rating": round(want_a.rating), "rd": round(want_a.rd, 1), "provisional": True, "games": 1}
    assert rb == {"rating": round(want_b.rating), "rd": round(want_b.rd, 1), "provisional": True, "games": 1}
    assert ra["rating"] > 1500 > rb["rating"]
    # rated once only, whoever asks again
    assert rate_finished_game(app.state.storage, gid) is None
    assert alice.get("/api/account").json()["ratings"]["nibble"]["games"] == 1
    # the change is shown for the game
    seats = browser().get(f"/api/games/{gid}/accounts").json()["seats"]
    assert seats["0"]["rating"]["change"] == round(want_a.rating) - 1500
    assert seats["1"]["rating"]["after"] == round(want_b.rating)
    # history and graph
    h = browser().get("/api/users/alice/games").json()
    assert h["total"] == 1 and h["games"][0]["result"] == "win" and h["games"][0]["rated"] is True
    assert [p["username"] for p in h["games"][0]["players"]] == ["Alice", "Bob"]
    assert browser().get("/api/users/Bob/games", params={"result": "loss"}).json()["total"] == 1
    assert browser().get("/api/users/Bob/games", params={"result": "win"}).json()["total"] == 0
    graph = browser().get("/api/users/Alice/ratings/nibble").json()["history"]
    assert [(g["before"], g["rating"]) for g in graph] == [(1500, round(want_a.rating))]
    prof = browser().get("/api/users/Alice").json()
    assert prof["counts"]["win"] == 1 and prof["ratings"]["nibble"]["games"] == 1


def test_a_casual_game_changes_no_rating(user: User) -> None:
    """'casual games change nothing'."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", rated=False)
    assert bob.post(f"/api/games/{got['game_id']}/resign", json={"token": got["token"]}).status_code == 200
    assert alice.get("/api/account").json()["ratings"] == {}
    assert alice.get("/api/users/Alice/games").json()["games"][0]["result"] in ("win", "loss")


def test_the_leaderboard_lists_only_non_provisional_players_best_first(user: User, browser: Browser) -> None:
    """'GET /api/leaderboard/{game} (non-provisional players, best first)'."""
    alice, bob = user("Alice"), user("Bob")
    user("Carol")
    games = 0
    while True:
        got = play_challenge(alice, bob, "Bob", rated=True, seat=games % 2)
        games += 1
        loser = bob if games % 3 else alice  # Alice wins two games in three
        token = got["token"] if loser is bob else my_seat(alice, got["game_id"])["token"]
        assert loser.post(f"/api/games/{got['game_id']}/resign", json={"token": token}).status_code == 200
        board = browser().get("/api/leaderboard/nibble").json()["players"]
        if len(board) == 2 or games > 60:
            break
    assert [p["username"] for p in board] == ["Alice", "Bob"]
    assert all(not p["provisional"] and p["rd"] < glicko2.PROVISIONAL_RD for p in board)
    assert board[0]["rating"] > board[1]["rating"] and board[0]["rank"] == 1
    assert browser().get("/api/leaderboard/chess").status_code == 404


def test_a_challenge_to_an_ai_account_starts_a_rated_game_against_it(user: User, browser: Browser) -> None:
    """'AI accounts ai-level1…ai-level5 per game': a player's rating means something against the AI."""
    alice = user("Alice")
    got = challenge(alice, "ai-level1", rated=True, seat=1)
    assert got["status"] == "accepted" and got["seat"] == 1
    gid = got["game_id"]
    assert browser().get(f"/api/games/{gid}/accounts").json()["seats"]["0"]["username"] == "ai-level1"
    every_seat_moves(alice.app, gid)  # before that, a resignation aborts the game
    assert alice.post(f"/api/games/{gid}/resign", json={"token": got["token"]}).status_code == 200
    ai = browser().get("/api/users/ai-level1").json()
    start = level_rating("nibble", 1).rating  # the AI account starts at its level's measured rating
    assert ai["is_bot"] is True and ai["ratings"]["nibble"]["rating"] > start
    assert alice.get("/api/account").json()["ratings"]["nibble"]["rating"] < 1500
    # nobody logs in as the AI
    r = browser().post("/api/account/login", json={"username": "ai-level1", "password": PASSWORD})
    assert r.status_code == 401


def test_a_four_player_game_is_one_period_against_the_three_others(user: User, app: FastAPI) -> None:
    """The ruling for four-player Nymbat, applied to a stored finished game: the last one left beat
    the three others, who drew among themselves."""
    names = ["Red", "Green", "Blue", "Yellow"]
    players = [user(n) for n in names]
    params = {"players": 4, "reserve": 6, "first_limit": 6, "max_turns": 60}
    r = players[0].post("/api/games", json={"game": "nymbat", "params": params, "seats": [{"kind": "here"}] * 4})
    assert r.status_code == 201, r.text
    gid, tokens = r.json()["id"], r.json()["tokens"]
    store = store_of(app)
    accounts_ = [store.user(n) for n in names]
    assert all(accounts_)
    store.bind_game(gid, {i: u for i, u in enumerate(accounts_) if u is not None}, rated=True, pool="nymbat")
    assert rate_finished_game(app.state.storage, gid) is None  # not finished yet
    for s in (1, 3, 2):
        assert players[s].post(f"/api/games/{gid}/resign", json={"token": tokens[str(s)]}).status_code == 200
    # rated by the results path when the end was published, once
    assert rate_finished_game(app.state.storage, gid) is None
    with app.state.storage.transaction() as tx:
        after = dict(
            tx.conn.execute(
                sa.select(history_table.c.user_id, history_table.c.rating).where(history_table.c.game_id == gid)
            ).all()
        )
    start = glicko2.Rating()
    want = glicko2.rate_game([start] * 4, [1.0, -1 / 3, -1 / 3, -1 / 3])
    for s, u in enumerate(accounts_):
        assert u is not None and after[u.id] == pytest.approx(want[s].rating)
    assert want[0] == glicko2.update(start, [(start, 1.0)] * 3)
    assert want[1] == glicko2.update(start, [(start, 0.0), (start, 0.5), (start, 0.5)])
    assert players[0].get("/api/account").json()["ratings"]["nymbat"]["rating"] == round(want[0].rating)


def test_an_aborted_or_unbound_rated_game_changes_nothing(user: User, app: FastAPI) -> None:
    alice = user("Alice")
    r = alice.post("/api/games", json={"game": "nibble", "seats": [{"kind": "here"}, {"kind": "here"}]})
    gid, tokens = r.json()["id"], r.json()["tokens"]
    store = store_of(app)
    u = store.user("Alice")
    assert u is not None
    store.bind_game(gid, {0: u}, rated=True, pool="nibble")  # the other seat has no account
    assert alice.post(f"/api/games/{gid}/resign", json={"token": tokens["1"]}).status_code == 200
    assert rate_finished_game(app.state.storage, gid) is None
    assert rate_pending(app.state.storage) == 0
    assert alice.get("/api/account").json()["ratings"] == {}


def test_a_guest_signing_up_claims_the_games_played_as_a_guest(browser: Browser) -> None:
    """'A guest's seats (the tokens this browser holds) are claimed into the account when the guest
    signs up or logs in.'"""
    guest = browser()
    g1 = guest.post("/api/games", json={"game": "nibble", "mode": "ai", "ai_level": 1}).json()
    g2 = guest.post("/api/games", json={"game": "nume(size=5)", "seats": [{"kind": "here"}, {"kind": "invite"}]})
    g2j = g2.json()
    tokens = [g1["tokens"]["0"], g2j["tokens"]["0"], "not-a-token"]
    r = guest.post("/api/account/signup", json={"username": "Gina", "password": PASSWORD, "tokens": tokens})
    assert r.status_code == 201, r.text
    assert sorted(c["game_id"] for c in r.json()["claimed"]) == sorted([g1["id"], g2j["id"]])
    hist = guest.get("/api/users/Gina/games").json()
    assert {g["id"] for g in hist["games"]} == {g1["id"], g2j["id"]}
    # someone else holding the same token later cannot take the seat from the account
    other = browser()
    other.post("/api/account/signup", json={"username": "Thief", "password": PASSWORD, "tokens": tokens})
    assert other.get("/api/users/Thief/games").json()["total"] == 0
    # the invitee's seat is his to claim (the guest never held its token)
    invite = g2j["invites"]["1"].split("&t=", 1)[1]
    assert other.post("/api/account/claim", json={"tokens": [invite]}).json()["claimed"] == [
        {"game_id": g2j["id"], "seat": 1}
    ]


def test_deleting_the_account_keeps_its_games_under_a_neutral_name(user: User, browser: Browser) -> None:
    """'delete the account (its games stay, shown under a neutral name)'."""
    alice, bob = user("Alice"), user("Bob")
    got = play_challenge(alice, bob, "Bob", rated=True, seat=0)
    gid = got["game_id"]
    assert bob.post(f"/api/games/{gid}/resign", json={"token": got["token"]}).status_code == 200
    assert alice.request("DELETE", "/api/account", json={"password": "wrong password"}).status_code == 403
    assert alice.get("/api/account").status_code == 200
    assert alice.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 200
    assert alice.get("/api/account").status_code == 401
    assert browser().get("/api/users/Alice").status_code == 404
    v = view(browser(), gid)
    names = json.dumps(v)
    assert DELETED_NAME in names and "Alice" not in names
    bob_games = bob.get("/api/users/Bob/games").json()["games"]
    assert [p["name"] for p in bob_games[0]["players"]] == [DELETED_NAME, "Bob"]
    assert browser().post("/api/account/login", json={"username": "Alice", "password": PASSWORD}).status_code == 401
    assert browser().post("/api/account/signup", json={"username": "alice", "password": PASSWORD}).status_code == 409
    assert [p["username"] for p in browser().get("/api/leaderboard/nibble").json()["players"]] == []


def test_export_holds_the_account_data_and_no_secret(user: User) -> None:
    """'export my data (JSON)' — without password hash, session id or token."""
    alice, bob = user("Alice"), user("Bob")
    token = alice.post("/api/account/tokens", json={"scopes": ["read"]}).json()["token"]
    got = play_challenge(alice, bob, "Bob", rated=True)
    bob.post(f"/api/games/{got['game_id']}/resign", json={"token": got["token"]})
    r = alice.get("/api/account/export")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    data = r.json()
    assert data["account"]["username"] == "Alice"
    assert data["ratings"]["nibble"]["games"] == 1 and len(data["rating_history"]) == 1
    assert [g["id"] for g in data["games"]] == [got["game_id"]]
    assert len(data["tokens"]) == 1 and len(data["challenges"]) == 1
    text = r.text
    for secret in (token, PASSWORD, alice.cookies["tessera_session"], "$argon2"):
        assert secret not in text


def test_the_seat_hook_finds_the_accounts_own_seat_and_nobody_elses(user: User, browser: Browser, app: FastAPI) -> None:
    """'A seat bound to an account is played with that account's session or bearer token (no seat
    token needed)': ``seat_token_for`` (the hook the game endpoints call when no seat token is
    given) answers the account's own seat token, None for anyone else, and refuses a cross-site
    cookie write."""

    def hook(game_id: str, request: Request) -> dict[str, Any]:
        return {"token": seat_token_for(request, game_id)}

    app.add_api_route("/test-hook/{game_id}", hook, methods=["POST"])
    alice, bob, carol = user("Alice"), user("Bob"), user("Carol")
    got = play_challenge(alice, bob, "Bob", seat=0)
    gid = got["game_id"]
    assert bob.post(f"/test-hook/{gid}").json() == {"token": got["token"]}
    assert alice.post(f"/test-hook/{gid}").json() == {"token": my_seat(alice, gid)["token"]}
    assert carol.post(f"/test-hook/{gid}").json() == {"token": None}
    assert browser().post(f"/test-hook/{gid}").json() == {"token": None}
    cross = browser(origin="https://evil.example")
    cross.cookies.set("tessera_session", bob.cookies["tessera_session"])
    assert cross.post(f"/test-hook/{gid}").status_code == 403
    play = bob.post("/api/account/tokens", json={"scopes": ["play"]}).json()["token"]
    read = bob.post("/api/account/tokens", json={"scopes": ["read"]}).json()["token"]
    script = browser(origin=None)
    assert script.post(f"/test-hook/{gid}", headers={"Authorization": f"Bearer {play}"}).json() == {
        "token": got["token"]
    }
    assert script.post(f"/test-hook/{gid}", headers={"Authorization": f"Bearer {read}"}).json() == {"token": None}


def test_rematch_is_a_challenge_to_the_same_opponent_with_seats_swapped(user: User, browser: Browser) -> None:
    """'Rematch becomes a challenge to the same opponent(s) with seats swapped'; same game, clock
    and rating; the new game is private."""
    alice, bob, carol = user("Alice"), user("Bob"), user("Carol")
    got = play_challenge(alice, bob, "Bob", rated=True, seat=0, clock={"initial": 180, "increment": 2})
    gid = got["game_id"]
    assert alice.post(f"/api/games/{gid}/rematch").status_code == 409  # not over yet
    assert bob.post(f"/api/games/{gid}/resign", json={"token": got["token"]}).status_code == 200
    assert carol.post(f"/api/games/{gid}/rematch").status_code == 404  # not her game
    r = bob.post(f"/api/games/{gid}/rematch")
    assert r.status_code == 201, r.text
    c = r.json()
    assert (c["from"], c["to"], c["seat"], c["rated"]) == ("Bob", "Alice", 0, True)
    assert c["clock"] == {"initial": 180, "increment": 2} and c["game"] == "nibble"
    again = alice.post(f"/api/challenges/{c['id']}/accept").json()
    assert again["seat"] == 1  # Alice had the first seat: now the second
    seats = browser().get(f"/api/games/{again['game_id']}/accounts").json()["seats"]
    assert {k: v["username"] for k, v in seats.items()} == {"0": "Bob", "1": "Alice"}
    assert browser().post(f"/api/games/{again['game_id']}/join").status_code == 403


def test_rematch_against_the_ai_starts_at_once(user: User) -> None:
    alice = user("Alice")
    got = challenge(alice, "ai-level1", seat=0)
    assert alice.post(f"/api/games/{got['game_id']}/resign", json={"token": got["token"]}).status_code == 200
    r = alice.post(f"/api/games/{got['game_id']}/rematch")
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "accepted" and r.json()["seat"] == 1 and r.json()["token"]
