"""Verdicts that survive stronger players: one balance question asked at several strengths.

A balance study's answer can flip with the strength of the agent that plays it (a weak
agent draws a board a strong one wins, a seat's edge shows only once the seat is used
well).  :func:`run_robust` asks the same question — seat 0's score per setting, or the
fair value of a parameter — with every agent of a list, each playing itself, and says per
question whether the answers agree:

* per setting and agent, the **verdict** from seat 0's score and its 95 % Wilson interval:
  ``seat 0 favoured`` (the interval lies above ½), ``seat 0 disfavoured`` (below ½) or
  ``not decided`` (it holds ½);
* over the agents: **decided and stable** (every agent gives the same decided verdict),
  **decided only at …** (some agents decide, the rest do not, none contradicts),
  **flips with strength** (two agents decide opposite ways) or **not decided**;
* for a fair value (``find``): each agent's estimate and interval, and whether the
  intervals overlap (**stable**) or not (**differs with strength**);
* a **ladder**: a short round robin of the agents against each other (Bradley–Terry Elo
  with intervals), so a reader sees that the agents really differ in strength.

Every row names the agent's full spec and budget.  The default agents are the game's
levels 3, 4 and 5 at a tenth of their time (``level3(scale=0.1)`` …).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tessera.arena.balance import BalanceResult, format_find, run_balance
from tessera.arena.fair import find_fair
from tessera.arena.runner import budget_text
from tessera.arena.sprt import SPRT, TRINOMIAL
from tessera.arena.tournament import TournamentResult, run_tournament

DEFAULT_AGENTS = ("level3(scale=0.1)", "level4(scale=0.1)", "level5(scale=0.1)")
"""The strengths a question is asked at when none are named: levels 3–5 at a tenth of their time."""


def split_agents(text: str) -> list[str]:
    """``--agents A,B,C``: specs split at the commas outside parentheses.

    >>> split_agents("level3,mcts(c=0.7,rollout_cutoff=20), greedy")
    ['level3', 'mcts(c=0.7,rollout_cutoff=20)', 'greedy']
    """
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    if any(not a for a in out):
        raise ValueError(f"--agents {text!r}: an agent spec is empty")
    return out


def verdict(ci: Sequence[float], even: float = 0.5) -> str:
    """The verdict of seat 0's score interval against the score of an even seat (½ with two players, ``1/n``
    with ``n``).

    >>> verdict([0.55, 0.7]), verdict([0.2, 0.45]), verdict([0.4, 0.6]), verdict([0.3, 0.4], even=0.25)
    ('seat 0 favoured', 'seat 0 disfavoured', 'not decided', 'seat 0 favoured')
    """
    lo, hi = ci
    if lo > even:
        return "seat 0 favoured"
    if hi < even:
        return "seat 0 disfavoured"
    return "not decided"


def sequential_verdict(counts: Sequence[int], delta: float, alpha: float = 0.05, beta: float = 0.05) -> str | None:
    """Two one-sided GSPRTs on seat 0's losses, draws and wins (:mod:`tessera.arena.sprt`, trinomial):
    ``SPRT(0, +delta)`` and ``SPRT(−delta, 0)`` in Elo.  ``seat 0 favoured`` when the first accepts
    ``+delta``, ``seat 0 disfavoured`` when the second accepts ``−delta``, ``even within ±delta Elo`` when
    both accept 0, ``None`` while either is undecided.

    >>> sequential_verdict([0, 0, 30], 50), sequential_verdict([30, 0, 0], 50), sequential_verdict([1, 0, 1], 50)
    ('seat 0 favoured', 'seat 0 disfavoured', None)
    >>> sequential_verdict([400, 200, 400], 50)
    'even within ±50 Elo'
    """
    up = SPRT(0.0, delta, alpha, beta).verdict(counts, TRINOMIAL)
    down = SPRT(-delta, 0.0, alpha, beta).verdict(counts, TRINOMIAL)
    if up == "H1":
        return "seat 0 favoured"
    if down == "H0":
        return "seat 0 disfavoured"
    if up == "H0" and down == "H1":
        return f"even within ±{delta:g} Elo"
    return None


def file_word(spec: str) -> str:
    """An agent's spec as a file name's first word: ``level3(scale=0.1)`` → ``level3_scale0.1``."""
    return re.sub(r"[^A-Za-z0-9.+]+", "_", spec.replace("=", "")).strip("_")


def agreement(verdicts: Sequence[str], agents: Sequence[str]) -> str:
    """What the verdicts of several strengths say together (module docstring).

    >>> agreement(["seat 0 favoured"] * 3, ["a", "b", "c"])
    'decided and stable'
    >>> agreement(["not decided", "seat 0 favoured", "seat 0 favoured"], ["a", "b", "c"])
    'decided only at b, c'
    >>> agreement(["seat 0 disfavoured", "not decided", "seat 0 favoured"], ["a", "b", "c"])
    'flips with strength'
    >>> agreement(["seat 0 favoured", "even within ±100 Elo"], ["a", "b"])
    'differs with strength'
    >>> agreement(["not decided", "not decided"], ["a", "b"])
    'not decided'
    """
    decided = {v for v in verdicts if v != "not decided"}
    if {"seat 0 favoured", "seat 0 disfavoured"} <= decided:
        return "flips with strength"  # one strength favours the seat, another the other seat
    if len(decided) > 1:
        return "differs with strength"  # one finds a seat favoured, another the seats even within the margin
    if not decided:
        return "not decided"
    if all(v != "not decided" for v in verdicts):
        return "decided and stable"
    return "decided only at " + ", ".join(a for a, v in zip(agents, verdicts, strict=True) if v != "not decided")


def intervals_agree(cis: Sequence[Sequence[float] | None]) -> str:
    """``stable`` when every bounded interval overlaps every other, ``differs with strength`` when two do not,
    ``not decided`` when fewer than two are bounded.

    >>> intervals_agree([[1, 3], [2, 4]]), intervals_agree([[1, 2], [3, 4]]), intervals_agree([[1, 2], None])
    ('stable', 'differs with strength', 'not decided')
    """
    bounded = [c for c in cis if c is not None]
    if len(bounded) < 2:
        return "not decided"
    lo = max(c[0] for c in bounded)
    hi = min(c[1] for c in bounded)
    return "stable" if lo <= hi else "differs with strength"


@dataclass
class RobustResult:
    """One question asked at several strengths."""

    game: str
    agents: list[str]
    runs: list[BalanceResult]
    """One balance run (or fair-value search) per agent, in the order of ``agents``."""
    ladder: TournamentResult | None = None
    questions: list[dict[str, Any]] = field(default_factory=list)
    """Per setting (or the fair value): each agent's figure and verdict, and the agreement."""

    def example_records(self) -> list[tuple[str, str]]:
        """Each agent's example games as ``(file name, text record)``, the file named by the agent that
        played it (``level3_scale0.1-komi0.5-shortest-0_0.txt``)."""
        return [(f"{file_word(run.agent)}-{name}", text) for run in self.runs for name, text in run.example_records()]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary: the questions, each run's summary and the ladder."""
        return {
            "kind": "robust",
            "game": self.game,
            "agents": self.agents,
            "questions": self.questions,
            "runs": [r.to_dict() for r in self.runs],
            "ladder": None if self.ladder is None else self.ladder.to_dict(),
        }


