"""Designers' figures from people's rated games (GET /api/stats/{game})."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from scipy.stats import binomtest

from tessera.server.accounts.stats import wilson
from tests.server.accounts.test_challenges_ratings import challenge, my_seat, play_challenge

User = Callable[[str], TestClient]


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (55, 160), (1, 1)])
def test_wilson_interval_matches_scipy(k: int, n: int) -> None:
    """The 95 % interval of the first seat's win rate is Wilson's score interval."""
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson(k, n)
    assert low == pytest.approx(ci.low, abs=1e-9) and high == pytest.approx(ci.high, abs=1e-9)


def test_stats_count_rated_games_between_people_only(user: User) -> None:
    """'per game, from finished rated human games … first-seat win rate with a 95 % interval, draw
    rate, length, abandon and time-out rate, by rating band and by variant'."""
    alice, bob = user("Alice"), user("Bob")
    # three rated games between people: the first seat wins two (Bob resigns twice from seat 1),
    # and loses one (Alice resigns from seat 0)
    for loser_is_bob in (True, True, False):
        got = play_challenge(alice, bob, "Bob", rated=True, seat=0)
        gid = got["game_id"]
        token = got["token"] if loser_is_bob else my_seat(alice, gid)["token"]
        assert (bob if loser_is_bob else alice).post(
            f"/api/games/{gid}/resign", json={"token": token}
        ).status_code == 200
    # not counted: a casual game, a game against the AI, an unfinished rated game
    casual = play_challenge(alice, bob, "Bob", rated=False, seat=0)
    bob.post(f"/api/games/{casual['game_id']}/resign", json={"token": casual["token"]})
    ai = challenge(alice, "ai-level1", rated=True, seat=0)
    alice.post(f"/api/games/{ai['game_id']}/resign", json={"token": ai["token"]})
    play_challenge(alice, bob, "Bob", rated=True, seat=0)
    s = alice.get("/api/stats/nibble").json()
    assert s["games"] == 3
    assert s["first_seat"]["wins"] == 2 and s["first_seat"]["of"] == 3
    low, high = wilson(2, 3)
    assert s["first_seat"]["low"] == round(low, 4) and s["first_seat"]["high"] == round(high, 4)
    assert s["draw_rate"] == 0 and s["resign_rate"] == 1 and s["timeout_rate"] == 0 and s["aborted_rate"] == 0
    assert s["length"]["median"] == 0  # resigned before any move
    assert list(s["by_variant"]) == ["nibble"] and s["by_variant"]["nibble"]["games"] == 3
    assert sum(b["games"] for b in s["by_band"].values()) == 3
    assert alice.get("/api/stats/chess").status_code == 404
