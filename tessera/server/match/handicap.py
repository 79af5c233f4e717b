"""A seat's clock halved at the start of a game: an arena's *berserk* (lichess).

The seat's remaining time is halved in one write of the game (through
:meth:`tessera.server.match.endings.Endings.guarded`, as every seat action other than a move), before the
seat's first move; a correspondence game, a game without a clock and a seat that has moved are
refused.  Who may ask, and what it is worth, is the tournament's business
(tessera.server.tournaments).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tessera.core.texts import Text
from tessera.server.http.errors import ServiceError
from tessera.server.match import tables
from tessera.server.match.clocks import is_correspondence

if TYPE_CHECKING:
    from tessera.server.match.endings import Endings
    from tessera.server.match.live import Work


def halve_clock(endings: Endings, game_id: str, token: str | None) -> dict[str, Any]:
    """Halve the time of the seat holding ``token`` before its first move; the seat's view."""

    def body(w: Work, seat: int) -> None:
        clock = w.row.clock
        if clock is None or is_correspondence(clock):
            raise ServiceError(409, Text("refusal.berserk_clock", "only a real-time clock can be halved"))
        if any(mover == seat for mover, _ in w.state.history()):
            raise ServiceError(409, Text("refusal.berserk_moved", "the clock is halved before one's first move"))
        clock["remaining"][seat] = clock["remaining"][seat] / 2.0
        tables.update_game(w.tx, w.row.id, clock=clock)

    return endings.guarded(game_id, token, "the game is over: its clock can no longer be halved", body)