def _seat0_counts(results: Sequence[Any]) -> list[int]:
    """Seat 0's losses, draws and wins over the finished games."""
    counts = [0, 0, 0]
    for r in results:
        if r.error is None:
            counts[round(2 * r.score(0))] += 1
    return counts


def _questions(
    agents: Sequence[str], runs: Sequence[BalanceResult], delta: float | None = None
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if runs and runs[0].find is not None:
        rows: list[dict[str, Any]] = []
        for a, r in zip(agents, runs, strict=True):
            f = r.find or {}
            rows.append({"agent": a, "estimate": f.get("estimate"), "ci95": f.get("ci95"), "find": f})
        out.append(
            {
                "question": f"fair {runs[0].find['param']}",
                "rows": rows,
                "agreement": intervals_agree([row["ci95"] for row in rows]),
            }
        )
        return out
    for i, s in enumerate(runs[0].settings if runs else []):
        label = ",".join(f"{k}={v}" for k, v in s.setting.items()) or "(defaults)"
        rows = []
        for a, r in zip(agents, runs, strict=True):
            st = r.settings[i]
            d = st.to_dict()
            if delta is not None and st.num_players == 2:
                said = sequential_verdict(_seat0_counts(st.results), delta) or "not decided"
            else:
                said = verdict(d["seat_score_ci95"][0], even=1.0 / st.num_players)
            rows.append(
                {
                    "agent": a,
                    "games": d["games"],
                    "seat0_wins": d["seat_win_rate"][0],
                    "seat0_score": d["seat_score"][0],
                    "seat0_score_ci95": d["seat_score_ci95"][0],
                    "draw_rate": d["draw_rate"],
                    "verdict": said,
                }
            )
        out.append(
            {
                "question": f"seat 0's score at {label}",
                "setting": s.setting,
                "rows": rows,
                "agreement": agreement([row["verdict"] for row in rows], list(agents)),
            }
        )
    return out


def run_robust(
    game: str,
    agents: Sequence[str] = DEFAULT_AGENTS,
    *,
    vary: Sequence[str] = (),
    find: tuple[str, float, float] | None = None,
    rounds: int = 3,
    points: int = 5,
    games: int,
    ladder_games: int = 4,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    jobs: int = 1,
    ray_address: str | None = None,
    out: str | None = None,
    progress: bool = False,
    clock: str = "wall",
    sprt_elo: float | None = None,
    batch: int = 10,
) -> RobustResult:
    """Ask one balance question (``vary`` settings, or ``find=(param, lo, hi)``) with each agent.

    Each agent's games go to ``out/agent-<k>`` and the ladder's to ``out/ladder`` (resumable);
    ``ladder_games`` games per pair of agents (0: no ladder).  ``ValueError`` on fewer than two
    agents, a repeated agent, or what :func:`~tessera.arena.balance.run_balance` refuses.
    """
    agents = list(agents)
    if len(agents) < 2:
        raise ValueError("--agents needs at least two agents of different strength (e.g. level3,level4,level5)")
    if len(set(agents)) != len(agents):
        raise ValueError(f"--agents names an agent twice: {', '.join(agents)}")
    common: dict[str, Any] = {
        "games": games,
        "seconds": seconds,
        "iterations": iterations,
        "seed": seed,
        "jobs": jobs,
        "ray_address": ray_address,
        "progress": progress,
        "clock": clock,
    }
    if sprt_elo is not None and (find is not None or not sprt_elo > 0):
        raise ValueError("--sprt-elo needs a positive Elo margin and --vary settings (not --find)")
    runs: list[BalanceResult] = []
    scratch = tempfile.TemporaryDirectory() if sprt_elo is not None and out is None else None
    try:
        for k, agent in enumerate(agents):
            base = out if out is not None else (scratch.name if scratch is not None else None)
            sub = None if base is None else os.path.join(base, f"agent-{k}")
            if find is not None:
                param, lo, hi = find
                runs.append(find_fair(game, agent, param, lo, hi, rounds=rounds, points=points, out=sub, **common))
            elif sprt_elo is None:
                runs.append(run_balance(game, agent, vary=vary, out=sub, **common))
            else:
                runs.append(_sequential(game, agent, vary, sub, sprt_elo, batch, common))
    finally:
        if scratch is not None:
            scratch.cleanup()
    ladder = None
    if ladder_games > 0:
        ladder = run_tournament(
            game,
            agents,
            games=ladder_games,
            seconds=seconds,
            iterations=iterations,
            seed=seed,
            jobs=jobs,
            ray_address=ray_address,
            out=None if out is None else os.path.join(out, "ladder"),
            progress=progress,
            clock=clock,
        )
    return RobustResult(game, agents, runs, ladder, _questions(agents, runs, sprt_elo))


def _sequential(
    game: str, agent: str, vary: Sequence[str], out: str | None, delta: float, batch: int, common: dict[str, Any]
) -> BalanceResult:
    """Self-play ``batch`` more games per setting at a time (the results file keeps the earlier ones) until every
    two-player setting's :func:`sequential_verdict` is reached or ``common["games"]`` (the cap) are played."""
    cap = int(common["games"])
    n = min(batch, cap)
    while True:
        res = run_balance(game, agent, vary=vary, out=out, **{**common, "games": n})
        open_ = [
            s
            for s in res.settings
            if s.num_players == 2 and sequential_verdict(_seat0_counts(s.results), delta) is None
        ]
        if not open_ or n >= cap:
            return res
        n = min(cap, n + batch)


def _short_budget(seconds: float | None, iterations: int | None, clock: str) -> str:
    """A row's budget: ``0.05 s/move cpu``, ``200 it/move`` or ``default``.

    >>> _short_budget(0.05, None, "cpu"), _short_budget(None, 200, "wall"), _short_budget(None, None, "wall")
    ('0.05 s/move cpu', '200 it/move', 'default')
    """
    if iterations is not None:
        return f"{iterations} it/move"
    if seconds is not None:
        return f"{seconds:g} s/move" + (" cpu" if clock == "cpu" else "")
    return "default"


def format_robust(res: RobustResult) -> str:
    """The verdict table: one block per question, a row per agent, then the ladder."""
    r0 = res.runs[0]
    budget = budget_text(r0.seconds, r0.iterations, r0.clock)
    lines = [f"{res.game}: one question at {len(res.agents)} strengths, {budget}, seed {r0.seed}", ""]
    # every row names its agent with its budget ("mcts, 0.05 s/move cpu"; the header says it in full)
    label = {r.agent: f"{r.agent}, {_short_budget(r.seconds, r.iterations, r.clock)}" for r in res.runs}
    w = max(8, *(len(label.get(a, a)) for a in res.agents))
    for q in res.questions:
        lines.append(f"{q['question']}: {q['agreement']}")
        if "estimate" in q["rows"][0]:
            for row in q["rows"]:
                fair = format_find(row["find"])[:-1]  # the estimate and its warnings (the brackets differ per agent)
                lines.append(f"  {label.get(row['agent'], row['agent']):<{w}}  {fair[0]}")
                lines.extend(f"  {'':<{w}}  {warning}" for warning in fair[1:])
        else:
            lines.append(f"  {'agent':<{w}}  {'games':>5}  {'seat 0 wins':>11}  {'seat 0 score (95% CI)':>22}  verdict")
            for row in q["rows"]:
                lo, hi = row["seat0_score_ci95"]
                name = label.get(row["agent"], row["agent"])
                lines.append(
                    f"  {name:<{w}}  {row['games']:>5}  {100 * row['seat0_wins']:>10.1f}%  "
                    f"{100 * row['seat0_score']:>6.1f}% ({100 * lo:4.1f}–{100 * hi:5.1f}%)  {row['verdict']}"
                )
        lines.append("")
    if res.ladder is not None and res.ladder.ratings is not None:
        lines.append("ladder (the agents against each other, Bradley–Terry Elo, mean 0):")
        rt = res.ladder.ratings
        for i in sorted(range(len(rt.names)), key=lambda i: -rt.elo[i]):
            lo, hi = rt.ci95[i]
            lines.append(f"  {rt.names[i]:<{w}}  {rt.elo[i]:>+6.0f}  [{lo:.0f} … {hi:.0f}]")
        lines.append(f"  ({len(res.ladder.results)} games, {res.ladder.games_per_table} per pair)")
    return "\n".join(lines)


__all__ = [
    "DEFAULT_AGENTS",
    "RobustResult",
    "agreement",
    "format_robust",
    "intervals_agree",
    "run_robust",
    "sequential_verdict",
    "split_agents",
    "verdict",
]
