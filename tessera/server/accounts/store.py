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
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tessera.server.accounts import glicko2, security
from tessera.server.accounts.rating import current
from tessera.server.accounts.security import Refused
from tessera.server.accounts.tables import (
    account_games_table,
    challenge_invitees_table,
    challenges_table,
    history_table,
    login_failures_table,
    ratings_table,
    seat_accounts_table,
    sessions_table,
    tokens_table,
    users_table,
)
from tessera.server.storage import Storage, Transaction, games_table, seats_table

SESSION_IDLE = 30 * 24 * 3600.0
"""A session unused for 30 days is over."""

SESSION_TOUCH = 60.0
"""``last_seen`` is written at most once a minute per session."""

THROTTLE_WINDOW = 15 * 60.0
"""Failed log-ins are counted over the last 15 minutes."""

ACCOUNT_FAILURES = 10
"""Failed log-ins on one account within the window before further attempts are refused (429)."""

ADDRESS_FAILURES = 30
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


AI_LEVELS = range(1, 6)
"""The AI accounts: ``ai-level1`` … ``ai-level5`` (one account per level, a rating per game)."""

DELETED_NAME = "Deleted player"
"""The neutral name a deleted account's seats are shown under."""

PAGE = 20
"""Games per page of a history."""

CHALLENGE_STATUSES = ("pending", "accepted", "declined", "cancelled")


@dataclass(frozen=True)
class User:
    """An account (never its password hash)."""

    id: str
    username: str
    is_bot: bool
    created_at: float
    deleted_at: float | None = None


def _user(r: Any) -> User:
    return User(r["id"], r["username"], bool(r["is_bot"]), r["created_at"], r["deleted_at"])


def ai_username(level: int) -> str:
    """The account of the AI at ``level`` (1 to 5)."""
    return f"ai-level{level}"


def seat_result(result: dict[str, Any] | None, seat: int) -> str:
    """``win``, ``loss``, ``draw`` or ``aborted`` for ``seat`` of a finished game (``returns``: a win is
    a return above every other seat's, a loss a return below another's)."""
    returns = (result or {}).get("returns")
    if not returns or seat >= len(returns):
        return "aborted"
    mine = returns[seat]
    others = [r for i, r in enumerate(returns) if i != seat]
    if all(mine > r for r in others):
        return "win"
    if any(r > mine for r in others):
        return "loss"
    return "draw"


def rating_public(r: glicko2.Rating, games: int) -> dict[str, Any]:
    """A rating as the API shows it."""
    return {"rating": round(r.rating), "rd": round(r.rd, 1), "provisional": r.provisional, "games": games}


