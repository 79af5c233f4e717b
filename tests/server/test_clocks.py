"""Real-time clocks (``server/match/clocks.py``): flags, increments, the first move's limit.

Against SQLite and PostgreSQL; each test quotes the requirement it checks.
"""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from tests.server.helpers import create, move, view


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
    from tessera.server.match.service import first_move_limit

    assert first_move_limit(5) == 5 and first_move_limit(300) == 30 and first_move_limit(600) == 30
    assert first_move_limit(3600) == 180 and first_move_limit(86400) == 3600
