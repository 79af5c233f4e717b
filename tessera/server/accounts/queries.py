"""The accounts domain's queries for other domains: they call these, never the accounts' tables.

Each reads within the caller's :class:`~tessera.server.store.storage.Transaction` (``tx``: the caller
decides what is read together) and answers plain values (ids, names, numbers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts.tables import account_games_table, ratings_table, seat_accounts_table, users_table
from tessera.server.store.storage import Transaction

_seat = seat_accounts_table.c
_HOLDERS = sa.select(_seat.game_id, _seat.seat, _seat.user_id).where(
    _seat.game_id.in_(sa.bindparam("ids", expanding=True))
)
"""The accounts bound to some games' seats: one statement, built once (not once per batch)."""


def seat_holders(tx: Transaction, game_ids: Sequence[str], batch: int = 500) -> dict[str, dict[int, str]]:
    """The accounts bound to the seats of each of ``game_ids``: game id → seat → user id (games with no
    account bound are absent), read ``batch`` games a statement."""
    out: dict[str, dict[int, str]] = {}
    for i in range(0, len(game_ids), batch):
        for r in tx.conn.execute(_HOLDERS, {"ids": list(game_ids[i : i + batch])}):
            out.setdefault(str(r.game_id), {})[int(r.seat)] = str(r.user_id)
    return out


def seat_holders_of(tx: Transaction, game_id: str, seats: Iterable[int]) -> dict[int, str]:
    """Of one game's ``seats``, those held by an account: seat → user id."""
    rows = tx.conn.execute(
        sa.select(_seat.seat, _seat.user_id).where(_seat.game_id == game_id, _seat.seat.in_(list(seats)))
    )
    return {int(seat): str(uid) for seat, uid in rows}


def account_seats(user_id: str, *, rated: bool = False) -> sa.Select[tuple[str, int]]:
    """The seats bound to the account ``user_id`` — only those of rated games if ``rated`` — as a
    statement of ``(game_id, seat)`` rows, for another domain's query to read within its own (e.g.
    :func:`tessera.server.match.queries.active_seats`)."""
    q = sa.select(_seat.game_id, _seat.seat).where(_seat.user_id == user_id)
    if rated:
        ag = account_games_table
        q = q.join(ag, ag.c.game_id == _seat.game_id).where(ag.c.rated.is_(True))
    return q


def names(tx: Transaction, user_ids: Iterable[str]) -> dict[str, tuple[str, bool]]:
    """The accounts ``user_ids`` as user id → (username, is_bot); ids of no account are absent."""
    ids = sorted(set(user_ids))
    out: dict[str, tuple[str, bool]] = {}
    for i in range(0, len(ids), 500):
        u = users_table.c
        for r in tx.conn.execute(sa.select(u.id, u.username, u.is_bot).where(u.id.in_(ids[i : i + 500]))):
            out[str(r.id)] = (r.username, r.is_bot)
    return out


def rating_of(tx: Transaction, user_id: str, pool: str) -> float | None:
    """The account's stored rating in ``pool`` (a game's name); None: it has none there yet."""
    r = tx.conn.execute(
        sa.select(ratings_table.c.rating).where(ratings_table.c.user_id == user_id, ratings_table.c.pool == pool)
    ).first()
    return None if r is None else float(r.rating)


def rated_players(tx: Transaction) -> list[str]:
    """The ids of the accounts (bots and AI accounts left out) that sat in a rated game, sorted."""
    s, ag, ut = seat_accounts_table, account_games_table, users_table
    ids = tx.conn.execute(
        sa.select(s.c.user_id)
        .join(ag, ag.c.game_id == s.c.game_id)
        .join(ut, ut.c.id == s.c.user_id)
        .where(ag.c.rated.is_(True), ut.c.is_bot.is_(False))
        .distinct()
    ).scalars()
    return sorted(str(i) for i in ids)


def name_and_deletion(tx: Transaction, user_ids: Iterable[str]) -> dict[str, tuple[str, float | None]]:
    """The accounts ``user_ids`` as user id → (username, deleted_at: None while the account is open);
    ids of no account are absent."""
    ids = sorted(set(user_ids))
    out: dict[str, tuple[str, float | None]] = {}
    u = users_table.c
    for i in range(0, len(ids), 500):
        for r in tx.conn.execute(sa.select(u.id, u.username, u.deleted_at).where(u.id.in_(ids[i : i + 500]))):
            out[str(r.id)] = (r.username, r.deleted_at)
    return out


