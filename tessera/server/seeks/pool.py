"""The seek pool ("Play now"): seeks stored in the database, paired in waves.

A seek asks for a two-player game (spec with its variant, rated or casual, a real-time or a
correspondence clock).  Every :data:`WAVE_SECONDS` each server process tries to run a wave;
on PostgreSQL one process at a time does (a session advisory lock, :data:`PAIRER_LOCK`), so
seeks made on different processes pair with each other.  A wave:

1. lets lapse the seeks whose seeker has not been heard from for :data:`STALE_SECONDS` (a
   closed tab does not get paired), and puts back any seek left ``pairing`` (by a version that
   paired in several transactions and stopped between them);
2. pairs the open seeks of one kind (same spec, rated or not, same clock) by rating closeness,
   by the rules of :mod:`.matching` (:func:`~.matching.pair_up`: oldest seek first, the allowed
   gap widening as a seek waits; never two seeks of one client, nor two accounts one of which
   blocks the other);
3. for each pair stores, in **one transaction**, a private game with the seats drawn at random
   and both taken (the clock starts: a player who never comes is aborted like any late first
   move), its account seats bound to their accounts (rated seeks are accounts only), and both
   seeks ``open`` → ``paired`` with the game, seat and seat token — both or neither: a seek
   cancelled meanwhile is not paired and the game is not stored; a crash leaves both seeks
   standing, or the whole pairing.  Both seekers are told at once:
   their open waits (:meth:`SeekPool.wait`) wake on this process and look at storage every
   :data:`POLL_SECONDS` on the others; accounts' live pages hear an ``AccountChanged``.

After :data:`AI_AFTER` seconds without an opponent a seek carries an offer of the AI at about
the seeker's rating (:func:`~.matching.ai_level_for`); taking it ends the seek with a game
against that AI level (rated against the level's account for a rated seek).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import secrets
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts import glicko2
from tessera.server.accounts.live import announce
from tessera.server.accounts.queries import names, rating_and_deviation, ratings_of_names
from tessera.server.accounts.security import Refused, state_text
from tessera.server.accounts.store import AI_LEVELS, AccountStore, User, ai_username, bind_seats
from tessera.server.ai.levels import offered_levels
from tessera.server.ai.ratings import level_ratings
from tessera.server.http.edge import Buckets
from tessera.server.http.errors import ServiceError
from tessera.server.http.limits import Rate
from tessera.server.match.service import Created, MatchService
from tessera.server.moderation.guards import blocked_pairs
from tessera.server.seeks.matching import Seek, ai_level_for, creation_clock, pair_up, players_of, seek_kind, seek_terms
from tessera.server.seeks.tables import seeks_table
from tessera.server.store.storage import Transaction

log = logging.getLogger("tessera.server.seeks")

WAVE_SECONDS = 3.0
"""Seconds between two pairing waves (``TESSERA_SEEK_WAVE``)."""

STALE_SECONDS = 60.0
"""A seek whose seeker has not been heard from (a wait, a look) for this long lapses."""

AI_AFTER = 45.0
"""Seconds without an opponent after which the AI is offered (``TESSERA_SEEK_AI_AFTER``)."""

POLL_SECONDS = 1.0
"""How often a wait looks at storage (a pairing made by another process)."""

TOUCH_SECONDS = 10.0
"""A look at a standing seek stores that its seeker is still there at most this often (one write
per waiting seeker per 10 s, not per poll)."""

MAX_WAIT = 30.0
"""The longest a single wait request is held open."""

MAX_SEEKS_PER_CLIENT = 3
"""Standing seeks one client (an account, or a guest's address) may have at once; one per game."""

SEEK_RATE = Rate(rate=0.2, burst=6.0)
"""New seeks per client: a burst of 6, then one per 5 seconds (429 with ``Retry-After`` beyond)."""


STUCK_SECONDS = 30.0
"""A seek left ``pairing`` this long (its process stopped in the middle) stands again."""

PAIRER_LOCK = 0x7E55E
"""The PostgreSQL advisory lock held by the process running a wave."""

STANDING = "open"


def hashed(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _named(tx: Transaction, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """Seek rows with their seeker's account name (``username``: None for a guest or an unknown account)."""
    who = names(tx, (r["user_id"] for r in rows if r["user_id"] is not None))
    return [{**r, "username": who[r["user_id"]][0] if r["user_id"] in who else None} for r in rows]


@dataclass(frozen=True)
class Who:
    """Who asks: an account (``user``) or a guest; ``client`` is the key caps and pairing go by."""

    user: User | None
    client: str


def guest_client(address: str) -> str:
    """A guest's client key: a digest of its address (the address itself is never stored)."""
    return "guest:" + hashlib.sha256(address.encode()).hexdigest()[:32]


class _Skip(Exception):
    """A pair that cannot be made after all (a seek cancelled meanwhile): nothing is changed."""


class SeekPool:
    """The seeks of one database, as one server process sees them."""

    def __init__(
        self,
        service: MatchService,
        *,
        wave_seconds: float = WAVE_SECONDS,
        ai_after: float = AI_AFTER,
        stale_seconds: float = STALE_SECONDS,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.service = service
        self.storage = service.storage
        self.accounts = AccountStore(service.storage)
        self.wave_seconds = wave_seconds
        self.ai_after = ai_after
        self.stale_seconds = stale_seconds
        self.poll_seconds = poll_seconds
        self.loop: asyncio.AbstractEventLoop | None = None
        self._wakes: dict[str, set[asyncio.Event]] = {}
        self._guard = threading.Lock()
        self._pairing = threading.Lock()
        self._buckets = Buckets({"seek": SEEK_RATE})  # the edge's token buckets, as the bot API's and the chat's

    # -- asking ----------------------------------------------------------------------------
    def _rate_check(self, client: str) -> None:
        with self._guard:  # the buckets are not thread-safe by themselves
            wait = self._buckets.take("seek", client)
        if wait > 0:
            retry = math.ceil(wait)
            raise Refused(
                429,
                f"too many seeks: wait {retry} s before seeking again",
                headers={"Retry-After": str(retry)},
                key="refusal.seek.too_many",
                args={"seconds": retry},
            )

    def _rating(self, user: User | None, pool: str) -> tuple[float, float]:
        if user is None:
            return glicko2.START_RATING, glicko2.START_RD
        with self.storage.transaction() as tx:
            r = rating_and_deviation(tx, user.id, pool)
        return (glicko2.START_RATING, glicko2.START_RD) if r is None else r

    def create(self, who: Who, game: str, *, rated: bool, clock: Any) -> dict[str, Any]:
        """A new standing seek: its public form, its ``id`` and the ``secret`` its seeker keeps
        (the only proof a guest's browser has that the seek is its own)."""
        if who.user is not None and who.user.is_bot:
            raise Refused(
                403, "bot accounts may not seek: they play the challenges sent to them", key="refusal.seek.bot"
            )
        if rated and who.user is None:
            raise Refused(
                403,
                "rated games need an account on both seats: sign in, or seek a casual game",
                key="refusal.seek.rated_guest",
            )
        g, settings = seek_terms(game, clock)
        spec = str(g)
        now = time.time()
        with self.storage.transaction() as tx:
            mine = tx.conn.execute(
                sa.select(seeks_table.c.id, seeks_table.c.spec).where(
                    seeks_table.c.client == who.client, seeks_table.c.status == STANDING
                )
            ).all()
        if any(r.spec == spec for r in mine):
            raise Refused(
                409,
                f"you already have a standing seek for {spec}: cancel it before seeking again",
                key="refusal.seek.duplicate",
                args={"spec": spec},
            )
        if len(mine) >= MAX_SEEKS_PER_CLIENT:
            raise Refused(
                429,
                f"at most {MAX_SEEKS_PER_CLIENT} standing seeks at a time: cancel one first",
                key="refusal.seek.too_many_standing",
                args={"n": MAX_SEEKS_PER_CLIENT},
            )
        self._rate_check(who.client)
        rating, rd = self._rating(who.user, g.name)
        secret = secrets.token_urlsafe(24)
        seek_id = uuid.uuid4().hex
        kind = seek_kind(spec, rated, settings)
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                seeks_table.insert().values(
                    id=seek_id,
                    secret_hash=hashed(secret),
                    user_id=None if who.user is None else who.user.id,
                    client=who.client,
                    spec=spec,
                    pool=g.name,
                    rated=bool(rated),
                    clock=json.dumps(settings),
                    kind=kind,
                    rating=rating,
                    rd=rd,
                    status=STANDING,
                    created_at=now,
                    seen_at=now,
                    updated_at=now,
                )
            )
        return {**self.status(who, seek_id, secret, touch=False), "secret": secret}

    def _load(self, seek_id: str) -> Seek | None:
        t = seeks_table
        with self.storage.transaction() as tx:
            found = tx.conn.execute(sa.select(t).where(t.c.id == seek_id)).mappings().all()
            rows = _named(tx, found)
        return Seek.from_row(rows[0]) if rows else None

    def _own(self, who: Who, seek_id: str, secret: str | None) -> Seek:
        """The seek if it is the asker's (its secret, or the asker's account); 404 or 403 otherwise."""
        s = self._load(seek_id) if isinstance(seek_id, str) and len(seek_id) <= 64 else None
        if s is None:
            raise Refused(404, "no such seek", key="refusal.seek.unknown")
        by_secret = secret is not None and secrets.compare_digest(hashed(secret), s.secret_hash)
        by_account = who.user is not None and s.user_id == who.user.id
        if not (by_secret or by_account):
            raise Refused(
                403,
                "this seek is not yours: only its seeker can see its pairing or cancel it",
                key="refusal.seek.not_yours",
            )
        return s

    def _ai_offer(self, s: Seek, now: float) -> dict[str, Any] | None:
        if s.status != STANDING or now - s.created_at < self.ai_after:
            return None
        offered = set(offered_levels(s.pool, players_of(s.spec)))  # level 6 only where the game offers it
        ratings = {lv: r for lv, r in self.ai_ratings(s.pool).items() if lv in offered}
        level = ai_level_for(ratings, s.rating)
        return {"level": level, "rating": round(ratings[level]), "account": ai_username(level)}

    def ai_ratings(self, pool: str) -> dict[int, float]:
        """Each AI level's rating in ``pool``: its account's, once it has played rated games there,
        else the level's measured starting rating in that game (tessera.server.ai.ratings)."""
        names = {ai_username(lv): lv for lv in AI_LEVELS}
        with self.storage.transaction() as tx:
            rows = ratings_of_names(tx, list(names), pool)
        out = {lv: r.rating for lv, r in level_ratings(pool).items()}
        for name, rating, games in rows:
            if games > 0 and names[name] in out:  # a level the game offers (level 6: where it exists)
                out[names[name]] = float(rating)
        return out

    def _public(self, s: Seek, now: float, *, owner: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": s.id,
            "game": s.spec,
            "rated": s.rated,
            "clock": s.clock,
            "rating": round(s.rating),
            "provisional": s.rd >= glicko2.PROVISIONAL_RD,
            "player": s.username,
            "waiting": round(max(0.0, now - s.created_at), 1),
        }
        if owner:
            out["status"] = s.status
            out["ai_offer"] = self._ai_offer(s, now)
            if s.game_id is not None and s.status in ("paired", "ai"):
                out.update(
                    game_id=s.game_id,
                    seat=s.seat,
                    token=s.token,
                    link=f"/g/{s.game_id}#seat={s.seat}&t={s.token}",
                )
        return out

    def status(self, who: Who, seek_id: str, secret: str | None, *, touch: bool = True) -> dict[str, Any]:
        """The seeker's view of the seek (once paired: the game, seat, seat token and link); ``touch``:
        the seeker is still there (keeps the seek from lapsing)."""
        s = self._own(who, seek_id, secret)
        now = time.time()
        if touch and s.status == STANDING and now - s.seen_at >= TOUCH_SECONDS:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(seeks_table.update().where(seeks_table.c.id == s.id).values(seen_at=now))
        return self._public(s, now, owner=True)

    def cancel(self, who: Who, seek_id: str, secret: str | None) -> dict[str, Any]:
        """The seeker withdraws a standing seek (409 once it is paired)."""
        s = self._own(who, seek_id, secret)
        with self.storage.transaction(write=True) as tx:
            done = tx.conn.execute(
                seeks_table.update()
                .where(seeks_table.c.id == s.id, seeks_table.c.status == STANDING)
                .values(status="cancelled", updated_at=time.time())
            ).rowcount
        if not done:
            now = self._load(s.id)
            raise Refused(
                409,
                f"this seek is no longer standing (it is {now.status if now else 'gone'})",
                key="refusal.seek.not_standing",
                args={"status": state_text(now.status if now else "gone")},
            )
        return {"ok": True}

    def standing(self, who: Who | None, limit: int = 100) -> list[dict[str, Any]]:
        """The standing seeks, oldest first (``mine``: the asker's own)."""
        t = seeks_table
        with self.storage.transaction() as tx:
            found = (
                tx.conn.execute(
                    sa.select(t)
                    .where(t.c.status == STANDING, t.c.seen_at >= time.time() - self.stale_seconds)
                    .order_by(t.c.created_at)
                    .limit(limit)
                )
                .mappings()
                .all()
            )
            rows = _named(tx, found)
        now = time.time()
        return [
            {**self._public(s, now, owner=False), "mine": who is not None and s.client == who.client}
            for s in map(Seek.from_row, rows)
        ]

    # -- the AI instead ---------------------------------------------------------------------
    def play_ai(self, who: Who, seek_id: str, secret: str | None) -> dict[str, Any]:
        """Take the AI offered after :attr:`ai_after` seconds: a game against the level at about the
        seeker's rating (rated against its account for a rated seek); the seek ends."""
        s = self._own(who, seek_id, secret)
        now = time.time()
        if s.status != STANDING:
            raise Refused(
                409,
                f"this seek is no longer standing (it is {s.status})",
                key="refusal.seek.not_standing",
                args={"status": state_text(s.status)},
            )
        offer = self._ai_offer(s, now)
        if offer is None:
            raise Refused(
                409,
                f"the AI is offered after {self.ai_after:g} s without an opponent",
                key="refusal.seek.ai_later",
                args={"seconds": f"{self.ai_after:g}"},
            )
        level = int(offer["level"])
        seat = secrets.randbelow(2)
        kinds: list[dict[str, Any]] = [{}, {}]
        kinds[seat] = {"kind": "here", **({"name": s.username} if s.username else {})}
        kinds[1 - seat] = {"kind": "ai", "level": level, "name": ai_username(level)}

        users = {seat: who.user, 1 - seat: self.accounts.ai_user(level)} if who.user and s.user_id else {}

        def within(tx: Transaction, created: Created) -> None:
            # the seek ends with its game in one transaction: both stored, or neither (nothing in
            # here may open a transaction of its own: the write lock is held)
            if not _settle_in(tx, {s.id: (seat, created.tokens[seat])}, "ai", created.game_id):
                raise Refused(409, "this seek was paired meanwhile", key="refusal.seek.paired_meanwhile")
            if users:
                bind_seats(tx, created.game_id, users, rated=s.rated, pool=s.pool)

        try:
            self.service.create(
                s.spec, seat_kinds=kinds, clock=creation_clock(s.clock), public=False, bound=True, within=within
            )
        except ServiceError as e:
            raise Refused(e.status, e.detail, key=e.key, args=e.args_) from None
        return self.status(who, s.id, secret, touch=False)

    # -- waves -------------------------------------------------------------------------------
    def wave(self, now: float | None = None) -> list[str]:
        """One pairing wave (if no other process is running one): the games made."""
        with self.storage.sole(PAIRER_LOCK, self._pairing) as mine:  # one wave at a time, across processes too
            if not mine:
                return []
            now = time.time() if now is None else now
            t = seeks_table
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    t.update()
                    .where(t.c.status == STANDING, t.c.seen_at < now - self.stale_seconds)
                    .values(status="expired", updated_at=now)
                )
                tx.conn.execute(  # left "pairing" by a version that paired in several steps: standing again
                    t.update()
                    .where(t.c.status == "pairing", t.c.updated_at < now - STUCK_SECONDS)
                    .values(status=STANDING, updated_at=now)
                )
                rows = _named(tx, tx.conn.execute(sa.select(t).where(t.c.status == STANDING)).mappings().all())
                apart = blocked_pairs(tx, [r["user_id"] for r in rows])
            made = []
            for a, b in pair_up([Seek.from_row(r) for r in rows], now, apart):
                try:
                    gid = self._make_game(a, b)
                except Exception:  # one pair's failure must not stop the wave
                    log.exception("could not pair seeks %s and %s", a.id, b.id)
                    continue
                if gid is not None:
                    made.append(gid)
            return made

    def _make_game(self, a: Seek, b: Seek) -> str | None:
        """Pair two standing seeks: the game (both seats taken, the clock started), its seats' accounts
        and both seeks settled, in one transaction — a crash leaves both seeks standing and no game,
        or the game with both seeks paired to it.  None: one of them was cancelled or paired meanwhile."""
        first = secrets.randbelow(2)
        by_seat = {first: a, 1 - first: b}
        kinds = [{"kind": "invite", **({"name": s.username} if s.username else {})} for _, s in sorted(by_seat.items())]
        users = {}
        for seat, s in by_seat.items():
            if s.user_id is not None:
                u = self.accounts.user_by_id(s.user_id)
                if u is not None:
                    users[seat] = u

        def within(tx: Transaction, created: Created) -> None:
            settled = {s.id: (seat, created.invites[seat]) for seat, s in by_seat.items()}
            if not _settle_in(tx, settled, "paired", created.game_id):
                raise _Skip
            if users:
                bind_seats(tx, created.game_id, users, rated=a.rated and len(users) == 2, pool=a.pool)

        try:
            created = self.service.create(
                a.spec,
                seat_kinds=kinds,
                clock=creation_clock(a.clock),
                public=False,
                arrived=True,
                bound=True,
                within=within,
            )
        except _Skip:
            return None
        self._tell([a, b])
        log.info("paired seeks %s and %s: game %s", a.id, b.id, created.game_id)
        return created.game_id

    def _tell(self, seeks: list[Seek]) -> None:
        """Wake the waits of these seeks on this process, and the accounts' live pages everywhere."""
        users = [s.user_id for s in seeks if s.user_id is not None]
        if users:
            announce(self.storage, self.service.events, users)
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with self._guard:
            wakes = [w for s in seeks for w in self._wakes.get(s.id, ())]
        for w in wakes:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(w.set)

    async def run(self) -> None:
        """Forever (a task of the app): a wave every :attr:`wave_seconds`."""
        from anyio.to_thread import run_sync

        self.loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.wave_seconds)
            try:
                await run_sync(self.wave)
            except Exception:  # storage away for a while: the next wave tries again
                log.exception("a seek pairing wave failed")

    async def wait(self, who: Who, seek_id: str, secret: str | None, timeout: float) -> dict[str, Any]:
        """The seek once it is paired (or ended), once the AI is newly offered, or after ``timeout``
        seconds; each look keeps the seek alive."""
        from anyio.to_thread import run_sync

        self.loop = asyncio.get_running_loop()
        end = time.monotonic() + max(0.0, min(timeout, MAX_WAIT))
        wake = asyncio.Event()
        with self._guard:
            self._wakes.setdefault(seek_id, set()).add(wake)
        try:
            offered: bool | None = None
            while True:
                wake.clear()
                st = await run_sync(lambda: self.status(who, seek_id, secret))
                now_offered = st["ai_offer"] is not None
                settled = st["status"] not in (STANDING, "pairing")
                if settled or time.monotonic() >= end or (offered is False and now_offered):
                    return st
                offered = now_offered
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), min(self.poll_seconds, max(0.01, end - time.monotonic())))
        finally:
            with self._guard:
                ws = self._wakes.get(seek_id)
                if ws is not None:
                    ws.discard(wake)
                    if not ws:
                        del self._wakes[seek_id]


