"""Reading the tournaments' tables: one tournament with its standings and pairings, the lists, a
player's results.  No writes (those are the director's and its waves',
tessera.server.tournaments.director and tessera.server.tournaments.waves).

The standings are computed from the stored pairings every time they are read, never stored: two
server processes reading the same rows show the same table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.queries import names
from tessera.server.store.storage import Storage
from tessera.server.tournaments import arena, swiss
from tessera.server.tournaments.tables import (
    tournament_pairings_table,
    tournament_players_table,
    tournaments_table,
)

STATUSES = ("created", "started", "finished")
"""A tournament's life: announced (players join), running, over (its table kept)."""

LIST_LIMIT = 50
"""Tournaments per list of ``GET /api/tournaments``."""


@dataclass
class Tournament:
    """One stored tournament."""

    id: str
    kind: str
    name: str
    spec: str
    pool: str
    seats: int
    rated: bool
    clock: dict[str, Any]
    starts_at: float
    minutes: int | None
    rounds: int | None
    round: int
    round_ends: float | None
    status: str
    schedule: str | None
    created_by: str | None
    created_at: float
    finished_at: float | None

    @property
    def ends_at(self) -> float | None:
        """An arena's end (None for a Swiss event: it ends with its last round)."""
        return None if self.minutes is None else self.starts_at + 60.0 * self.minutes


def tournament_of(r: Any) -> Tournament:
    return Tournament(
        id=r["id"],
        kind=r["kind"],
        name=r["name"],
        spec=r["spec"],
        pool=r["pool"],
        seats=int(r["seats"]),
        rated=bool(r["rated"]),
        clock=json.loads(r["clock"]),
        starts_at=float(r["starts_at"]),
        minutes=r["minutes"],
        rounds=r["rounds"],
        round=int(r["round"]),
        round_ends=r["round_ends"],
        status=r["status"],
        schedule=r["schedule"],
        created_by=r["created_by"],
        created_at=float(r["created_at"]),
        finished_at=r["finished_at"],
    )


@dataclass
class Pairing:
    """One stored pairing (a game, or a Swiss bye)."""

    id: str
    round: int
    users: list[str]
    berserk: list[bool]
    status: str
    game_id: str | None
    result: dict[str, Any] | None
    created_at: float
    ended_at: float | None

    def places(self) -> tuple[int, ...] | None:
        if self.result is None or "places" not in self.result:
            return None
        return tuple(int(p) for p in self.result["places"])

    def moves(self) -> tuple[int, ...] | None:
        """The moves each seat made (stored with the result since the quick-draw rule; None before)."""
        if self.result is None or "moves" not in self.result:
            return None
        return tuple(int(m) for m in self.result["moves"])


def pairing_of(r: Any) -> Pairing:
    return Pairing(
        id=r["id"],
        round=int(r["round"]),
        users=json.loads(r["users"]),
        berserk=json.loads(r["berserk"]),
        status=r["status"],
        game_id=r["game_id"],
        result=None if r["result"] is None else json.loads(r["result"]),
        created_at=float(r["created_at"]),
        ended_at=r["ended_at"],
    )


def load(storage: Storage, tid: str) -> Tournament | None:
    with storage.transaction() as tx:
        r = tx.conn.execute(sa.select(tournaments_table).where(tournaments_table.c.id == tid)).mappings().first()
    return None if r is None else tournament_of(r)


def players(storage: Storage, tid: str) -> list[dict[str, Any]]:
    """The players: ``user_id``, ``username``, ``rating``, ``withdrawn``, ``berserk``, ``pairing_id``,
    ``free_since``, ``is_bot``."""
    p = tournament_players_table
    with storage.transaction() as tx:
        rows = (
            tx.conn.execute(sa.select(p).where(p.c.tournament_id == tid).order_by(p.c.joined_at, p.c.user_id))
            .mappings()
            .all()
        )
        who = names(tx, (r["user_id"] for r in rows))
    return [
        {**r, "username": who[r["user_id"]][0], "is_bot": who[r["user_id"]][1]} for r in rows if r["user_id"] in who
    ]


def pairings(storage: Storage, tid: str) -> list[Pairing]:
    """Every pairing, in the order they ended (running ones last, in the order they began)."""
    t = tournament_pairings_table
    with storage.transaction() as tx:
        rows = tx.conn.execute(sa.select(t).where(t.c.tournament_id == tid)).mappings().all()
    out = [pairing_of(r) for r in rows]
    return sorted(out, key=lambda p: (p.ended_at is None, p.ended_at or p.created_at, p.created_at, p.id))


def swiss_rounds(ps: list[Pairing]) -> list[list[swiss.Table]]:
    """The Swiss rounds so far as tables (void pairings left out)."""
    by_round: dict[int, list[swiss.Table]] = defaultdict(list)
    for p in sorted(ps, key=lambda p: (p.round, p.created_at, p.id)):
        if p.status == "void":
            continue
        r = p.result or {}
        by_round[p.round].append(
            swiss.Table(
                tuple(p.users),
                places=p.places(),
                bye=p.status == "bye",
                aborted=bool(r.get("aborted")),
                lapsed=bool(r.get("lapsed")),
            )
        )
    return [by_round[k] for k in sorted(by_round)]


