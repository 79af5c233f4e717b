"""Glicko-2's step 6 for the periods a player sat out: the deviation grows with idle time, as
lichess runs it (0.21436 rating periods a day), never above a new player's 500, and the next
rated game starts from the grown deviation.  Checked against the formula on a fake clock."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from tessera.server.accounts import glicko2, rating
from tests.server.accounts.test_challenges_ratings import my_seat, play_challenge

User = Callable[[str], TestClient]
DAY = 86400.0


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def step6(r: glicko2.Rating, days: float) -> float:
    """φ' = √(φ² + n·σ²) on the Glicko scale, n = days × 0.21436 idle rating periods."""
    phi = r.rd / glicko2.SCALE
    return math.sqrt(phi * phi + days * 0.21436 * r.vol * r.vol) * glicko2.SCALE


def test_idle_grows_the_deviation_by_step_6_and_stops_at_a_new_players() -> None:
    """'a player's RD increases with the rating periods they sat out (capped at the initial RD)'."""
    r = glicko2.Rating(1620.0, 60.0, 0.06)
    for days in (1, 30, 365):
        grown = glicko2.idle(r, days * DAY)
        assert grown.rd == pytest.approx(step6(r, days)) and grown.rd > r.rd
        assert (grown.rating, grown.vol) == (r.rating, r.vol)
    assert glicko2.idle(r, 30 * DAY).rd < glicko2.idle(r, 60 * DAY).rd
    assert glicko2.idle(r, 0) == r and glicko2.idle(r, -DAY) == r  # no time, or a clock set back
    assert glicko2.idle(r, 1e6 * DAY).rd == glicko2.START_RD
    # the same as Glickman's step 6 for one whole period without games
    assert glicko2.idle(r, DAY / 0.21436).rd == pytest.approx(glicko2.update(r, [], min_rd=None).rd)


def play_rated(alice: TestClient, bob: TestClient, seat: int, *, alice_wins: bool = True) -> None:
    """A rated nibble game between Alice (on ``seat``) and Bob, ended by the loser's resignation."""
    got = play_challenge(alice, bob, "Bob", rated=True, seat=seat)
    mine = my_seat(alice, got["game_id"])
    assert mine["seat"] == seat
    loser, token = (bob, got["token"]) if alice_wins else (alice, mine["token"])
    r = loser.post(f"/api/games/{got['game_id']}/resign", json={"token": token})
    assert r.status_code == 200, r.text


def test_the_profile_shows_the_grown_deviation_and_the_next_game_is_rated_from_it(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'shown on the profile and used when the next game is rated'."""
    clock = FakeClock(1_800_000_000.0)
    monkeypatch.setattr(rating, "clock", clock)
    alice, bob = user("Alice"), user("Bob")
    play_rated(alice, bob, 0)
    a1, b1 = glicko2.rate_game([glicko2.Rating(), glicko2.Rating()], [1.0, -1.0])
    assert alice.get("/api/users/Alice").json()["ratings"]["nibble"]["rd"] == round(a1.rd, 1)
    assert alice.get("/api/users/Alice").json()["ratings"]["nibble"]["last_rated"] == clock.now
    clock.now += 40 * DAY
    shown = alice.get("/api/users/Alice").json()["ratings"]["nibble"]
    assert shown["rd"] == round(step6(a1, 40), 1) and shown["rd"] > round(a1.rd, 1)
    assert shown["rating"] == round(a1.rating)  # idle time moves the deviation only
    assert alice.get("/api/account").json()["ratings"]["nibble"]["rd"] == shown["rd"]
    # the next game, 40 days on, starts from the grown deviations
    play_rated(alice, bob, 1)
    a2, b2 = glicko2.rate_game([glicko2.idle(a1, 40 * DAY), glicko2.idle(b1, 40 * DAY)], [1.0, -1.0])
    got_a = alice.get("/api/account").json()["ratings"]["nibble"]
    got_b = bob.get("/api/account").json()["ratings"]["nibble"]
    assert (got_a["rating"], got_a["rd"]) == (round(a2.rating), round(a2.rd, 1))
    assert (got_b["rating"], got_b["rd"]) == (round(b2.rating), round(b2.rd, 1))
    # without the idle time the change would have been smaller: the grown deviation was used
    a2_busy, _ = glicko2.rate_game([a1, b1], [1.0, -1.0])
    assert a2.rating - a1.rating > a2_busy.rating - a1.rating


def test_a_long_idle_player_leaves_the_leaderboard_until_he_plays_again(
    user: User, browser: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leaderboard lists non-provisional players: a deviation grown past 110 is provisional again."""
    clock = FakeClock(1_800_000_000.0)
    monkeypatch.setattr(rating, "clock", clock)
    alice, bob = user("Alice"), user("Bob")
    for i in range(60):
        play_rated(alice, bob, i % 2, alice_wins=i % 3 != 2)
        clock.now += 60.0
        if len(browser().get("/api/leaderboard/nibble").json()["players"]) == 2:
            break
    board = browser().get("/api/leaderboard/nibble").json()["players"]
    assert [p["username"] for p in board] == ["Alice", "Bob"]
    clock.now += 3 * 365 * DAY
    assert browser().get("/api/leaderboard/nibble").json()["players"] == []
    assert browser().get("/api/users/Alice").json()["ratings"]["nibble"]["provisional"] is True
