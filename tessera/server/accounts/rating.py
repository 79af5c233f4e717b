"""Rating finished games: :func:`rate_finished_game` (the results path calls it when a game
ends), :func:`rate_pending` (catches up on any finished rated game not rated yet) and
:func:`rate_all_pending` (the server's start: a game whose end was stored just before a crash is
rated before the first request, not at the first read of a rating).

A game is rated once: the ``account_games.rated_at`` mark is claimed by a conditional update
in the same transaction that writes the new ratings, so two processes finishing or sweeping
the same game cannot both rate it.  Rated: a game in ``account_games`` with ``rated`` true,
every seat bound to an account (people, and the AI accounts for AI seats), finished with a
result (an aborted game has no returns: it is marked and changes nothing).

Pools: one rating per account and **game** (``nume``, ``nymbat``, …): every variant and
board size of a game shares its pool, and four-player Nymbat shares Nymbat's.

Idle time: a player's deviation grows with the time since his last rated game of the pool
(:func:`tessera.server.accounts.glicko2.idle`, from ``ratings.updated_at`` to :func:`clock`), and
the game is rated from that grown deviation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from tessera.server.accounts import glicko2
from tessera.server.accounts.model import AI_LEVELS, ai_username
from tessera.server.accounts.tables import (
    account_games_table,
    history_table,
    ratings_table,
    seat_accounts_table,
    users_table,
)
from tessera.server.ai.ratings import level_rating
from tessera.server.match.queries import finished_oldest_first, finished_results
from tessera.server.store.storage import Storage, Transaction

clock: Callable[[], float] = time.time
"""The time ratings are read and written at (tests put a fake clock here)."""


def current(r: glicko2.Rating, updated_at: float | None, now: float | None = None) -> glicko2.Rating:
    """A stored rating as it stands now: its deviation grown by the idle time since ``updated_at``."""
    if updated_at is None:
        return r
    return glicko2.idle(r, (clock() if now is None else now) - updated_at)


def _read_rating(tx: Transaction, user_id: str, pool: str, now: float) -> tuple[glicko2.Rating, int] | None:
    q = sa.select(ratings_table).where(ratings_table.c.user_id == user_id, ratings_table.c.pool == pool)
    if tx.conn.dialect.name == "postgresql":
        q = q.with_for_update()  # two games of one player ending together are rated one after the other
    r = tx.conn.execute(q).mappings().first()
    if r is None:
        return None
    return current(glicko2.Rating(r["rating"], r["rd"], r["vol"]), r["updated_at"], now), int(r["games"])


AI_ACCOUNTS = {ai_username(lv): lv for lv in AI_LEVELS}
"""The AI accounts' usernames and their levels."""


def starting_rating(tx: Transaction, user_id: str, pool: str) -> glicko2.Rating:
    """The rating an account has in ``pool`` before its first rated game there: an AI account's
    measured level rating in that game (tessera.server.ai.ratings), anyone else's the start of
    Glicko-2 (1500, deviation 500)."""
    name = tx.conn.execute(sa.select(users_table.c.username).where(users_table.c.id == user_id)).scalar()
    level = AI_ACCOUNTS.get(str(name)) if name is not None else None
    if level is None:
        return glicko2.Rating()
    start = level_rating(pool, level)
    return glicko2.Rating(start.rating, start.rd)


def rate_finished_game(storage: Storage, game_id: str) -> dict[int, dict[str, Any]] | None:
    """Apply the Glicko-2 update of a finished rated game (one rating period for its players).

    Returns each seat's change ``{seat: {"user_id", "before", "after", "rd", "provisional"}}``,
    or None when there is nothing to rate: not a rated game, not finished, already rated, a
    seat without an account, the same account on two seats, or an aborted game.  Safe to call
    more than once and from several processes.
    """
    with storage.transaction(write=True) as tx:
        meta = (
            tx.conn.execute(sa.select(account_games_table).where(account_games_table.c.game_id == game_id))
            .mappings()
            .first()
        )
        if meta is None or not meta["rated"] or meta["rated_at"] is not None:
            return None
        finished = finished_results(tx, [game_id])
        if game_id not in finished:
            return None
        now = clock()
        claimed = tx.conn.execute(
            account_games_table.update()
            .where(account_games_table.c.game_id == game_id, account_games_table.c.rated_at.is_(None))
            .values(rated_at=now)
        )
        if claimed.rowcount != 1:
            return None
        result = finished[game_id]
        returns = (result or {}).get("returns")
        bound = dict(
            tx.conn.execute(
                sa.select(seat_accounts_table.c.seat, seat_accounts_table.c.user_id).where(
                    seat_accounts_table.c.game_id == game_id
                )
            ).all()
        )
        if not returns or sorted(bound) != list(range(len(returns))) or len(set(bound.values())) != len(bound):
            return None  # marked as done: nothing to rate
        pool = meta["pool"]
        before: list[glicko2.Rating] = []
        played: list[int] = []
        for seat in range(len(returns)):
            found = _read_rating(tx, bound[seat], pool, now)
            before.append(found[0] if found else starting_rating(tx, bound[seat], pool))
            played.append(found[1] if found else 0)
        after = glicko2.rate_game(before, [float(x) for x in returns])
        out: dict[int, dict[str, Any]] = {}
        for seat, (old, new) in enumerate(zip(before, after, strict=True)):
            uid = bound[seat]
            values = {"rating": new.rating, "rd": new.rd, "vol": new.vol, "games": played[seat] + 1, "updated_at": now}
            if played[seat] == 0 and _read_rating(tx, uid, pool, now) is None:
                tx.conn.execute(ratings_table.insert().values(user_id=uid, pool=pool, **values))
            else:
                tx.conn.execute(
                    ratings_table.update()
                    .where(ratings_table.c.user_id == uid, ratings_table.c.pool == pool)
                    .values(**values)
                )
            tx.conn.execute(
                history_table.insert().values(
                    user_id=uid,
                    game_id=game_id,
                    pool=pool,
                    before=old.rating,
                    rating=new.rating,
                    rd=new.rd,
                    vol=new.vol,
                    created_at=now,
                )
            )
            out[seat] = {
                "user_id": uid,
                "before": old.rating,
                "after": new.rating,
                "rd": new.rd,
                "provisional": new.provisional,
            }
        return out


def rate_pending(storage: Storage, limit: int = 100) -> int:
    """Rate the finished rated games not rated yet (oldest first, at most ``limit``); how many
    were looked at.  Reads of ratings call it so that a rating is never behind its games even
    where the results path does not call :func:`rate_finished_game`."""
    with storage.transaction() as tx:
        unrated = sa.select(account_games_table.c.game_id).where(
            account_games_table.c.rated.is_(True), account_games_table.c.rated_at.is_(None)
        )
        ids = finished_oldest_first(tx, unrated, limit)
    for gid in ids:
        rate_finished_game(storage, gid)
    return len(ids)


def rate_all_pending(storage: Storage) -> int:
    """At start-up: rate every finished rated game left unrated (its end was stored, then the
    process stopped before :class:`~tessera.server.accounts.live.RateOnEnd` rated it); how many."""
    done = 0
    while n := rate_pending(storage, limit=500):
        done += n
        if n < 500:
            break
    return done
