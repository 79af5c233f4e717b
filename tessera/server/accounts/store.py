"""Reads and writes of the accounts tables (:mod:`.tables`) through the games' ``Storage``.

Every method is synchronous (the routes run it in the thread pool) and refuses bad input with
:class:`~tessera.server.accounts.security.Refused` before writing anything.
"""

from __future__ import annotations

import json
import os
import secrets
import time
import uuid
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tessera.server.accounts import security, throttle
from tessera.server.accounts.challenge_store import ChallengeQueries
from tessera.server.accounts.model import (
    AI_LEVELS,
    CHALLENGE_STATUSES,
    DELETED_NAME,
    PAGE,
    User,
    _user,
    ai_username,
    rating_public,
    seat_result,
)
from tessera.server.accounts.security import Refused
from tessera.server.accounts.tables import (
    account_games_table,
    challenges_table,
    history_table,
    seat_accounts_table,
    sessions_table,
    tokens_table,
    users_table,
)
from tessera.server.match.queries import rename_seat, seat_by_token, seat_rows
from tessera.server.store.storage import Transaction

SESSION_IDLE = 30 * 24 * 3600.0
"""A session unused for 30 days is over."""

SESSION_TOUCH = 60.0
"""``last_seen`` is written at most once a minute per session."""

THROTTLE_WINDOW = throttle.WINDOW
"""Attempts are counted over the last 15 minutes (:mod:`.throttle`)."""

ACCOUNT_FAILURES = throttle.ACCOUNT_FAILURES
"""Failed log-ins on one account from one address within the window before further attempts from
there are refused (429)."""

ADDRESS_FAILURES = throttle.ADDRESS_FAILURES
"""Failed log-ins from one address within the window before further attempts are refused (429)."""

SIGNUPS_PER_ADDRESS = 10
"""Accounts one address may create within the window (``TESSERA_SIGNUPS_PER_ADDRESS`` overrides it)."""


def signups_per_address() -> int:
    """:data:`SIGNUPS_PER_ADDRESS`, or ``TESSERA_SIGNUPS_PER_ADDRESS`` (a whole number of at least 1)."""
    text = os.environ.get("TESSERA_SIGNUPS_PER_ADDRESS")
    if text is None:
        return SIGNUPS_PER_ADDRESS
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"TESSERA_SIGNUPS_PER_ADDRESS must be a whole number of at least 1, not {text!r}")
    return int(text)


