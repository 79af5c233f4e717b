"""Sequential probability ratio tests of one agent against another, as Stockfish's fishtest runs them.

A match played under an SPRT stops as soon as the evidence suffices: a one-sided run (20–0)
needs a handful of games, a close one many.  The test weighs two hypotheses on agent A's
Elo advantage over agent B — H0: ``elo = elo0`` against H1: ``elo = elo1`` (``elo0 < elo1``)
— with Wald's bounds for the error rates ``alpha`` (accepting H1 when H0 holds) and
``beta`` (accepting H0 when H1 holds)::

    lower = ln(beta / (1 - alpha))        upper = ln((1 - beta) / alpha)

and stops when the log-likelihood ratio (LLR) leaves ``(lower, upper)``.

**The generalized SPRT (GSPRT) on the pentanomial model**, as fishtest (Michel Van den
Bergh's derivation, fishtest's ``LLRcalc``): games are played in pairs with seats swapped
and the same deal (game ``2k`` and ``2k + 1`` of :func:`tessera.arena.match.match_tasks`),
and each pair's total score for A — 0, ½, 1, 1½ or 2, here divided by 2 so it is a mean
score ``a_i`` in {0, ¼, ½, ¾, 1} — is one draw from an unknown distribution over those
five values.  Pairing removes the seat's (and the deal's) share of the variance.  Under a
hypothesis that fixes the mean score to ``s`` the maximum-likelihood distribution is::

    p_i(s) = p̂_i / (1 + λ (a_i − s)),   λ such that Σ p_i(s) = 1

(``p̂`` the observed frequencies), and the LLR of ``n`` pairs is
``n Σ p̂_i ln(p_i(s1) / p_i(s0))``.  Scores and Elo are tied by the logistic curve
``s = 1 / (1 + 10^(−elo / 400))`` (fishtest's "logistic Elo").  Where pairs do not apply —
a game with more than two players, or ``paired=False`` — the same test runs on the
trinomial model of single games (scores 0, ½, 1).  Categories never observed count
``1e-3`` each (fishtest's regularisation), so a one-sided run gives a finite LLR.

The Elo estimate at the end is the logistic Elo of the mean score, with a 95 % interval
from the normal approximation of the mean (the sample variance of the pair scores).

>>> t = SPRT(elo0=0, elo1=150)
>>> round(t.lower, 3), round(t.upper, 3)
(-2.944, 2.944)
>>> t.llr([0, 0, 0, 0, 10]) > t.upper  # ten won pairs: H1
True
>>> t.verdict([0, 0, 0, 0, 10])
'H1'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tessera.agents.spec import check_offered
from tessera.arena.play import AgentSpec, GameResult, agent_name, make
from tessera.arena.runner import ResultsFile, Run, check_options
from tessera.arena.stats import Z95
from tessera.core.kits.sprt import PENTANOMIAL, SPRT, TRINOMIAL, elo_to_score, score_to_elo
from tessera.core.registry import load_game


def elo_estimate(counts: Sequence[int], values: Sequence[float] = PENTANOMIAL) -> tuple[float, float, float]:
    """Logistic Elo of the mean score and its 95 % interval ``(elo, lo, hi)`` (normal approximation).

    >>> e, lo, hi = elo_estimate([0, 10, 20, 10, 0])
    >>> abs(e) < 1e-9, lo < 0 < hi
    (True, True)
    """
    n = sum(counts)
    if n == 0:
        return (0.0, -math.inf, math.inf)
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / n
    half = Z95 * math.sqrt(var / n)
    return (score_to_elo(mean), score_to_elo(mean - half), score_to_elo(mean + half))


def pentanomial(records: Sequence[GameResult], seat_of_a: Callable[[GameResult], int]) -> list[int]:
    """Counts of A's pair scores (0, ½, 1, 1½, 2 points) over the complete pairs (games ``2k``, ``2k+1``)."""
    by_key = {int(r.key): r for r in records}
    counts = [0] * 5
    for k in sorted(by_key):
        if k % 2 == 0 and k + 1 in by_key:
            pair = (by_key[k], by_key[k + 1])
            points = sum(r.score(seat_of_a(r)) for r in pair)
            counts[round(points * 2)] += 1
    return counts


