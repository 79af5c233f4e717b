"""The waves that run the tournaments: starting them, pairing, recording the games and finishing.

The director (tessera.server.tournaments.director) owns the waves of its process and hands them
its ``create``, through which the recurring schedules' tournaments are announced.

Every :data:`WAVE_SECONDS` each server process tries to run a wave; on PostgreSQL one process at a
time does (a session advisory lock, :data:`DIRECTOR_LOCK`).  A wave, for each tournament that is
not finished:

1. starts it when its time has come (``created`` → ``started``);
2. records the games that ended (a pairing ``playing`` → ``done`` with the finishing places; its
   players are free again; a player who made no first move in an aborted game is withdrawn, as on
   lichess, until he joins again), and finishes what a stopped process left half made (a pairing
   ``creating`` with its game made goes on; without a game it is void and its players free);
3. an arena: pairs whoever is free (tessera.server.tournaments.arena), except in its last
   :data:`LAST_SECONDS`; at its end, the games still running are left out of the table
   (``unfinished``) and it is finished.  A Swiss event: when every game of the round is over or
   the round's deadline has passed (a game still running then counts as a draw), pairs the next
   round (tessera.server.tournaments.swiss), or after the last round finishes.

Making a game is one transaction, so that ``kill -9`` of a process at any point loses no result,
leaves nothing half made and pairs no one twice.  An arena game: the game (made through the match
service, as a paired seek's: private, every seat taken, a berserker's clock halved), its seats
bound to the accounts (rated or not, in the game's pool), the pairing (``playing``, with the game's
id) and the claim of its players (``pairing_id`` set only where it was empty: all or none, else
nothing is stored) are written in the transaction that stores the game
(:data:`tessera.server.match.seats.Within`).  A Swiss round is stored whole in one transaction (the
round's number, its byes, all its pairings ``creating`` and their players claimed); then each
game is made in one transaction with its seats bound and its pairing turned ``playing`` (only
from ``creating`` without a game: a second attempt stores nothing).  A Swiss pairing a stopped
process left ``creating`` gets its game from the repair.  A player's account pages and bot event
stream hear of the game at once (``gameStart`` for a bot).  Blocks (tessera.server.moderation):
two players of whom one blocks the other are never paired in an arena, and in a Swiss round only
when no other pairing exists.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.live import announce
from tessera.server.accounts.store import AccountStore, User, bind_seats
from tessera.server.http.errors import ServiceError
from tessera.server.match.handicap import halve_clock
from tessera.server.match.queries import finished_results, moves_by_player
from tessera.server.match.seats import Created
from tessera.server.match.service import MatchService
from tessera.server.moderation.guards import blocked_pairs
from tessera.server.store.storage import Transaction
from tessera.server.tournaments import arena, store, swiss
from tessera.server.tournaments.places import places
from tessera.server.tournaments.tables import (
    tournament_pairings_table,
    tournament_players_table,
    tournaments_table,
)

log = logging.getLogger("tessera.server.tournaments")

WAVE_SECONDS = 2.0
"""Seconds between two waves (``TESSERA_TOURNAMENT_WAVE``)."""

LAST_SECONDS = 20.0
"""An arena starts no new game when less than this is left."""

STUCK_SECONDS = 30.0
"""A pairing left ``creating`` this long (its process stopped in the middle) is repaired
(``TESSERA_TOURNAMENT_STUCK``; the crash drill shortens it)."""

DIRECTOR_LOCK = 0x70A17
"""The PostgreSQL advisory lock held by the process running a wave."""

ROUND_TURNS = 40
"""A Swiss round's deadline gives each player this many turns at the clock's pace (see :func:`round_seconds`)."""


def round_seconds(clock: dict[str, Any], seats: int) -> float:
    """How long a Swiss round may take: ``seats`` × (initial + :data:`ROUND_TURNS` × increment) + 60 s
    in real time; ``seats`` × :data:`ROUND_TURNS` × days per move by correspondence."""
    if clock.get("days") is not None:
        return seats * ROUND_TURNS * float(clock["days"]) * 86400.0
    return seats * (float(clock["initial"]) + ROUND_TURNS * float(clock.get("increment") or 0.0)) + 60.0


class Waves:
    """The waves of one server process over the tournaments of one database (see the module)."""

    def __init__(
        self,
        service: MatchService,
        accounts: AccountStore,
        create: Callable[..., object],
        *,
        wave_seconds: float = WAVE_SECONDS,
        seed: int | None = None,
        stuck_seconds: float = STUCK_SECONDS,
    ) -> None:
        self.service = service
        self.storage = service.storage
        self.accounts = accounts
        self.create = create
        """Announces a tournament (the director's :meth:`~tessera.server.tournaments.director.Director.create`):
        the recurring schedules' tournaments are made through it."""
        self.wave_seconds = wave_seconds
        self.stuck_seconds = stuck_seconds
        self.rng = random.Random(seed)
        self.schedules: list[dict[str, Any]] = []
        self._running = threading.Lock()
        self.count = 0
        """Waves this process has run (nothing reads it but a person looking at a running process)."""

    def wave(self, now: float | None = None) -> bool:
        """One wave over every tournament not finished (if no other process is running one): whether it ran."""
        with self.storage.sole(DIRECTOR_LOCK, self._running) as mine:  # one wave at a time, across processes too
            if not mine:
                return False
            now = time.time() if now is None else now
            self._schedule(now)
            t = tournaments_table
            with self.storage.transaction() as tx:
                rows = (
                    tx.conn.execute(
                        sa.select(t).where(t.c.status != "finished", t.c.starts_at <= now).order_by(t.c.starts_at)
                    )
                    .mappings()
                    .all()
                )
            for r in rows:
                try:
                    self._run(store.tournament_of(r), now)
                except Exception:  # one tournament's trouble must not stop the others
                    log.exception("tournament %s: the wave failed", r["id"])
            self.count += 1
            return True

    def _run(self, t: store.Tournament, now: float) -> None:
        if t.status == "created":
            self._set(t.id, status="started", updated_at=now)
            t.status = "started"
        self._repair(t, now)
        self._record(t, now)
        if t.kind == "arena":
            self._arena(t, now)
        else:
            self._swiss(t, now)

    def _set(self, tid: str, **values: Any) -> None:
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(tournaments_table.update().where(tournaments_table.c.id == tid).values(**values))

    def _free(self, pairing_id: str, now: float) -> None:
        p = tournament_players_table
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(p.update().where(p.c.pairing_id == pairing_id).values(pairing_id=None, free_since=now))

    def _repair(self, t: store.Tournament, now: float) -> None:
        """Pairings a stopped process left ``creating``: with a game, finish making them; without, an
        arena's is void (its players are paired again) and a Swiss round's game is made now."""
        tp = tournament_pairings_table
        with self.storage.transaction() as tx:
            rows = (
                tx.conn.execute(
                    sa.select(tp).where(
                        tp.c.tournament_id == t.id,
                        tp.c.status == "creating",
                        tp.c.created_at < now - self.stuck_seconds,
                    )
                )
                .mappings()
                .all()
            )
        for r in rows:
            pr = store.pairing_of(r)
            if pr.game_id is None and t.kind == "swiss":
                self._create(t, pr.id, pr.users, now)
            elif pr.game_id is None:
                with self.storage.transaction(write=True) as tx:
                    tx.conn.execute(tp.update().where(tp.c.id == pr.id).values(status="void", ended_at=now))
                self._free(pr.id, now)
                log.warning("tournament %s: pairing %s left without a game is void", t.id, pr.id)
            else:
                self._finish_making(t, pr.id, pr.game_id, pr.users, berserk=pr.berserk)

    def _record(self, t: store.Tournament, now: float) -> None:
        """The games that ended: their places stored, their players free."""
        tp = tournament_pairings_table
        with self.storage.transaction() as tx:
            playing = tx.conn.execute(
                sa.select(tp.c.id, tp.c.game_id).where(
                    tp.c.tournament_id == t.id, tp.c.status == "playing", tp.c.game_id.is_not(None)
                )
            ).all()
            results = finished_results(tx, [str(g) for _, g in playing])
        for pid, game_id in playing:
            if game_id not in results:
                continue
            returns = (results[game_id] or {}).get("returns")
            outcome: dict[str, Any] = {"aborted": True}
            if returns:
                outcome = {"places": places(returns), "moves": self._moves(game_id, len(returns))}
            absent = [] if returns else self._absent(pid)
            with self.storage.transaction(write=True) as tx:
                n = tx.conn.execute(
                    tp.update()
                    .where(tp.c.id == pid, tp.c.status == "playing")
                    .values(status="done", result=json.dumps(outcome), ended_at=now)
                ).rowcount
                if n and absent:  # lichess: who made no first move is withdrawn (he joins again to play on)
                    tx.conn.execute(
                        tournament_players_table.update()
                        .where(
                            tournament_players_table.c.tournament_id == t.id,
                            tournament_players_table.c.user_id.in_(absent),
                        )
                        .values(withdrawn=True)
                    )
            if n:
                self._free(pid, now)

    def _moves(self, game_id: str, seats: int) -> list[int]:
        """How many moves each seat made in a game (the quick-draw and berserk rules)."""
        with self.storage.transaction() as tx:
            made = moves_by_player(tx, game_id)
        return [made.get(i, 0) for i in range(seats)]

    def _absent(self, pid: str) -> list[str]:
        """The players of an aborted game who made no move in it."""
        tp = tournament_pairings_table
        with self.storage.transaction() as tx:
            r = tx.conn.execute(sa.select(tp.c.users, tp.c.game_id).where(tp.c.id == pid)).first()
            if r is None or r.game_id is None:
                return []
            moved = set(moves_by_player(tx, r.game_id))
        return [u for seat, u in enumerate(json.loads(r.users)) if seat not in moved]

    # -- arena -----------------------------------------------------------------------------
    def _arena(self, t: store.Tournament, now: float) -> None:
        ends = t.ends_at
        assert ends is not None
        tp = tournament_pairings_table
        if now >= ends:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    tp.update()
                    .where(tp.c.tournament_id == t.id, tp.c.status.in_(("playing", "creating")))
                    .values(status="unfinished", ended_at=now)
                )
                tx.conn.execute(
                    tournament_players_table.update()
                    .where(tournament_players_table.c.tournament_id == t.id)
                    .values(pairing_id=None)
                )
            self._set(t.id, status="finished", finished_at=now, updated_at=now)
            self._tell_all(t.id)
            return
        if ends - now < LAST_SECONDS:
            return
        ps = store.players(self.storage, t.id)
        last: dict[str, frozenset[str]] = {}
        for pr in store.pairings(self.storage, t.id):
            if pr.status in ("done", "unfinished", "playing"):
                for u in pr.users:
                    last[u] = frozenset(v for v in pr.users if v != u)
        free = [
            arena.Free(p["user_id"], p["rating"], last.get(p["user_id"], frozenset()), now - p["free_since"])
            for p in ps
            if p["pairing_id"] is None and not p["withdrawn"]
        ]
        berserks = {p["user_id"] for p in ps if p["berserk"]}
        with self.storage.transaction() as tx:
            apart = blocked_pairs(tx, [f.user_id for f in free])
        for group in arena.pair_free(free, t.seats, apart=apart):
            users = list(group)
            self.rng.shuffle(users)
            self._make(t, 0, users, [u in berserks for u in users], now)

    # -- Swiss -----------------------------------------------------------------------------
    def _swiss(self, t: store.Tournament, now: float) -> None:
        pairs = store.pairings(self.storage, t.id)
        current = [p for p in pairs if p.round == t.round and p.status in ("playing", "creating")]
        if t.round > 0 and current:
            if t.round_ends is None or now < t.round_ends or any(p.status == "creating" for p in current):
                return
            tp = tournament_pairings_table
            for p in current:  # the deadline passed: what still runs counts as a draw
                with self.storage.transaction(write=True) as tx:
                    n = tx.conn.execute(
                        tp.update()
                        .where(tp.c.id == p.id, tp.c.status == "playing")
                        .values(status="done", result=json.dumps({"lapsed": True}), ended_at=now)
                    ).rowcount
                if n:
                    self._free(p.id, now)
            pairs = store.pairings(self.storage, t.id)
        ps = store.players(self.storage, t.id)
        rounds_total = t.rounds or 1
        entrants = [swiss.Entrant(p["user_id"], p["rating"], not p["withdrawn"]) for p in ps]
        if t.round >= rounds_total or (t.round == 0 and sum(e.active for e in entrants) < 2):
            if t.round == 0 and t.starts_at + 3600 > now and t.round < rounds_total:
                return  # fewer than two players: wait up to an hour for more
            self._set(t.id, status="finished", finished_at=now, updated_at=now)
            self._tell_all(t.id)
            return
        rounds = store.swiss_rounds(pairs)
        first = "white" if int(t.id[-1], 16) % 2 == 0 else "black"  # round 1's first seat, "by lot"
        with self.storage.transaction() as tx:
            apart = blocked_pairs(tx, [e.user_id for e in entrants if e.active])
        tables = swiss.pair_round(entrants, rounds, rounds_total, t.seats, first_seat=first, apart=apart)
        nxt = t.round + 1
        try:
            with self.storage.transaction(write=True) as tx:  # the round, its byes and pairings: all or none
                n = tx.conn.execute(
                    tournaments_table.update()
                    .where(tournaments_table.c.id == t.id, tournaments_table.c.round == t.round)
                    .values(round=nxt, round_ends=now + round_seconds(t.clock, t.seats), updated_at=now)
                ).rowcount
                if not n:
                    return  # another process paired it meanwhile
                made = [
                    (
                        self._insert(
                            tx, t, nxt, list(tb.users), [False] * len(tb.users), now, "bye" if tb.bye else "creating"
                        ),
                        tb,
                    )
                    for tb in tables
                ]
        except _Taken:
            log.warning("tournament %s: a player of round %d was in another pairing; paired again next wave", t.id, nxt)
            return
        for pid, tb in made:
            if not tb.bye:
                self._create(t, pid, list(tb.users), now)

    # -- making a game -----------------------------------------------------------------------
    def _insert(
        self, tx: Any, t: store.Tournament, rnd: int, users: list[str], berserk: list[bool], now: float, status: str
    ) -> str:
        """Store a pairing and claim its players in the caller's transaction (``_Taken``: one of them is
        in another pairing; the caller's transaction is then rolled back)."""
        pid = uuid.uuid4().hex[:16]
        p = tournament_players_table
        tx.conn.execute(
            tournament_pairings_table.insert().values(
                id=pid,
                tournament_id=t.id,
                round=rnd,
                users=json.dumps(users),
                berserk=json.dumps(berserk),
                status=status,
                game_id=None,
                result=json.dumps({"bye": True}) if status == "bye" else None,
                created_at=now,
                ended_at=now if status == "bye" else None,
            )
        )
        if status != "bye":
            n = tx.conn.execute(
                p.update()
                .where(p.c.tournament_id == t.id, p.c.user_id.in_(users), p.c.pairing_id.is_(None))
                .values(pairing_id=pid, berserk=False)
            ).rowcount
            if n != len(users):
                raise _Taken
        return pid

    def _seating(self, users: list[str]) -> tuple[list[dict[str, Any]], dict[int, User]]:
        """The seats of a tournament game (invites named after the players) and their accounts."""
        found = {i: self.accounts.user_by_id(u) for i, u in enumerate(users)}
        kinds = [{"kind": "invite", "name": u.username if u else "?"} for u in found.values()]
        return kinds, {i: u for i, u in found.items() if u is not None}

    def _new_game(self, t: store.Tournament, users: list[str], berserk: list[bool], stored: Any) -> str | None:
        """Make a tournament game in one transaction with ``stored(tx, created)`` (the pairing's writes)
        and its seats bound to the accounts; the game's id, or None when ``stored`` raised ``_Taken``
        or the game could not be made (nothing is stored then)."""
        kinds, accounts = self._seating(users)

        def within(tx: Transaction, created: Created) -> None:
            # nothing in here may open a transaction of its own: the write lock is held
            stored(tx, created)
            bind_seats(tx, created.game_id, accounts, rated=t.rated, pool=t.pool)

        try:
            created = self.service.create(
                t.spec,
                seat_kinds=kinds,
                clock=dict(t.clock),
                public=False,
                arrived=True,
                bound=True,
                within=within,
                halved=[i for i, b in enumerate(berserk) if b],
            )
        except _Taken:
            return None
        except Exception:
            log.exception("tournament %s: could not make a game", t.id)
            return None
        announce(self.storage, self.service.events, users)
        return created.game_id

    def _make(self, t: store.Tournament, rnd: int, users: list[str], berserk: list[bool], now: float) -> str | None:
        """An arena game: the game, its pairing (``playing``) and its players' claim in one transaction."""

        def stored(tx: Transaction, created: Created) -> None:
            pid = self._insert(tx, t, rnd, users, berserk, now, "playing")
            tx.conn.execute(
                tournament_pairings_table.update()
                .where(tournament_pairings_table.c.id == pid)
                .values(game_id=created.game_id)
            )

        return self._new_game(t, users, berserk, stored)

    def _create(self, t: store.Tournament, pid: str, users: list[str], now: float) -> str | None:
        """The game of a stored Swiss pairing (``creating``, its players claimed): made, its seats bound
        and the pairing ``playing`` in one transaction; nothing when the pairing got a game meanwhile.
        A game that cannot be made leaves the pairing ``creating``: the repair tries again."""
        tp = tournament_pairings_table

        def stored(tx: Transaction, created: Created) -> None:
            n = tx.conn.execute(
                tp.update()
                .where(tp.c.id == pid, tp.c.status == "creating", tp.c.game_id.is_(None))
                .values(game_id=created.game_id, status="playing")
            ).rowcount
            if n != 1:
                raise _Taken

        return self._new_game(t, users, [False] * len(users), stored)

    def _finish_making(  # a pairing left half made by an older version (games are now made in one transaction)
        self,
        t: store.Tournament,
        pid: str,
        game_id: str,
        users: list[str],
        invites: dict[int, str] | None = None,
        berserk: list[bool] | None = None,
    ) -> None:
        """Steps 4 and 5 of making a game (idempotent: a repair runs them again)."""
        if self.accounts.game_accounts(game_id).get("pool") is None:  # not bound yet
            found = {i: self.accounts.user_by_id(u) for i, u in enumerate(users)}
            self.accounts.bind_game(
                game_id, {i: u for i, u in found.items() if u is not None}, rated=t.rated, pool=t.pool
            )
        if invites is None:
            invites = {}
            for i, u in enumerate(users):
                user = self.accounts.user_by_id(u)
                if user is not None:
                    invites[i] = self.accounts.seat_token(user, game_id)[1]
        for seat in sorted(invites):
            with contextlib.suppress(Exception):  # a game already over (a repair late) has nothing to arrive to
                self.service.view(game_id, invites[seat])
        for seat in sorted(invites):
            if berserk and berserk[seat]:
                try:
                    halve_clock(self.service.endings, game_id, invites[seat])
                except ServiceError as e:  # moved already (a repair late): the game goes on unhalved
                    log.info("tournament %s: berserk of game %s seat %d not applied: %s", t.id, game_id, seat, e)
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                tournament_pairings_table.update()
                .where(tournament_pairings_table.c.id == pid, tournament_pairings_table.c.status == "creating")
                .values(status="playing")
            )
        announce(self.storage, self.service.events, users)

    def _tell_all(self, tid: str) -> None:
        announce(self.storage, self.service.events, [p["user_id"] for p in store.players(self.storage, tid)])

    # -- the recurring schedule ------------------------------------------------------------------
    def _schedule(self, now: float) -> None:
        """Each recurring schedule keeps its next tournament announced (one per period, made once
        across processes: the schedule's name and start are unique)."""
        for s in self.schedules:
            every = float(s["every_minutes"]) * 60.0
            nxt = (now // every + 1) * every
            with self.storage.transaction() as tx:
                exists = tx.conn.execute(
                    sa.select(tournaments_table.c.id).where(
                        tournaments_table.c.schedule == s["name"], tournaments_table.c.starts_at == nxt
                    )
                ).first()
            if exists is not None:
                continue
            body = {k: v for k, v in s.items() if k not in ("every_minutes",)}
            body["starts_at"] = nxt
            with contextlib.suppress(sa.exc.IntegrityError):
                self.create(None, body, schedule=s["name"])

    async def run(self) -> None:
        """Forever (a task of the app): a wave every :attr:`wave_seconds`."""
        from anyio.to_thread import run_sync

        while True:
            await asyncio.sleep(self.wave_seconds)
            try:
                await run_sync(self.wave)
            except Exception:  # storage away for a while: the next wave tries again
                log.exception("a tournament wave failed")


class _Taken(Exception):
    """A player of the pairing was claimed meanwhile: nothing is stored."""


def schedules_from_env() -> list[dict[str, Any]]:
    """Recurring tournaments from ``TESSERA_TOURNAMENT_SCHEDULE``: a JSON list of tournament bodies
    (as ``POST /api/tournaments``) each with ``every_minutes`` and a unique ``name``, e.g.
    ``[{"name": "Hourly Nume arena", "kind": "arena", "game": "nume", "clock": {"initial": 180,
    "increment": 2}, "minutes": 45, "every_minutes": 60}]``; ``ValueError`` naming what is wrong."""
    text = os.environ.get("TESSERA_TOURNAMENT_SCHEDULE", "").strip()
    if not text:
        return []
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("TESSERA_TOURNAMENT_SCHEDULE: a JSON list of tournaments")
    names = set()
    for s in data:
        if not isinstance(s, dict) or not s.get("name") or not isinstance(s.get("every_minutes"), int | float):
            raise ValueError("TESSERA_TOURNAMENT_SCHEDULE: each item needs a name and every_minutes")
        if s["every_minutes"] < 1 or s["name"] in names:
            raise ValueError(f"TESSERA_TOURNAMENT_SCHEDULE: {s['name']!r}: every_minutes ≥ 1 and a name of its own")
        names.add(s["name"])
    return data


def stuck_seconds_from_env() -> float:
    """How old a pairing left ``creating`` must be to be repaired: ``TESSERA_TOURNAMENT_STUCK``
    (seconds), else :data:`STUCK_SECONDS`; at least the time a live process takes to make a game."""
    text = os.environ.get("TESSERA_TOURNAMENT_STUCK", "").strip()
    if not text:
        return STUCK_SECONDS
    value = float(text)
    if not 0.5 <= value <= 3600:
        raise ValueError("TESSERA_TOURNAMENT_STUCK: seconds from 0.5 to 3600")
    return value


def wave_seconds_from_env() -> float:
    """The waves' period: ``TESSERA_TOURNAMENT_WAVE`` (seconds), else :data:`WAVE_SECONDS`."""
    text = os.environ.get("TESSERA_TOURNAMENT_WAVE", "").strip()
    return float(text) if text else WAVE_SECONDS