def standings(t: Tournament, ps: list[dict[str, Any]], pairs: list[Pairing]) -> list[dict[str, Any]]:
    """The table, best first: ``{"rank", "username", "points", …}`` — an arena's ``sheet`` (each game's
    points), ``fire``, ``games``, ``wins``, ``berserks``; a Swiss event's ``buchholz``,
    ``sonneborn_berger``, ``byes``, ``games``; ``withdrawn`` and ``rating`` for both."""
    names = {p["user_id"]: p for p in ps}
    rows: list[dict[str, Any]] = []
    if t.kind == "arena":
        played: dict[str, list[arena.Played]] = defaultdict(list)
        for pr in pairs:
            if pr.status != "done":
                continue
            for seat, u in enumerate(pr.users):
                played[u].append(arena.Played(pr.places(), seat, bool(pr.berserk[seat]), pr.moves()))
        for u, p in names.items():
            s = arena.score_games(played[u])
            rows.append(
                {
                    "username": p["username"],
                    "points": s.points,
                    "sheet": s.sheet,
                    "fire": s.fire,
                    "games": s.games,
                    "wins": s.wins,
                    "berserks": s.berserks,
                    "rating": round(p["rating"]),
                    "withdrawn": bool(p["withdrawn"]),
                }
            )
        rows.sort(key=lambda r: (-r["points"], -r["rating"], r["username"].lower()))
    else:
        entrants = [swiss.Entrant(u, p["rating"], not p["withdrawn"]) for u, p in names.items()]
        done = [
            [tb for tb in rnd if tb.bye or tb.places is not None or tb.aborted or tb.lapsed]
            for rnd in swiss_rounds(pairs)
        ]
        lines = swiss.lines(entrants, done)
        for u, p in names.items():
            ln = lines[u]
            rows.append(
                {
                    "username": p["username"],
                    "points": ln.points,
                    "buchholz": ln.buchholz,
                    "sonneborn_berger": ln.sonneborn_berger,
                    "byes": ln.byes,
                    "games": ln.games,
                    "rating": round(p["rating"]),
                    "withdrawn": bool(p["withdrawn"]),
                }
            )
        rows.sort(
            key=lambda r: (-r["points"], -r["buchholz"], -r["sonneborn_berger"], -r["rating"], r["username"].lower())
        )
    for i, r in enumerate(rows):
        r["rank"] = i + 1
        r["points"] = round(r["points"], 4)
        for k in ("buchholz", "sonneborn_berger"):
            if k in r:
                r[k] = round(r[k], 4)
    return rows


def public(t: Tournament, now: float) -> dict[str, Any]:
    """A tournament as the lists show it."""
    out: dict[str, Any] = {
        "id": t.id,
        "kind": t.kind,
        "name": t.name,
        "game": t.spec,
        "seats": t.seats,
        "rated": t.rated,
        "clock": t.clock,
        "starts_at": t.starts_at,
        "status": t.status,
        "schedule": t.schedule,
    }
    if t.kind == "arena":
        out["minutes"] = t.minutes
        out["ends_at"] = t.ends_at
    else:
        out["rounds"] = t.rounds
        out["round"] = t.round
        out["round_ends"] = t.round_ends
    out["seconds_to_start"] = max(0.0, round(t.starts_at - now, 1)) if t.status == "created" else None
    if t.kind == "arena" and t.status == "started" and t.ends_at is not None:
        out["seconds_left"] = max(0.0, round(t.ends_at - now, 1))
    out["finished_at"] = t.finished_at
    return out


def listing(storage: Storage, now: float) -> dict[str, list[dict[str, Any]]]:
    """``{"created": [...], "started": [...], "finished": [...]}``: upcoming soonest first, running,
    finished newest first, each with its number of players."""
    t = tournaments_table
    p = tournament_players_table
    count = (
        sa.select(sa.func.count())
        .where(p.c.tournament_id == t.c.id, p.c.withdrawn.is_(False))
        .correlate(t)
        .scalar_subquery()
    )
    out: dict[str, list[dict[str, Any]]] = {}
    with storage.transaction() as tx:
        for status in STATUSES:
            order = t.c.finished_at.desc() if status == "finished" else t.c.starts_at
            rows = (
                tx.conn.execute(
                    sa.select(t, count.label("players")).where(t.c.status == status).order_by(order).limit(LIST_LIMIT)
                )
                .mappings()
                .all()
            )
            out[status] = [{**public(tournament_of(r), now), "players": int(r["players"])} for r in rows]
    return out


def user_results(storage: Storage, user_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """An account's finished tournaments, newest first: ``{"id", "name", "kind", "game", "rank",
    "players", "points", "finished_at"}`` (its profile's results; rank 1 is a trophy)."""
    t = tournaments_table
    p = tournament_players_table
    with storage.transaction() as tx:
        rows = (
            tx.conn.execute(
                sa.select(t)
                .join(p, p.c.tournament_id == t.c.id)
                .where(p.c.user_id == user_id, t.c.status == "finished")
                .order_by(t.c.finished_at.desc())
                .limit(limit)
            )
            .mappings()
            .all()
        )
    out = []
    for r in rows:
        tour = tournament_of(r)
        ps = players(storage, tour.id)
        table = standings(tour, ps, pairings(storage, tour.id))
        mine = next((row for row, p in zip(table, _by_rank(table, ps), strict=True) if p == user_id), None)
        if mine is None:
            continue
        out.append(
            {
                "id": tour.id,
                "name": tour.name,
                "kind": tour.kind,
                "game": tour.spec,
                "rank": mine["rank"],
                "players": len(table),
                "points": mine["points"],
                "finished_at": tour.finished_at,
            }
        )
    return out


def _by_rank(table: list[dict[str, Any]], ps: list[dict[str, Any]]) -> list[str]:
    ids = {p["username"]: p["user_id"] for p in ps}
    return [ids[r["username"]] for r in table]
