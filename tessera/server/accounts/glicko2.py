"""Glicko-2 ratings as lichess runs them (pure Python, no server imports).

Mark Glickman, *Example of the Glicko-2 system* (2012): a player's rating ``r``, rating
deviation ``RD`` and volatility ``σ`` are updated once per rating period from the games of
that period, all scored against the opponents' ratings as they stood when the period began.

Parameters (lichess): every rated game is **one rating period** for its players; the system
constant ``τ = 0.75``; a new player starts at rating 1500, deviation 500, volatility 0.09;
the deviation never drops below 45 (nor rises above 500); a rating is *provisional* ("?")
while its deviation is 110 or more.

**Games of more than two players** (four-player Nymbat): the game is one rating period in
which each player met every other player once; against each of them he scored 1 if he
finished ahead of that player, 0 if behind and ½ if level (by the game's returns).  All the
players' updates use the ratings from before the game, so the order of the seats does not
matter.

**Idle time** (Glickman's step 6 for the periods a player sat out, as lichess runs it): between
his rated games a player's deviation grows with the rating periods that went by without him,
``φ' = √(φ² + n·σ²)`` where ``n`` is the idle time in rating periods (fractional: lichess counts
0.21436 periods a day, one period about 4.67 days), never above the deviation of a new player.
The grown deviation is shown (profile, leaderboard) and is the one the next game starts from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko-2's conversion between the Glicko scale (1500-centred) and its own (0-centred)."""

TAU = 0.75
START_RATING = 1500.0
START_RD = 500.0
START_VOLATILITY = 0.09
MIN_RD = 45.0
MAX_RD = 500.0
PROVISIONAL_RD = 110.0
RATING_PERIODS_PER_DAY = 0.21436
"""Idle rating periods per day (lichess's value): how fast a deviation grows without games."""
EPSILON = 1e-6
"""Convergence tolerance of the volatility iteration (Glickman's step 5)."""


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating on the Glicko scale: rating, deviation, volatility."""

    rating: float = START_RATING
    rd: float = START_RD
    vol: float = START_VOLATILITY

    @property
    def provisional(self) -> bool:
        """Provisional ("?") while the deviation is 110 or more."""
        return self.rd >= PROVISIONAL_RD


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Glickman's step 5: the new volatility by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    for _ in range(200):
        if abs(big_b - big_a) <= EPSILON:
            break
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2.0
        big_b, fb = c, fc
    return math.exp(big_a / 2.0)


def update(
    player: Rating,
    results: Sequence[tuple[Rating, float]],
    *,
    tau: float = TAU,
    min_rd: float | None = MIN_RD,
    max_rd: float | None = MAX_RD,
) -> Rating:
    """The player's rating after one rating period with ``results``: ``(opponent, score)`` pairs,
    score 1 for a win, 0.5 for a draw, 0 for a loss, opponents as rated before the period.

    With no results only the deviation grows (Glickman's step 6 for a player who did not
    play).  ``min_rd`` / ``max_rd`` bound the new deviation (None: unbounded, as in the paper).
    """
    for _, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is 0, 0.5 or 1 (from 0 to 1), not {score!r}")
    mu = (player.rating - START_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.vol
    if not results:
        phi_new = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, _bounded(phi_new * SCALE, min_rd, max_rd), sigma)
    inv_v = 0.0
    total = 0.0
    for opp, score in results:
        mu_j = (opp.rating - START_RATING) / SCALE
        phi_j = opp.rd / SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        inv_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / inv_v
    delta = v * total
    sigma_new = _new_volatility(sigma, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * total
    return Rating(mu_new * SCALE + START_RATING, _bounded(phi_new * SCALE, min_rd, max_rd), sigma_new)


def idle(player: Rating, seconds: float, *, periods_per_day: float = RATING_PERIODS_PER_DAY) -> Rating:
    """The rating of a player who sat out ``seconds`` (Glickman's step 6 over that many rating
    periods): rating and volatility unchanged, ``φ' = √(φ² + n·σ²)`` with ``n`` the idle periods,
    capped at the deviation of a new player (500).  No time (or a clock gone backwards): unchanged."""
    if seconds <= 0 or periods_per_day <= 0:
        return player
    periods = seconds / 86400.0 * periods_per_day
    phi = player.rd / SCALE
    grown = math.sqrt(phi * phi + periods * player.vol * player.vol) * SCALE
    return Rating(player.rating, max(player.rd, min(grown, START_RD)), player.vol)


def _bounded(rd: float, low: float | None, high: float | None) -> float:
    if low is not None:
        rd = max(rd, low)
    if high is not None:
        rd = min(rd, high)
    return rd


def pairwise_scores(returns: Sequence[float]) -> list[list[float]]:
    """``scores[i][j]``: what seat ``i`` scored against seat ``j`` in a game with these returns
    (1 ahead, 0.5 level, 0 behind; the diagonal is unused and 0)."""
    n = len(returns)
    return [
        [
            0.0 if i == j else 1.0 if returns[i] > returns[j] else 0.5 if returns[i] == returns[j] else 0.0
            for j in range(n)
        ]
        for i in range(n)
    ]


def rate_game(ratings: Sequence[Rating], returns: Sequence[float], *, tau: float = TAU) -> list[Rating]:
    """Every seat's new rating after one rated game (one rating period): seat ``i`` rated
    ``ratings[i]`` before the game, finished with ``returns[i]``.  Two seats: a win, a draw or
    a loss; more seats: one period in which each met all the others (see the module text)."""
    if len(ratings) != len(returns) or len(ratings) < 2:
        raise ValueError("a rated game needs a rating and a return for each of at least two seats")
    scores = pairwise_scores(returns)
    return [
        update(r, [(ratings[j], scores[i][j]) for j in range(len(ratings)) if j != i], tau=tau)
        for i, r in enumerate(ratings)
    ]
