"""The SPRT of ``tessera match --sprt``: bounds, the GSPRT's LLR, error rates on simulated matches, the command."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from tessera.arena.cli import main
from tessera.arena.runner import RESULTS_FILE
from tessera.arena.sprt import (
    PENTANOMIAL,
    SPRT,
    TRINOMIAL,
    elo_estimate,
    elo_to_score,
    parse_sprt,
    run_sprt,
    score_to_elo,
)

TINY = "ikabegama(distance=2)"


def test_wald_bounds_are_log_beta_over_one_minus_alpha_and_log_one_minus_beta_over_alpha() -> None:
    """ "lower = ln(beta / (1 − alpha)), upper = ln((1 − beta) / alpha)": ±2.944 at 5 %/5 %."""
    t = SPRT(0, 10, alpha=0.05, beta=0.05)
    assert t.lower == pytest.approx(math.log(0.05 / 0.95))
    assert t.upper == pytest.approx(math.log(0.95 / 0.05))
    t = SPRT(0, 10, alpha=0.01, beta=0.1)
    assert t.lower == pytest.approx(math.log(0.1 / 0.99)) and t.upper == pytest.approx(math.log(0.9 / 0.01))


def test_logistic_elo_and_score_are_inverse() -> None:
    """ "s = 1 / (1 + 10^(−elo / 400))": 0 Elo is ½, +150 ≈ 0.703, and back."""
    for elo in (-400.0, -35.5, 0.0, 5.0, 150.0, 700.0):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    assert score_to_elo(0.0) == -math.inf and score_to_elo(1.0) == math.inf


def test_llr_is_near_the_normal_approximation_on_a_long_balanced_run() -> None:
    """On many pairs with small Elo bounds the GSPRT's LLR meets fishtest's normal approximation.

    The approximation: ``LLR ≈ n (s1 − s0)(2 s̄ − s0 − s1) / (2 σ²)`` with σ² the pair scores' variance.
    """
    counts = [40, 210, 480, 230, 40]
    t = SPRT(-5, 5)
    n = sum(counts)
    mean = sum(c * v for c, v in zip(counts, PENTANOMIAL, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, PENTANOMIAL, strict=True)) / n
    s0, s1 = elo_to_score(-5), elo_to_score(5)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert t.llr(counts) == pytest.approx(approx, rel=0.02)


def test_llr_of_a_one_sided_run_is_finite_and_grows_with_each_won_pair() -> None:
    """An outcome never observed counts 1e-3 (fishtest's regularisation): 20–0 gives a finite, growing LLR."""
    t = SPRT(0, 150)
    values = [t.llr([0, 0, 0, 0, k]) for k in range(1, 8)]
    assert all(math.isfinite(v) for v in values)
    assert values == sorted(values)
    assert t.verdict([0, 0, 0, 0, 9]) == "H1"  # 18-0: about 0.34 of LLR a won pair
    assert t.verdict([0, 0, 0, 0, 8]) is None
    assert t.verdict([6, 0, 0, 0, 0]) == "H0"
    assert t.verdict([0, 0, 1, 0, 0]) is None


def test_sprt_refuses_bad_hypotheses_and_counts() -> None:
    """ELO0 must be below ELO1 and the error rates in (0, ½); counts match the outcomes and are not negative."""
    with pytest.raises(ValueError, match="ELO0 < ELO1"):
        SPRT(150, 0)
    with pytest.raises(ValueError, match="alpha"):
        SPRT(0, 150, alpha=0.0)
    with pytest.raises(ValueError, match="counts for"):
        SPRT(0, 150).llr([1, 2, 3])
    with pytest.raises(ValueError, match="negative"):
        SPRT(0, 150).llr([1, -2, 3], TRINOMIAL)
    with pytest.raises(ValueError, match="expected ELO0,ELO1"):
        parse_sprt("150,0")


def _simulate(rng: random.Random, t: SPRT, elo: float, draw: float, max_pairs: int = 3000) -> tuple[str | None, int]:
    """One simulated SPRT run: pairs of independent games of a true ``elo``; the verdict and the pairs used."""
    s = elo_to_score(elo)
    win, loss = s - draw / 2, 1 - s - draw / 2
    counts = [0] * 5
    for pairs in range(1, max_pairs + 1):
        points = 0
        for _ in range(2):
            u = rng.random()
            points += 2 if u < win else 0 if u < win + loss else 1
        counts[points] += 1
        if pairs % 2 == 0 or pairs < 10:
            v = t.verdict(counts)
            if v is not None:
                return v, pairs
    return None, max_pairs


@pytest.mark.parametrize(("true_elo", "wrong"), [(0.0, "H1"), (150.0, "H0")])
def test_sprt_accepts_the_true_hypothesis_at_the_stated_error_rate(true_elo: float, wrong: str) -> None:
    """ "Accepts H1 when true, H0 when true, at the stated error rates over many simulated runs."

    300 seeded simulated matches of each true Elo (draw rate 0.2) against SPRT(0, 150), α = β = 0.05:
    the wrong verdict at most 5 % + three binomial standard errors (a GSPRT keeps its rates close to
    the nominal ones), and every run decided long before the cap.
    """
    rng = random.Random(20261129)
    t = SPRT(0, 150)
    runs = 300
    verdicts = [_simulate(rng, t, true_elo, 0.2) for _ in range(runs)]
    wrong_rate = sum(v == wrong for v, _ in verdicts) / runs
    assert wrong_rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
    assert all(v is not None for v, _ in verdicts)


def test_a_one_sided_difference_needs_few_pairs_and_a_close_one_many() -> None:
    """SPRT stops as soon as the evidence suffices: +600 Elo within about ten pairs, +75 Elo takes far more."""
    rng = random.Random(7)
    t = SPRT(0, 150)
    strong = sorted(_simulate(rng, t, 600.0, 0.1)[1] for _ in range(50))
    close = sorted(_simulate(rng, t, 75.0, 0.1)[1] for _ in range(50))
    assert strong[25] <= 12
    assert close[25] >= 2 * strong[25]


def test_elo_estimate_interval_contains_the_truth_on_a_large_sample() -> None:
    """The Elo estimate of a long simulated run of +100 Elo lies near 100 and its 95 % interval holds it."""
    rng = random.Random(3)
    s = elo_to_score(100)
    counts = [0] * 3
    for _ in range(20000):
        u = rng.random()
        counts[2 if u < s - 0.1 else 0 if u < 0.8 else 1] += 1
    e, lo, hi = elo_estimate(counts, TRINOMIAL)
    assert lo < 100 < hi and abs(e - 100) < 15


def test_run_sprt_plays_pairs_with_seats_swapped_until_a_verdict() -> None:
    """A real SPRT match: greedy against random in a tiny race is decided for H1 in pairs of games."""
    lines: list[str] = []
    res = run_sprt(TINY, "greedy", "random", SPRT(0, 150), max_games=60, iterations=1, seed=1, report=lines.append)
    assert res.verdict == "H1"
    assert res.games % 2 == 0 and sum(res.counts) == res.games // 2
    assert [int(r.key) % 2 for r in res.records] == [0, 1] * (res.games // 2)
    assert [r.seats[int(r.key) % 2] for r in res.records] == ["greedy"] * res.games
    assert lines and "LLR" in lines[-1]
    assert res.llr >= res.test.upper


def test_sprt_command_resumes_from_its_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tessera match … --sprt 0,150 --out DIR`` keeps its games: the same command again plays none anew."""
    argv = [
        "match", TINY, "greedy", "random", "--sprt", "0,150", "--iterations", "1", "--games", "40",
        "--out", str(tmp_path), "--json", "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["verdict"] == "H1" and first["model"] == "pentanomial"
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert (tmp_path / RESULTS_FILE).read_text().splitlines() == lines
    assert second["counts"] == first["counts"] and second["llr"] == first["llr"]


def test_sprt_command_refuses_a_game_of_four_and_a_third_agent(capsys: pytest.CaptureFixture[str]) -> None:
    """--sprt compares two agents in a two-player game: anything else is exit code 2 with the reason."""
    assert main(["match", TINY, "greedy", "random", "random", "--sprt", "0,150"]) == 2
    assert "exactly AGENT_A and AGENT_B" in capsys.readouterr().err
    assert main(["match", "nymbat(players=4)", "greedy", "random", "--sprt", "0,150"]) == 2
    assert "two-player" in capsys.readouterr().err
    assert main(["match", TINY, "greedy", "random", "--sprt", "150"]) == 2
    assert "expected ELO0,ELO1" in capsys.readouterr().err


def test_sprt_bounds_below_zero_read_as_a_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--sprt -50,50`` (H0 at a negative Elo, as fishtest's non-regression tests) is the option's value, not
    an unknown option: the test runs with elo0 = -50."""
    argv = ["match", TINY, "greedy", "random", "--sprt", "-50,50", "--iterations", "1", "--games", "20"]
    assert main([*argv, "--out", str(tmp_path), "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["elo0"], out["elo1"]) == (-50, 50)


def test_a_resumed_sprt_stops_at_the_verdict_its_file_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run with a verdict in its results file plays no game anew, whatever its batch: read pair by pair,
    the stored games end it (before, a larger ``--jobs`` played to the end of its batch of 2 × jobs first)."""
    argv = [
        "match", TINY, "greedy", "random", "--sprt", "0,150", "--iterations", "1", "--games", "40",
        "--out", str(tmp_path), "--json", "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    assert first["verdict"] == "H1" and (len(lines) - 1) % 8 != 0  # not a whole batch of --jobs 4
    assert main([*argv, "--jobs", "4"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert (tmp_path / RESULTS_FILE).read_text().splitlines() == lines
    assert second["counts"] == first["counts"] and second["verdict"] == "H1"