def trinomial(records: Sequence[GameResult], seat_of_a: Callable[[GameResult], int]) -> list[int]:
    """Counts of A's losses, draws and wins over single games."""
    counts = [0] * 3
    for r in records:
        counts[round(r.score(seat_of_a(r)) * 2)] += 1
    return counts


@dataclass
class SPRTResult:
    """A finished (or cut short) SPRT match, from agent A's side."""

    game: str
    agents: list[str]
    test: SPRT
    model: str
    """``pentanomial`` (pairs of games, seats swapped) or ``trinomial`` (single games)."""
    counts: list[int]
    llr: float
    verdict: str | None
    """``H1``, ``H0``, or ``None`` when the game cap was reached first."""
    records: list[GameResult] = field(default_factory=list)
    seconds: float | None = None
    iterations: int | None = None
    clock: str = "wall"

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.records)

    @property
    def wdl(self) -> tuple[int, int, int]:
        """A's wins, draws and losses over every game played."""
        scores = [r.score(_seat_a(r)) for r in self.records]
        return scores.count(1.0), scores.count(0.5), scores.count(0.0)

    @property
    def elo(self) -> tuple[float, float, float]:
        """A's Elo advantage and its 95 % interval."""
        return elo_estimate(self.counts, PENTANOMIAL if self.model == "pentanomial" else TRINOMIAL)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary."""
        wins, draws, losses = self.wdl
        e, lo, hi = self.elo
        return {
            "game": self.game,
            "agent_a": self.agents[0],
            "agent_b": self.agents[1],
            "elo0": self.test.elo0,
            "elo1": self.test.elo1,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
            "model": self.model,
            "counts": list(self.counts),
            "llr": self.llr,
            "bounds": [self.test.lower, self.test.upper],
            "verdict": self.verdict,
            "games": self.games,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "elo": e,
            "elo_ci95": [lo, hi],
            "seconds": self.seconds,
            "iterations": self.iterations,
            "clock": self.clock,
        }

    def summary(self) -> str:
        """The closing lines: verdict, LLR with its bounds, W/D/L and the Elo estimate."""
        wins, draws, losses = self.wdl
        e, lo, hi = self.elo
        what = {
            "H1": f"H1 accepted: A is at least {self.test.elo1:g} Elo stronger than elo0 allows",
            "H0": f"H0 accepted: A is not {self.test.elo1:g} Elo stronger (elo {self.test.elo0:g} more likely)",
            None: "no verdict: the game cap was reached with the LLR between its bounds",
        }[self.verdict]
        return (
            f"{self.game}: {self.agents[0]} vs {self.agents[1]}, SPRT({self.test.elo0:g}, {self.test.elo1:g}) "
            f"alpha={self.test.alpha:g} beta={self.test.beta:g}, {self.model}\n"
            f"{what}\n"
            f"LLR {self.llr:.2f} [{self.test.lower:.2f}, {self.test.upper:.2f}] after {self.games} games: "
            f"+{wins} ={draws} -{losses}, counts {self.counts}\n"
            f"Elo {_fmt_elo(e)} [{_fmt_elo(lo)}, {_fmt_elo(hi)}] (95 %)"
        )


def _fmt_elo(x: float) -> str:
    return f"{x:+.0f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _seat_a(r: GameResult) -> int:
    """A's seat: A is player 0 in even games (seats alternate)."""
    return int(r.key) % 2


