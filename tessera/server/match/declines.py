"""Repeated requests after a decline, limited per seat and game (the ``request_declines`` table,
migration ``0016_declines``), as lichess limits them — not only by the per-address request limit.

- **Draw offers**: a seat whose draw offer was declined may offer again once :data:`DRAW_GAP`
  more moves have been played (lichess: 20 plies).
- **Takeback requests**: a seat whose request was declined may not ask again before a move has
  been played, and not at all once :data:`UNDO_DECLINES` of its requests were declined in the game.

Kept in the database, in the transaction of the answer and of the request, so that the rule holds
across server processes and restarts.
"""

from __future__ import annotations

import sqlalchemy as sa

from tessera.core.texts import Text
from tessera.server.http.errors import ServiceError
from tessera.server.match.tables import request_declines_table
from tessera.server.store.storage import Transaction

DRAW = "draw"
UNDO = "undo"

DRAW_GAP = 20
"""Moves to be played after a declined draw offer before the same seat may offer again."""

UNDO_DECLINES = 3
"""Declined takeback requests after which a seat may ask no more in that game."""


def _last(tx: Transaction, game_id: str, seat: int, kind: str) -> tuple[int, int] | None:
    t = request_declines_table
    r = tx.conn.execute(
        sa.select(t.c.at, t.c.count).where(t.c.game_id == game_id, t.c.seat == seat, t.c.kind == kind)
    ).first()
    return None if r is None else (int(r[0]), int(r[1]))


def declined(tx: Transaction, game_id: str, seat: int, kind: str, moves: int) -> None:
    """Note that ``seat``'s request of ``kind`` was declined after ``moves`` moves."""
    t = request_declines_table
    last = _last(tx, game_id, seat, kind)
    if last is None:
        tx.conn.execute(t.insert().values(game_id=game_id, seat=seat, kind=kind, at=moves, count=1))
    else:
        tx.conn.execute(
            t.update()
            .where(t.c.game_id == game_id, t.c.seat == seat, t.c.kind == kind)
            .values(at=moves, count=last[1] + 1)
        )


def check_may_ask(tx: Transaction, game_id: str, seat: int, kind: str, moves: int) -> None:
    """Refuse (409, with the reason) a request of ``kind`` that ``seat`` may not make yet."""
    last = _last(tx, game_id, seat, kind)
    if last is None:
        return
    at, count = last
    if kind == DRAW and moves < at + DRAW_GAP:
        left = at + DRAW_GAP - moves
        raise ServiceError(
            409,
            Text(
                "refusal.draw_declined_wait",
                f"your last draw offer was declined: you may offer again after {left} more moves",
                n=left,
            ),
        )
    if kind == UNDO and count >= UNDO_DECLINES:
        raise ServiceError(
            409,
            Text(
                "refusal.undo_declined_often",
                f"{count} of your takeback requests were declined in this game: you may ask no more",
                count=count,
            ),
        )
    if kind == UNDO and moves == at:
        raise ServiceError(
            409,
            Text(
                "refusal.undo_declined_wait",
                "your takeback request was declined: you may ask again after the next move",
            ),
        )
