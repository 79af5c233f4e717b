"""What designers ask of people's games: per game, from finished **rated games between people**
(no AI seat), the first seat's win rate with a 95 % Wilson interval, the draw rate, the length,
and the rates of aborted games, time-outs and resignations — overall, by variant and by rating
band (the mean of the players' ratings before the game, in bands of 200) — beside the balance lab's
self-play figures for the same variants (:func:`self_play`: the stored results of the arena's
balance studies, ``studies/balance/*/summary.json``, read, never computed in a request)."""

from __future__ import annotations

import json
import math
import os
import re
import statistics
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.queries import rated_games
from tessera.server.accounts.store import seat_result
from tessera.server.accounts.tables import history_table
from tessera.server.match.queries import finished_between_people, move_counts
from tessera.server.store.storage import Storage

STUDIES = Path(__file__).resolve().parents[3] / "studies" / "balance"
"""Where the balance lab's stored studies are (``TESSERA_BALANCE_STUDIES`` overrides it): one folder
per study, its ``summary.json`` written by ``tessera.arena``'s balance runner."""

Z95 = 1.959963984540054
BAND = 200


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); (0, 1) with no trials."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _summary(games: list[dict[str, Any]]) -> dict[str, Any]:
    """``games``: the rated games played to a result (an aborted game has none: it counts in
    ``aborted`` and in the rates of aborts, time-outs and resignations, never as a rated game)."""
    n = len(games)
    decided = [g for g in games if g["outcome"] != "aborted"]
    wins = sum(1 for g in decided if g["outcome"] == "win")
    draws = sum(1 for g in decided if g["outcome"] == "draw")
    low, high = wilson(wins, len(decided))
    lengths = [g["moves"] for g in decided]
    rate = lambda k: (k / n) if n else None  # noqa: E731
    return {
        "games": len(decided),
        "aborted": n - len(decided),
        "first_seat": {
            "wins": wins,
            "of": len(decided),
            "rate": wins / len(decided) if decided else None,
            "low": round(low, 4),
            "high": round(high, 4),
        },
        "draw_rate": draws / len(decided) if decided else None,
        "length": {
            "median": statistics.median(lengths) if lengths else None,
            "mean": round(statistics.fmean(lengths), 1) if lengths else None,
        },
        "aborted_rate": rate(sum(1 for g in games if g["outcome"] == "aborted")),
        "timeout_rate": rate(sum(1 for g in games if g["reason"] == "flag")),
        "resign_rate": rate(sum(1 for g in games if g["reason"] == "resign")),
    }


def game_stats(storage: Storage, game: str) -> dict[str, Any]:
    """The figures for ``game`` (a game name): overall, ``by_variant`` (spec) and ``by_band``."""
    with storage.transaction() as tx:
        rows = finished_between_people(tx, rated_games(game))
        ids = [gid for gid, _, _ in rows]
        moves = move_counts(tx, ids)
        before: dict[str, list[float]] = defaultdict(list)
        for chunk in (ids[i : i + 500] for i in range(0, len(ids), 500)):
            for gid, r in tx.conn.execute(
                sa.select(history_table.c.game_id, history_table.c.before).where(history_table.c.game_id.in_(chunk))
            ):
                before[gid].append(r)
    games: list[dict[str, Any]] = []
    for gid, spec, result in rows:
        mean = statistics.fmean(before[gid]) if before.get(gid) else None
        band = "unrated" if mean is None else f"{int(mean // BAND * BAND)}-{int(mean // BAND * BAND + BAND - 1)}"
        games.append(
            {
                "spec": spec,
                "outcome": seat_result(result, 0),
                "reason": (result or {}).get("reason"),
                "moves": moves.get(gid, 0),
                "band": band,
            }
        )
    by_variant: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_band: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in games:
        by_variant[g["spec"]].append(g)
        if g["outcome"] != "aborted":  # an aborted game changed no rating: it has no band
            by_band[g["band"]].append(g)
    return {
        "game": game,
        "source": "finished rated games between people",
        **_summary(games),
        "by_variant": {k: _summary(v) for k, v in sorted(by_variant.items())},
        "by_band": {k: _summary(v) for k, v in sorted(by_band.items())},
    }


def studies_dir() -> Path:
    """The folder of stored balance studies."""
    configured = os.environ.get("TESSERA_BALANCE_STUDIES")
    return Path(configured) if configured else STUDIES


