"""The match domain's tables and their rows: games, seats, moves and sealed orders.

Tables (on the server's one :data:`~tessera.server.store.storage.metadata`, created by the Alembic
migrations in ``tessera/server/store/migrations``):

``games``
    one row per game: game name, one-string spec, parameters (JSON), seed,
    mode, status, result (JSON), clock (JSON), a pending undo request (and the
    seats that have agreed to it), a pending draw offer and a
    ``version`` counter that every writer bumps first, so that writers of one
    game are serialised (a row lock in PostgreSQL, the write lock in SQLite).
``seats``
    one row per seat: its unguessable token (unique), name, kind (``human`` or
    ``ai``), AI level and whether a person has claimed it.
``moves``
    one row per accepted move, primary key ``(game_id, move_index)``: two
    racing submissions for the same move index cannot both be stored.
``sealed_orders``
    orders of a simultaneous turn given but not yet resolved, primary key
    ``(game_id, move_index, player)``; never sent to anyone but their author.
``game_creators``
    who created each game (:mod:`tessera.server.match.creators`).
``request_declines``
    the last declined draw offer and takeback request of each seat (:mod:`tessera.server.match.declines`).

A game is stored as its parameters, seed and move list (the truth); the position is always rebuilt by
replaying the moves.  The functions below read and write these rows within one
:class:`~tessera.server.store.storage.Transaction` (``tx``); only the match domain calls them — other
domains call :mod:`tessera.server.match.queries`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from tessera.server.store.errors import Conflict
from tessera.server.store.storage import Storage, Transaction, metadata

games_table = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(32), nullable=False),
    sa.Column("spec", sa.Text, nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("mode", sa.String(16), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("public", sa.Boolean, nullable=False, default=False),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("clock", sa.Text, nullable=True),
    sa.Column("undo_request", sa.Integer, nullable=True),
    sa.Column("draw_offer", sa.Integer, nullable=True),
    sa.Column("undo_agreed", sa.Integer, nullable=True),
    sa.Column("version", sa.Integer, nullable=False, default=0),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Index("ix_games_status_updated", "status", "updated_at"),
)

seats_table = sa.Table(
    "seats",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("token", sa.String(64), nullable=False, unique=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("level", sa.Integer, nullable=True),
    sa.Column("claimed", sa.Boolean, nullable=False, default=False),
)

moves_table = sa.Table(
    "moves",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("move_index", sa.Integer, primary_key=True),
    sa.Column("player", sa.Integer, nullable=False),
    sa.Column("move", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

sealed_table = sa.Table(
    "sealed_orders",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("move_index", sa.Integer, primary_key=True),
    sa.Column("player", sa.Integer, primary_key=True),
    sa.Column("order", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)


game_creators_table = sa.Table(
    "game_creators",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("creator", sa.String(80), nullable=False, index=True),
    sa.Column("user_id", sa.String(32), nullable=True),
    sa.Column("all_ai", sa.Boolean, nullable=False),
)
"""Who created each game (migration ``0010``): :mod:`tessera.server.match.creators`."""

request_declines_table = sa.Table(
    "request_declines",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("at", sa.Integer, nullable=False),
    sa.Column("count", sa.Integer, nullable=False),
)
"""The last decline of each (game, seat, kind): the number of moves then (``at``) and how many
of the seat's requests of that kind were declined in the game (``count``)."""


@dataclass
class SeatRow:
    """One seat of a stored game."""

    seat: int
    token: str
    name: str
    kind: str
    level: int | None
    claimed: bool


@dataclass
class GameRow:
    """One stored game (without its moves)."""

    id: str
    game: str
    spec: str
    params: dict[str, Any]
    seed: int
    mode: str
    status: str
    public: bool
    result: dict[str, Any] | None
    clock: dict[str, Any] | None
    undo_request: int | None
    version: int
    created_at: float
    updated_at: float
    seats: list[SeatRow] = field(default_factory=list)
    draw_offer: int | None = None
    """The seat whose draw offer waits for an answer (None: no offer)."""
    undo_agreed: int = 0
    """The seats that have accepted the pending undo request, as a bit mask (bit ``s``: seat ``s``)."""


@dataclass
class MoveRow:
    """One stored move; ``player`` is -2 (SIMULTANEOUS) for a joint move."""

    index: int
    player: int
    move: str


def _dump(v: Any) -> str | None:
    return None if v is None else json.dumps(v, separators=(",", ":"))


def _load(v: str | None) -> Any:
    return None if v is None else json.loads(v)


_INSERT_MOVE = moves_table.insert()
"""Built once: SQLAlchemy then finds its compiled form by the statement's cached key."""

