"""Glicko-2: Glickman's worked example and properties of the lichess parameters."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tessera.server.accounts import glicko2
from tessera.server.accounts.glicko2 import Rating, rate_game, update


def test_glickmans_worked_example() -> None:
    """Glickman, 'Example of the Glicko-2 system': 1500/200/0.06 meets 1400/30 (won), 1550/100 (lost)
    and 1700/300 (lost) with tau = 0.5 -> rating 1464.06, deviation 151.52, volatility 0.05999."""
    player = Rating(1500, 200, 0.06)
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = update(player, games, tau=0.5, min_rd=None, max_rd=None)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.vol == pytest.approx(0.05999, abs=0.00001)


def test_a_new_player_starts_at_1500_deviation_500_volatility_0_09_and_is_provisional() -> None:
    """lichess: start at 1500, deviation 500, volatility 0.09; provisional while the deviation is >= 110."""
    r = Rating()
    assert (r.rating, r.rd, r.vol) == (1500.0, 500.0, 0.09)
    assert r.provisional
    assert Rating(1500, 110.0).provisional and not Rating(1500, 109.99).provisional


def test_first_game_between_two_new_players_is_symmetric() -> None:
    """Two new players: the winner gains what the loser loses; both deviations shrink alike."""
    a, b = rate_game([Rating(), Rating()], [1.0, -1.0])
    assert a.rating > 1500 > b.rating
    assert a.rating - 1500 == pytest.approx(1500 - b.rating)
    assert a.rd == pytest.approx(b.rd) and a.rd < 500
    d1, d2 = rate_game([Rating(), Rating()], [0.0, 0.0])
    assert d1.rating == pytest.approx(1500) and d2.rating == pytest.approx(1500)


def test_the_deviation_never_drops_below_45() -> None:
    """lichess: the deviation never drops below 45, however many games are played."""
    me, rock = Rating(1500, 350, 0.03), Rating(1500, 45, 0.03)
    seen = []
    for _ in range(300):
        me = update(me, [(rock, 0.5)])
        seen.append(me.rd)
    assert min(seen) == glicko2.MIN_RD
    assert update(Rating(1500, 45, 0.03), [(rock, 0.5)], min_rd=None).rd < glicko2.MIN_RD  # the floor acts


def test_an_idle_period_only_widens_the_deviation_up_to_500() -> None:
    """Glickman step 6: a player who did not play keeps his rating; his deviation grows, bounded by 500."""
    r = Rating(1800, 60, 0.06)
    idle = update(r, [])
    assert idle.rating == 1800 and idle.vol == 0.06
    assert idle.rd == pytest.approx(math.hypot(60 / glicko2.SCALE, 0.06) * glicko2.SCALE)
    assert update(Rating(1500, 499.9, 0.09), []).rd == 500


def test_four_player_game_is_one_period_against_the_three_others() -> None:
    """The ruling: each player met the three others, scored 1 ahead, 0.5 level, 0 behind, all against
    the ratings from before the game."""
    before = [Rating(1500, 200), Rating(1600, 80), Rating(1400, 300), Rating(1550, 120)]
    returns = [3.0, 1.0, 1.0, -5.0]
    after = rate_game(before, returns)
    want_1 = update(before[1], [(before[0], 0.0), (before[2], 0.5), (before[3], 1.0)])
    assert after[1] == want_1
    # the order of the seats does not matter
    perm = [2, 0, 3, 1]
    permuted = rate_game([before[i] for i in perm], [returns[i] for i in perm])
    for k, i in enumerate(perm):
        assert permuted[k].rating == pytest.approx(after[i].rating)


def test_bad_scores_and_lone_players_are_refused() -> None:
    with pytest.raises(ValueError, match="score"):
        update(Rating(), [(Rating(), 2.0)])
    with pytest.raises(ValueError, match="two seats"):
        rate_game([Rating()], [1.0])


ratings = st.builds(
    Rating,
    st.floats(600, 2800),
    st.floats(glicko2.MIN_RD, glicko2.MAX_RD),
    st.floats(0.03, 0.12),
)


@settings(max_examples=300, deadline=None)
@given(ratings, ratings)
def test_a_win_never_lowers_and_a_loss_never_raises_a_rating(a: Rating, b: Rating) -> None:
    """Glicko-2 moves a rating towards the result: up for a win, down for a loss."""
    wa, lb = rate_game([a, b], [1.0, -1.0])
    assert wa.rating >= a.rating and lb.rating <= b.rating
    assert glicko2.MIN_RD <= wa.rd <= glicko2.MAX_RD and glicko2.MIN_RD <= lb.rd <= glicko2.MAX_RD
    assert wa.rd <= math.hypot(a.rd, wa.vol * glicko2.SCALE) + 1e-9  # a game adds information


@settings(max_examples=200, deadline=None)
@given(ratings, ratings, ratings)
def test_winning_scores_more_than_drawing_more_than_losing(a: Rating, b: Rating, c: Rating) -> None:
    """Against the same opponents, a better result never gives a lower rating."""
    win = update(a, [(b, 1.0), (c, 1.0)]).rating
    draw = update(a, [(b, 0.5), (c, 0.5)]).rating
    lose = update(a, [(b, 0.0), (c, 0.0)]).rating
    assert win >= draw >= lose
