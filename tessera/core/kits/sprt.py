"""The statistics of a sequential probability ratio test (GSPRT, as fishtest): the logistic Elo scale and
the log-likelihood ratio of H1 to H0 over pentanomial (pairs of games, seats swapped) or trinomial counts.

The test, its model and its regularisation are described in :mod:`tessera.arena.sprt`, which plays the
matches; this module holds only the arithmetic, so that the levels (:mod:`tessera.agents.evidence`) can
re-read a stored test's verdict without the arena.

>>> t = SPRT(elo0=0, elo1=150)
>>> t.verdict([0, 0, 0, 0, 10])
'H1'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A's mean score in a pair of games with seats swapped: (0, ½, 1, 1½, 2) points over 2."""

TRINOMIAL = (0.0, 0.5, 1.0)
"""A's score in one game: loss, draw, win."""

REGULARIZE = 1e-3
"""The count given to an outcome never observed (as fishtest), so the LLR of a one-sided run is finite."""


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo).

    >>> elo_to_score(0), round(elo_to_score(150), 4)
    (0.5, 0.7034)
    """
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected ``score`` in (0, 1); ±inf at 0 and 1.

    >>> round(score_to_elo(0.7034), 1)
    150.0
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _mle(freqs: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution nearest (max. likelihood) to ``freqs`` over ``values`` whose mean is ``s``.

    ``p_i = f_i / (1 + λ (a_i − s))`` with λ the root of ``Σ f_i (a_i − s) / (1 + λ (a_i − s)) = 0``
    in the interval where every denominator stays positive (the function decreases in λ there).
    """
    lo_v, hi_v = min(values), max(values)
    if not lo_v < s < hi_v:
        raise ValueError(f"the hypothesis' mean score {s} must lie strictly between {lo_v} and {hi_v}")
    lam_lo = -1.0 / (hi_v - s)
    lam_hi = 1.0 / (s - lo_v)

    def g(lam: float) -> float:
        return sum(f * (a - s) / (1.0 + lam * (a - s)) for f, a in zip(freqs, values, strict=True))

    a, b = lam_lo, lam_hi
    for _ in range(200):  # bisection: g decreases from +inf to -inf on (lam_lo, lam_hi)
        mid = 0.5 * (a + b)
        if mid in (a, b):
            break
        if g(mid) > 0.0:
            a = mid
        else:
            b = mid
    lam = 0.5 * (a + b)
    return [f / (1.0 + lam * (v - s)) for f, v in zip(freqs, values, strict=True)]


@dataclass(frozen=True)
class SPRT:
    """A GSPRT of H0 ``elo = elo0`` against H1 ``elo = elo1`` with error rates ``alpha`` and ``beta``.

    Raises ``ValueError`` when ``elo0 >= elo1`` or an error rate is outside (0, ½).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"--sprt ELO0,ELO1 needs ELO0 < ELO1 (got {self.elo0}, {self.elo1})")
        for name, v in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < v < 0.5:
                raise ValueError(f"{name} must lie in (0, 0.5), got {v}")

    @property
    def lower(self) -> float:
        """Accept H0 when the LLR falls to this bound: ``ln(beta / (1 − alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 when the LLR rises to this bound: ``ln((1 − beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int], values: Sequence[float] = PENTANOMIAL) -> float:
        """The log-likelihood ratio of H1 to H0 after ``counts[i]`` observations of the score ``values[i]``."""
        if len(counts) != len(values):
            raise ValueError(f"{len(counts)} counts for {len(values)} outcomes")
        if any(c < 0 for c in counts):
            raise ValueError(f"counts must not be negative: {list(counts)}")
        n = sum(counts)
        if n == 0:
            return 0.0
        reg = [c if c > 0 else REGULARIZE for c in counts]
        total = sum(reg)
        freqs = [c / total for c in reg]
        p0 = _mle(freqs, values, elo_to_score(self.elo0))
        p1 = _mle(freqs, values, elo_to_score(self.elo1))
        return n * sum(f * math.log(b / a) for f, a, b in zip(freqs, p0, p1, strict=True))

    def verdict(self, counts: Sequence[int], values: Sequence[float] = PENTANOMIAL) -> str | None:
        """``"H1"``, ``"H0"``, or ``None`` while the LLR lies between the bounds."""
        x = self.llr(counts, values)
        if x >= self.upper:
            return "H1"
        if x <= self.lower:
            return "H0"
        return None


__all__ = ["PENTANOMIAL", "REGULARIZE", "SPRT", "TRINOMIAL", "elo_to_score", "score_to_elo"]
