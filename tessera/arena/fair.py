"""The fair value of a parameter: the value at which seat 0's expected score is ½ (``tessera balance --find``).

:func:`find_fair` searches the value of one numeric parameter at which seat 0's expected
score is ½: round 1 plays an even grid over the range, every later round three values
around the current estimate (± twice its standard error), all snapped to values the game
accepts; the answer is the logistic-regression root over every game played, with
Fieller's 95 % interval (:func:`tessera.arena.stats.fair_value`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from tessera.arena.balance import BalanceResult, SettingStats, _fmt, balance_tasks, game_string
from tessera.arena.play import GameResult, Task, make
from tessera.arena.progress import ProgressDisplay
from tessera.arena.runner import ResultsFile, Run, check_options
from tessera.arena.stats import FairValue, fair_value, wilson_interval
from tessera.core.registry import load_game, parse_game_string


def _snap(game: str, param: str, value: float) -> float | None:
    """The nearest value of ``param`` the game accepts (its step and range), or ``None``."""
    name, base = parse_game_string(game)
    p = load_game(game).info.param(param)
    if p.kind not in (int, float):
        raise ValueError(f"--find {param}: the parameter is not numeric ({p.accepted()})")
    step = p.step if p.step is not None else (1.0 if p.kind is int else None)
    v = value
    if step:
        v = round(v / step) * step
    if p.min is not None:
        v = max(v, p.min)
    if p.max is not None:
        v = min(v, p.max)
    if p.kind is int:
        v = round(v)
    try:
        load_game(game_string(name, {**base, param: _fmt(int(v) if p.kind is int else float(v))}))
    except ValueError:
        return None
    return float(v)


def find_fair(
    game: str,
    agent: str,
    param: str,
    lo: float,
    hi: float,
    *,
    games: int,
    rounds: int = 3,
    points: int = 5,
    seconds: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    jobs: int = 1,
    ray_address: str | None = None,
    out: str | None = None,
    progress: bool = False,
    clock: str = "wall",
    play: Callable[[list[Task], ResultsFile], list[GameResult]] | None = None,
) -> BalanceResult:
    """Search the value of ``param`` in ``[lo, hi]`` where seat 0 scores ½ (see the module docstring).

    ``play`` replaces the games (tests give a synthetic game with a known answer).
    """
    make(agent)
    check_options(jobs=jobs, clock=clock)
    if not (isinstance(games, int) and games >= 1 and isinstance(rounds, int) and rounds >= 1 and points >= 2):
        raise ValueError("--find needs games >= 1, rounds >= 1 and points >= 2")
    if not lo < hi:
        raise ValueError(f"--find {param}: the range {lo:g}:{hi:g} is empty (low must be below high)")
    name, base = parse_game_string(game)
    if param in base:
        raise ValueError(f"parameter {param!r} is both in {game!r} and in --find")
    grid = [lo + (hi - lo) * i / (points - 1) for i in range(points)]
    first = sorted({v for v in (_snap(game, param, x) for x in grid) if v is not None})
    if len(first) < 2:
        raise ValueError(f"--find {param}: the game accepts fewer than two values in {lo:g}:{hi:g}")
    config = {
        "kind": "find",
        "game": game,
        "agent": agent,
        "param": param,
        "range": [lo, hi],
        "points": points,
        "games": games,
        "seconds": seconds,
        "iterations": iterations,
        "seed": seed,
    }
    if clock != "wall":  # (results files written before clocks existed stay resumable)
        config["clock"] = clock
    store = ResultsFile(out, config)
    int_kind = load_game(game).info.param(param).kind is int
    rounds_log: list[dict[str, Any]] = []
    fv: FairValue | None = None
    all_results: dict[float, list[GameResult]] = {}
    wall, played_now = 0.0, 0
    values = first
    for rnd in range(rounds):
        sg = [
            ({param: v}, load_game(game_string(name, {**base, param: _fmt(int(v) if int_kind else v)}))) for v in values
        ]
        tasks = []
        for vi, (setting, g) in enumerate(sg):
            for t in balance_tasks(
                [(setting, g)],
                agent,
                games=games,
                seconds=seconds,
                iterations=iterations,
                seed=seed + rnd * games,
                clock=clock,
            ):
                k = t.key.split("/")[1]
                tasks.append(replace(t, key=f"{rnd}/{vi}/{k}", agent_seed=f"{t.agent_seed}/{rnd}"))
        if play is not None:
            res = play(tasks, store)
        else:
            label = f"{game}: find {param}, round {rnd + 1}/{rounds}"
            display = ProgressDisplay(len(tasks), label, enabled=progress)
            run = Run(tasks, store, jobs=jobs, ray_address=ray_address, progress=display)
            res, wall, played_now = run.results, wall + run.wall_seconds, played_now + run.played_now
        for r in res:
            vi = int(r.key.split("/")[1])
            all_results.setdefault(values[vi], []).append(r)
        xs, ys = _observations(all_results)
        fv = fair_value(xs, ys)
        rounds_log.append({"round": rnd + 1, "values": values, **fv.to_dict()})
        if fv.estimate is None or not math.isfinite(fv.estimate):
            centre, spread = (lo + hi) / 2, (hi - lo) / 4
        else:
            centre = min(hi, max(lo, fv.estimate))
            var = _root_variance(fv)
            spread = 2 * math.sqrt(var) if var is not None else (hi - lo) / 4
            spread = min(max(spread, 1e-9), (hi - lo) / 2)
        # The next round: the estimate and twice its standard error either side (values repeat when
        # the game accepts no others nearby: they then get more games).
        cand = [_snap(game, param, x) for x in (centre - spread, centre, centre + spread)]
        values = sorted({v for v in cand if v is not None})
    assert fv is not None
    setting_stats = [
        SettingStats({param: v}, rs[0].game if rs else "", rs, len(rs[0].seats) if rs else 2)
        for v, rs in sorted(all_results.items())
    ]
    return BalanceResult(
        game=game,
        agent=agent,
        seconds=seconds,
        iterations=iterations,
        seed=seed,
        settings=setting_stats,
        find=_find_summary(param, lo, hi, all_results, rounds_log, fv),
        wall_seconds=wall,
        played_now=played_now,
        clock=clock,
    )


def _find_summary(
    param: str,
    lo: float,
    hi: float,
    by_value: dict[float, list[GameResult]],
    rounds_log: list[dict[str, Any]],
    fv: FairValue,
) -> dict[str, Any]:
    find = {"param": param, "range": [lo, hi], "tried": sorted(by_value), "rounds": rounds_log, **fv.to_dict()}
    find.update(find_flags(find, by_value))
    return find


def _observations(by_value: dict[float, list[GameResult]]) -> tuple[list[float], list[float]]:
    xs: list[float] = []
    ys: list[float] = []
    for v, rs in by_value.items():
        for r in rs:
            if r.error is not None:
                continue
            w = r.winner
            xs.append(v)
            ys.append(0.5 if w is None else 1.0 if w == 0 else 0.0)
    return xs, ys


def _root_variance(fv: FairValue) -> float | None:
    """Delta-method variance of ``-a/b``."""
    a, b = fv.fit.a, fv.fit.b
    if b == 0:
        return None
    (vaa, vab), (_, vbb) = fv.fit.cov
    x = -a / b
    v = (vaa + 2 * x * vab + x * x * vbb) / (b * b)
    return v if v > 0 and math.isfinite(v) else None


def find_flags(find: dict[str, Any], by_value: dict[float, list[GameResult]]) -> dict[str, Any]:
    """``range_tested``, ``outside_range`` (the interval leaves the tested values) and ``non_monotonic``.

    ``non_monotonic`` names two tested values whose seat-0 scores go against the fit's direction with
    95 % Wilson intervals that do not overlap (the effect reverses beyond the noise), else ``None``.
    """
    tried = sorted(by_value)
    ci = find.get("ci95")
    out: dict[str, Any] = {"range_tested": [tried[0], tried[-1]] if tried else None}
    out["outside_range"] = bool(ci is not None and tried and (ci[0] < tried[0] or ci[1] > tried[-1]))
    slope = (find.get("logistic") or {}).get("b")
    rows = []
    for v in tried:
        rs = [r for r in by_value[v] if r.error is None]
        if rs:
            pts = sum(r.score(0) for r in rs)
            rows.append((v, wilson_interval(pts, len(rs))))
    out["non_monotonic"] = None
    if slope:
        for i, (v1, (lo1, hi1)) in enumerate(rows):
            for v2, (lo2, hi2) in rows[i + 1 :]:
                # v1 < v2: a positive slope expects score(v1) <= score(v2)
                if (slope > 0 and lo1 > hi2) or (slope < 0 and hi1 < lo2):
                    out["non_monotonic"] = f"{v1:g} scores clearly {'above' if slope > 0 else 'below'} {v2:g}"
                    return out
    return out


__all__ = ["find_fair", "find_flags"]