def account_named(tx: Transaction, key: str) -> str | None:
    """The id of the account whose name has the key ``key`` (:func:`tessera.server.accounts.security.username_key`),
    deleted accounts included; None: no such account."""
    uid = tx.conn.execute(sa.select(users_table.c.id).where(users_table.c.username_key == key)).scalar()
    return None if uid is None else str(uid)


def usernames_sorted(tx: Transaction, user_ids: Sequence[str]) -> list[str]:
    """The names of the accounts ``user_ids``, in the database's order of names."""
    u = users_table.c
    return [
        str(n) for (n,) in tx.conn.execute(sa.select(u.username).where(u.id.in_(list(user_ids))).order_by(u.username))
    ]


def rating_and_deviation(tx: Transaction, user_id: str, pool: str) -> tuple[float, float] | None:
    """The account's stored rating and rating deviation in ``pool``; None: none there yet."""
    r = tx.conn.execute(
        sa.select(ratings_table.c.rating, ratings_table.c.rd).where(
            ratings_table.c.user_id == user_id, ratings_table.c.pool == pool
        )
    ).first()
    return None if r is None else (float(r.rating), float(r.rd))


def ratings_of_names(tx: Transaction, keys: Sequence[str], pool: str) -> list[tuple[str, float, int]]:
    """The ratings in ``pool`` of the accounts whose name keys are ``keys``: ``(username, rating, rated
    games)`` for those that have one there."""
    u, r = users_table.c, ratings_table.c
    rows = tx.conn.execute(
        sa.select(u.username, r.rating, r.games)
        .join(ratings_table, r.user_id == u.id)
        .where(u.username_key.in_(list(keys)), r.pool == pool)
    )
    return [(str(name), float(rating), int(games)) for name, rating, games in rows]


def pool_ratings() -> sa.Select[tuple[str, str, float]]:
    """Every stored rating as a statement of ``(user_id, pool, rating)`` rows, for another domain's query
    to join within its own (e.g. the lobby's order by the closeness of ratings,
    :func:`tessera.server.match.creators.open_games`); alias it once per join with ``.subquery(name)``."""
    r = ratings_table.c
    return sa.select(r.user_id, r.pool, r.rating)


def rated_games(pool: str) -> sa.Select[tuple[str]]:
    """The rated games of ``pool`` (a game's name) as a statement of one column of game ids, for another
    domain's query to read within its own (e.g. :func:`tessera.server.match.queries.finished_between_people`)."""
    ag = account_games_table.c
    return sa.select(ag.game_id).where(ag.rated.is_(True), ag.pool == pool)


def open_accounts(user_ids: Sequence[str] | None = None) -> sa.Select[tuple[str]]:
    """Of ``user_ids`` (None: of every account), the accounts not deleted, as a statement of one column of
    user ids, for another domain's query to read within its own (e.g. the push subscriptions of living
    accounts)."""
    u = users_table.c
    q = sa.select(u.id).where(u.deleted_at.is_(None))
    return q if user_ids is None else q.where(u.id.in_(list(user_ids)))


def deleted_accounts() -> sa.Select[tuple[str]]:
    """The deleted accounts as a statement of one column of user ids, for another domain's statement to
    read within its own (e.g. forgetting their e-mail addresses)."""
    u = users_table.c
    return sa.select(u.id).where(u.deleted_at.is_not(None))


def name_bot_deletion(tx: Transaction, user_ids: Iterable[str]) -> dict[str, tuple[str, bool, float | None]]:
    """The accounts ``user_ids`` as user id → (username, is_bot, deleted_at: None while the account is
    open); ids of no account are absent."""
    ids = sorted(set(user_ids))
    out: dict[str, tuple[str, bool, float | None]] = {}
    u = users_table.c
    for i in range(0, len(ids), 500):
        rows = tx.conn.execute(sa.select(u.id, u.username, u.is_bot, u.deleted_at).where(u.id.in_(ids[i : i + 500])))
        for r in rows:
            out[str(r.id)] = (str(r.username), bool(r.is_bot), r.deleted_at)
    return out


