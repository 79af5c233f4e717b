"""What designers ask of people's games: per game, from finished **rated games between people**
(no AI seat), the first seat's win rate with a 95 % Wilson interval, the draw rate, the length,
and the rates of aborted games, time-outs and resignations — overall, by variant and by rating
band (the mean of the players' ratings before the game, in bands of 200)."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.store import seat_result
from tessera.server.accounts.tables import account_games_table, history_table
from tessera.server.storage import Storage, games_table, moves_table, seats_table

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
    n = len(games)
    decided = [g for g in games if g["outcome"] != "aborted"]
    wins = sum(1 for g in decided if g["outcome"] == "win")
    draws = sum(1 for g in decided if g["outcome"] == "draw")
    low, high = wilson(wins, len(decided))
    lengths = [g["moves"] for g in decided]
    rate = lambda k: (k / n) if n else None  # noqa: E731
    return {
        "games": n,
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
        rows = tx.conn.execute(
            sa.select(games_table.c.id, games_table.c.spec, games_table.c.result)
            .join(account_games_table, account_games_table.c.game_id == games_table.c.id)
            .where(
                account_games_table.c.rated.is_(True),
                account_games_table.c.pool == game,
                games_table.c.status == "finished",
                ~sa.exists().where(seats_table.c.game_id == games_table.c.id, seats_table.c.kind == "ai"),
            )
        ).all()
        ids = [r.id for r in rows]
        moves: dict[str, int] = {}
        before: dict[str, list[float]] = defaultdict(list)
        for chunk in (ids[i : i + 500] for i in range(0, len(ids), 500)):
            moves.update(
                tx.conn.execute(
                    sa.select(moves_table.c.game_id, sa.func.count())
                    .where(moves_table.c.game_id.in_(chunk))
                    .group_by(moves_table.c.game_id)
                ).all()
            )
            for gid, r in tx.conn.execute(
                sa.select(history_table.c.game_id, history_table.c.before).where(history_table.c.game_id.in_(chunk))
            ):
                before[gid].append(r)
    games = []
    for r in rows:
        result = json.loads(r.result) if r.result else None
        mean = statistics.fmean(before[r.id]) if before.get(r.id) else None
        band = "unrated" if mean is None else f"{int(mean // BAND * BAND)}-{int(mean // BAND * BAND + BAND - 1)}"
        games.append(
            {
                "spec": r.spec,
                "outcome": seat_result(result, 0),
                "reason": (result or {}).get("reason"),
                "moves": moves.get(r.id, 0),
                "band": band,
            }
        )
    by_variant: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_band: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in games:
        by_variant[g["spec"]].append(g)
        by_band[g["band"]].append(g)
    return {
        "game": game,
        "source": "finished rated games between people",
        **_summary(games),
        "by_variant": {k: _summary(v) for k, v in sorted(by_variant.items())},
        "by_band": {k: _summary(v) for k, v in sorted(by_band.items())},
    }
