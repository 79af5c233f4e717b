"""Plots of tournaments and balance runs: a JSON description (for a web page) and a PNG (matplotlib).

A plot description is a dict ``{"kind", "title", "xlabel", "ylabel", ...}``:

* ``kind = "intervals"``: ``series`` of ``{"label", "x": [...], "y": [...], "lo": [...],
  "hi": [...]}`` — points with 95 % error bars (x may be category names), optional
  ``"reference": y`` (a dashed horizontal line, e.g. ½);
* ``kind = "heatmap"``: ``rows``, ``cols`` (labels) and ``values[i][j]`` (``null`` where
  there is nothing), with ``"vmin"``/``"vmax"``.

:func:`write_plots` writes ``NAME.json`` always and ``NAME.png`` when matplotlib is
installed (``pip install 'tessera[lab]'``); it returns the paths written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def json_safe(v: Any) -> Any:
    """``v`` with every NaN or infinite float replaced by ``None`` (JSON has no such numbers).

    >>> json_safe({"rate": float("nan"), "ci": (0.25, float("inf")), "n": 3})
    {'rate': None, 'ci': [0.25, None], 'n': 3}
    """
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, list | tuple):
        return [json_safe(x) for x in v]
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    return v


def tournament_plots(d: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Ratings with intervals, and the score matrix, from a tournament's ``to_dict()``."""
    plots: dict[str, dict[str, Any]] = {}
    r = d.get("ratings")
    if r:
        ags = sorted(r["agents"], key=lambda a: -a["elo"])
        plots["ratings"] = {
            "kind": "intervals",
            "title": f"{d['game']}: ratings (Bradley–Terry, 95% CI)",
            "xlabel": "agent",
            "ylabel": "Elo (mean 0)",
            "series": [
                {
                    "label": "rating",
                    "x": [a["name"] for a in ags],
                    "y": [a["elo"] for a in ags],
                    "lo": [a["ci95"][0] for a in ags],
                    "hi": [a["ci95"][1] for a in ags],
                }
            ],
            "reference": 0.0,
        }
    agents = d["agents"]
    score = {(p["a"], p["b"]): p["score"] for p in d["pairs"]}
    plots["scores"] = {
        "kind": "heatmap",
        "title": f"{d['game']}: score of row against column",
        "rows": agents,
        "cols": agents,
        "values": [[score.get((a, b)) for b in agents] for a in agents],
        "vmin": 0.0,
        "vmax": 1.0,
    }
    return plots