class AccountStore(ChallengeQueries):
    """The accounts of one database: reading them (:class:`~tessera.server.accounts.model.StoreBase`),
    ratings and histories (:mod:`.history`), challenges (:mod:`.challenge_store`), and here creating,
    logging in, sessions, tokens, deleting, exporting and guest seats."""

    def create_user(self, username: str, password: str, address: str | None = None) -> User:
        """A new account (``Refused`` 422 for a bad name or password, 409 if the name or one that
        looks like it is taken, 429 if this address made too many accounts lately: the sign-up is
        counted before its password is hashed, and taken back if no account was made)."""
        security.check_username(username)
        security.check_password(password, username)
        self._check_name_free(username)
        reserved = (
            self.throttle.reserve([(security.throttle_key("signup", address), signups_per_address())])
            if address is not None
            else throttle.Reservation(())
        )
        try:
            hashed = security.hash_password(password)
            now = time.time()
            user = User(uuid.uuid4().hex, username, False, now)
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    users_table.insert().values(
                        id=user.id,
                        username=username,
                        username_key=security.username_key(username),
                        username_skeleton=security.username_skeleton(username),
                        password_hash=hashed,
                        is_bot=False,
                        created_at=now,
                    )
                )
        except IntegrityError:
            self.throttle.release(reserved)
            self._check_name_free(username)  # made meanwhile: says which name it looks like
            raise Refused(
                409,
                f"the username {username!r} is taken",
                key="refusal.account.username_taken",
                args={"name": username},
            ) from None
        except BaseException:
            self.throttle.release(reserved)
            raise
        return user

    def _check_name_free(self, username: str) -> None:
        """``Refused`` 409 if ``username`` is taken, or looks like a name that is (same skeleton)."""
        if self.user(username, deleted=True) is not None:
            raise Refused(
                409,
                f"the username {username!r} is taken",
                key="refusal.account.username_taken",
                args={"name": username},
            )
        skeleton = security.username_skeleton(username)
        with self.storage.transaction() as tx:
            other = tx.conn.execute(
                sa.select(users_table.c.username).where(users_table.c.username_skeleton == skeleton)
            ).scalar()
        if other is None:  # the AI accounts' names (made on first use) are kept from look-alikes too
            other = next(
                (ai_username(lv) for lv in AI_LEVELS if security.username_skeleton(ai_username(lv)) == skeleton), None
            )
        if other is not None:
            raise Refused(
                409,
                f"the username {username!r} looks too much like {other!r}, which is taken; choose another",
                key="refusal.account.username_look_alike",
                args={"name": username, "other": other},
            )

    def ai_user(self, level: int) -> User:
        """The AI account of ``level`` (made on first use: no password, ``is_bot``)."""
        if level not in AI_LEVELS:
            raise Refused(422, "AI levels are 1 to 6", key="refusal.account.ai_levels")
        name = ai_username(level)
        u = self.user(name)
        if u is not None:
            return u
        try:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    users_table.insert().values(
                        id=uuid.uuid4().hex,
                        username=name,
                        username_key=name,
                        username_skeleton=None,  # kept from people by _check_name_free, not by the column
                        password_hash=None,
                        is_bot=True,
                        created_at=time.time(),
                    )
                )
        except IntegrityError:  # made meanwhile by another request
            pass
        u = self.user(name)
        assert u is not None
        return u

    # -- log-in and throttling ---------------------------------------------------------------
    @property
    def throttle(self) -> throttle.Throttle:
        """The attempts' counter (:mod:`.throttle`)."""
        return throttle.Throttle(self.storage)

    def authenticate(self, username: Any, password: Any, address: str, device: str | None = None) -> User:
        """The account if ``password`` is its password.  Unknown names and wrong passwords get the
        same answer (401, after the same Argon2 work).  The attempt is counted before the password
        is checked (:mod:`.throttle`): too many failures get 429 with ``Retry-After``, whatever the
        password.  ``device``: the browser's device cookie; a device or address where the account
        logged in before is not stopped by failures from elsewhere."""
        name = username if isinstance(username, str) else ""
        pw = password if isinstance(password, str) else ""
        account = security.username_key(name[:40])
        stored: str | None = None
        user: User | None = None
        if 0 < len(name) <= 40:
            with self.storage.transaction() as tx:
                r = (
                    tx.conn.execute(sa.select(users_table).where(users_table.c.username_key == account))
                    .mappings()
                    .first()
                )
            if r is not None and r["deleted_at"] is None:  # an AI account has no password
                stored, user = r["password_hash"], _user(r)
        known: set[str] = set()
        if user is not None:
            candidates = [throttle.address_key(user.id, address)]
            if device:
                candidates.append(throttle.device_key(user.id, device))
            known = self.throttle.known(user.id, candidates)
        on_device = device if user is not None and device and throttle.device_key(user.id, device) in known else None
        limits = throttle.login_limits(
            account,
            address,
            device=on_device,
            known_address=user is not None and throttle.address_key(user.id, address) in known,
        )
        reserved = self.throttle.reserve(limits)  # before the hash: 429 here costs no Argon2
        ok = security.verify_password(pw, stored)
        if not ok or user is None:
            raise Refused(401, "unknown username or wrong password", key="refusal.account.wrong_login")
        self.throttle.release(reserved)
        return user

    def remember_login(self, user: User, address: str, device: str) -> None:
        """Note that the account logged in from this device and address (known from now on)."""
        self.throttle.remember(user.id, [throttle.device_key(user.id, device), throttle.address_key(user.id, address)])

    def _recheck(self, user: User, password: Any, address: str | None) -> bool:
        """Check the account's password again (changing it, deleting the account), counted like a
        log-in: per account and per address, before the hash (429 over the limit)."""
        limits = [(security.throttle_key("recheck", user.id), throttle.ACCOUNT_FAILURES)]
        if address is not None:
            limits.append((security.throttle_key("addr", address), throttle.ADDRESS_FAILURES))
        reserved = self.throttle.reserve(limits)
        with self.storage.transaction() as tx:
            stored = tx.conn.execute(sa.select(users_table.c.password_hash).where(users_table.c.id == user.id)).scalar()
        ok = isinstance(password, str) and security.verify_password(password, stored)
        if ok:
            self.throttle.release(reserved)
        return ok

    # -- sessions --------------------------------------------------------------------------
    def new_session(self, user: User) -> str:
        """A new session of ``user``: the random id for the cookie (only its hash is stored)."""
        sid = security.new_secret()
        now = time.time()
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                sessions_table.insert().values(
                    id_hash=security.secret_hash(sid), user_id=user.id, created_at=now, last_seen=now
                )
            )
        return sid

    def session_user(self, sid: str | None) -> User | None:
        """The account of a live session id (None: unknown, revoked, idle too long, or the account
        is deleted)."""
        if not sid or len(sid) > 200:
            return None
        h = security.secret_hash(sid)
        with self.storage.transaction() as tx:
            r = (
                tx.conn.execute(
                    sa.select(sessions_table, users_table.c.deleted_at)
                    .join(users_table, users_table.c.id == sessions_table.c.user_id)
                    .where(sessions_table.c.id_hash == h)
                )
                .mappings()
                .first()
            )
            if r is None or r["revoked_at"] is not None or r["deleted_at"] is not None:
                return None
            user = self._get_user(tx, id=r["user_id"])
        now = time.time()
        if now - r["last_seen"] > SESSION_IDLE:
            return None
        if now - r["last_seen"] > SESSION_TOUCH:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(sessions_table.update().where(sessions_table.c.id_hash == h).values(last_seen=now))
        return user

    def revoke_session(self, sid: str | None) -> None:
        """End one session (nothing if it is unknown)."""
        if not sid or len(sid) > 200:
            return
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                sessions_table.update()
                .where(sessions_table.c.id_hash == security.secret_hash(sid), sessions_table.c.revoked_at.is_(None))
                .values(revoked_at=time.time())
            )

    def _revoke_all(self, tx: Transaction, user_id: str, now: float) -> None:
        tx.conn.execute(
            sessions_table.update()
            .where(sessions_table.c.user_id == user_id, sessions_table.c.revoked_at.is_(None))
            .values(revoked_at=now)
        )

    def change_password(self, user: User, old: Any, new: Any, address: str | None = None) -> str:
        """Set a new password (the old one must be given, and is checked like a log-in: 429 after
        too many wrong ones); every session and every API token of the account is revoked, and a
        new session is returned for the browser that asked."""
        security.check_password(new, user.username)
        if not self._recheck(user, old, address):
            raise Refused(403, "the current password is wrong", key="refusal.account.current_password_wrong")
        hashed = security.hash_password(new)
        now = time.time()
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(users_table.update().where(users_table.c.id == user.id).values(password_hash=hashed))
            self._revoke_all(tx, user.id, now)
            tx.conn.execute(
                tokens_table.update()
                .where(tokens_table.c.user_id == user.id, tokens_table.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        return self.new_session(user)

    # -- API tokens ------------------------------------------------------------------------
    def new_token(self, user: User, scopes: Any) -> dict[str, Any]:
        """A personal API token: ``{"id", "token", "scopes", "created_at"}`` — the token is shown
        this once; only its hash is kept."""
        if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
            raise Refused(
                422,
                f"scopes: a non-empty list drawn from {', '.join(security.SCOPES)}",
                key="refusal.token.scopes_list",
                args={"scopes": ", ".join(security.SCOPES)},
            )
        bad = [s for s in scopes if s not in security.SCOPES]
        if bad:
            raise Refused(
                422,
                f"scope {bad[0][:40]!r} is not accepted: expected some of {', '.join(security.SCOPES)}",
                key="refusal.token.scope_unknown",
                args={"scope": bad[0][:40], "scopes": ", ".join(security.SCOPES)},
            )
        with self.storage.transaction() as tx:
            live = tx.conn.execute(
                sa.select(sa.func.count())
                .select_from(tokens_table)
                .where(tokens_table.c.user_id == user.id, tokens_table.c.revoked_at.is_(None))
            ).scalar()
        if int(live or 0) >= 20:
            raise Refused(
                409, "an account holds at most 20 live tokens: revoke one first", key="refusal.token.too_many"
            )
        secret = security.new_secret("tsr_")
        tid = secrets.token_hex(8)
        now = time.time()
        kept = sorted(set(scopes))
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                tokens_table.insert().values(
                    id=tid,
                    user_id=user.id,
                    token_hash=security.secret_hash(secret),
                    scopes=json.dumps(kept),
                    created_at=now,
                )
            )
        return {"id": tid, "token": secret, "scopes": kept, "created_at": now}

    def tokens(self, user: User) -> list[dict[str, Any]]:
        """The account's tokens (never the secrets), newest first."""
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(
                sa.select(tokens_table)
                .where(tokens_table.c.user_id == user.id)
                .order_by(tokens_table.c.created_at.desc())
            ).mappings()
            return [
                {
                    "id": r["id"],
                    "scopes": json.loads(r["scopes"]),
                    "created_at": r["created_at"],
                    "last_used": r["last_used"],
                    "revoked": r["revoked_at"] is not None,
                }
                for r in rows
            ]

    def revoke_token(self, user: User, token_id: str) -> None:
        """Revoke one of the account's tokens (404 if it has no such token)."""
        with self.storage.transaction(write=True) as tx:
            res = tx.conn.execute(
                tokens_table.update()
                .where(tokens_table.c.id == token_id, tokens_table.c.user_id == user.id)
                .values(revoked_at=sa.func.coalesce(tokens_table.c.revoked_at, time.time()))
            )
        if res.rowcount == 0:
            raise Refused(404, "no such token", key="refusal.token.unknown")

    def token_user(self, secret: str | None) -> tuple[User, frozenset[str]] | None:
        """The account and scopes of a live API token (None: unknown or revoked)."""
        if not secret or len(secret) > 200:
            return None
        h = security.secret_hash(secret)
        with self.storage.transaction() as tx:
            r = tx.conn.execute(sa.select(tokens_table).where(tokens_table.c.token_hash == h)).mappings().first()
            if r is None or r["revoked_at"] is not None:
                return None
            user = self._get_user(tx, id=r["user_id"])
        if user is None or user.deleted_at is not None:
            return None
        now = time.time()
        if r["last_used"] is None or now - r["last_used"] > SESSION_TOUCH:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(tokens_table.update().where(tokens_table.c.token_hash == h).values(last_used=now))
        return user, frozenset(json.loads(r["scopes"]))

    # -- deleting and exporting --------------------------------------------------------------
    def delete_account(self, user: User, password: Any, address: str | None = None) -> None:
        """Delete the account (its password is asked again, checked like a log-in): sessions and
        tokens revoked, pending challenges cancelled, its seats shown as ``DELETED_NAME``; its games,
        ratings history and name stay (the name cannot be taken again)."""
        if not self._recheck(user, password, address):
            raise Refused(403, "the password is wrong", key="refusal.account.password_wrong")
        self.close_account(user.id)

    def close_account(self, user_id: str) -> None:
        """Close the account (its owner's deletion, or a moderator's closing): as :meth:`delete_account`
        without the password."""
        now = time.time()
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                users_table.update().where(users_table.c.id == user_id).values(deleted_at=now, password_hash=None)
            )
            self._revoke_all(tx, user_id, now)
            tx.conn.execute(
                tokens_table.update()
                .where(tokens_table.c.user_id == user_id, tokens_table.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            tx.conn.execute(
                challenges_table.update()
                .where(
                    challenges_table.c.status == "pending",
                    sa.or_(challenges_table.c.from_user == user_id, challenges_table.c.to_user == user_id),
                )
                .values(status="cancelled", updated_at=now)
            )
            seats = tx.conn.execute(
                sa.select(seat_accounts_table.c.game_id, seat_accounts_table.c.seat).where(
                    seat_accounts_table.c.user_id == user_id
                )
            ).all()
            for game_id, seat in seats:
                # a new version: every server process reads the game again (and shows the new name)
                rename_seat(tx, game_id, seat, DELETED_NAME, now)

    def export(self, user: User) -> dict[str, Any]:
        """Everything stored about the account, as JSON (never a password hash, session id or token)."""
        with self.storage.transaction() as tx:
            sessions = [
                {"created_at": r["created_at"], "last_seen": r["last_seen"], "revoked_at": r["revoked_at"]}
                for r in tx.conn.execute(
                    sa.select(sessions_table).where(sessions_table.c.user_id == user.id)
                ).mappings()
            ]
            history = [
                {k: r[k] for k in ("pool", "game_id", "before", "rating", "rd", "vol", "created_at")}
                for r in tx.conn.execute(
                    sa.select(history_table)
                    .where(history_table.c.user_id == user.id)
                    .order_by(history_table.c.created_at)
                ).mappings()
            ]
        challenges = self.challenges(user)
        return {
            "format": "tessera-account-export",
            "version": 1,
            "account": {"username": user.username, "created_at": user.created_at, "is_bot": user.is_bot},
            "ratings": self.ratings(user),
            "rating_history": history,
            "sessions": sessions,
            "tokens": self.tokens(user),
            "challenges": challenges["incoming"] + challenges["outgoing"],
            "games": self.games(user, page=None)["games"],
        }

    # -- guest seats -------------------------------------------------------------------------
    def claim_seats(self, user: User, tokens: Any) -> list[dict[str, Any]]:
        """Bind to ``user`` the human seats whose seat tokens are given (the tokens a guest's browser
        holds); a seat already bound to another account, an AI seat or an unknown token is passed
        over.  The games and seats claimed."""
        if not isinstance(tokens, list) or len(tokens) > 500 or not all(isinstance(t, str) for t in tokens):
            raise Refused(422, "tokens: a list of at most 500 seat tokens", key="refusal.account.seat_tokens_list")
        claimed: list[dict[str, Any]] = []
        with self.storage.transaction(write=True) as tx:
            for t in {t for t in tokens if 0 < len(t) <= 200}:
                r = seat_by_token(tx, t)
                if r is None or r[2] != "human":
                    continue
                game_id, seat = r[0], r[1]
                bound = tx.conn.execute(
                    sa.select(seat_accounts_table.c.user_id).where(
                        seat_accounts_table.c.game_id == game_id, seat_accounts_table.c.seat == seat
                    )
                ).scalar()
                if bound is not None:
                    continue
                tx.conn.execute(seat_accounts_table.insert().values(game_id=game_id, seat=seat, user_id=user.id))
                claimed.append({"game_id": game_id, "seat": seat})
        return sorted(claimed, key=lambda c: (c["game_id"], c["seat"]))

    def seat_token(self, user: User, game_id: str) -> tuple[int, str]:
        """The seat and seat token of ``user`` in a game (``Refused`` 404 if no seat of it is his).
        With seats of two accounts in one game (hot-seat claims), the first."""
        with self.storage.transaction() as tx:
            mine = set(
                tx.conn.execute(
                    sa.select(seat_accounts_table.c.seat).where(
                        seat_accounts_table.c.game_id == game_id, seat_accounts_table.c.user_id == user.id
                    )
                ).scalars()
            )
            held = [s for s in seat_rows(tx, game_id) if s.seat in mine] if mine else []
        if not held:
            raise Refused(404, "you hold no seat in this game", key="refusal.game.no_seat")
        return held[0].seat, held[0].token

    def bind_game(self, game_id: str, users: dict[int, User], *, rated: bool, pool: str) -> None:
        """Bind seats of a new game to accounts and record whether it is rated (and in which pool)."""
        with self.storage.transaction(write=True) as tx:
            bind_seats(tx, game_id, users, rated=rated, pool=pool)


def bind_seats(tx: Transaction, game_id: str, users: dict[int, User], *, rated: bool, pool: str) -> None:
    """:meth:`AccountStore.bind_game` inside the caller's transaction (the one that stores the new game:
    :data:`tessera.server.match.seats.Within`)."""
    tx.conn.execute(account_games_table.insert().values(game_id=game_id, rated=rated, pool=pool))
    for seat, u in sorted(users.items()):
        tx.conn.execute(seat_accounts_table.insert().values(game_id=game_id, seat=seat, user_id=u.id))


__all__ = [
    "AI_LEVELS",
    "CHALLENGE_STATUSES",
    "DELETED_NAME",
    "PAGE",
    "AccountStore",
    "User",
    "ai_username",
    "bind_seats",
    "rating_public",
    "seat_result",
    "signups_per_address",
]
