"""Puzzles on the server: each step judged (correct, wrong with its refutation, solved), the answer
never shown before the attempt ends, guests unrated, Glicko-2 ratings of accounts and puzzles moving
once per account and puzzle, the daily puzzle, history and streaks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tessera.puzzles.model import Puzzle, shipped
from tessera.server.http.app import create_app
from tessera.server.puzzles.store import PuzzleBank, PuzzleStore

SITE = "http://testserver"
PASSWORD = "correct horse battery"


def _two_step_puzzle() -> Puzzle:
    """A shipped Nibble puzzle whose line has two steps of the player with a reply between them."""
    for p in shipped("nibble"):
        steps = p.player_steps()
        if len(steps) >= 2 and steps[1] > steps[0] + 1:
            return p
    raise AssertionError("no shipped Nibble puzzle with a reply inside its line")


PUZZLE = _two_step_puzzle()
OTHER = next(p for p in shipped("nibble") if p.id != PUZZLE.id)


@pytest.fixture
def started(db_url: str) -> Iterator[TestClient]:
    a = create_app(db_url, ai_mode="thread", ai_seconds=0.01, warm=False)
    with TestClient(a) as c:
        a.state.puzzles = PuzzleStore(a.state.storage, PuzzleBank([PUZZLE, OTHER]))
        yield c


@pytest.fixture
def app(started: TestClient) -> FastAPI:
    a: FastAPI = started.app  # type: ignore[assignment]
    return a


@pytest.fixture
def browser(started: TestClient) -> Callable[[], TestClient]:
    def make() -> TestClient:
        c = TestClient(started.app, headers={"Origin": SITE})
        c.portal = started.portal
        return c

    return make


def user(browser: Callable[[], TestClient], name: str) -> TestClient:
    b = browser()
    assert b.post("/api/account/signup", json={"username": name, "password": PASSWORD}).status_code == 201
    return b


def mine(p: Puzzle) -> list[str]:
    return [p.line[i] for i in p.player_steps()]


def wrong_first(p: Puzzle) -> str:
    return sorted(p.refutations[0])[0]


def test_a_puzzle_shows_its_position_and_never_its_answer(started: TestClient) -> None:
    """'GET /api/puzzles/{id}' and '/next': id, game, position (state_to_dict's format), to_move,
    themes, rating — never the line or the refutations."""
    for r in (started.get(f"/api/puzzles/{PUZZLE.id}"), started.get("/api/puzzles/next?game=nibble")):
        assert r.status_code == 200, r.text
        body = r.json()
        assert {"id", "game", "position", "to_move", "themes", "rating"} <= set(body)
        assert "line" not in body and "refutations" not in body and "solution" not in body
    body = started.get(f"/api/puzzles/{PUZZLE.id}").json()
    assert body["position"] == PUZZLE.state().to_dict()
    assert body["to_move"] == PUZZLE.to_move
    text = str({k: v for k, v in body.items() if k != "render"})
    assert "notes" not in text and "source" not in text


def test_each_step_is_answered_correct_then_solved_with_the_replies_played(started: TestClient) -> None:
    """'the server answers each move: correct … or solved; the opponent's replies played for the player'."""
    steps = mine(PUZZLE)
    r = started.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": steps[:1]})
    body = r.json()
    assert body["status"] == "correct", body
    replies = body["steps"][0]["replies"]
    first = PUZZLE.player_steps()
    assert replies == PUZZLE.line[first[0] + 1 : first[1]]
    assert "solution" not in body, "the answer stays hidden while the attempt goes on"
    state = PUZZLE.state()
    for m in PUZZLE.line[: first[1]]:
        state.play(m)
    assert body["position"] == state.to_dict()
    done = started.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": steps}).json()
    assert done["status"] == "solved"
    assert done["solution"] == PUZZLE.line


def test_a_wrong_step_is_answered_with_its_refutation(started: TestClient) -> None:
    """'wrong with the refutation': the stored refutation of that step, and the attempt is over."""
    move = wrong_first(PUZZLE)
    body = started.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": [move]}).json()
    assert body["status"] == "wrong"
    assert body["steps"][0]["refutation"] == PUZZLE.refutations[0][move]
    assert body["solution"] == PUZZLE.line


def test_an_illegal_step_is_refused_with_the_rule_and_changes_nothing(started: TestClient) -> None:
    r = started.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": ["zz99"]})
    assert r.status_code == 400
    assert "zz99" in r.json()["detail"]
    assert started.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": mine(PUZZLE)}).json()["status"] == "solved"
    r = started.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": [*mine(PUZZLE), "end"]})
    assert r.status_code == 400 and "one too many" in r.json()["detail"]
    assert started.get("/api/puzzles/nope").status_code == 404
    r = started.get("/api/puzzles/next?game=chess")
    assert r.status_code == 404 and "nibble" in r.json()["detail"]


def test_guests_play_unrated(started: TestClient, app: FastAPI) -> None:
    """'guests play unrated': no rating moves, the puzzle's included."""
    before = started.get(f"/api/puzzles/{PUZZLE.id}").json()["rating"]
    body = started.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": mine(PUZZLE)}).json()
    assert body["rated"] is False and body["rating"] is None and body["why_unrated"] == "guest"
    assert started.get(f"/api/puzzles/{PUZZLE.id}").json()["rating"] == before
    assert started.get("/api/puzzles/me").status_code == 401


def test_a_solve_raises_the_account_and_lowers_the_puzzle_once(browser: Callable[[], TestClient]) -> None:
    """Glicko-2 puzzle ratings: a solved puzzle is a win of the account over the puzzle; only the
    account's first finished attempt is rated; streaks count solves in a row."""
    ann = user(browser, "PuzzleAnn")
    before = ann.get(f"/api/puzzles/{PUZZLE.id}").json()["rating"]
    body = ann.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": mine(PUZZLE)}).json()
    assert body["rated"] is True
    assert body["rating"]["rating"] > 1500 and body["rating"]["change"] > 0
    assert body["rating"]["streak"] == 1 and body["rating"]["solved"] == 1
    after = ann.get(f"/api/puzzles/{PUZZLE.id}").json()["rating"]
    assert after < before
    again = ann.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": mine(PUZZLE)}).json()
    assert again["rated"] is False and again["why_unrated"] == "played before"
    assert ann.get(f"/api/puzzles/{PUZZLE.id}").json()["rating"] == after
    me = ann.get("/api/puzzles/me").json()
    assert me["ratings"]["nibble"]["best_streak"] == 1
    assert [h["id"] for h in me["history"]] == [PUZZLE.id] and me["history"][0]["won"] is True
    # the next puzzle is one the account has not finished
    assert ann.get("/api/puzzles/next?game=nibble").json()["id"] == OTHER.id


def test_viewing_the_solution_scores_a_loss_and_ends_the_streak(browser: Callable[[], TestClient]) -> None:
    """'"view the solution" which then scores a loss'."""
    bob = user(browser, "PuzzleBob")
    assert bob.post(f"/api/puzzles/{OTHER.id}/attempt", json={"moves": mine(OTHER)}).json()["rated"] is True
    before = bob.get(f"/api/puzzles/{PUZZLE.id}").json()["rating"]
    hint = bob.post(f"/api/puzzles/{PUZZLE.id}/hint", json={"moves": []}).json()
    assert set(hint) == {"cell", "button"}
    body = bob.post(f"/api/puzzles/{PUZZLE.id}/solution").json()
    assert body["solution"] == PUZZLE.line
    assert body["rated"] is True and body["rating"]["change"] < 0
    assert body["rating"]["streak"] == 0 and body["rating"]["best_streak"] == 1 and body["rating"]["failed"] == 1
    assert bob.get(f"/api/puzzles/{PUZZLE.id}").json()["rating"] > before
    history = bob.get("/api/puzzles/me").json()["history"]
    assert history[0]["id"] == PUZZLE.id and history[0]["viewed"] is True and history[0]["won"] is False


def test_a_wrong_step_scores_a_loss(browser: Callable[[], TestClient]) -> None:
    cat = user(browser, "PuzzleCat")
    body = cat.post(f"/api/puzzles/{PUZZLE.id}/attempt", json={"moves": [wrong_first(PUZZLE)]}).json()
    assert body["rated"] is True and body["rating"]["change"] < 0 and body["rating"]["failed"] == 1


def test_the_daily_puzzle_is_the_same_for_everyone_on_a_day(started: TestClient, app: FastAPI) -> None:
    import datetime as dt

    a = started.get("/api/puzzles/daily?game=nibble").json()
    b = started.get("/api/puzzles/daily?game=nibble").json()
    assert a["id"] == b["id"] and a["daily"] == dt.datetime.now(dt.UTC).date().isoformat()
    bank: PuzzleBank = app.state.puzzles.bank
    days = {bank.daily("nibble", dt.date(2026, 1, 1) + dt.timedelta(days=i)).id for i in range(30)}
    assert days == {PUZZLE.id, OTHER.id}, "the day picks among all the game's puzzles"


def test_the_games_with_puzzles_are_listed(started: TestClient) -> None:
    body: dict[str, Any] = started.get("/api/puzzles").json()
    assert body["games"][0]["game"] == "nibble" and body["games"][0]["count"] == 2
    assert started.get("/puzzles").status_code == 200