class AccountStore:
    """The accounts of one database."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # -- users -----------------------------------------------------------------------------
    def _get_user(self, tx: Transaction, **where: Any) -> User | None:
        q = sa.select(users_table)
        for k, v in where.items():
            q = q.where(users_table.c[k] == v)
        r = tx.conn.execute(q).mappings().first()
        return None if r is None else _user(r)

    def user(self, username: str, *, deleted: bool = False) -> User | None:
        """The account named ``username`` (any case); deleted accounts only with ``deleted``."""
        if not isinstance(username, str) or len(username) > 40:
            return None
        with self.storage.transaction() as tx:
            u = self._get_user(tx, username_key=security.username_key(username))
        if u is None or (u.deleted_at is not None and not deleted):
            return None
        return u

    def user_by_id(self, user_id: str) -> User | None:
        with self.storage.transaction() as tx:
            return self._get_user(tx, id=user_id)

    def create_user(self, username: str, password: str, address: str | None = None) -> User:
        """A new account (``Refused`` 422 for a bad name or password, 409 if the name is taken,
        429 if this address made too many accounts lately)."""
        security.check_username(username)
        security.check_password(password, username)
        if address is not None:
            self._check_throttle([(security.throttle_key("signup", address), signups_per_address())])
        if self.user(username, deleted=True) is not None:
            raise Refused(409, f"the username {username!r} is taken")
        hashed = security.hash_password(password)
        now = time.time()
        user = User(uuid.uuid4().hex, username, False, now)
        try:
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    users_table.insert().values(
                        id=user.id,
                        username=username,
                        username_key=security.username_key(username),
                        password_hash=hashed,
                        is_bot=False,
                        created_at=now,
                    )
                )
                if address is not None:
                    tx.conn.execute(
                        login_failures_table.insert().values(key=security.throttle_key("signup", address), at=now)
                    )
        except IntegrityError:
            raise Refused(409, f"the username {username!r} is taken") from None
        return user

    def ai_user(self, level: int) -> User:
        """The AI account of ``level`` (made on first use: no password, ``is_bot``)."""
        if level not in AI_LEVELS:
            raise Refused(422, "AI levels are 1 to 5")
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
    def _check_throttle(self, limits: list[tuple[str, int]]) -> None:
        now = time.time()
        since = now - THROTTLE_WINDOW
        with self.storage.transaction() as tx:
            for key, limit in limits:
                rows = tx.conn.execute(
                    sa.select(login_failures_table.c.at)
                    .where(login_failures_table.c.key == key, login_failures_table.c.at > since)
                    .order_by(login_failures_table.c.at.desc())
                    .limit(limit)
                ).all()
                if len(rows) >= limit:
                    retry = max(1, int(rows[-1][0] + THROTTLE_WINDOW - now) + 1)
                    raise Refused(
                        429,
                        f"too many attempts; try again in {retry} s",
                        {"Retry-After": str(retry)},
                    )

    def authenticate(self, username: Any, password: Any, address: str) -> User:
        """The account if ``password`` is its password.  Unknown names and wrong passwords get the
        same answer (401, after the same Argon2 work); too many failures on the account or from
        the address within ``THROTTLE_WINDOW`` get 429 with ``Retry-After``, whatever the password."""
        name = username if isinstance(username, str) else ""
        pw = password if isinstance(password, str) else ""
        account_key = security.throttle_key("user", security.username_key(name[:40]))
        address_key = security.throttle_key("addr", address)
        self._check_throttle([(account_key, ACCOUNT_FAILURES), (address_key, ADDRESS_FAILURES)])
        stored: str | None = None
        user: User | None = None
        if 0 < len(name) <= 40:
            with self.storage.transaction() as tx:
                r = (
                    tx.conn.execute(
                        sa.select(users_table).where(users_table.c.username_key == security.username_key(name))
                    )
                    .mappings()
                    .first()
                )
            if r is not None and r["deleted_at"] is None:  # an AI account has no password
                stored, user = r["password_hash"], _user(r)
        ok = security.verify_password(pw, stored)
        if not ok or user is None:
            now = time.time()
            with self.storage.transaction(write=True) as tx:
                tx.conn.execute(
                    login_failures_table.insert(), [{"key": account_key, "at": now}, {"key": address_key, "at": now}]
                )
                tx.conn.execute(login_failures_table.delete().where(login_failures_table.c.at < now - THROTTLE_WINDOW))
            raise Refused(401, "unknown username or wrong password")
        return user

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

    def change_password(self, user: User, old: Any, new: Any) -> str:
        """Set a new password (the old one must be given); every session of the account is revoked
        and a new one is returned for the browser that asked."""
        security.check_password(new, user.username)
        with self.storage.transaction() as tx:
            stored = tx.conn.execute(sa.select(users_table.c.password_hash).where(users_table.c.id == user.id)).scalar()
        if not isinstance(old, str) or not security.verify_password(old, stored):
            raise Refused(403, "the current password is wrong")
        hashed = security.hash_password(new)
        now = time.time()
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(users_table.update().where(users_table.c.id == user.id).values(password_hash=hashed))
            self._revoke_all(tx, user.id, now)
        return self.new_session(user)

    # -- API tokens ------------------------------------------------------------------------
    def new_token(self, user: User, scopes: Any) -> dict[str, Any]:
        """A personal API token: ``{"id", "token", "scopes", "created_at"}`` — the token is shown
        this once; only its hash is kept."""
        if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
            raise Refused(422, f"scopes: a non-empty list drawn from {', '.join(security.SCOPES)}")
        bad = [s for s in scopes if s not in security.SCOPES]
        if bad:
            raise Refused(422, f"scope {bad[0][:40]!r} is not accepted: expected some of {', '.join(security.SCOPES)}")
        with self.storage.transaction() as tx:
            live = tx.conn.execute(
                sa.select(sa.func.count())
                .select_from(tokens_table)
                .where(tokens_table.c.user_id == user.id, tokens_table.c.revoked_at.is_(None))
            ).scalar()
        if int(live or 0) >= 20:
            raise Refused(409, "an account holds at most 20 live tokens: revoke one first")
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
            raise Refused(404, "no such token")

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
    def delete_account(self, user: User, password: Any) -> None:
        """Delete the account (its password is asked again): sessions and tokens revoked, pending
        challenges cancelled, its seats shown as ``DELETED_NAME``; its games, ratings history and
        name stay (the name cannot be taken again)."""
        with self.storage.transaction() as tx:
            stored = tx.conn.execute(sa.select(users_table.c.password_hash).where(users_table.c.id == user.id)).scalar()
        if not isinstance(password, str) or not security.verify_password(password, stored):
            raise Refused(403, "the password is wrong")
        now = time.time()
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(
                users_table.update().where(users_table.c.id == user.id).values(deleted_at=now, password_hash=None)
            )
            self._revoke_all(tx, user.id, now)
            tx.conn.execute(
                tokens_table.update()
                .where(tokens_table.c.user_id == user.id, tokens_table.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            tx.conn.execute(
                challenges_table.update()
                .where(
                    challenges_table.c.status == "pending",
                    sa.or_(challenges_table.c.from_user == user.id, challenges_table.c.to_user == user.id),
                )
                .values(status="cancelled", updated_at=now)
            )
            seats = tx.conn.execute(
                sa.select(seat_accounts_table.c.game_id, seat_accounts_table.c.seat).where(
                    seat_accounts_table.c.user_id == user.id
                )
            ).all()
            for game_id, seat in seats:
                tx.conn.execute(
                    seats_table.update()
                    .where(seats_table.c.game_id == game_id, seats_table.c.seat == seat)
                    .values(name=DELETED_NAME)
                )
                # a new version: every server process reads the game again (and shows the new name)
                tx.conn.execute(
                    games_table.update()
                    .where(games_table.c.id == game_id)
                    .values(version=games_table.c.version + 1, updated_at=now)
                )
                tx.changed(game_id)

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
            raise Refused(422, "tokens: a list of at most 500 seat tokens")
        claimed: list[dict[str, Any]] = []
        with self.storage.transaction(write=True) as tx:
            for t in {t for t in tokens if 0 < len(t) <= 200}:
                r = tx.conn.execute(
                    sa.select(seats_table.c.game_id, seats_table.c.seat, seats_table.c.kind).where(
                        seats_table.c.token == t
                    )
                ).first()
                if r is None or r.kind != "human":
                    continue
                bound = tx.conn.execute(
                    sa.select(seat_accounts_table.c.user_id).where(
                        seat_accounts_table.c.game_id == r.game_id, seat_accounts_table.c.seat == r.seat
                    )
                ).scalar()
                if bound is not None:
                    continue
                tx.conn.execute(seat_accounts_table.insert().values(game_id=r.game_id, seat=r.seat, user_id=user.id))
                claimed.append({"game_id": r.game_id, "seat": r.seat})
        return sorted(claimed, key=lambda c: (c["game_id"], c["seat"]))

    def seat_token(self, user: User, game_id: str) -> tuple[int, str]:
        """The seat and seat token of ``user`` in a game (``Refused`` 404 if no seat of it is his).
        With seats of two accounts in one game (hot-seat claims), the first."""
        with self.storage.transaction() as tx:
            r = tx.conn.execute(
                sa.select(seats_table.c.seat, seats_table.c.token)
                .join(
                    seat_accounts_table,
                    sa.and_(
                        seat_accounts_table.c.game_id == seats_table.c.game_id,
                        seat_accounts_table.c.seat == seats_table.c.seat,
                    ),
                )
                .where(seats_table.c.game_id == game_id, seat_accounts_table.c.user_id == user.id)
                .order_by(seats_table.c.seat)
            ).first()
        if r is None:
            raise Refused(404, "you hold no seat in this game")
        return int(r.seat), str(r.token)

    def bind_game(self, game_id: str, users: dict[int, User], *, rated: bool, pool: str) -> None:
        """Bind seats of a new game to accounts and record whether it is rated (and in which pool)."""
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(account_games_table.insert().values(game_id=game_id, rated=rated, pool=pool))
            for seat, u in sorted(users.items()):
                tx.conn.execute(seat_accounts_table.insert().values(game_id=game_id, seat=seat, user_id=u.id))

    # -- ratings and history -----------------------------------------------------------------
    def ratings(self, user: User, *, last_rated: bool = False) -> dict[str, dict[str, Any]]:
        """The account's rating per pool (game): rating, rd (grown by the idle time since the last
        rated game of the pool), provisional, games; with ``last_rated``, when that game was rated."""
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(sa.select(ratings_table).where(ratings_table.c.user_id == user.id)).mappings()
            return {
                r["pool"]: {
                    **rating_public(
                        current(glicko2.Rating(r["rating"], r["rd"], r["vol"]), r["updated_at"]), r["games"]
                    ),
                    **({"last_rated": r["updated_at"]} if last_rated else {}),
                }
                for r in sorted(rows, key=lambda r: r["pool"])
            }

    def rating_history(self, user: User, pool: str | None = None) -> list[dict[str, Any]]:
        """The account's rating after each rated game, oldest first (for the graph)."""
        q = sa.select(history_table).where(history_table.c.user_id == user.id)
        if pool is not None:
            q = q.where(history_table.c.pool == pool)
        with self.storage.transaction() as tx:
            return [
                {
                    "pool": r["pool"],
                    "game_id": r["game_id"],
                    "before": round(r["before"]),
                    "rating": round(r["rating"]),
                    "rd": round(r["rd"], 1),
                    "at": r["created_at"],
                }
                for r in tx.conn.execute(q.order_by(history_table.c.created_at)).mappings()
            ]

    def leaderboard(self, pool: str, limit: int = 100) -> list[dict[str, Any]]:
        """Players of a pool with a non-provisional rating, best first (deleted accounts left out); the
        deviation as it stands now (grown by idle time), so a player idle long enough drops out until
        he plays again."""
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(
                sa.select(ratings_table, users_table.c.username, users_table.c.is_bot)
                .join(users_table, users_table.c.id == ratings_table.c.user_id)
                .where(
                    ratings_table.c.pool == pool,
                    ratings_table.c.rd < glicko2.PROVISIONAL_RD,
                    users_table.c.deleted_at.is_(None),
                )
                .order_by(ratings_table.c.rating.desc(), users_table.c.username_key)
            ).mappings()
            now = [(r, current(glicko2.Rating(r["rating"], r["rd"], r["vol"]), r["updated_at"])) for r in rows]
        shown = [(r, g) for r, g in now if not g.provisional][:limit]
        return [
            {
                "rank": i + 1,
                "username": r["username"],
                "is_bot": bool(r["is_bot"]),
                **rating_public(g, r["games"]),
            }
            for i, (r, g) in enumerate(shown)
        ]

    def game_accounts(self, game_id: str) -> dict[str, Any]:
        """Who holds the seats of a game (usernames; a deleted account as ``None``), whether it is
        rated, and each seat's rating change once it was rated."""
        with self.storage.transaction() as tx:
            meta = (
                tx.conn.execute(sa.select(account_games_table).where(account_games_table.c.game_id == game_id))
                .mappings()
                .first()
            )
            seats = tx.conn.execute(
                sa.select(
                    seat_accounts_table.c.seat, users_table.c.id, users_table.c.username, users_table.c.deleted_at
                )
                .join(users_table, users_table.c.id == seat_accounts_table.c.user_id)
                .where(seat_accounts_table.c.game_id == game_id)
                .order_by(seat_accounts_table.c.seat)
            ).all()
            changes = {
                r["user_id"]: r
                for r in tx.conn.execute(sa.select(history_table).where(history_table.c.game_id == game_id)).mappings()
            }
        out: dict[str, Any] = {
            "rated": bool(meta["rated"]) if meta else False,
            "pool": meta["pool"] if meta else None,
            "seats": {},
        }
        for seat, uid, name, deleted in seats:
            entry: dict[str, Any] = {"username": None if deleted is not None else name}
            h = changes.get(uid)
            if h is not None:
                entry["rating"] = {
                    "before": round(h["before"]),
                    "after": round(h["rating"]),
                    "change": round(h["rating"]) - round(h["before"]),
                    "rd": round(h["rd"], 1),
                    "provisional": h["rd"] >= glicko2.PROVISIONAL_RD,
                }
            out["seats"][str(seat)] = entry
        return out

    def games(
        self,
        user: User,
        *,
        game: str | None = None,
        result: str | None = None,
        page: int | None = 1,
    ) -> dict[str, Any]:
        """The account's games, newest first: ``game`` filters by game name, ``result`` by ``win``,
        ``loss``, ``draw``, ``aborted`` or ``playing``; ``page`` counts from 1 (None: every game)."""
        if result is not None and result not in ("win", "loss", "draw", "aborted", "playing"):
            raise Refused(422, "result is one of win, loss, draw, aborted, playing")
        if page is not None and (not isinstance(page, int) or page < 1 or page > 10_000):
            raise Refused(422, "page counts from 1")
        q = (
            sa.select(
                games_table.c.id,
                games_table.c.game,
                games_table.c.spec,
                games_table.c.status,
                games_table.c.result,
                games_table.c.created_at,
                games_table.c.updated_at,
                seat_accounts_table.c.seat,
                account_games_table.c.rated,
            )
            .join(seat_accounts_table, seat_accounts_table.c.game_id == games_table.c.id)
            .join(account_games_table, account_games_table.c.game_id == games_table.c.id, isouter=True)
            .where(seat_accounts_table.c.user_id == user.id)
            .order_by(games_table.c.created_at.desc(), games_table.c.id)
        )
        if game is not None:
            q = q.where(games_table.c.game == game)
        with self.storage.transaction() as tx:
            rows = tx.conn.execute(q).mappings().all()
            found: list[dict[str, Any]] = []
            seen: set[str] = set()
            for r in rows:
                if r["id"] in seen:  # two seats of one game (a hot-seat game claimed whole)
                    continue
                seen.add(r["id"])
                res = json.loads(r["result"]) if r["result"] else None
                outcome = "playing" if r["status"] != "finished" else seat_result(res, r["seat"])
                if result is not None and outcome != result:
                    continue
                found.append(
                    {
                        "id": r["id"],
                        "game": r["game"],
                        "spec": r["spec"],
                        "seat": r["seat"],
                        "status": r["status"],
                        "result": outcome,
                        "text": (res or {}).get("text"),
                        "rated": bool(r["rated"]),
                        "created_at": r["created_at"],
                        "updated_at": r["updated_at"],
                    }
                )
            shown = found if page is None else found[(page - 1) * PAGE : page * PAGE]
            for g in shown:
                g["players"] = self._players(tx, g["id"])
        return {"games": shown, "page": page, "total": len(found), "per_page": PAGE}

    @staticmethod
    def _players(tx: Transaction, game_id: str) -> list[dict[str, Any]]:
        rows = tx.conn.execute(
            sa.select(
                seats_table.c.seat,
                seats_table.c.name,
                seats_table.c.kind,
                users_table.c.username,
                users_table.c.deleted_at,
            )
            .join(
                seat_accounts_table,
                sa.and_(
                    seat_accounts_table.c.game_id == seats_table.c.game_id,
                    seat_accounts_table.c.seat == seats_table.c.seat,
                ),
                isouter=True,
            )
            .join(users_table, users_table.c.id == seat_accounts_table.c.user_id, isouter=True)
            .where(seats_table.c.game_id == game_id)
            .order_by(seats_table.c.seat)
        ).all()
        return [
            {
                "seat": seat,
                "name": DELETED_NAME if deleted is not None else (username or name),
                "kind": kind,
                "username": None if deleted is not None else username,
            }
            for seat, name, kind, username, deleted in rows
        ]

    def profile(self, user: User) -> dict[str, Any]:
        """The public profile: ratings per game, counts, joined, recent games."""
        every = self.games(user, page=None)["games"]
        counts = {k: sum(1 for g in every if g["result"] == k) for k in ("win", "loss", "draw", "aborted", "playing")}
        return {
            "username": user.username,
            "is_bot": user.is_bot,
            "joined": user.created_at,
            "ratings": self.ratings(user, last_rated=True),
            "counts": {"games": len(every), **counts},
            "recent": self.games(user, page=1)["games"][:10],
        }

    # -- challenges --------------------------------------------------------------------------
    def _challenge_public(self, tx: Transaction, r: Any) -> dict[str, Any]:
        invitees = (
            tx.conn.execute(
                sa.select(challenge_invitees_table)
                .where(challenge_invitees_table.c.challenge_id == r["id"])
                .order_by(challenge_invitees_table.c.position)
            )
            .mappings()
            .all()
        )
        ids = {r["from_user"], r["to_user"], *(i["user_id"] for i in invitees if i["user_id"])}
        names = dict(
            tx.conn.execute(sa.select(users_table.c.id, users_table.c.username).where(users_table.c.id.in_(ids))).all()
        )
        extra: dict[str, Any] = {}
        if invitees:  # a challenge to a game of more than two seats
            extra["players"] = [
                {"username": names.get(i["user_id"]) if i["user_id"] else None, "status": i["status"]} for i in invitees
            ]
            declined = next((i for i in invitees if i["status"] == "declined"), None)
            extra["declined_by"] = names.get(declined["user_id"]) if declined else None
        return {
            **extra,
            "id": r["id"],
            "from": names.get(r["from_user"]),
            "to": names.get(r["to_user"]),
            "game": r["spec"],
            "rated": bool(r["rated"]),
            "clock": json.loads(r["clock"]) if r["clock"] else None,
            "seat": r["seat"],
            "status": r["status"],
            "reason": r["reason"],
            "game_id": r["game_id"],
            "created_at": r["created_at"],
        }

    def new_challenge(
        self,
        user: User,
        to: User,
        spec: str,
        *,
        rated: bool,
        clock: dict[str, Any] | None,
        seat: int | None,
        invitees: list[User | None] | None = None,
    ) -> dict[str, Any]:
        """Store a pending challenge from ``user`` to ``to`` (checked by the caller).  ``invitees``: for a
        game of more than two seats, everyone asked in order (None: an open seat; an AI account has
        accepted already); ``to`` is the first account among them."""
        now = time.time()
        cid = secrets.token_hex(8)
        with self.storage.transaction(write=True) as tx:
            pending = tx.conn.execute(
                sa.select(sa.func.count())
                .select_from(challenges_table)
                .where(challenges_table.c.from_user == user.id, challenges_table.c.status == "pending")
            ).scalar()
            if int(pending or 0) >= 50:
                raise Refused(429, "at most 50 challenges may wait for an answer at once; cancel some first")
            tx.conn.execute(
                challenges_table.insert().values(
                    id=cid,
                    from_user=user.id,
                    to_user=to.id,
                    spec=spec,
                    rated=rated,
                    clock=None if clock is None else json.dumps(clock),
                    seat=seat,
                    status="pending",
                    created_at=now,
                    updated_at=now,
                )
            )
            for position, u in enumerate(invitees or []):
                tx.conn.execute(
                    challenge_invitees_table.insert().values(
                        challenge_id=cid,
                        position=position,
                        user_id=None if u is None else u.id,
                        status="accepted" if u is None or u.is_bot else "pending",
                        updated_at=now,
                    )
                )
            r = tx.conn.execute(sa.select(challenges_table).where(challenges_table.c.id == cid)).mappings().one()
            return self._challenge_public(tx, r)

    def challenge(self, cid: str) -> dict[str, Any] | None:
        """A challenge, with the account ids ``_from``, ``_to`` and ``_invitees`` (position, user id or
        None, status: the players asked to a game of more than two seats)."""
        if not isinstance(cid, str) or len(cid) > 64:
            return None
        with self.storage.transaction() as tx:
            r = tx.conn.execute(sa.select(challenges_table).where(challenges_table.c.id == cid)).mappings().first()
            if r is None:
                return None
            invitees = [
                (i.position, i.user_id, i.status)
                for i in tx.conn.execute(
                    sa.select(challenge_invitees_table)
                    .where(challenge_invitees_table.c.challenge_id == cid)
                    .order_by(challenge_invitees_table.c.position)
                )
            ]
            return {
                **self._challenge_public(tx, r),
                "_from": r["from_user"],
                "_to": r["to_user"],
                "_invitees": invitees,
            }

    def answer_invitation(self, cid: str, user: User, status: str) -> bool:
        """An invitee of a challenge to a game of more than two seats accepts or declines (False: he
        answered already, or the challenge is no longer pending)."""
        assert status in ("accepted", "declined")
        with self.storage.transaction(write=True) as tx:
            pending = tx.conn.execute(sa.select(challenges_table.c.status).where(challenges_table.c.id == cid)).scalar()
            if pending != "pending":
                return False
            res = tx.conn.execute(
                challenge_invitees_table.update()
                .where(
                    challenge_invitees_table.c.challenge_id == cid,
                    challenge_invitees_table.c.user_id == user.id,
                    challenge_invitees_table.c.status == "pending",
                )
                .values(status=status, updated_at=time.time())
            )
        return res.rowcount == 1

    def challenges(self, user: User, *, pending_only: bool = False) -> dict[str, list[dict[str, Any]]]:
        """The account's challenges: ``incoming`` and ``outgoing``, newest first."""
        out: dict[str, list[dict[str, Any]]] = {"incoming": [], "outgoing": []}
        with self.storage.transaction() as tx:
            invited = sa.select(challenge_invitees_table.c.challenge_id).where(
                challenge_invitees_table.c.user_id == user.id
            )
            for key, cond in (
                ("incoming", sa.or_(challenges_table.c.to_user == user.id, challenges_table.c.id.in_(invited))),
                ("outgoing", challenges_table.c.from_user == user.id),
            ):
                q = sa.select(challenges_table).where(cond)
                if pending_only:
                    q = q.where(challenges_table.c.status == "pending")
                for r in tx.conn.execute(q.order_by(challenges_table.c.created_at.desc()).limit(200)).mappings():
                    c = self._challenge_public(tx, r)
                    if key == "outgoing" and c.get("players") and c["game_id"]:
                        c["open_links"] = self._open_links(tx, c["game_id"])
                    out[key].append(c)
        return out

    @staticmethod
    def _open_links(tx: Transaction, game_id: str) -> list[str]:
        """The invite links of a game's open seats (human seats bound to no account, not yet taken):
        for the challenger who left them open, to hand on."""
        rows = tx.conn.execute(
            sa.select(seats_table.c.seat, seats_table.c.token)
            .join(
                seat_accounts_table,
                sa.and_(
                    seat_accounts_table.c.game_id == seats_table.c.game_id,
                    seat_accounts_table.c.seat == seats_table.c.seat,
                ),
                isouter=True,
            )
            .where(
                seats_table.c.game_id == game_id,
                seats_table.c.kind == "human",
                seats_table.c.claimed.is_(False),
                seat_accounts_table.c.user_id.is_(None),
            )
            .order_by(seats_table.c.seat)
        ).all()
        return [f"/g/{game_id}#seat={seat}&t={token}" for seat, token in rows]

    def challenges_settled_since(self, user: User, since: float) -> list[dict[str, Any]]:
        """The account's challenges (either side) answered or withdrawn at or after ``since``, newest first."""
        with self.storage.transaction() as tx:
            q = (
                sa.select(challenges_table)
                .where(
                    sa.or_(
                        challenges_table.c.to_user == user.id,
                        challenges_table.c.from_user == user.id,
                        challenges_table.c.id.in_(
                            sa.select(challenge_invitees_table.c.challenge_id).where(
                                challenge_invitees_table.c.user_id == user.id
                            )
                        ),
                    ),
                    challenges_table.c.status != "pending",
                    challenges_table.c.updated_at >= since,
                )
                .order_by(challenges_table.c.updated_at.desc())
                .limit(50)
            )
            out = []
            for r in tx.conn.execute(q).mappings():
                c = self._challenge_public(tx, r)
                if r["from_user"] == user.id and c.get("players") and c["game_id"]:
                    c["open_links"] = self._open_links(tx, c["game_id"])
                out.append(c)
            return out

    def settle_challenge(
        self, cid: str, status: str, *, reason: str | None = None, game_id: str | None = None, expect: str = "pending"
    ) -> bool:
        """Move a challenge from ``expect`` to ``status`` (False: it was not ``expect`` any more)."""
        assert status in CHALLENGE_STATUSES
        with self.storage.transaction(write=True) as tx:
            res = tx.conn.execute(
                challenges_table.update()
                .where(challenges_table.c.id == cid, challenges_table.c.status == expect)
                .values(status=status, reason=reason, game_id=game_id, updated_at=time.time())
            )
        return res.rowcount == 1

    def rematch_terms(self, user: User, game_id: str) -> tuple[User, str, bool, dict[str, Any] | None, int]:
        """What a rematch of a finished two-player game asks for: the opponent's account, the spec,
        rated or not, the clock settings, and the seat ``user`` takes (the other one: seats swap).
        ``Refused``: not his game (404), not over (409), or not between two accounts (422)."""
        with self.storage.transaction() as tx:
            g = tx.conn.execute(
                sa.select(games_table.c.spec, games_table.c.status, games_table.c.clock).where(
                    games_table.c.id == game_id
                )
            ).first()
            bound = dict(
                tx.conn.execute(
                    sa.select(seat_accounts_table.c.seat, seat_accounts_table.c.user_id).where(
                        seat_accounts_table.c.game_id == game_id
                    )
                ).all()
            )
            rated = tx.conn.execute(
                sa.select(account_games_table.c.rated).where(account_games_table.c.game_id == game_id)
            ).scalar()
        mine = [seat for seat, uid in bound.items() if uid == user.id]
        if g is None or not mine:
            raise Refused(404, "you hold no seat in this game")
        if g.status != "finished":
            raise Refused(409, "the game is not over: a rematch follows its end")
        others = {seat: uid for seat, uid in bound.items() if uid != user.id}
        if len(mine) != 1 or len(others) != 1:
            raise Refused(422, "a rematch through accounts is between two accounts, one seat each")
        (other_uid,) = others.values()
        opponent = self._user_by_id_checked(other_uid)
        clock = json.loads(g.clock) if g.clock else None
        settings = None if clock is None else {"initial": clock["initial"], "increment": clock["increment"]}
        if clock is not None and clock.get("kind") == "correspondence":
            settings = {"days": clock["days"]}
        return opponent, g.spec, bool(rated), settings, next(iter(others))

    def _user_by_id_checked(self, user_id: str) -> User:
        u = self.user_by_id(user_id)
        if u is None or u.deleted_at is not None:
            raise Refused(409, "the opponent's account was deleted")
        return u

    def set_challenge_game(self, cid: str, game_id: str) -> None:
        with self.storage.transaction(write=True) as tx:
            tx.conn.execute(challenges_table.update().where(challenges_table.c.id == cid).values(game_id=game_id))
