"""The lab's statistics: Wilson intervals, Bradley–Terry ratings with intervals, and the fair-value search.

Checked on synthetic results whose true answer is known.
"""

from __future__ import annotations

import math
import random

import pytest

from tessera.arena.fair import find_fair
from tessera.arena.play import GameResult, Task
from tessera.arena.runner import ResultsFile
from tessera.arena.stats import ELO, Pairing, bradley_terry, fair_value, quartiles, wilson_interval

TRUE = {"a": 1.0, "b": 0.3, "c": 0.0, "d": -1.3}
"""Known log-strengths of four synthetic agents."""


def _synthetic_games(rng: random.Random, games_per_pair: int, seat_adv: float = 0.0) -> list[Pairing]:
    names = list(TRUE)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for k in range(games_per_pair):
                first, second = (a, b) if k % 2 == 0 else (b, a)
                d = TRUE[first] - TRUE[second] + seat_adv
                p = 1 / (1 + math.exp(-d))
                out.append(Pairing(first, second, 1.0 if rng.random() < p else 0.0, first_seat=0))
    return out


def test_wilson_interval_covers_the_true_rate_about_95_percent_of_the_time() -> None:
    """A 95% interval: over many samples of 40 games at p = 0.3 it covers p in 92–98% of them."""
    rng = random.Random(1)
    cover = 0
    for _ in range(2000):
        k = sum(rng.random() < 0.3 for _ in range(40))
        lo, hi = wilson_interval(k, 40)
        cover += lo <= 0.3 <= hi
    assert 0.92 <= cover / 2000 <= 0.98


def test_bradley_terry_recovers_known_strengths_within_intervals() -> None:
    """Ratings fitted to games drawn from known strengths: every true (centred) rating lies in its 95% interval,
    and the order of the agents is the true order."""
    pairings = _synthetic_games(random.Random(7), 400)
    r = bradley_terry(list(TRUE), pairings)
    mean = sum(TRUE.values()) / len(TRUE)
    for name, _elo, (lo, hi) in zip(r.names, r.elo, r.ci95, strict=True):
        truth = (TRUE[name] - mean) * ELO
        assert lo <= truth <= hi, (name, truth, lo, hi)
        assert hi - lo < 150  # 1200 games per agent pin a rating to well under ±75 Elo
    assert sorted(r.names, key=lambda n: -r.elo[r.names.index(n)]) == ["a", "b", "c", "d"]
    assert sum(r.elo) == pytest.approx(0.0, abs=1e-6)


def test_bradley_terry_agrees_with_choix() -> None:
    """The maximum-likelihood point estimates equal choix's (a well-kept Bradley–Terry library) on the same data."""
    choix = pytest.importorskip("choix")
    pairings = _synthetic_games(random.Random(3), 60)
    names = list(TRUE)
    data = [
        (names.index(p.first), names.index(p.second))
        if p.score == 1.0
        else (names.index(p.second), names.index(p.first))
        for p in pairings
    ]
    ref = choix.opt_pairwise(len(names), data, alpha=0.0)
    ours = bradley_terry(names, pairings, prior_sd=1e6)
    ref_c = [v - sum(ref) / len(ref) for v in ref]
    for e, v in zip(ours.elo, ref_c, strict=True):
        assert e / ELO == pytest.approx(v, abs=1e-3)


def test_bradley_terry_seat_advantage_is_recovered() -> None:
    """A first-seat advantage of 0.6 log-strength (~104 Elo) in the synthetic games is found within its interval."""
    pairings = _synthetic_games(random.Random(11), 400, seat_adv=0.6)
    r = bradley_terry(list(TRUE), pairings, seat_advantage=True)
    assert r.seat_advantage_ci95 is not None
    lo, hi = r.seat_advantage_ci95
    assert lo <= 0.6 * ELO <= hi


