"""The match domain's queries for other domains: they call these, never the match tables.

Each takes a :class:`~tessera.server.store.storage.Storage`, or a
:class:`~tessera.server.store.storage.Transaction` when the caller reads other things with it, and
answers plain values (ids, numbers) or the match domain's row classes; a caller never names the match
tables.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

import sqlalchemy as sa

from tessera.server.match.tables import (
    GameRow,
    MoveRow,
    SeatRow,
    games_table,
    get_game,
    moves,
    moves_table,
    seats_table,
)
from tessera.server.store.storage import Storage, Transaction


def human_seats(storage: Storage, tokens: list[str]) -> list[tuple[str, int]]:
    """The human seats the seat ``tokens`` hold, as ``(game id, seat)`` sorted; tokens of no seat
    (or of an AI seat) are left out; ``[]`` for no tokens (no query)."""
    if not tokens:
        return []
    with storage.transaction() as tx:
        rows = tx.conn.execute(
            sa.select(seats_table.c.game_id, seats_table.c.seat).where(
                seats_table.c.token.in_(tokens), seats_table.c.kind == "human"
            )
        )
        return sorted((str(r.game_id), int(r.seat)) for r in rows)


def games_in_play(storage: Storage, limit: int = 1000) -> list[str]:
    """The game names (``nume``, …) of the ``limit`` most recently changed active games, each once, the
    most recently played first (the AI warms their kernels first)."""
    recent = (
        sa.select(games_table.c.game, games_table.c.updated_at)
        .where(games_table.c.status == "active")
        .order_by(games_table.c.updated_at.desc())
        .limit(limit)
        .subquery()
    )
    q = sa.select(recent.c.game).group_by(recent.c.game).order_by(sa.func.max(recent.c.updated_at).desc())
    with storage.transaction() as tx:
        return [str(g) for (g,) in tx.conn.execute(q)]


def active_seats(tx: Transaction, seats: sa.Select[Any], limit: int) -> list[tuple[str, int]]:
    """Of ``seats`` (a statement of ``(game_id, seat)`` rows, e.g. an account's seats from
    :func:`tessera.server.accounts.queries.account_seats`), those of active games: at most ``limit``,
    the most recently changed games first."""
    s = seats.subquery()
    rows = tx.conn.execute(
        sa.select(s.c.game_id, s.c.seat)
        .join(games_table, games_table.c.id == s.c.game_id)
        .where(games_table.c.status == "active")
        .order_by(games_table.c.updated_at.desc())
        .limit(limit)
    )
    return [(str(r.game_id), int(r.seat)) for r in rows]


def ended_seats(tx: Transaction, seats: sa.Select[Any], limit: int) -> list[tuple[str, int]]:
    """Of ``seats`` (a statement of ``(game_id, seat)`` rows), those of games no longer active: at most
    ``limit``, the most recently created games first."""
    s = seats.subquery()
    rows = tx.conn.execute(
        sa.select(s.c.game_id, s.c.seat)
        .join(games_table, games_table.c.id == s.c.game_id)
        .where(games_table.c.status != "active")
        .order_by(games_table.c.created_at.desc())
        .limit(limit)
    )
    return [(str(r.game_id), int(r.seat)) for r in rows]


def active_token_seats(tx: Transaction, tokens: Sequence[str]) -> list[tuple[str, int]]:
    """The seats of active games that the seat ``tokens`` hold, as ``(game id, seat)`` (100 tokens a
    statement); tokens of no seat are left out."""
    out: list[tuple[str, int]] = []
    for i in range(0, len(tokens), 100):
        rows = tx.conn.execute(
            sa.select(seats_table.c.game_id, seats_table.c.seat)
            .join(games_table, games_table.c.id == seats_table.c.game_id)
            .where(seats_table.c.token.in_(list(tokens[i : i + 100])), games_table.c.status == "active")
        )
        out += [(str(r.game_id), int(r.seat)) for r in rows]
    return out


def stored_game(storage: Storage, game_id: str) -> tuple[GameRow, list[MoveRow]] | None:
    """A game's row and its stored moves, read together (None: no such game)."""
    with storage.transaction() as tx:
        row = get_game(tx, game_id)
        return None if row is None else (row, moves(tx, game_id))