def names_in_key_order(
    tx: Transaction, user_ids: sa.Select[Any], *, open_only: bool = False, limit: int | None = None
) -> list[tuple[str, str]]:
    """The accounts of ``user_ids`` (a statement of one column of user ids) as ``(user id, username)``, in
    the order of their name keys: only those not deleted if ``open_only``; at most ``limit`` (None: all)."""
    s = user_ids.subquery()
    u = users_table.c
    q = sa.select(u.id, u.username).join(s, next(iter(s.c)) == u.id)
    if open_only:
        q = q.where(u.deleted_at.is_(None))
    q = q.order_by(u.username_key)
    if limit is not None:
        q = q.limit(limit)
    return [(str(r.id), str(r.username)) for r in tx.conn.execute(q)]


def names_among(tx: Transaction, user_ids: sa.Select[Any], names: Sequence[str]) -> set[str]:
    """Of ``names`` (usernames as written), those of the accounts in ``user_ids`` (a statement of one
    column of user ids)."""
    s = user_ids.subquery()
    u = users_table.c
    rows = tx.conn.execute(sa.select(u.username).join(s, next(iter(s.c)) == u.id).where(u.username.in_(list(names))))
    return {str(n) for (n,) in rows}


def rating_rows(tx: Transaction, user_ids: Sequence[str], pool: str | None = None) -> list[dict[str, Any]]:
    """The stored ratings of ``user_ids`` (only in ``pool`` if given), each as a dict of ``user_id``,
    ``pool``, ``rating``, ``rd``, ``vol``, ``games`` and ``updated_at`` (seconds since the epoch)."""
    r = ratings_table.c
    q = sa.select(ratings_table).where(r.user_id.in_(list(user_ids)))
    if pool is not None:
        q = q.where(r.pool == pool)
    return [dict(m) for m in tx.conn.execute(q).mappings()]


def game_pool(tx: Transaction, game_id: str) -> tuple[bool, str] | None:
    """Whether the game ``game_id`` is rated, and its rating pool; None: no account sat in it when it
    began (no such row)."""
    ag = account_games_table.c
    r = tx.conn.execute(sa.select(ag.rated, ag.pool).where(ag.game_id == game_id)).first()
    return None if r is None else (bool(r.rated), str(r.pool))


def has_seats(tx: Transaction, user_id: str) -> bool:
    """Whether the account ``user_id`` holds or held any game's seat."""
    return tx.conn.execute(sa.select(_seat.game_id).where(_seat.user_id == user_id).limit(1)).first() is not None


def make_bot(tx: Transaction, user_id: str) -> bool:
    """Mark the account ``user_id`` a bot in the caller's transaction; False if it was one already (or is
    no account)."""
    u = users_table.c
    done = tx.conn.execute(users_table.update().where(u.id == user_id, u.is_bot.is_(False)).values(is_bot=True))
    return done.rowcount == 1


def rated_among(tx: Transaction, game_ids: Sequence[str]) -> set[str]:
    """Of ``game_ids``, the rated games (500 a statement)."""
    ag = account_games_table.c
    ids = list(game_ids)
    out: set[str] = set()
    for i in range(0, len(ids), 500):
        rows = tx.conn.execute(sa.select(ag.game_id).where(ag.game_id.in_(ids[i : i + 500]), ag.rated.is_(True)))
        out.update(str(g) for (g,) in rows)
    return out


def holds_seat(tx: Transaction, game_id: str, user_id: str) -> bool:
    """Whether the account ``user_id`` holds a seat of ``game_id``."""
    q = sa.select(_seat.seat).where(_seat.game_id == game_id, _seat.user_id == user_id).limit(1)
    return tx.conn.execute(q).first() is not None


def people() -> sa.Select[tuple[str]]:
    """The accounts that are no bot (nor an AI level's account) as a statement of one column of user ids,
    for another domain's query to read within its own (e.g. the engine-use signals of ordinary players)."""
    u = users_table.c
    return sa.select(u.id).where(u.is_bot.is_(False))