def _settle_in(tx: Transaction, seats: dict[str, tuple[int, str]], status: str, game_id: str) -> bool:
    """End standing seeks with their game (``{seek id: (seat, seat token)}``) in the caller's
    transaction: every one of them, or (one was cancelled or paired meanwhile) none — the caller
    then raises, and its transaction stores nothing."""
    now = time.time()
    for seek_id, (seat, token) in seats.items():
        done = tx.conn.execute(
            seeks_table.update()
            .where(seeks_table.c.id == seek_id, seeks_table.c.status == STANDING)
            .values(status=status, game_id=game_id, seat=seat, token=token, updated_at=now)
        ).rowcount
        if done != 1:
            return False
    return True


def pool_settings_from_env() -> dict[str, float]:
    """The pool's timings from the environment: ``TESSERA_SEEK_WAVE`` (seconds between waves),
    ``TESSERA_SEEK_AI_AFTER`` (seconds before the AI is offered)."""
    import os

    out = {}
    for name, key in (("TESSERA_SEEK_WAVE", "wave_seconds"), ("TESSERA_SEEK_AI_AFTER", "ai_after")):
        if os.environ.get(name):
            out[key] = float(os.environ[name])
    return out


def paired_since(storage: Any, user_id: str, since: float) -> list[dict[str, Any]]:
    """The account's seeks paired (or turned into an AI game) since ``since``: for its live pages."""
    t = seeks_table
    with storage.transaction() as tx:
        rows = tx.conn.execute(
            sa.select(t.c.id, t.c.game_id, t.c.seat, t.c.status).where(
                t.c.user_id == user_id, t.c.updated_at >= since, t.c.status.in_(("paired", "ai"))
            )
        ).all()
    return [{"id": r.id, "game_id": r.game_id, "seat": r.seat, "status": r.status} for r in rows]