def _canonical(spec: str) -> str:
    """A study's game string as the server writes game strings: the parameters equal to their declared
    default left out, from the game's declaration alone.  Building the game (``str(load_game(spec))``)
    would compile its kernels in a request — a cold first request once took minutes.  The balance runner
    writes ``str(game)`` already; a string that does not parse is kept as it is."""
    from tessera.core.game import _format_value
    from tessera.core.registry import game_class, parse_game_string

    try:
        name, params = parse_game_string(spec)
        info = game_class(name).info
        kept = []
        for p in info.params:
            if p.name not in params:
                continue
            value = p.coerce(name, params[p.name])
            if value != p.default:
                kept.append(f"{p.name}={_format_value(value)}")
    except (ValueError, KeyError):
        return spec
    return name + (f"({','.join(kept)})" if kept else "")


def _budget(data: dict[str, Any]) -> str:
    """A study's agent budget as the tables say it: ``100 iterations/move``, ``0.1 s/move (cpu)``, ``default``."""
    if data.get("iterations") is not None:
        return f"{data['iterations']} iterations/move"
    if data.get("seconds") is not None:
        clock = data.get("clock") or "wall"
        return f"{data['seconds']:g} s/move" + (" (cpu)" if clock == "cpu" else "")
    return "default budget"


