"""Balance: self-play of one agent in every seat, per parameter setting, and the fair value of a parameter.

Per setting (each combination of the ``--vary`` values) :func:`run_balance` reports:

* each seat's win rate with its 95 % Wilson interval, and the draw rate;
* game length in plies: mean and quartiles;
* the metrics Ludii reports (Browne's evaluation metrics), as defined here:
  **balance** ``1 − (max − min)`` of the seats' win rates; **completion** the share of
  games with a winner; **drawishness** the share of draws; **decisiveness** the mean
  share of the game played after the result was decided (below); **duration** the mean
  length in plies; **branching factor** the mean number of legal moves at sequential
  plies, also by thirds of the game (opening, middle, end) — not defined at Nelaxtam's
  simultaneous turns, whose orders are not enumerated;
* **how early the result is decided**: the ply after which the eventual winner's
  evaluation (``State.evaluate``) never trails any other player's — mean and quartiles,
  in plies and as a share of the game.

The fair value of a parameter (``--find``) is :mod:`tessera.arena.fair`'s.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tessera.arena.metrics import PER_GAME, example_games, example_record_files, summarize
from tessera.arena.play import GameResult, Task, make
from tessera.arena.progress import ProgressDisplay
from tessera.arena.runner import ResultsFile, Run, budget_text, check_options, speed
from tessera.arena.stats import quartiles, wilson_interval
from tessera.core.game import Game
from tessera.core.registry import load_game, parse_game_string


def game_string(name: str, params: dict[str, Any]) -> str:
    """``nume(size=4,komi=2.5)`` from a name and parameters (in the order given).

    >>> game_string("nume", {"size": 4, "komi": 2.5}), game_string("nibble", {"shuffle_table": False})
    ('nume(size=4,komi=2.5)', 'nibble(shuffle_table=false)')
    """
    if not params:
        return name
    return f"{name}({','.join(f'{k}={_fmt(v)}' for k, v in params.items())})"


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    s = str(v)
    return f"'{s}'" if "," in s else s


def parse_vary(items: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The ``--vary`` values, checked for form.

    >>> parse_vary(["komi=0.5,1.5", "Size=3,4"])
    [('komi', ['0.5', '1.5']), ('size', ['3', '4'])]
    >>> parse_vary(["komi=1", "komi=2"])
    Traceback (most recent call last):
    ValueError: --vary names 'komi' twice
    """
    out: list[tuple[str, list[str]]] = []
    for item in items:
        key, eq, vals = item.partition("=")
        key = key.strip().lower()
        if not eq or not key:
            raise ValueError(f"--vary {item!r}: expected PARAM=V1,V2,...")
        values = [v.strip() for v in vals.split(",")] if vals.strip() else []
        if not values or any(v == "" for v in values):
            raise ValueError(f"--vary {item!r}: the list of values of {key!r} is empty")
        if any(k == key for k, _ in out):
            raise ValueError(f"--vary names {key!r} twice")
        out.append((key, values))
    return out


def settings(game: str, vary: Sequence[tuple[str, list[str]]]) -> list[tuple[dict[str, Any], Game]]:
    """Every combination of the varied values, each checked by loading the game (a refused value fails here)."""
    name, base = parse_game_string(game)
    for key, _ in vary:
        if key in base:
            raise ValueError(f"parameter {key!r} is both in {game!r} and in --vary")
    out = []
    keys = [k for k, _ in vary]
    for combo in itertools.product(*(vals for _, vals in vary)):
        setting = dict(zip(keys, combo, strict=True))
        g = load_game(game_string(name, {**base, **setting}))
        out.append((setting, g))
    if not out:
        out.append(({}, load_game(game)))
    return out