def test_an_undefeated_agent_gets_a_finite_rating() -> None:
    """All wins: the maximum-likelihood rating would be infinite; the weak prior keeps it finite and on top."""
    r = bradley_terry(["x", "y"], [Pairing("x", "y", 1.0)] * 5)
    assert math.isfinite(r.elo[0]) and r.elo[0] > r.elo[1]


def test_bradley_terry_rejects_unknown_names_and_bad_scores() -> None:
    with pytest.raises(ValueError, match="not in"):
        bradley_terry(["x"], [Pairing("x", "z", 1.0)])
    with pytest.raises(ValueError, match="score"):
        bradley_terry(["x", "y"], [Pairing("x", "y", 2.0)])


def test_fair_value_finds_the_known_root_of_a_logistic_game() -> None:
    """Seat 0's win probability is σ(1.2·(2.7 − x)): the fitted fair value is near 2.7 and its interval covers it."""
    rng = random.Random(5)
    xs, ys = [], []
    for x in [0, 1, 2, 3, 4, 5, 6]:
        for _ in range(150):
            xs.append(float(x))
            ys.append(1.0 if rng.random() < 1 / (1 + math.exp(-1.2 * (2.7 - x))) else 0.0)
    fv = fair_value(xs, ys)
    assert fv.estimate == pytest.approx(2.7, abs=0.25)
    assert fv.ci95 is not None and fv.ci95[0] <= 2.7 <= fv.ci95[1]
    lo_b, hi_b = fv.bracket  # the last value seat 0 won more than half of, the first it won less than half of
    assert lo_b is not None and hi_b is not None and lo_b < hi_b and abs(lo_b - 2.7) < 1.5 and abs(hi_b - 2.7) < 1.5


def test_fair_value_interval_is_unbounded_when_the_parameter_does_not_matter() -> None:
    """Coin flips at every value: no slope, so no finite interval (the honest answer is 'more games')."""
    rng = random.Random(2)
    xs = [float(x) for x in range(5) for _ in range(20)]
    ys = [float(rng.random() < 0.5) for _ in xs]
    ci = fair_value(xs, ys).ci95
    assert ci is None or ci[1] - ci[0] > 4


def test_find_fair_on_a_synthetic_game_with_a_known_answer(tmp_path: object) -> None:
    """`--find komi` on a synthetic Nume whose seat 0 wins with probability σ(1.5·(3.2 − komi)): the search
    concentrates its games near 3.2 and its 95% interval covers 3.2."""

    def play(tasks: list[Task], store: ResultsFile) -> list[GameResult]:
        out = []
        for t in tasks:
            komi = float(t.game.split("komi=")[1].rstrip(")").split(",")[0])
            rng = random.Random(f"{t.key}/{t.agent_seed}")
            win0 = rng.random() < 1 / (1 + math.exp(-1.5 * (3.2 - komi)))
            r = GameResult(
                t.key, t.group, t.game, [str(s) for s in t.seats], [1.0, -1.0] if win0 else [-1.0, 1.0], 10, 0.0, 0
            )
            store.add(r)
            out.append(r)
        return out

    res = find_fair("nume(size=3)", "random", "komi", 0.0, 8.0, games=60, rounds=3, play=play)
    f = res.find
    assert f is not None
    assert f["ci95"] is not None and f["ci95"][0] <= 3.2 <= f["ci95"][1]
    assert abs(f["estimate"] - 3.2) < 0.6
    # Later rounds play values around the estimate, snapped to the komi step of 0.5.
    later = {v for r in f["rounds"][1:] for v in r["values"]}
    assert later and all(1.0 <= v <= 5.5 and (2 * v) == int(2 * v) for v in later)


def test_quartiles() -> None:
    assert quartiles([1, 2, 3, 4, 5]) == (2.0, 3.0, 4.0)
    assert all(math.isnan(v) for v in quartiles([]))


def test_wilson_interval_always_contains_the_observed_rate() -> None:
    """The interval of k successes in n contains k/n, also at k = 0 and k = n (no rounding slip past it)."""
    for n in range(1, 60):
        for k in range(n + 1):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