def finished_results(tx: Transaction, game_ids: Sequence[str]) -> dict[str, dict[str, Any] | None]:
    """Of ``game_ids``, the finished games: game id → its stored result (None: none stored); games not
    finished (or unknown) are absent."""
    out: dict[str, dict[str, Any] | None] = {}
    ids = list(game_ids)
    for i in range(0, len(ids), 500):
        rows = tx.conn.execute(
            sa.select(games_table.c.id, games_table.c.result).where(
                games_table.c.id.in_(ids[i : i + 500]), games_table.c.status == "finished"
            )
        )
        out.update((str(r.id), json.loads(r.result) if r.result else None) for r in rows)
    return out


def moves_by_player(tx: Transaction, game_id: str) -> dict[int, int]:
    """How many stored moves of ``game_id`` each player made: player → count (players with none, and a
    simultaneous turn's joint moves under -2, as stored)."""
    m = moves_table.c
    rows = tx.conn.execute(sa.select(m.player, sa.func.count()).where(m.game_id == game_id).group_by(m.player))
    return {int(p): int(n) for p, n in rows}


def finished_oldest_first(tx: Transaction, game_ids: sa.Select[Any], limit: int) -> list[str]:
    """Of ``game_ids`` (a statement of one column of game ids), the finished games: at most ``limit``,
    the least recently changed first."""
    s = game_ids.subquery()
    key = next(iter(s.c))
    rows = tx.conn.execute(
        sa.select(key)
        .join(games_table, games_table.c.id == key)
        .where(games_table.c.status == "finished")
        .order_by(games_table.c.updated_at)
        .limit(limit)
    )
    return [str(g) for (g,) in rows]


def game_row(tx: Transaction, game_id: str) -> GameRow | None:
    """The stored game ``game_id`` with its seats (None: no such game)."""
    return get_game(tx, game_id)


def seat_rows(tx: Transaction, game_id: str) -> list[SeatRow]:
    """The seats of ``game_id`` in seat order (``[]``: no such game)."""
    s = seats_table.c
    rows = tx.conn.execute(
        sa.select(s.seat, s.token, s.name, s.kind, s.level, s.claimed).where(s.game_id == game_id).order_by(s.seat)
    )
    return [SeatRow(int(r.seat), r.token, r.name, r.kind, r.level, bool(r.claimed)) for r in rows]


def seat_token(tx: Transaction, game_id: str, seat: int) -> str | None:
    """The token of seat ``seat`` of ``game_id`` (None: no such seat)."""
    s = seats_table.c
    token = tx.conn.execute(sa.select(s.token).where(s.game_id == game_id, s.seat == seat)).scalar()
    return None if token is None else str(token)


def seat_of_token(tx: Transaction, game_id: str, token: str) -> int | None:
    """The seat of ``game_id`` that ``token`` holds (None: none of its seats)."""
    s = seats_table.c
    seat = tx.conn.execute(sa.select(s.seat).where(s.game_id == game_id, s.token == token)).scalar()
    return None if seat is None else int(seat)


def free_human_seats(tx: Transaction, game_id: str) -> list[tuple[int, str]]:
    """The human seats of ``game_id`` nobody has taken yet, as ``(seat, token)`` in seat order."""
    s = seats_table.c
    rows = tx.conn.execute(
        sa.select(s.seat, s.token).where(s.game_id == game_id, s.kind == "human", s.claimed.is_(False)).order_by(s.seat)
    )
    return [(int(r.seat), str(r.token)) for r in rows]


def seat_by_token(tx: Transaction, token: str) -> tuple[str, int, str] | None:
    """The seat the token ``token`` holds, as ``(game id, seat, kind)`` (None: no seat's token)."""
    s = seats_table.c
    r = tx.conn.execute(sa.select(s.game_id, s.seat, s.kind).where(s.token == token)).first()
    return None if r is None else (str(r.game_id), int(r.seat), str(r.kind))


def rename_seat(tx: Transaction, game_id: str, seat: int, name: str, now: float) -> None:
    """Show the seat ``seat`` of ``game_id`` under ``name`` (a closed account's), in the caller's
    transaction: the game gets a new version (every server process reads it again) and the change is
    announced when the transaction commits."""
    tx.conn.execute(
        seats_table.update().where(seats_table.c.game_id == game_id, seats_table.c.seat == seat).values(name=name)
    )
    tx.conn.execute(
        games_table.update()
        .where(games_table.c.id == game_id)
        .values(version=games_table.c.version + 1, updated_at=now)
    )
    tx.changed(game_id)