def run_sprt(
    game_spec: str,
    agent_a: AgentSpec,
    agent_b: AgentSpec,
    test: SPRT,
    *,
    max_games: int = 2000,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    clock: str = "wall",
    jobs: int = 1,
    ray_address: str | None = None,
    out: str | None = None,
    paired: bool = True,
    report: Callable[[str], None] | None = None,
) -> SPRTResult:
    """Play A against B, seats alternated, until ``test`` accepts a hypothesis or ``max_games`` are played.

    Games are those of :func:`tessera.arena.match.match_tasks` (game ``i``: A in seat ``i % 2``,
    the deal seed ``seed + i // 2``), played a batch of ``2 × jobs`` at a time (``jobs`` local
    processes, or Ray); the LLR is updated after every batch and ``report`` (e.g. ``print``)
    receives a line.  With ``out`` every game is kept in ``out/results.jsonl``: the same call
    again continues the test where it stopped.  ``ValueError`` on a bad game, agent or option,
    or a game that does not have two players.
    """
    from tessera.arena.match import match_tasks

    game = load_game(game_spec)
    if game.num_players != 2:
        raise ValueError(f"an SPRT compares two agents in a two-player game; {game} has {game.num_players} players")
    check_offered(make(agent_a), game.name, game.num_players)
    check_offered(make(agent_b), game.name, game.num_players)
    check_options(games=max_games, jobs=jobs, clock=clock)
    if max_games < 2:
        raise ValueError("an SPRT needs at least 2 games (one pair)")
    names = [agent_name(agent_a), agent_name(agent_b)]
    config: dict[str, Any] = {
        "kind": "sprt",
        "game": game_spec,
        "agents": names,
        "seconds": seconds,
        "iterations": iterations,
        "seed": seed,
        "clock": clock,
        "sprt": [test.elo0, test.elo1, test.alpha, test.beta],
        "paired": paired,
    }
    store = ResultsFile(out, config)
    tasks = match_tasks(
        game_spec, [agent_a, agent_b], games=max_games, seconds=seconds, iterations=iterations, seed=seed, clock=clock
    )
    model = "pentanomial" if paired else "trinomial"
    values = PENTANOMIAL if paired else TRINOMIAL
    batch = 2 * max(1, jobs)
    done: list[GameResult] = []
    counts: list[int] = [0] * len(values)
    llr = 0.0
    verdict: str | None = None
    i = 0
    # A resumed run first reads the games its file holds, a pair (or a game) at a time: a verdict reached
    # there ends the run before any game is played anew, rather than after the rest of a batch.
    step = 2 if paired else 1
    while verdict is None and i + step <= len(tasks) and all(t.key in store.done for t in tasks[i : i + step]):
        done.extend(store.done[t.key] for t in tasks[i : i + step])
        i += step
        counts = pentanomial(done, _seat_a) if paired else trinomial(done, _seat_a)
        llr = test.llr(counts, values)
        verdict = test.verdict(counts, values)
    while verdict is None and i < len(tasks):
        chunk = tasks[i : i + batch]
        done.extend(Run(chunk, store, jobs=jobs, ray_address=ray_address).results)
        i += len(chunk)
        counts = pentanomial(done, _seat_a) if paired else trinomial(done, _seat_a)
        llr = test.llr(counts, values)
        verdict = test.verdict(counts, values)
        if report is not None:
            scores = [r.score(_seat_a(r)) for r in done]
            report(
                f"games {len(done)}: +{scores.count(1.0)} ={scores.count(0.5)} -{scores.count(0.0)}  "
                f"LLR {llr:.2f} [{test.lower:.2f}, {test.upper:.2f}]"
            )
        if verdict is not None:
            break
    return SPRTResult(
        str(game),
        names,
        test,
        model,
        counts,
        llr,
        verdict,
        records=done,
        seconds=seconds,
        iterations=iterations,
        clock=clock,
    )


def parse_sprt(text: str) -> tuple[float, float]:
    """``--sprt ELO0,ELO1``.

    >>> parse_sprt("0,150")
    (0.0, 150.0)
    >>> parse_sprt("150")
    Traceback (most recent call last):
    ValueError: --sprt '150': expected ELO0,ELO1 with ELO0 < ELO1, e.g. 0,150
    """
    parts = text.split(",")
    try:
        elo0, elo1 = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"--sprt {text!r}: expected ELO0,ELO1 with ELO0 < ELO1, e.g. 0,150") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise ValueError(f"--sprt {text!r}: expected ELO0,ELO1 with ELO0 < ELO1, e.g. 0,150")
    return elo0, elo1


__all__ = [
    "PENTANOMIAL",
    "SPRT",
    "TRINOMIAL",
    "SPRTResult",
    "elo_estimate",
    "elo_to_score",
    "parse_sprt",
    "pentanomial",
    "run_sprt",
    "score_to_elo",
    "trinomial",
]