@dataclass
class SettingStats:
    """The balance figures of one setting."""

    setting: dict[str, Any]
    game: str
    results: list[GameResult]
    num_players: int

    def to_dict(self) -> dict[str, Any]:
        """Every figure of the module docstring, JSON-able."""
        rs = [r for r in self.results if r.error is None]
        n = len(rs)
        wins = [0] * self.num_players
        draws = 0
        for r in rs:
            w = r.winner
            if w is None:
                draws += 1
            else:
                wins[w] += 1
        rates = [wc / n if n else math.nan for wc in wins]
        lengths = [float(r.plies) for r in rs]
        q1, med, q3 = quartiles(lengths)
        decided = [r for r in rs if r.decided_ply is not None]
        dec_ply = [float(r.decided_ply or 0) for r in decided]
        dec_frac = [(r.decided_ply or 0) / r.plies for r in decided if r.plies]
        dq = quartiles(dec_ply)
        bf_all = [b for r in rs for b in r.branching]
        thirds: list[list[int]] = [[], [], []]
        for r in rs:
            m = len(r.branching)
            for t, b in enumerate(r.branching):
                thirds[min(2, 3 * t // max(1, m))].append(b)
        seat0_score = (wins[0] + 0.5 * draws) / n if n else math.nan
        points = [sum(r.score(p) for r in rs) for p in range(self.num_players)]
        design = summarize([r.metrics for r in rs], lengths, [r.winner for r in rs], self.num_players)
        return {
            "setting": self.setting,
            "game": self.game,
            "games": n,
            "forfeits": [{"key": r.key, "error": r.error} for r in self.results if r.error],
            "seat_win_rate": rates,
            "seat_win_ci95": [list(wilson_interval(wc, n)) for wc in wins],
            "seat_score": [pt / n if n else math.nan for pt in points],
            "seat_score_ci95": [list(wilson_interval(pt, n)) for pt in points],
            "seat0_score": seat0_score,
            "seat0_score_ci95": list(wilson_interval(wins[0] + 0.5 * draws, n)),
            "draw_rate": draws / n if n else math.nan,
            "draw_ci95": list(wilson_interval(draws, n)),
            "length": {
                "mean": sum(lengths) / n if n else math.nan,
                "q1": q1,
                "median": med,
                "q3": q3,
                "min": min(lengths) if lengths else math.nan,
                "max": max(lengths) if lengths else math.nan,
                "histogram": design["length_histogram"],
            },
            "ludii": {
                "balance": 1 - (max(rates) - min(rates)) if n else math.nan,
                "completion": (n - draws) / n if n else math.nan,
                "drawishness": draws / n if n else math.nan,
                "decisiveness": (1 - sum(dec_frac) / len(dec_frac)) if dec_frac else None,
                "duration": sum(lengths) / n if n else math.nan,
                "branching_factor": (sum(bf_all) / len(bf_all)) if bf_all else None,
                "branching_by_third": [sum(t) / len(t) if t else None for t in thirds],
                **{k: design[k] for k in PER_GAME},
                "outcome_uniformity": design["outcome_uniformity"],
                "draws_by_cause": design["draws_by_cause"],
            },
            "decided": {
                "games": len(decided),
                "mean_ply": sum(dec_ply) / len(dec_ply) if dec_ply else None,
                "quartiles_ply": list(dq) if dec_ply else None,
                "mean_share": sum(dec_frac) / len(dec_frac) if dec_frac else None,
            },
            "game_seconds": round(sum(r.seconds for r in self.results), 2),
            "examples": [
                {"kind": kind, "key": r.key, "plies": r.plies, "winner": r.winner, "deal_seed": r.deal_seed}
                for kind, r in example_games(self.results)
            ],
        }

    def example_records(self, *, all_games: bool = False) -> list[tuple[str, str]]:
        """The example games (``all_games``: every game that kept its moves) as ``(file name, text record)``
        (docs/records.md): openable in the analysis board."""
        picks = [("game", r) for r in self.results if r.moves] if all_games else example_games(self.results)
        label = ",".join(f"{k}={v}" for k, v in self.setting.items()) or "defaults"
        return example_record_files(self.game, picks, label)


def balance_tasks(
    setting_games: Sequence[tuple[dict[str, Any], Game]],
    agent: str,
    *,
    games: int,
    seconds: float | None,
    iterations: int | None,
    seed: int,
    offset: int = 0,
    clock: str = "wall",
) -> list[Task]:
    """Self-play tasks: ``games`` games per setting, agent ``agent`` in every seat, deal seeds ``seed + k``.

    >>> sg = settings("nume(size=3)", parse_vary(["komi=1.5,2"]))
    >>> [(t.key, t.game, t.seats, t.deal_seed, t.group) for t in balance_tasks(sg, "greedy", games=2, seconds=None,
    ...     iterations=None, seed=5)]  # doctest: +NORMALIZE_WHITESPACE
    [('0/0', 'nume(size=3,komi=1.5)', ('greedy', 'greedy'), 5, 'komi=1.5'),
     ('0/1', 'nume(size=3,komi=1.5)', ('greedy', 'greedy'), 6, 'komi=1.5'),
     ('1/0', 'nume(size=3,komi=2)', ('greedy', 'greedy'), 5, 'komi=2'),
     ('1/1', 'nume(size=3,komi=2)', ('greedy', 'greedy'), 6, 'komi=2')]
    """
    tasks = []
    for si, (setting, g) in enumerate(setting_games, start=offset):
        gs = str(g)
        label = ",".join(f"{k}={v}" for k, v in setting.items()) or gs
        for k in range(games):
            tasks.append(
                Task(
                    key=f"{si}/{k}",
                    game=gs,
                    seats=tuple(agent for _ in range(g.num_players)),
                    seconds=seconds,
                    iterations=iterations,
                    deal_seed=seed + k,
                    agent_seed=f"{seed}/{gs}/{k}",
                    trace=True,
                    moves=True,
                    group=label,
                    clock=clock,
                )
            )
    return tasks


@dataclass
class BalanceResult:
    """The figures of every setting, and the fair-value search when there was one."""

    game: str
    agent: str
    seconds: float | None
    iterations: int | None
    seed: int
    settings: list[SettingStats]
    find: dict[str, Any] | None = None
    wall_seconds: float = 0.0
    played_now: int = 0
    clock: str = "wall"

    def example_records(self) -> list[tuple[str, str]]:
        """Every setting's example games as ``(file name, text record)`` (:meth:`SettingStats.example_records`)."""
        return [rec for s in self.settings for rec in s.example_records()]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able summary."""
        d: dict[str, Any] = {
            "kind": "balance",
            "game": self.game,
            "agent": self.agent,
            "seconds": self.seconds,
            "iterations": self.iterations,
            "clock": self.clock,
            "seed": self.seed,
            "games": sum(len(s.results) for s in self.settings),
            "settings": [s.to_dict() for s in self.settings],
        }
        if self.find is not None:
            d["find"] = self.find
        d.update(speed([r for s in self.settings for r in s.results], self.played_now, self.wall_seconds))
        return d


def run_balance(
    game: str,
    agent: str,
    *,
    vary: Sequence[str] = (),
    games: int,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    jobs: int = 1,
    ray_address: str | None = None,
    out: str | None = None,
    progress: bool = False,
    clock: str = "wall",
) -> BalanceResult:
    """Self-play ``games`` games per setting and report the balance figures (resumable with ``out``).

    ``clock="cpu"`` counts time budgets in the searching thread's CPU time (:func:`tessera.agents.set_clock`).
    """
    make(agent)
    check_options(games=games, jobs=jobs, clock=clock)
    sg = settings(game, parse_vary(vary))
    tasks = balance_tasks(sg, agent, games=games, seconds=seconds, iterations=iterations, seed=seed, clock=clock)
    config = {
        "kind": "balance",
        "game": game,
        "agent": agent,
        "vary": list(vary),
        "seconds": seconds,
        "iterations": iterations,
        "seed": seed,
    }
    if clock != "wall":  # (results files written before clocks existed stay resumable)
        config["clock"] = clock
    store = ResultsFile(out, config)
    display = ProgressDisplay(len(tasks), f"{game}: balance", enabled=progress)
    run = Run(tasks, store, jobs=jobs, ray_address=ray_address, progress=display)
    by_group: dict[str, list[GameResult]] = {}
    for r in run.results:
        by_group.setdefault(r.key.split("/")[0], []).append(r)
    stats = [
        SettingStats(setting, str(g), by_group.get(str(i), []), g.num_players) for i, (setting, g) in enumerate(sg)
    ]
    return BalanceResult(
        game=game,
        agent=agent,
        seconds=seconds,
        iterations=iterations,
        seed=seed,
        settings=stats,
        wall_seconds=run.wall_seconds,
        played_now=run.played_now,
        clock=clock,
    )


def format_balance(res: BalanceResult) -> str:
    """Plain-text tables: one row per setting — results (wins and score apart), then the design metrics."""
    budget = budget_text(res.seconds, res.iterations, res.clock)
    lines = [f"{res.game}: self-play of {res.agent}, {budget}, seed {res.seed}", ""]
    header = (
        f"{'setting':<22}{'games':>6}  {'seat 0 wins (95% CI)':>22}  {'seat 0 score (95% CI)':>22}  {'draws':>6}"
        f"  {'length mean [q1 med q3]':>24}  {'balance':>7}  {'decided at':>10}  {'branching':>9}"
    )
    lines.append(header)
    rows = []
    for s in res.settings:
        d = s.to_dict()
        rows.append((s, d))
        label = ",".join(f"{k}={v}" for k, v in s.setting.items()) or "(defaults)"
        if d["games"] == 0:
            lines.append(f"{label:<22}{0:>6}")
            continue
        lo, hi = d["seat_win_ci95"][0]
        slo, shi = d["seat_score_ci95"][0]
        ln = d["length"]
        dec = d["decided"]["mean_share"]
        bf = d["ludii"]["branching_factor"]
        lines.append(
            f"{label:<22}{d['games']:>6}  {100 * d['seat_win_rate'][0]:>6.1f}% ({100 * lo:4.1f}–{100 * hi:5.1f}%)  "
            f"{100 * d['seat_score'][0]:>6.1f}% ({100 * slo:4.1f}–{100 * shi:5.1f}%)  "
            f"{100 * d['draw_rate']:>5.1f}%  {ln['mean']:>7.1f} [{ln['q1']:.0f} {ln['median']:.0f} {ln['q3']:.0f}]"
            f"{'':>4}  {d['ludii']['balance']:>7.2f}  {'' if dec is None else f'{100 * dec:.0f}% in':>10}  "
            f"{'' if bf is None else f'{bf:.1f}':>9}"
        )
        if s.num_players > 2:
            rates = ", ".join(
                f"seat {p}: {100 * r:.1f}% ({100 * c[0]:.1f}–{100 * c[1]:.1f})"
                for p, (r, c) in enumerate(zip(d["seat_win_rate"], d["seat_win_ci95"], strict=True))
            )
            lines.append(f"{'':<22}wins {rates}")
    lines.append("")
    lines.append(
        f"{'setting':<22}{'lead chg':>9}{'stability':>10}{'uncert.':>9}{'clarity':>9}{'coverage':>9}"
        f"{'repeats':>9}{'outcomes':>9}  draws by cause (rule / safeguard)"
    )
    for s, d in rows:
        if d["games"] == 0:
            continue
        label = ",".join(f"{k}={v}" for k, v in s.setting.items()) or "(defaults)"
        m = d["ludii"]
        cells = "".join(
            f"{'—' if m[k] is None else f'{m[k]:.3f}':>{w}}"
            for k, w in (
                ("lead_changes", 9),
                ("stability", 10),
                ("uncertainty", 9),
                ("clarity", 9),
                ("coverage", 9),
                ("repetition", 9),
                ("outcome_uniformity", 9),
            )
        )
        causes = m["draws_by_cause"]
        lines.append(f"{label:<22}{cells}  {causes['rule']} / {causes['safeguard']}")
    if res.find is not None:
        lines.extend(["", *format_find(res.find)])
    lines.append(
        "(wins count won games only; score counts a draw as ½ — fair values are searched on score. "
        "balance = 1 − spread of seat win rates; decided at = mean share of the game before the winner's "
        "evaluation stops trailing; branching = mean legal moves per sequential ply; the design metrics are "
        "defined in docs/balance.md)"
    )
    return "\n".join(lines)


def format_find(f: dict[str, Any]) -> list[str]:
    """The fair-value lines: the estimate and its interval, flagged when the interval leaves the tested range
    or the effect is not monotonic."""
    lines = []
    est, ci = f["estimate"], f["ci95"]
    if est is None:
        lines.append(f"fair {f['param']}: no estimate (seat 0's score does not change with it)")
    elif ci is None:
        lines.append(
            f"fair {f['param']} (seat 0 scores ½): not decided — the 95% interval is unbounded (more games "
            f"needed); the fit's root {est:.2f} is no estimate to quote"
        )
    else:
        lines.append(
            f"fair {f['param']} (seat 0 scores ½): {est:.2f}, 95% CI {ci[0]:.2f} … {ci[1]:.2f} (logistic fit, Fieller)"
        )
    if f.get("outside_range"):
        lo, hi = f["range_tested"]
        lines.append(f"warning: the interval reaches outside the tested values {lo:g} … {hi:g}: an extrapolation")
    if f.get("non_monotonic"):
        lines.append(
            "warning: seat 0's score does not change monotonically with "
            f"{f['param']} ({f['non_monotonic']}): a single fair value may not exist; see the score per value above"
        )
    b = f["bracket"]
    lines.append(f"bracket from the tested values: {b[0]} … {b[1]}")
    return lines


__all__ = [
    "BalanceResult",
    "SettingStats",
    "balance_tasks",
    "format_balance",
    "format_find",
    "game_string",
    "parse_vary",
    "run_balance",
    "settings",
]