def balance_plots(d: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Seat-0 win rate and game length per setting (and the fitted curve of a ``--find``)."""
    sets = [s for s in d["settings"] if s["games"]]
    labels = [",".join(f"{k}={v}" for k, v in s["setting"].items()) or s["game"] for s in sets]
    numeric = _numeric_axis(sets)
    x: list[Any] = numeric if numeric is not None else labels
    xlabel = next(iter(sets[0]["setting"]), "setting") if sets and numeric is not None else "setting"
    n_seats = len(sets[0]["seat_win_rate"]) if sets else 2
    plots: dict[str, dict[str, Any]] = {
        "seats": {
            "kind": "intervals",
            "title": f"{d['game']}: seat win rates in self-play of {d['agent']} (95% CI)",
            "xlabel": xlabel,
            "ylabel": "win rate",
            "series": [
                {
                    "label": f"seat {p}",
                    "x": x,
                    "y": [s["seat_win_rate"][p] for s in sets],
                    "lo": [s["seat_win_ci95"][p][0] for s in sets],
                    "hi": [s["seat_win_ci95"][p][1] for s in sets],
                }
                for p in range(n_seats)
            ]
            + [
                {
                    "label": "draws",
                    "x": x,
                    "y": [s["draw_rate"] for s in sets],
                    "lo": [s["draw_ci95"][0] for s in sets],
                    "hi": [s["draw_ci95"][1] for s in sets],
                }
            ],
            "reference": 1.0 / n_seats,
        },
        "length": {
            "kind": "intervals",
            "title": f"{d['game']}: game length (median, quartiles)",
            "xlabel": xlabel,
            "ylabel": "plies",
            "series": [
                {
                    "label": "length",
                    "x": x,
                    "y": [s["length"]["median"] for s in sets],
                    "lo": [s["length"]["q1"] for s in sets],
                    "hi": [s["length"]["q3"] for s in sets],
                },
                {
                    "label": "decided at",
                    "x": x,
                    "y": [(s["decided"]["quartiles_ply"] or [None] * 3)[1] for s in sets],
                    "lo": [(s["decided"]["quartiles_ply"] or [None] * 3)[0] for s in sets],
                    "hi": [(s["decided"]["quartiles_ply"] or [None] * 3)[2] for s in sets],
                },
            ],
        },
    }
    plots["score"] = {
        "kind": "intervals",
        "title": f"{d['game']}: seat 0 score (a draw counts ½) in self-play of {d['agent']} (95% CI)",
        "xlabel": xlabel,
        "ylabel": "seat 0 score",
        "series": [
            {
                "label": "seat 0 score",
                "x": x,
                "y": [s["seat0_score"] for s in sets],
                "lo": [s["seat0_score_ci95"][0] for s in sets],
                "hi": [s["seat0_score_ci95"][1] for s in sets],
            }
        ],
        "reference": 0.5,
    }
    f = d.get("find")
    if f and numeric is not None:
        a, b = f["logistic"]["a"], f["logistic"]["b"]
        lo, hi = min(numeric), max(numeric)
        xs = [lo + (hi - lo) * i / 40 for i in range(41)]
        seats = plots["seats"]
        seats["series"] = [
            {
                "label": "seat 0 score",
                "x": x,
                "y": [s["seat0_score"] for s in sets],
                "lo": [s["seat0_score_ci95"][0] for s in sets],
                "hi": [s["seat0_score_ci95"][1] for s in sets],
            }
        ]
        seats["title"] = f"{d['game']}: seat 0 score against {f['param']}, self-play of {d['agent']} (95% CI)"
        seats["ylabel"] = "seat 0 score (draw = ½)"
        seats["reference"] = 0.5
        seats["curve"] = {"x": xs, "y": [1 / (1 + math.exp(-(a + b * v))) for v in xs]}
        if f["estimate"] is not None:
            seats["marker"] = {
                "x": f["estimate"],
                "lo": (f["ci95"] or [None, None])[0],
                "hi": (f["ci95"] or [None, None])[1],
            }
    return plots


def robust_plots(d: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One question at several strengths: seat 0's score per setting, a series per agent, and the ladder."""
    plots: dict[str, dict[str, Any]] = {}
    runs = d["runs"]
    if runs and not runs[0].get("find"):
        series = []
        xlabel = "setting"
        for agent, run in zip(d["agents"], runs, strict=True):
            sets = [s for s in run["settings"] if s["games"]]
            numeric = _numeric_axis(sets)
            labels = [",".join(f"{k}={v}" for k, v in s["setting"].items()) or s["game"] for s in sets]
            if numeric is not None and sets:
                xlabel = next(iter(sets[0]["setting"]), "setting")
            series.append(
                {
                    "label": agent,
                    "x": numeric if numeric is not None else labels,
                    "y": [s["seat0_score"] for s in sets],
                    "lo": [s["seat0_score_ci95"][0] for s in sets],
                    "hi": [s["seat0_score_ci95"][1] for s in sets],
                }
            )
        plots["score_by_strength"] = {
            "kind": "intervals",
            "title": f"{d['game']}: seat 0 score at each strength (95% CI)",
            "xlabel": xlabel,
            "ylabel": "seat 0 score (draw = ½)",
            "series": series,
            "reference": 0.5,
        }
    if d.get("ladder"):
        plots["ladder"] = tournament_plots(d["ladder"])["ratings"]
    return plots


def _numeric_axis(sets: Sequence[dict[str, Any]]) -> list[float] | None:
    if not sets or any(len(s["setting"]) != 1 for s in sets):
        return None
    try:
        return [float(next(iter(s["setting"].values()))) for s in sets]
    except (TypeError, ValueError):
        return None


def write_plots(plots: dict[str, dict[str, Any]], out: str | Path, prefix: str = "") -> list[Path]:
    """Write ``OUT/PREFIXNAME.json`` for every plot, and ``.png`` when matplotlib is installed."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, plot in plots.items():
        p = out / f"{prefix}{name}.json"
        p.write_text(json.dumps(json_safe(plot), indent=1), encoding="utf-8")
        written.append(p)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return written
    for name, plot in plots.items():
        fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
        try:
            _draw(ax, fig, plot)
            png = out / f"{prefix}{name}.png"
            fig.tight_layout()
            fig.savefig(png)
            written.append(png)
        finally:
            plt.close(fig)
    return written


def _draw(ax: Any, fig: Any, plot: dict[str, Any]) -> None:
    ax.set_title(plot.get("title", ""), fontsize=10)
    if plot["kind"] == "heatmap":
        import numpy as np

        vals = np.array([[math.nan if v is None else v for v in row] for row in plot["values"]], dtype=float)
        im = ax.imshow(vals, vmin=plot.get("vmin"), vmax=plot.get("vmax"), cmap="RdBu")
        ax.set_xticks(range(len(plot["cols"])), plot["cols"], rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(len(plot["rows"])), plot["rows"], fontsize=8)
        for i, row in enumerate(plot["values"]):
            for j, v in enumerate(row):
                if v is not None:
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
        fig.colorbar(im, ax=ax)
        return
    categorical = any(isinstance(v, str) for s in plot["series"] for v in s["x"])
    cats = list(dict.fromkeys(v for s in plot["series"] for v in s["x"])) if categorical else []
    nser = len(plot["series"])
    for k, s in enumerate(plot["series"]):
        pts = [
            (x, y, lo, hi)
            for x, y, lo, hi in zip(s["x"], s["y"], s["lo"], s["hi"], strict=True)
            if y is not None and not (isinstance(y, float) and math.isnan(y))
        ]
        if not pts:
            continue
        if categorical:
            off = (k - (nser - 1) / 2) * 0.12
            xs = [cats.index(p[0]) + off for p in pts]
        else:
            xs = [float(p[0]) for p in pts]
        ys = [p[1] for p in pts]
        lo = [max(0.0, p[1] - p[2]) if p[2] is not None else 0 for p in pts]
        hi = [max(0.0, p[3] - p[1]) if p[3] is not None else 0 for p in pts]
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o" if categorical else "o-", capsize=3, label=s["label"], ms=4)
    if categorical:
        ax.set_xticks(range(len(cats)), cats, rotation=30, ha="right", fontsize=8)
        ax.set_xlim(-0.5, len(cats) - 0.5)
    if "curve" in plot:
        ax.plot(plot["curve"]["x"], plot["curve"]["y"], "-", color="grey", lw=1, label="logistic fit")
    if "marker" in plot:
        m = plot["marker"]
        ax.axvline(m["x"], color="green", lw=1, label=f"fair value {m['x']:.2f}")
        if m.get("lo") is not None and m.get("hi") is not None:
            ax.axvspan(m["lo"], m["hi"], color="green", alpha=0.12)
    if plot.get("reference") is not None:
        ax.axhline(plot["reference"], color="black", lw=0.7, ls="--")
    ax.set_xlabel(plot.get("xlabel", ""))
    ax.set_ylabel(plot.get("ylabel", ""))
    if nser > 1 or "curve" in plot:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


__all__ = ["balance_plots", "robust_plots", "tournament_plots", "write_plots"]