@lru_cache(maxsize=128)
def _study(path: str, mtime: float) -> dict[str, Any] | None:
    """One study's summary (cached while the file is unchanged); None if it is neither a balance study
    (``kind: balance`` with its ``settings``) nor one asked at several strengths (``kind: robust`` with
    its ``questions``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    if data.get("kind") == "balance" and isinstance(data.get("settings"), list):
        return data
    if data.get("kind") == "robust" and isinstance(data.get("questions"), list):
        return data
    return None


def _studies_of(game: str, folder: Path | None, kind: str = "balance") -> list[tuple[Path, dict[str, Any]]]:
    """The stored studies of ``game`` (a game name) of one ``kind`` (``balance`` or ``robust``):
    ``(summary path, summary)``, by folder name."""
    root = folder if folder is not None else studies_dir()
    if not root.is_dir():
        return []
    found = []
    for summary in sorted(root.glob("*/summary.json")):
        data = _study(str(summary), summary.stat().st_mtime)
        if data is not None and data.get("kind") == kind and str(data.get("game", "")).partition("(")[0] == game:
            found.append((summary, data))
    return found


VERDICTS = {"seat 0 favoured": "favoured", "seat 0 disfavoured": "disfavoured", "not decided": "undecided"}
"""The balance lab's verdict of one strength (tessera.arena.robust.verdict) as the page's code."""


def _agreement(text: str) -> dict[str, Any]:
    """What the strengths say together (tessera.arena.robust.agreement) as ``{"code", "agents"}``:
    ``stable``, ``only_at`` (with the agents that decide), ``flips`` (opposite seats favoured),
    ``differs`` (a seat favoured at one strength, the seats even at another) or ``undecided``."""
    if text.startswith("decided only at "):
        return {"code": "only_at", "agents": [a.strip() for a in text[len("decided only at ") :].split(",")]}
    codes = {"decided and stable": "stable", "flips with strength": "flips", "differs with strength": "differs"}
    code = codes.get(text, "undecided")
    return {"code": code, "agents": []}


def strengths(game: str, folder: Path | None = None) -> list[dict[str, Any]]:
    """The balance lab's questions asked at several strengths for ``game`` (a game name; the studies of
    ``tessera balance --agents``): per study its game string, and per question (seat 0's score at one
    setting) the variant asked about (as the server writes game strings), each agent's spec and
    budget, games, seat 0's wins and score (a draw ½) with its 95 % Wilson interval, draws and verdict
    (``favoured``, ``disfavoured``, ``undecided``; ``even`` with ``elo`` for a sequential test's "even
    within ±N Elo"), then what the strengths say together (:func:`_agreement`).  Read from the stored
    studies only."""
    out: list[dict[str, Any]] = []
    for summary, data in _studies_of(game, folder, kind="robust"):
        runs = [r for r in data.get("runs") or [] if isinstance(r, dict)]
        budgets = {str(r.get("agent")): _budget(r) for r in runs}
        written = {  # each setting's game string as the runner wrote it (str(game): the server's form)
            json.dumps(x.get("setting"), sort_keys=True): str(x["game"])
            for r in runs[:1]
            for x in r.get("settings") or []
            if isinstance(x, dict) and "game" in x
        }
        questions = []
        for q in data["questions"]:
            try:
                rows = []
                for r in q["rows"]:
                    ci = r["seat0_score_ci95"]
                    text = str(r["verdict"])
                    even = re.fullmatch(r"even within ±([0-9.]+) Elo", text)
                    rows.append(
                        {
                            "agent": str(r["agent"]),
                            "budget": budgets.get(str(r["agent"]), ""),
                            "games": int(r["games"]),
                            "wins": r.get("seat0_wins"),
                            "score": {"rate": r["seat0_score"], "low": round(ci[0], 4), "high": round(ci[1], 4)},
                            "draw_rate": r.get("draw_rate"),
                            "verdict": "even" if even else VERDICTS.get(text, "undecided"),
                            "elo": float(even.group(1)) if even else None,
                        }
                    )
                setting = ",".join(f"{k}={v}" for k, v in (q.get("setting") or {}).items())
                spec = written.get(json.dumps(q.get("setting"), sort_keys=True))
                if spec is None:
                    spec = str(data["game"])
                    if setting:
                        spec = f"{spec[:-1]},{setting})" if spec.endswith(")") else f"{spec}({setting})"
                questions.append(
                    {
                        "variant": _canonical(spec),
                        "rows": rows,
                        "agreement": _agreement(str(q["agreement"])),
                    }
                )
            except (KeyError, IndexError, TypeError, ValueError):
                continue  # a question written by an older runner (a fair value): left out rather than shown wrong
        if questions:
            out.append({"study": summary.parent.name, "game": _canonical(str(data["game"])), "questions": questions})
    return out


def fair_values(game: str, folder: Path | None = None) -> list[dict[str, Any]]:
    """The fair values the balance lab fitted for ``game`` (studies run with ``--find``): the study, the
    agent and its budget, the parameter, the estimate with its 95 % interval (``None``: unbounded), the
    tested range and the warnings (outside the tested values, non-monotonic)."""
    out: list[dict[str, Any]] = []
    for summary, data in _studies_of(game, folder):
        if not data.get("find"):
            continue
        f = data["find"]
        tried = f.get("tried") or []
        ci = f.get("ci95")
        out.append(
            {
                "study": summary.parent.name,
                "game": _canonical(str(data["game"])),
                "agent": data.get("agent"),
                "budget": _budget(data),
                "param": f.get("param"),
                "estimate": f.get("estimate"),
                "ci95": ci,
                "tested": [min(tried), max(tried)] if tried else None,
                "outside_range": bool(ci and tried and (ci[0] < min(tried) or ci[1] > max(tried))),
                "non_monotonic": f.get("non_monotonic"),
            }
        )
    return out


def self_play(game: str, folder: Path | None = None) -> list[dict[str, Any]]:
    """The balance lab's self-play figures for ``game`` (a game name): one entry per study setting —
    the study, the agent that played every seat and its budget, the variant (as the server writes game
    strings), the number of games, the first seat's win rate and score (a draw ½) each with its 95 %
    Wilson interval, the draw rate and the length in plies.  Read from the stored studies only."""
    out: list[dict[str, Any]] = []
    for summary, data in _studies_of(game, folder):
        for setting in data["settings"]:
            try:
                rates, cis = setting["seat_win_rate"], setting["seat_win_ci95"]
                score, score_ci = setting.get("seat0_score"), setting.get("seat0_score_ci95") or [None, None]
                out.append(
                    {
                        "study": summary.parent.name,
                        "agent": data.get("agent"),
                        "budget": _budget(data),
                        "variant": _canonical(str(setting["game"])),
                        "games": int(setting["games"]),
                        "first_seat": {
                            "rate": rates[0],
                            "low": round(cis[0][0], 4),
                            "high": round(cis[0][1], 4),
                        },
                        "first_seat_score": None
                        if score is None  # a study written before scores were kept
                        else {"rate": score, "low": round(score_ci[0], 4), "high": round(score_ci[1], 4)},
                        "draw_rate": setting.get("draw_rate"),
                        "length": {
                            "median": (setting.get("length") or {}).get("median"),
                            "mean": (setting.get("length") or {}).get("mean"),
                        },
                    }
                )
            except (KeyError, IndexError, TypeError, ValueError):
                continue  # a setting written by an older runner: left out rather than shown wrong
    return out
