"""The tournament director: announcing a tournament, joining, withdrawing, berserking and the view of
one tournament with its standings and pairings, for people and bots (the API of
tessera.server.tournaments.routes).

The director owns the waves that run the events (:class:`tessera.server.tournaments.waves.Waves`):
it starts them with its settings and hands them its :meth:`Director.create` for the recurring
schedule's tournaments.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts import glicko2
from tessera.server.accounts.queries import rating_of
from tessera.server.accounts.security import Refused, state_text
from tessera.server.accounts.store import AccountStore, User
from tessera.server.match.clocks import check_days, clock_from
from tessera.server.match.inputs import load_checked
from tessera.server.match.service import MatchService
from tessera.server.tournaments import store
from tessera.server.tournaments.tables import tournament_players_table, tournaments_table
from tessera.server.tournaments.waves import STUCK_SECONDS, WAVE_SECONDS, Waves

MAX_MINUTES = 24 * 60 * 30
MAX_ROUNDS = 30
MAX_PLAYERS = 1000
MAX_AHEAD = 90 * 86400.0
"""A tournament starts at most 90 days ahead."""

MAX_OPEN_PER_ACCOUNT = 5
"""Tournaments one account may have announced that are not finished yet."""


class Director:
    """The tournaments of one database, as one server process runs them: what their players ask here,
    the events run by :attr:`waves`."""

    def __init__(
        self,
        service: MatchService,
        *,
        wave_seconds: float = WAVE_SECONDS,
        seed: int | None = None,
        stuck_seconds: float = STUCK_SECONDS,
    ) -> None:
        self.service = service
        self.storage = service.storage
        self.accounts = AccountStore(service.storage)
        self._guard = threading.Lock()
        self._read: dict[str, tuple[float, store.Tournament, list[dict[str, Any]], list[store.Pairing]]] = {}
        self.waves = Waves(
            service, self.accounts, self.create, wave_seconds=wave_seconds, seed=seed, stuck_seconds=stuck_seconds
        )
        """The waves that run the events (their period, the recurring schedules, :meth:`Waves.run`)."""

    # -- asking ----------------------------------------------------------------------------
    def create(self, user: User | None, body: dict[str, Any], *, schedule: str | None = None) -> dict[str, Any]:
        """A new tournament from the API's body (kind, game, clock or days, rated, starts_at, minutes or
        rounds, name); refused 422 with the reason when a field is not acceptable."""
        kind = body.get("kind")
        if kind not in ("arena", "swiss"):
            raise Refused(422, "kind: 'arena' or 'swiss'", key="refusal.tournament.kind")
        try:
            g = load_checked(str(body.get("game") or ""))
        except ValueError as e:
            raise Refused(
                422, f"game: {str(e)[:500]}", key="refusal.tournament.bad_game", args={"reason": str(e)[:500]}
            ) from None
        days = body.get("days")
        clock_in = body.get("clock")
        if (days is None) == (clock_in is None):
            raise Refused(
                422,
                "give a clock (initial seconds and increment) or days per move, one of the two",
                key="refusal.tournament.clock",
            )
        try:
            if days is not None:
                clock: dict[str, Any] = {"days": check_days(days)}
            else:
                made = clock_from(clock_in, g.num_players)
                assert made is not None
                clock = {"initial": made["initial"], "increment": made["increment"]}
        except ValueError as e:
            raise Refused(
                422, f"clock: {str(e)[:500]}", key="refusal.tournament.bad_clock", args={"reason": str(e)[:500]}
            ) from None
        now = time.time()
        starts_at = body.get("starts_at")
        starts = now if starts_at is None else starts_at
        if (
            not isinstance(starts, int | float)
            or isinstance(starts, bool)
            or not (now - 60 <= starts <= now + MAX_AHEAD)
        ):
            raise Refused(
                422,
                "starts_at: a time (seconds since 1970) from now to 90 days ahead",
                key="refusal.tournament.starts_at",
            )
        minutes = rounds = None
        if kind == "arena":
            minutes = body.get("minutes")
            if not isinstance(minutes, int) or isinstance(minutes, bool) or not (1 <= minutes <= MAX_MINUTES):
                raise Refused(
                    422,
                    f"minutes: an arena lasts 1 to {MAX_MINUTES} minutes",
                    key="refusal.tournament.minutes",
                    args={"max": MAX_MINUTES},
                )
        else:
            rounds = body.get("rounds")
            if not isinstance(rounds, int) or isinstance(rounds, bool) or not (1 <= rounds <= MAX_ROUNDS):
                raise Refused(
                    422,
                    f"rounds: a Swiss event has 1 to {MAX_ROUNDS} rounds",
                    key="refusal.tournament.rounds",
                    args={"max": MAX_ROUNDS},
                )
        name = body.get("name") or f"{g.name.capitalize()} {kind}"
        if not isinstance(name, str) or not (1 <= len(name.strip()) <= 80):
            raise Refused(422, "name: 1 to 80 characters", key="refusal.tournament.name")
        rated = body.get("rated", True)
        if not isinstance(rated, bool):
            raise Refused(422, "rated: true or false", key="refusal.tournament.rated")
        tid = uuid.uuid4().hex[:12]
        with self.storage.transaction(write=True) as tx:
            if user is not None:
                mine = tx.conn.execute(
                    sa.select(sa.func.count()).where(
                        tournaments_table.c.created_by == user.id, tournaments_table.c.status != "finished"
                    )
                ).scalar_one()
                if mine >= MAX_OPEN_PER_ACCOUNT:
                    raise Refused(
                        429,
                        f"you have {MAX_OPEN_PER_ACCOUNT} tournaments not finished yet: wait until one ends",
                        key="refusal.tournament.too_many",
                        args={"n": MAX_OPEN_PER_ACCOUNT},
                    )
            tx.conn.execute(
                tournaments_table.insert().values(
                    id=tid,
                    kind=kind,
                    name=name.strip(),
                    spec=str(g),
                    pool=g.name,
                    seats=g.num_players,
                    rated=rated,
                    clock=json.dumps(clock),
                    starts_at=float(starts),
                    minutes=minutes,
                    rounds=rounds,
                    round=0,
                    round_ends=None,
                    status="created",
                    schedule=schedule,
                    created_by=None if user is None else user.id,
                    created_at=now,
                    updated_at=now,
                    finished_at=None,
                )
            )
        t = store.load(self.storage, tid)
        assert t is not None
        return store.public(t, now)

    def _open(self, tid: str) -> store.Tournament:
        t = store.load(self.storage, tid)
        if t is None:
            raise Refused(404, "no such tournament", key="refusal.tournament.unknown")
        return t

    def _rating(self, user: User, pool: str) -> float:
        with self.storage.transaction() as tx:
            r = rating_of(tx, user.id, pool)
        return glicko2.START_RATING if r is None else r

    def join(self, user: User, tid: str) -> dict[str, Any]:
        """Enter (or come back after withdrawing); refused once the tournament is finished."""
        t = self._open(tid)
        if t.status == "finished":
            raise Refused(
                409,
                f"this tournament is {t.status}",
                key="refusal.tournament.is_now",
                args={"status": state_text(t.status)},
            )
        now = time.time()
        p = tournament_players_table
        with self.storage.transaction(write=True) as tx:
            done = tx.conn.execute(
                p.update().where(p.c.tournament_id == tid, p.c.user_id == user.id).values(withdrawn=False)
            ).rowcount
            if not done:
                n = tx.conn.execute(sa.select(sa.func.count()).where(p.c.tournament_id == tid)).scalar_one()
                if n >= MAX_PLAYERS:
                    raise Refused(
                        409,
                        f"this tournament is full ({MAX_PLAYERS} players)",
                        key="refusal.tournament.full",
                        args={"n": MAX_PLAYERS},
                    )
                tx.conn.execute(
                    p.insert().values(
                        tournament_id=tid,
                        user_id=user.id,
                        rating=self._rating(user, t.pool),
                        withdrawn=False,
                        berserk=False,
                        pairing_id=None,
                        free_since=now,
                        joined_at=now,
                    )
                )
        return {"ok": True, "id": tid, "joined": True}

    def withdraw(self, user: User, tid: str) -> dict[str, Any]:
        """Leave: paired no more (an arena: until joining again); games played stay in the table."""
        self._open(tid)
        p = tournament_players_table
        with self.storage.transaction(write=True) as tx:
            done = tx.conn.execute(
                p.update().where(p.c.tournament_id == tid, p.c.user_id == user.id).values(withdrawn=True)
            ).rowcount
        if not done:
            raise Refused(409, "you have not joined this tournament", key="refusal.tournament.not_joined")
        return {"ok": True, "id": tid, "joined": False}

    def berserk(self, user: User, tid: str) -> dict[str, Any]:
        """Berserk the next arena game: half one's own clock, an extra point for a win."""
        t = self._open(tid)
        if t.kind != "arena" or "days" in t.clock:
            raise Refused(409, "berserk is for arenas with a real-time clock", key="refusal.tournament.berserk_arena")
        p = tournament_players_table
        with self.storage.transaction(write=True) as tx:
            done = tx.conn.execute(
                p.update()
                .where(p.c.tournament_id == tid, p.c.user_id == user.id, p.c.withdrawn.is_(False))
                .values(berserk=True)
            ).rowcount
        if not done:
            raise Refused(409, "you have not joined this tournament", key="refusal.tournament.not_joined")
        return {"ok": True, "id": tid, "berserk": True}

    def view(self, tid: str, user: User | None = None, *, fresh_within: float = 0.0) -> dict[str, Any]:
        """The tournament: its settings and status, ``standings``, ``pairings`` (newest first, with their
        game ids) and, for a player, ``me`` (joined, withdrawn, the game he is in now).
        ``fresh_within``: a reading of the tables this process made less than that many seconds ago
        will do (the live streams: one reading a second for all their viewers)."""
        now = time.time()
        with self._guard:
            kept = self._read.get(tid)
        if kept is not None and now - kept[0] < fresh_within:
            _, t, ps, pairs = kept
        else:
            t = self._open(tid)
            ps = store.players(self.storage, tid)
            pairs = store.pairings(self.storage, tid)
            with self._guard:
                self._read[tid] = (now, t, ps, pairs)
                if len(self._read) > 200:
                    self._read.pop(next(iter(self._read)))
        names = {p["user_id"]: p["username"] for p in ps}
        out = store.public(t, now)
        out["standings"] = store.standings(t, ps, pairs)
        out["players"] = sum(1 for p in ps if not p["withdrawn"])
        out["pairings"] = [
            {
                "id": pr.id,
                "round": pr.round,
                "players": [names.get(u, "?") for u in pr.users],
                "status": pr.status,
                "game_id": pr.game_id,
                "places": pr.result.get("places") if pr.result else None,
                "result": pr.result,
                "berserk": pr.berserk,
            }
            for pr in reversed(pairs)
            if pr.status != "void"
        ][:200]
        if user is not None:
            mine = next((p for p in ps if p["user_id"] == user.id), None)
            current = None
            if mine is not None and mine["pairing_id"] is not None:
                pr = next((x for x in pairs if x.id == mine["pairing_id"]), None)
                if pr is not None and pr.status == "playing" and pr.game_id is not None:
                    current = {"game_id": pr.game_id, "seat": pr.users.index(user.id)}
            out["me"] = {
                "joined": mine is not None and not mine["withdrawn"],
                "withdrawn": mine is not None and bool(mine["withdrawn"]),
                "berserk": mine is not None and bool(mine["berserk"]),
                "game": current,
            }
        return out