def finished_between_people(tx: Transaction, game_ids: sa.Select[Any]) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Of ``game_ids`` (a statement of one column of game ids, e.g.
    :func:`tessera.server.accounts.queries.rated_games`), the finished games with no AI seat, as
    ``(game id, spec, stored result or None)`` in no particular order."""
    s = game_ids.subquery()
    key = next(iter(s.c))
    g = games_table.c
    rows = tx.conn.execute(
        sa.select(g.id, g.spec, g.result)
        .join(s, key == g.id)
        .where(
            g.status == "finished",
            ~sa.exists().where(seats_table.c.game_id == g.id, seats_table.c.kind == "ai"),
        )
    )
    return [(str(r.id), str(r.spec), json.loads(r.result) if r.result else None) for r in rows]


def move_counts(tx: Transaction, game_ids: Sequence[str]) -> dict[str, int]:
    """How many moves each of ``game_ids`` has stored: game id → count (games with none are absent), 500
    games a statement."""
    m = moves_table.c
    ids = list(game_ids)
    out: dict[str, int] = {}
    for i in range(0, len(ids), 500):
        rows = tx.conn.execute(
            sa.select(m.game_id, sa.func.count()).where(m.game_id.in_(ids[i : i + 500])).group_by(m.game_id)
        )
        out.update((str(gid), int(n)) for gid, n in rows)
    return out


def seats_oldest_first(tx: Transaction, seats: sa.Select[Any]) -> list[tuple[str, int]]:
    """``seats`` (a statement of ``(game_id, seat)`` rows) as ``(game id, seat)``: those of finished games
    first, then by their game's creation, oldest first (then by game id and seat); seats of no stored
    game are left out."""
    s = seats.subquery()
    g = games_table.c
    rows = tx.conn.execute(
        sa.select(s.c.game_id, s.c.seat)
        .join(games_table, g.id == s.c.game_id)
        .order_by((g.status == "finished").desc(), g.created_at, s.c.game_id, s.c.seat)
    )
    return [(str(r.game_id), int(r.seat)) for r in rows]


def on_or_ended_since(rows: sa.Select[Any], since: float) -> sa.Select[Any]:
    """Of ``rows`` (a statement with a ``game_id`` column), those whose game is not finished or changed
    after ``since`` (seconds since the epoch), as a statement of the rows' first column, for the caller's
    query to read within its own."""
    s = rows.subquery()
    g = games_table.c
    return (
        sa.select(next(iter(s.c)))
        .join(games_table, g.id == s.c.game_id)
        .where(sa.or_(g.status != "finished", g.updated_at > since))
    )


class SeatGame(NamedTuple):
    """A seat and the game it is in, as :func:`seat_games` reads them (times in seconds since the epoch)."""

    game_id: str
    seat: int
    game: str
    spec: str
    status: str
    result: dict[str, Any] | None
    clock: dict[str, Any] | None
    created_at: float
    updated_at: float


def seat_games(
    tx: Transaction,
    seats: sa.Select[Any],
    *,
    game: str | None = None,
    unfinished: bool = False,
    oldest_first: bool = False,
    limit: int | None = None,
) -> list[SeatGame]:
    """The games of ``seats`` (a statement of ``(game_id, seat)`` rows, e.g. an account's seats from
    :func:`tessera.server.accounts.queries.account_seats`), one :class:`SeatGame` per seat: only games of
    the name ``game`` if given, only those not finished if ``unfinished``; the newest games first (the
    oldest first if ``oldest_first``), then by game id and seat; at most ``limit`` (None: all)."""
    s = seats.subquery()
    g = games_table.c
    q = sa.select(g.id, s.c.seat, g.game, g.spec, g.status, g.result, g.clock, g.created_at, g.updated_at).join(
        s, s.c.game_id == g.id
    )
    if game is not None:
        q = q.where(g.game == game)
    if unfinished:
        q = q.where(g.status != "finished")
    q = q.order_by(g.created_at if oldest_first else g.created_at.desc(), g.id, s.c.seat)
    if limit is not None:
        q = q.limit(limit)
    return [
        SeatGame(
            str(r.id),
            int(r.seat),
            str(r.game),
            str(r.spec),
            str(r.status),
            json.loads(r.result) if r.result else None,
            json.loads(r.clock) if r.clock else None,
            float(r.created_at),
            float(r.updated_at),
        )
        for r in tx.conn.execute(q)
    ]


def game_exists(tx: Transaction, game_id: str) -> bool:
    """Whether a game ``game_id`` is stored."""
    return tx.conn.execute(sa.select(games_table.c.id).where(games_table.c.id == game_id)).first() is not None
