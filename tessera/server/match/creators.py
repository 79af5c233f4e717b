"""Who created each game, in the database (the ``game_creators`` table, migration ``0010``).

The creator is a client key: ``account:<user id>`` for a signed-in creator, else the address
(``addr:<address>``).  Kept in the database, not in one process's memory, so that

- the lobby lists at most a few open games of one creator on a page (:func:`open_games`), and
  orders them for a signed-in player by the closeness of the creator's rating;
- the cap on games whose every seat is an AI (:func:`all_ai_going`)

hold across server processes and restarts.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.server.accounts.glicko2 import START_RATING
from tessera.server.accounts.queries import pool_ratings
from tessera.server.match.tables import game_creators_table, games_table, seats_table
from tessera.server.store.storage import Transaction


def record(tx: Transaction, game_id: str, creator: str, *, user_id: str | None, all_ai: bool) -> None:
    """Note ``creator`` as the creator of the new game ``game_id``."""
    tx.conn.execute(
        game_creators_table.insert().values(game_id=game_id, creator=creator[:80], user_id=user_id, all_ai=all_ai)
    )


def creator_of(tx: Transaction, game_id: str) -> str | None:
    """The stored creator of a game (None: made before creators were kept, or unknown)."""
    q = sa.select(game_creators_table.c.creator).where(game_creators_table.c.game_id == game_id)
    return tx.conn.execute(q).scalar()


def all_ai_going(tx: Transaction, creator: str) -> int:
    """Games of ``creator`` whose every seat is an AI and that are not over."""
    q = (
        sa.select(sa.func.count())
        .select_from(game_creators_table.join(games_table, games_table.c.id == game_creators_table.c.game_id))
        .where(game_creators_table.c.creator == creator)
        .where(game_creators_table.c.all_ai.is_(True))
        .where(games_table.c.status.in_(("open", "active")))
    )
    return int(tx.conn.execute(q).scalar() or 0)


def open_games(
    tx: Transaction, *, limit: int, offset: int, per_creator: int = 0, player: str | None = None
) -> list[str]:
    """Ids of the lobby's open games (public, in progress, a human seat free), selected in one query.

    Order: for a signed-in ``player`` (a user id), by the distance between the creator's rating and
    the player's in that game's pool (Glicko-2, one pool per game; no rating counts as the starting
    rating), then newest first; for a guest newest first.  At most ``per_creator`` (0: any number)
    games of one creator are listed at all (the newest of them), so a flood of one creator's games
    never pushes the others off the pages."""
    free_seat = (
        sa.select(seats_table.c.game_id)
        .where(seats_table.c.game_id == games_table.c.id)
        .where(seats_table.c.kind == "human")
        .where(seats_table.c.claimed.is_(False))
        .exists()
    )
    gc = game_creators_table
    who = sa.func.coalesce(gc.c.creator, games_table.c.id)
    cols: list[sa.ColumnElement[object]] = [
        games_table.c.id.label("id"),
        games_table.c.created_at.label("created_at"),
        sa.func.row_number()
        .over(partition_by=who, order_by=(games_table.c.created_at.desc(), games_table.c.id))
        .label("nth"),
    ]
    source = games_table.outerjoin(gc, gc.c.game_id == games_table.c.id)
    if player is not None:
        theirs = pool_ratings().subquery("theirs")
        mine = pool_ratings().subquery("mine")
        source = source.outerjoin(
            theirs, sa.and_(theirs.c.user_id == gc.c.user_id, theirs.c.pool == games_table.c.game)
        ).outerjoin(mine, sa.and_(mine.c.user_id == player, mine.c.pool == games_table.c.game))
        gap = sa.func.abs(
            sa.func.coalesce(theirs.c.rating, START_RATING) - sa.func.coalesce(mine.c.rating, START_RATING)
        )
        cols.append(gap.label("gap"))
    inner = (
        sa.select(*cols)
        .select_from(source)
        .where(games_table.c.status == "active")
        .where(games_table.c.public.is_(True))
        .where(free_seat)
        .subquery()
    )
    q = sa.select(inner.c.id)
    if per_creator:
        q = q.where(inner.c.nth <= per_creator)
    order = [inner.c.gap] if player is not None else []
    q = q.order_by(*order, inner.c.created_at.desc(), inner.c.id).limit(limit).offset(offset)
    return [gid for (gid,) in tx.conn.execute(q)]
