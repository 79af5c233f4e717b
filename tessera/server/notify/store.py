"""Reads and writes of the notification tables (:mod:`.tables`) through the games' ``Storage``.

Every method is synchronous (run in the thread pool or the notifier's thread) and refuses bad
input with :class:`~tessera.server.http.errors.ServiceError` before writing anything.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tessera.server.accounts.queries import deleted_accounts, open_accounts
from tessera.server.http.errors import ServiceError
from tessera.server.match.queries import on_or_ended_since, seats_oldest_first
from tessera.server.notify.tables import (
    email_table,
    email_tokens_table,
    push_seats_table,
    secrets_table,
    subscriptions_table,
)
from tessera.server.store.storage import Storage

KINDS = ("turn", "challenge", "end")
"""What a push subscription may ask for: your turn, a challenge received, a game over."""

DIGEST_HOURS = (0, 12, 24)
"""The digest intervals offered (0: no digest)."""

VERIFY_SECONDS = 24 * 3600.0
"""A verification link is valid for a day."""

MAX_FAILURES = 5
"""A subscription whose pushes failed this many times in a row is dropped."""

SUBSCRIPTIONS_PER_ACCOUNT = 10
"""Push subscriptions one account keeps (its browsers); a new one beyond drops the oldest."""

GUEST_SUBSCRIPTIONS_PER_CLIENT = 5
"""Guests' push subscriptions kept per client address; a new one beyond drops that address's oldest
(whoever sends from another address loses nothing)."""

SEATS_PER_SUBSCRIPTION = 100
"""Seats one guest subscription follows; beyond, the seats of finished games are let go first."""

GUEST_GRACE = 3600.0
"""A guest's subscription whose every game has been over this many seconds (or that follows no
seat at all) is pruned: nothing more can be pushed to it."""

EMAIL = re.compile(
    r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9-]{1,63})+$"
)


def digest_of(secret: str) -> str:
    """The SHA-256 of a secret (what is stored of it)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_email(email: Any) -> str:
    """A plausible address, as given (422 otherwise)."""
    if not isinstance(email, str) or len(email) > 254 or not EMAIL.match(email):
        raise ServiceError(422, "email: not a valid address", key="refusal.notify.bad_email")
    return email