_BUMPS: dict[tuple[str, ...], sa.Update] = {}


def _bump_statement(columns: tuple[str, ...]) -> sa.Update:
    """``UPDATE games SET version = :b_next, <columns> WHERE id = :b_id AND version = :b_version``, built
    once per set of columns (building and keying a statement per move cost more than running it)."""
    stmt = _BUMPS.get(columns)
    if stmt is None:
        stmt = _BUMPS[columns] = (
            games_table.update()
            .where(games_table.c.id == sa.bindparam("b_id"), games_table.c.version == sa.bindparam("b_version"))
            .values(version=sa.bindparam("b_next"), **{c: sa.bindparam("b_" + c) for c in columns})
        )
    return stmt


def _bump_params(game_id: str, version: int, values: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The columns and bound values of :func:`_bump_statement` for :func:`bump_version`."""
    for key in ("result", "clock", "params"):
        if key in values:
            values[key] = _dump(values[key])
    values["updated_at"] = time.time()
    params = {"b_id": game_id, "b_version": version, "b_next": version + 1}
    params.update(("b_" + k, v) for k, v in values.items())
    return tuple(sorted(values)), params


_CLAIM_SEAT = (
    seats_table.update()
    .where(seats_table.c.game_id == sa.bindparam("c_game_id"), seats_table.c.seat == sa.bindparam("c_seat"))
    .values(claimed=True)
)


def insert_game(tx: Transaction, row: GameRow) -> None:
    """Store a new game and its seats."""
    tx.conn.execute(
        games_table.insert().values(
            id=row.id,
            game=row.game,
            spec=row.spec,
            params=_dump(row.params),
            seed=row.seed,
            mode=row.mode,
            status=row.status,
            public=row.public,
            result=_dump(row.result),
            clock=_dump(row.clock),
            undo_request=row.undo_request,
            draw_offer=row.draw_offer,
            undo_agreed=row.undo_agreed,
            version=0,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )
    )
    for s in row.seats:
        tx.conn.execute(
            seats_table.insert().values(
                game_id=row.id,
                seat=s.seat,
                token=s.token,
                name=s.name,
                kind=s.kind,
                level=s.level,
                claimed=s.claimed,
            )
        )


def lock_game(tx: Transaction, game_id: str) -> GameRow | None:
    """Bump the game's version (serialising writers of this game) and read it."""
    res = tx.conn.execute(
        games_table.update().where(games_table.c.id == game_id).values(version=games_table.c.version + 1)
    )
    if res.rowcount == 0:
        return None
    return get_game(tx, game_id)


def version(tx: Transaction, game_id: str) -> int | None:
    """The game's stored version (None: no such game) — one indexed read."""
    v = tx.conn.execute(sa.select(games_table.c.version).where(games_table.c.id == game_id)).scalar()
    return None if v is None else int(v)


def bump_version(tx: Transaction, game_id: str, version: int, **values: Any) -> bool:
    """Claim the next version if the stored one is still ``version``, writing ``values`` with it.

    One ``UPDATE … WHERE id = ? AND version = ?``: False (nothing written) if another writer
    got there first.  Like :func:`lock_game` it serialises writers of the game.
    """
    columns, params = _bump_params(game_id, version, values)
    res = tx.conn.execute(_bump_statement(columns), params)
    return res.rowcount == 1


def get_game(tx: Transaction, game_id: str) -> GameRow | None:
    """The game with its seats, or None."""
    r = tx.conn.execute(sa.select(games_table).where(games_table.c.id == game_id)).mappings().first()
    if r is None:
        return None
    seats = [
        SeatRow(s["seat"], s["token"], s["name"], s["kind"], s["level"], bool(s["claimed"]))
        for s in tx.conn.execute(
            sa.select(seats_table).where(seats_table.c.game_id == game_id).order_by(seats_table.c.seat)
        ).mappings()
    ]
    return GameRow(
        id=r["id"],
        game=r["game"],
        spec=r["spec"],
        params=_load(r["params"]),
        seed=int(r["seed"]),
        mode=r["mode"],
        status=r["status"],
        public=bool(r["public"]),
        result=_load(r["result"]),
        clock=_load(r["clock"]),
        undo_request=r["undo_request"],
        draw_offer=r["draw_offer"],
        undo_agreed=r["undo_agreed"] or 0,
        version=r["version"],
        created_at=r["created_at"],
        updated_at=r["updated_at"],
        seats=seats,
    )


def update_game(tx: Transaction, game_id: str, **values: Any) -> None:
    """Update columns of a game (``result`` and ``clock`` are given as JSON-able values)."""
    for key in ("result", "clock", "params"):
        if key in values:
            values[key] = _dump(values[key])
    values["updated_at"] = time.time()
    tx.conn.execute(games_table.update().where(games_table.c.id == game_id).values(**values))


def claim_seat(tx: Transaction, game_id: str, seat: int) -> None:
    """Mark a seat as taken by a person."""
    tx.conn.execute(_CLAIM_SEAT, {"c_game_id": game_id, "c_seat": seat})


def list_games(
    tx: Transaction, *, status: str | None = None, public_only: bool = True, limit: int = 50
) -> list[GameRow]:
    """Recent games, newest first."""
    q = sa.select(games_table.c.id).order_by(games_table.c.updated_at.desc()).limit(limit)
    if status is not None:
        q = q.where(games_table.c.status == status)
    if public_only:
        q = q.where(games_table.c.public.is_(True))
    out = []
    for (gid,) in tx.conn.execute(q):
        g = get_game(tx, gid)
        if g is not None:
            out.append(g)
    return out


def moves(tx: Transaction, game_id: str) -> list[MoveRow]:
    """Every stored move in order."""
    rows = tx.conn.execute(
        sa.select(moves_table.c.move_index, moves_table.c.player, moves_table.c.move)
        .where(moves_table.c.game_id == game_id)
        .order_by(moves_table.c.move_index)
    )
    return [MoveRow(i, p, m) for i, p, m in rows]


def insert_move(tx: Transaction, game_id: str, index: int, player: int, move: str) -> None:
    """Store one move; ``Conflict`` if that move index is taken (the transaction is then void)."""
    try:
        tx.conn.execute(
            _INSERT_MOVE,
            {"game_id": game_id, "move_index": index, "player": player, "move": move, "created_at": time.time()},
        )
    except IntegrityError as e:
        raise Conflict(f"move {index} of game {game_id} is already stored") from e


def delete_moves_from(tx: Transaction, game_id: str, index: int) -> None:
    """Take back every move from ``index`` on."""
    tx.conn.execute(moves_table.delete().where(moves_table.c.game_id == game_id, moves_table.c.move_index >= index))


# -- sealed orders -------------------------------------------------------------------
def sealed(tx: Transaction, game_id: str, index: int) -> dict[int, str]:
    """The sealed orders for move ``index``, by player."""
    rows = tx.conn.execute(
        sa.select(sealed_table.c.player, sealed_table.c.order).where(
            sealed_table.c.game_id == game_id, sealed_table.c.move_index == index
        )
    )
    return {p: o for p, o in rows}


def insert_sealed(tx: Transaction, game_id: str, index: int, player: int, order: str) -> None:
    """Seal a player's order; ``Conflict`` if he already gave one for this move."""
    try:
        tx.conn.execute(
            sealed_table.insert().values(
                game_id=game_id, move_index=index, player=player, order=order, created_at=time.time()
            )
        )
    except IntegrityError as e:
        raise Conflict(f"player {player} has already sealed an order for move {index}") from e


def delete_sealed(tx: Transaction, game_id: str) -> None:
    """Forget every sealed order of a game (after resolution or undo)."""
    tx.conn.execute(sealed_table.delete().where(sealed_table.c.game_id == game_id))


def append_move_now(
    storage: Storage,
    game_id: str,
    version: int,
    values: dict[str, Any],
    move: tuple[int, int, str],
    claim_seat: int | None = None,
) -> bool | None:
    """A move's whole transaction, begun and committed at once on the calling thread (the event
    loop) by :meth:`Storage.write_now`: :func:`bump_version` from ``version`` with ``values``, the
    seat claimed if ``claim_seat`` is given, :func:`insert_move` of ``move`` (index, player, text).

    The same statements as :func:`bump_version`, :func:`claim_seat` and :func:`insert_move`.  True:
    committed.  False: the stored version was not ``version``.  None: it would have had to wait (the
    caller tries again later on the loop, or writes in a worker thread with
    :meth:`Storage.transaction`).  ``Conflict``: the move index is taken.  Nothing is written unless
    True.
    """
    if not storage.writes_now:
        return None
    columns, params = _bump_params(game_id, version, values)
    index, player, text = move
    row = {"game_id": game_id, "move_index": index, "player": player, "move": text, "created_at": time.time()}
    taken = f"move {index} of game {game_id} is already stored"
    if claim_seat is None:
        return storage.write_now(((_bump_statement(columns), params, True, None), (_INSERT_MOVE, row, False, taken)))
    claim = {"c_game_id": game_id, "c_seat": claim_seat}
    return storage.write_now(
        (
            (_bump_statement(columns), params, True, None),
            (_CLAIM_SEAT, claim, False, None),
            (_INSERT_MOVE, row, False, taken),
        )
    )
