"""Statistics of the arena: intervals, Bradley–Terry ratings, and the fair value of a parameter.

* :func:`wilson_interval` — 95 % Wilson score interval of a proportion (draws may count half).
* :func:`bradley_terry` — ratings by maximum likelihood of the Bradley–Terry model
  ``P(i beats j) = 1 / (1 + exp(-(θi − θj ± h)))`` with an optional first-seat
  advantage ``h``, draws counted as half a win each way, a weak Gaussian prior so an
  undefeated agent keeps a finite rating, and 95 % intervals from the inverse of the
  observed information (the Hessian of the log-likelihood).  Ratings are reported on the
  Elo scale (``400 / ln 10`` per unit of θ), centred at mean 0.
* :func:`fit_logistic` / :func:`fair_value` — logistic regression of a seat's score on a
  numeric parameter and the value where the expected score is ½, with Fieller's 95 %
  interval (unbounded when the data cannot pin it down: then ``None``).

Why our own maximum likelihood instead of ``choix`` or ``openskill``: both give point
estimates only (``choix``) or Bayesian skill updates that depend on game order
(``openskill``); the brief asks for intervals, and an order-independent fit is what makes
a resumed or parallel run give the very same ratings.  The fit is a few lines of
``scipy.optimize`` and the tests check it against ``choix.opt_pairwise`` on the same data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

Z95 = 1.959963984540054
"""The two-sided 95 % normal quantile."""


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: draws count half).

    >>> lo, hi = wilson_interval(95, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.888, 0.978)
    >>> wilson_interval(0, 10)[0], wilson_interval(10, 10)[1], wilson_interval(3, 0)
    (0.0, 1.0, (0.0, 1.0))
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)  # exact ends: no rounding residue at p = 0 or 1
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


ELO = 400.0 / math.log(10.0)
"""Elo points per unit of the Bradley–Terry log-strength."""


@dataclass
class Pairing:
    """One game's result between two named agents: ``score`` is first's (1 win, ½ draw, 0 loss)."""

    first: str
    second: str
    score: float
    first_seat: int = 0
    """Seat of ``first`` (0 or 1): the seat-advantage term applies to whoever sits in seat 0."""
    weight: float = 1.0


@dataclass
class Ratings:
    """The fitted Bradley–Terry model."""

    names: list[str]
    elo: list[float]
    """Rating of each agent on the Elo scale, mean 0."""
    ci95: list[tuple[float, float]]
    """95 % interval of each rating (Elo)."""
    se: list[float]
    """Standard error of each rating (Elo)."""
    seat_advantage: float | None = None
    """Elo points of the first seat (``None`` when not fitted)."""
    seat_advantage_ci95: tuple[float, float] | None = None
    games: float = 0.0
    prior_sd: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "model": "Bradley-Terry, maximum a posteriori with a weak N(0, prior_sd^2) prior; draws = 1/2 win",
            "scale": "Elo (400/ln 10 per unit log-strength), mean 0",
            "prior_sd_elo": self.prior_sd * ELO,
            "games": self.games,
            "agents": [
                {"name": n, "elo": round(e, 1), "ci95": [round(lo, 1), round(hi, 1)], "se": round(s, 1)}
                for n, e, (lo, hi), s in zip(self.names, self.elo, self.ci95, self.se, strict=True)
            ],
            "seat_advantage_elo": None if self.seat_advantage is None else round(self.seat_advantage, 1),
            "seat_advantage_ci95": None
            if self.seat_advantage_ci95 is None
            else [round(v, 1) for v in self.seat_advantage_ci95],
        }


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def bradley_terry(
    names: Sequence[str],
    pairings: Sequence[Pairing],
    *,
    seat_advantage: bool = False,
    prior_sd: float = 10.0,
) -> Ratings:
    """Fit Bradley–Terry ratings to ``pairings`` (see the module docstring).

    ``prior_sd`` is the standard deviation (in units of log-strength; 10 ≈ 1700 Elo) of the
    zero-mean Gaussian prior on every rating: it only matters for an agent that won or lost
    every game, whose maximum-likelihood rating is infinite.

    >>> r = bradley_terry(["a", "b"], [Pairing("a", "b", 1.0)] * 3 + [Pairing("a", "b", 0.0)])
    >>> round(r.elo[0] - r.elo[1])  # 3 wins in 4: log(3) log-strength (191 Elo) apart, less the prior's pull
    190
    """
    from scipy.optimize import minimize

    names = list(names)
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must be distinct: {names}")
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    for p in pairings:
        if p.first not in idx or p.second not in idx:
            raise ValueError(f"pairing {p.first!r} vs {p.second!r} names an agent not in {names}")
        if not 0.0 <= p.score <= 1.0:
            raise ValueError(f"a score must lie in [0, 1], not {p.score!r}")
    i = np.array([idx[p.first] for p in pairings], dtype=int)
    j = np.array([idx[p.second] for p in pairings], dtype=int)
    s = np.array([p.score for p in pairings], dtype=float)
    w = np.array([p.weight for p in pairings], dtype=float)
    sign = np.array([1.0 if p.first_seat == 0 else -1.0 for p in pairings], dtype=float)
    npar = k + (1 if seat_advantage else 0)
    inv_var = 1.0 / (prior_sd * prior_sd)

    def design(x: np.ndarray) -> np.ndarray:
        d = x[i] - x[j]
        if seat_advantage:
            d = d + sign * x[k]
        return d

    def negloglik(x: np.ndarray) -> tuple[float, np.ndarray]:
        d = design(x)
        # -[s log σ(d) + (1-s) log σ(-d)] = log(1+e^d) - s d
        nll = float(np.sum(w * (np.logaddexp(0.0, d) - s * d))) + 0.5 * inv_var * float(np.sum(x[:k] ** 2))
        r = w * (_sigmoid(d) - s)
        g = np.zeros(npar)
        np.add.at(g, i, r)
        np.add.at(g, j, -r)
        if seat_advantage:
            g[k] = float(np.sum(r * sign))
        g[:k] += inv_var * x[:k]
        return nll, g

    x0 = np.zeros(npar)
    res = minimize(negloglik, x0, jac=True, method="L-BFGS-B", options={"maxiter": 1000, "gtol": 1e-10})
    x = res.x
    # Observed information (Hessian of the negative log posterior).
    d = design(x)
    v = w * _sigmoid(d) * (1.0 - _sigmoid(d))
    h = np.zeros((npar, npar))
    np.add.at(h, (i, i), v)
    np.add.at(h, (j, j), v)
    np.add.at(h, (i, j), -v)
    np.add.at(h, (j, i), -v)
    if seat_advantage:
        np.add.at(h, (i, np.full_like(i, k)), v * sign)
        np.add.at(h, (j, np.full_like(j, k)), -v * sign)
        np.add.at(h, (np.full_like(i, k), i), v * sign)
        np.add.at(h, (np.full_like(j, k), j), -v * sign)
        h[k, k] += float(np.sum(v))
    h[np.arange(k), np.arange(k)] += inv_var
    cov = np.linalg.pinv(h)
    # Centre: ratings relative to their mean (the only identified quantities without the prior).
    c = np.eye(npar)
    c[:k, :k] -= 1.0 / k
    xc = c @ x
    covc = c @ cov @ c.T
    se = np.sqrt(np.maximum(np.diag(covc), 0.0))
    elo = [float(xc[a] * ELO) for a in range(k)]
    ses = [float(se[a] * ELO) for a in range(k)]
    ci = [(e - Z95 * sd, e + Z95 * sd) for e, sd in zip(elo, ses, strict=True)]
    adv = adv_ci = None
    if seat_advantage:
        adv = float(x[k] * ELO)
        sd = float(se[k] * ELO)
        adv_ci = (adv - Z95 * sd, adv + Z95 * sd)
    return Ratings(
        names=names,
        elo=elo,
        ci95=ci,
        se=ses,
        seat_advantage=adv,
        seat_advantage_ci95=adv_ci,
        games=float(np.sum(w)),
        prior_sd=prior_sd,
    )


@dataclass
class LogisticFit:
    """``P(score) = σ(a + b·x)`` fitted to (x, score) observations."""

    a: float
    b: float
    cov: list[list[float]]
    n: float

    def p(self, x: float) -> float:
        """The fitted expected score at ``x``."""
        return float(_sigmoid(np.array(self.a + self.b * x)))


def fit_logistic(xs: Sequence[float], scores: Sequence[float], *, ridge: float = 1e-4) -> LogisticFit:
    """Maximum-likelihood logistic regression of scores in [0, 1] (a draw is ½) on ``xs``.

    A tiny ridge penalty (``ridge``·(a² + b²)) keeps the fit finite when the results are
    perfectly separated (every game below some value won, every game above it lost).
    """
    x = np.asarray(xs, dtype=float)
    y = np.asarray(scores, dtype=float)
    if x.shape != y.shape or x.size == 0:
        raise ValueError("fit_logistic needs as many scores as values, and at least one")
    X = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    for _ in range(200):
        p = _sigmoid(X @ beta)
        g = X.T @ (p - y) + 2 * ridge * beta
        H = (X * (p * (1 - p))[:, None]).T @ X + 2 * ridge * np.eye(2)
        step = np.linalg.solve(H, g)
        # Damped Newton: never step more than 5 units at once (separated data).
        scale = min(1.0, 5.0 / max(1e-12, float(np.max(np.abs(step)))))
        beta = beta - scale * step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    p = _sigmoid(X @ beta)
    H = (X * (p * (1 - p))[:, None]).T @ X + 2 * ridge * np.eye(2)
    cov = np.linalg.inv(H)
    return LogisticFit(a=float(beta[0]), b=float(beta[1]), cov=cov.tolist(), n=float(x.size))


@dataclass
class FairValue:
    """Where a seat's expected score crosses ½, with Fieller's 95 % interval."""

    estimate: float | None
    """``-a/b``, or ``None`` when the slope is zero."""
    ci95: tuple[float, float] | None
    """``None`` when the interval is unbounded (the data do not pin the value down)."""
    fit: LogisticFit
    bracket: tuple[float | None, float | None]
    """Largest tested value where the seat scored more than ½ and smallest where it scored less."""

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "estimate": self.estimate,
            "ci95": None if self.ci95 is None else list(self.ci95),
            "bracket": list(self.bracket),
            "logistic": {"a": self.fit.a, "b": self.fit.b, "cov": self.fit.cov, "n": self.fit.n},
        }


def fair_value(xs: Sequence[float], scores: Sequence[float], z: float = Z95) -> FairValue:
    """The value of ``x`` where the expected score is ½ (logistic fit; Fieller's interval).

    Fieller's interval is the set of ``x`` where ``(a + b x)² ≤ z² Var(a + b x)``; it is a
    finite interval only when the slope is significantly non-zero, otherwise ``ci95`` is
    ``None`` — more games are needed.

    Seat 0 wins 18, 14, 6 and 2 of 20 games at komi 0, 2, 4 and 6 (symmetric about 3):

    >>> xs = [0] * 20 + [2] * 20 + [4] * 20 + [6] * 20
    >>> ys = [1] * 18 + [0] * 2 + [1] * 14 + [0] * 6 + [1] * 6 + [0] * 14 + [1] * 2 + [0] * 18
    >>> fv = fair_value(xs, ys)
    >>> round(fv.estimate, 3), [round(v, 2) for v in fv.ci95], fv.bracket
    (3.0, [2.18, 3.82], (2.0, 4.0))

    No slope at all (the same score everywhere): no estimate and no interval.

    >>> fv = fair_value([0, 0, 6, 6], [1, 0, 0, 1])
    >>> fv.estimate, fv.ci95
    (None, None)
    """
    fit = fit_logistic(xs, scores)
    a, b = fit.a, fit.b
    (vaa, vab), (_, vbb) = fit.cov
    est = -a / b if b != 0 else None
    # (b² − z² vbb) x² + 2 (a b − z² vab) x + (a² − z² vaa) ≤ 0
    qa = b * b - z * z * vbb
    qb = 2 * (a * b - z * z * vab)
    qc = a * a - z * z * vaa
    ci: tuple[float, float] | None = None
    disc = qb * qb - 4 * qa * qc
    if qa > 0 and disc >= 0:
        r = math.sqrt(disc)
        ci = ((-qb - r) / (2 * qa), (-qb + r) / (2 * qa))
    by_x: dict[float, list[float]] = {}
    for xv, sv in zip(xs, scores, strict=True):
        by_x.setdefault(float(xv), []).append(float(sv))
    means = {xv: sum(v) / len(v) for xv, v in by_x.items()}
    above = [xv for xv, m in means.items() if m > 0.5]
    below = [xv for xv, m in means.items() if m < 0.5]
    if b < 0:
        bracket = (max(above) if above else None, min(below) if below else None)
    else:
        bracket = (max(below) if below else None, min(above) if above else None)
    return FairValue(estimate=est, ci95=ci, fit=fit, bracket=bracket)


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """First quartile, median and third quartile (linear interpolation).

    >>> quartiles([1, 2, 3, 4, 5])
    (2.0, 3.0, 4.0)
    >>> quartiles([])
    (nan, nan, nan)
    """
    if not values:
        return (math.nan, math.nan, math.nan)
    q = np.percentile(np.asarray(values, dtype=float), [25, 50, 75])
    return (float(q[0]), float(q[1]), float(q[2]))


__all__ = [
    "ELO",
    "Z95",
    "FairValue",
    "LogisticFit",
    "Pairing",
    "Ratings",
    "bradley_terry",
    "fair_value",
    "fit_logistic",
    "quartiles",
    "wilson_interval",
]