class NotifyStore:
    """The notification settings and subscriptions of one database."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # -- kept secrets ----------------------------------------------------------------------
    def secret(self, name: str, make: Callable[[], tuple[str, str | None]]) -> tuple[str, str | None]:
        """The secret ``name`` (value, public part), made by ``make`` and stored the first time: made
        once for the database, whichever process asks first."""
        select = sa.select(secrets_table.c.value, secrets_table.c.public).where(secrets_table.c.name == name)
        with self.storage.transaction() as tx:
            r = tx.conn.execute(select).first()
        if r is not None:
            return str(r.value), r.public
        value, public = make()
        try:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    secrets_table.insert().values(name=name, value=value, public=public, created_at=time.time())
                )
        except IntegrityError:
            pass  # another process made it first: its secret is the one
        with self.storage.transaction() as tx:
            r = tx.conn.execute(select).first()
        assert r is not None
        return str(r.value), r.public

    # -- push subscriptions -----------------------------------------------------------------
    def subscribe(
        self,
        *,
        endpoint: str,
        p256dh: str,
        auth: str,
        user_id: str | None,
        seats: Iterable[tuple[str, int]],
        lang: str,
        kinds: list[str],
        client: str | None = None,
    ) -> str:
        """Keep (or renew) a browser's subscription for an account or for seats; its id.  ``client``:
        who asked (a hash of the address); an account keeps :data:`SUBSCRIPTIONS_PER_ACCOUNT`, the
        guests of one client :data:`GUEST_SUBSCRIPTIONS_PER_CLIENT` (the oldest beyond are dropped),
        and guests' subscriptions with nothing left to follow are pruned."""
        sid = digest_of(endpoint)
        now = time.time()
        values = {
            "endpoint": endpoint,
            "p256dh": p256dh,
            "auth": auth,
            "user_id": user_id,
            "lang": lang,
            "kinds": json.dumps(sorted(set(kinds))),
            "failures": 0,
            "client_key": client,
        }
        with self.storage.transaction(write=True) as tx:
            c = subscriptions_table.c
            if tx.conn.execute(sa.select(c.id).where(c.id == sid)).first() is None:
                tx.conn.execute(subscriptions_table.insert().values(id=sid, created_at=now, **values))
            else:
                tx.conn.execute(subscriptions_table.update().where(c.id == sid).values(**values))
            s = push_seats_table.c
            have = {
                (r.game_id, int(r.seat))
                for r in tx.conn.execute(sa.select(s.game_id, s.seat).where(s.subscription_id == sid))
            }
            for game_id, seat in sorted(set(seats) - have):
                tx.conn.execute(push_seats_table.insert().values(subscription_id=sid, game_id=game_id, seat=seat))
            self._cap_seats(tx, sid)
            if user_id is not None:
                self._keep_newest(tx, c.user_id == user_id, SUBSCRIPTIONS_PER_ACCOUNT)
            elif client is not None:
                self._keep_newest(
                    tx, sa.and_(c.user_id.is_(None), c.client_key == client), GUEST_SUBSCRIPTIONS_PER_CLIENT
                )
        self.prune_guests(now)
        return sid

    @staticmethod
    def _drop(tx: Any, ids: list[str]) -> None:
        if ids:
            tx.conn.execute(push_seats_table.delete().where(push_seats_table.c.subscription_id.in_(ids)))
            tx.conn.execute(subscriptions_table.delete().where(subscriptions_table.c.id.in_(ids)))

    def _keep_newest(self, tx: Any, which: Any, keep: int) -> None:
        """Drop the subscriptions matching ``which`` beyond the ``keep`` newest."""
        c = subscriptions_table.c
        old = tx.conn.execute(sa.select(c.id).where(which).order_by(c.created_at.desc(), c.id).offset(keep)).scalars()
        self._drop(tx, list(old))

    @staticmethod
    def _cap_seats(tx: Any, sid: str) -> None:
        """At most :data:`SEATS_PER_SUBSCRIPTION` seats: those of finished games go first, then the oldest games."""
        s = push_seats_table.c
        rows = seats_oldest_first(tx, sa.select(s.game_id, s.seat).where(s.subscription_id == sid))
        for game_id, seat in rows[: max(0, len(rows) - SEATS_PER_SUBSCRIPTION)]:
            tx.conn.execute(
                push_seats_table.delete().where(s.subscription_id == sid, s.game_id == game_id, s.seat == seat)
            )

    def prune_guests(self, now: float | None = None) -> int:
        """Forget guests' subscriptions that can receive nothing more: made over :data:`GUEST_GRACE`
        ago and following no seat of a game that is on or ended within it; how many."""
        now = time.time() if now is None else now
        c = subscriptions_table.c
        s = push_seats_table.c
        live = on_or_ended_since(sa.select(s.subscription_id, s.game_id), now - GUEST_GRACE)
        with self.storage.transaction(write=True) as tx:
            ids = list(
                tx.conn.execute(
                    sa.select(c.id).where(c.user_id.is_(None), c.created_at < now - GUEST_GRACE, c.id.not_in(live))
                ).scalars()
            )
            self._drop(tx, ids)
        return len(ids)

    def unsubscribe(self, endpoint: str) -> bool:
        """Forget a subscription (and its seats); whether there was one."""
        with self.storage.transaction(write=True) as tx:
            sid = digest_of(endpoint)
            tx.conn.execute(push_seats_table.delete().where(push_seats_table.c.subscription_id == sid))
            done = tx.conn.execute(subscriptions_table.delete().where(subscriptions_table.c.id == sid))
        return bool(done.rowcount)

    def subscription(self, endpoint: str) -> dict[str, Any] | None:
        """A subscription as stored (None: unknown)."""
        with self.storage.transaction() as tx:
            r = tx.conn.execute(
                sa.select(subscriptions_table).where(subscriptions_table.c.id == digest_of(endpoint))
            ).first()
        return None if r is None else self._public(r._mapping)

    @staticmethod
    def _public(r: Any) -> dict[str, Any]:
        return {
            "id": r["id"],
            "endpoint": r["endpoint"],
            "keys": {"p256dh": r["p256dh"], "auth": r["auth"]},
            "user_id": r["user_id"],
            "lang": r["lang"],
            "kinds": json.loads(r["kinds"]),
        }

    def targets(
        self, kind: str, *, user_ids: Iterable[str] = (), seats: Iterable[tuple[str, int]] = ()
    ) -> list[dict[str, Any]]:
        """The subscriptions that want ``kind`` for these accounts or these seats (each once)."""
        users = sorted(set(user_ids))
        seat_list = sorted(set(seats))
        c = subscriptions_table.c
        s = push_seats_table.c
        found: dict[str, dict[str, Any]] = {}
        with self.storage.transaction() as tx:
            if users:
                for r in tx.conn.execute(sa.select(subscriptions_table).where(c.user_id.in_(open_accounts(users)))):
                    found[r.id] = self._public(r._mapping)
            if seat_list:
                match = sa.or_(*(sa.and_(s.game_id == g, s.seat == n) for g, n in seat_list))
                rows = tx.conn.execute(
                    sa.select(subscriptions_table).join(push_seats_table, s.subscription_id == c.id).where(match)
                )
                for r in rows:
                    found[r.id] = self._public(r._mapping)
        return [sub for _, sub in sorted(found.items()) if kind in sub["kinds"]]

    def sent(self, sid: str, *, ok: bool, gone: bool = False) -> None:
        """Note a push's outcome: a subscription the push service says is gone, or that failed
        :data:`MAX_FAILURES` times in a row, is dropped."""
        c = subscriptions_table.c
        with self.storage.transaction(write=True) as tx:
            if ok:
                tx.conn.execute(
                    subscriptions_table.update().where(c.id == sid).values(last_sent=time.time(), failures=0)
                )
                return
            if not gone:
                tx.conn.execute(subscriptions_table.update().where(c.id == sid).values(failures=c.failures + 1))
                failures = tx.conn.execute(sa.select(c.failures).where(c.id == sid)).scalar()
                gone = failures is not None and failures >= MAX_FAILURES
            if gone:
                tx.conn.execute(push_seats_table.delete().where(push_seats_table.c.subscription_id == sid))
                tx.conn.execute(subscriptions_table.delete().where(c.id == sid))

    # -- e-mail ------------------------------------------------------------------------------
    def email_settings(self, user_id: str) -> dict[str, Any] | None:
        """The account's address and digest settings (None: no address given)."""
        with self.storage.transaction() as tx:
            r = tx.conn.execute(sa.select(email_table).where(email_table.c.user_id == user_id)).first()
        if r is None or r.email is None:
            return None
        return {
            "email": r.email,
            "verified": r.verified_at is not None,
            "digest_hours": int(r.digest_hours),
            "last_digest_at": r.last_digest_at,
            "lang": r.lang,
            "base_url": r.base_url,
        }

    def set_email(self, user_id: str, email: Any, *, lang: str, base_url: str) -> str:
        """Give (or change) the account's address: unverified until the link is followed; the
        link's token (only its hash is stored).  The digest is kept as chosen (off for a new one)."""
        email = check_email(email)
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self.storage.transaction(write=True) as tx:
            c = email_table.c
            values = {"email": email, "verified_at": None, "lang": lang, "base_url": base_url, "updated_at": now}
            if tx.conn.execute(sa.select(c.user_id).where(c.user_id == user_id)).first() is None:
                tx.conn.execute(email_table.insert().values(user_id=user_id, digest_hours=0, **values))
            else:
                tx.conn.execute(email_table.update().where(c.user_id == user_id).values(**values))
            tx.conn.execute(
                email_tokens_table.insert().values(
                    token_hash=digest_of(token),
                    user_id=user_id,
                    email=email,
                    created_at=now,
                    expires_at=now + VERIFY_SECONDS,
                )
            )
        return token

    def verifications_since(self, user_id: str, since: float) -> int:
        """Verification links sent to the account since ``since``."""
        t = email_tokens_table.c
        with self.storage.transaction() as tx:
            n = tx.conn.execute(
                sa.select(sa.func.count())
                .select_from(email_tokens_table)
                .where(t.user_id == user_id, t.created_at >= since)
            ).scalar()
        return int(n or 0)

    def verify(self, token: Any) -> str | None:
        """Follow a verification link: the account whose address it verified (None: unknown,
        used, expired, or the address was changed since)."""
        if not isinstance(token, str) or not 0 < len(token) <= 200:
            return None
        now = time.time()
        t = email_tokens_table.c
        with self.storage.transaction(write=True) as tx:
            r = tx.conn.execute(sa.select(email_tokens_table).where(t.token_hash == digest_of(token))).first()
            if r is None or r.used_at is not None or r.expires_at < now:
                return None
            c = email_table.c
            done = tx.conn.execute(
                email_table.update()
                .where(c.user_id == r.user_id, c.email == r.email)
                .values(verified_at=now, updated_at=now)
            )
            tx.conn.execute(email_tokens_table.update().where(t.token_hash == r.token_hash).values(used_at=now))
        return str(r.user_id) if done.rowcount else None

    def remove_email(self, user_id: str) -> None:
        """Forget the account's address (and its pending links)."""
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(email_tokens_table.delete().where(email_tokens_table.c.user_id == user_id))
            tx.conn.execute(email_table.delete().where(email_table.c.user_id == user_id))

    def set_digest(self, user_id: str, hours: Any) -> None:
        """Choose the digest interval (hours: one of :data:`DIGEST_HOURS`; 0 turns it off)."""
        if isinstance(hours, bool) or hours not in DIGEST_HOURS:
            raise ServiceError(
                422,
                f"hours: one of {', '.join(map(str, DIGEST_HOURS))}",
                key="refusal.notify.digest_hours",
                args={"hours": ", ".join(map(str, DIGEST_HOURS))},
            )
        with self.storage.transaction(write=True) as tx:
            done = tx.conn.execute(
                email_table.update()
                .where(email_table.c.user_id == user_id, email_table.c.email.is_not(None))
                .values(digest_hours=int(hours), updated_at=time.time())
            )
        if not done.rowcount:
            raise ServiceError(409, "give an e-mail address first", key="refusal.notify.email_first")

    def due_digests(self, now: float) -> list[dict[str, Any]]:
        """Accounts with a verified address whose digest interval has passed since the last one."""
        c = email_table.c
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(
                sa.select(email_table).where(
                    c.verified_at.is_not(None),
                    c.email.is_not(None),
                    c.digest_hours > 0,
                    c.user_id.in_(open_accounts()),
                )
            ).all()
        return [
            dict(r._mapping)
            for r in rows
            if r.last_digest_at is None or r.last_digest_at <= now - r.digest_hours * 3600.0
        ]

    def forget_deleted(self) -> int:
        """Forget the addresses, links and push subscriptions of deleted accounts; how many accounts
        had any."""
        gone = deleted_accounts()
        subs = sa.select(subscriptions_table.c.id).where(subscriptions_table.c.user_id.in_(gone))
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(push_seats_table.delete().where(push_seats_table.c.subscription_id.in_(subs)))
            n = tx.conn.execute(subscriptions_table.delete().where(subscriptions_table.c.user_id.in_(gone))).rowcount
            tx.conn.execute(email_tokens_table.delete().where(email_tokens_table.c.user_id.in_(gone)))
            n += tx.conn.execute(email_table.delete().where(email_table.c.user_id.in_(gone))).rowcount
        return int(n)

    def claim_digest(self, user_id: str, last: float | None, now: float) -> bool:
        """Claim the account's next digest (a conditional update: of several senders, one wins)."""
        c = email_table.c
        was = c.last_digest_at.is_(None) if last is None else c.last_digest_at == last
        with self.storage.transaction(write=True) as tx:
            done = tx.conn.execute(email_table.update().where(c.user_id == user_id, was).values(last_digest_at=now))
        return bool(done.rowcount)
