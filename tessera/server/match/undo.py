"""Taking back moves: at once in hot-seat and against the AI; online, once the others accept.

Online, the move is taken back once every other human seat still in the game has accepted
(AI seats agree by themselves; with two players that is the opponent).  With more than two
seats only the AI seats' moves may be taken back along with it, and a resignation is never
taken back (docs/http-api.md, "Taking back a move").
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from tessera.core.game import SIMULTANEOUS
from tessera.core.records import RESIGN
from tessera.core.texts import Text
from tessera.server.http.errors import ServiceError
from tessera.server.match import tables
from tessera.server.match.clocks import clock_start, clock_stop_all
from tessera.server.match.declines import UNDO, check_may_ask, declined
from tessera.server.match.knowledge import movers, replay_moves
from tessera.server.match.live import undo_waiting
from tessera.server.match.tables import GameRow, MoveRow

if TYPE_CHECKING:
    from tessera.server.match.endings import Endings
    from tessera.server.match.live import Work

OVER = "the game is over: moves can no longer be taken back"


def undo_target(row: GameRow, moves: list[MoveRow], seat: int) -> int:
    """The index of the first move an undo by ``seat`` takes back (409 with the reason if none may be).

    Hot-seat: the last move, whoever made it; otherwise the seat's last move and
    every move after it.  A resignation (also a player out of time, stored as his
    ``resign``) is never taken back, and a player who has resigned has nothing
    to take back.  Online with more than two seats, only AI seats may have moved
    since (another human's move is his, not the requester's, to take back).
    """
    if any(m.player == seat and m.move == RESIGN for m in moves):
        raise ServiceError(409, Text("refusal.undo_resigned", "you have resigned: you have no move to take back"))
    if row.mode == "hotseat":
        if not moves:
            raise ServiceError(409, Text("refusal.undo_nothing", "there is no move to take back"))
        target = moves[-1].index
    else:
        for m in reversed(moves):
            if m.player in (seat, SIMULTANEOUS):
                target = m.index
                break
        else:
            raise ServiceError(409, Text("refusal.undo_none_yours", "you have no move to take back"))
    for m in moves[target:]:
        if m.move == RESIGN:
            name = row.seats[m.player].name if 0 <= m.player < len(row.seats) else "a player"
            raise ServiceError(
                409,
                Text(
                    "refusal.undo_after_resign",
                    f"{name} has resigned since: a resignation is never taken back",
                    name=name,
                ),
            )
        if (
            row.mode == "online"
            and len(row.seats) > 2
            and m.player not in (seat, SIMULTANEOUS)
            and row.seats[m.player].kind != "ai"
        ):
            who = row.seats[m.player].name
            raise ServiceError(
                409,
                Text(
                    "refusal.undo_moved_since",
                    f"{who} has moved since your move: it can no longer be taken back",
                    name=who,
                ),
            )
    return target


def take_back(w: Work, target: int) -> None:
    """Delete every move from ``target`` on and replay the rest; clocks restart for whoever is to move."""
    row = w.row
    tables.delete_moves_from(w.tx, row.id, target)
    tables.delete_sealed(w.tx, row.id)
    w.moves = w.moves[:target]
    w.state = replay_moves(w.state.game, row.seed, w.moves)
    w.sealed = {}
    row.undo_request = None
    row.undo_agreed = 0
    row.draw_offer = None  # a draw offer belongs to the position it was made in
    if row.clock is not None:
        now = time.time()
        clock_stop_all(row.clock, now)
        clock_start(row.clock, movers(w.state), now)
    tables.update_game(w.tx, row.id, undo_request=None, undo_agreed=0, draw_offer=None, clock=row.clock)


class Undo:
    """Undo requests and their answers."""

    def __init__(self, endings: Endings) -> None:
        self.endings = endings

    def undo(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Take back the seat's last move: at once in hot-seat and against the AI, else ask the others."""

        def body(w: Work, seat: int) -> None:
            row = w.row
            if row.mode == "online" and row.undo_request is not None and row.undo_request != seat:
                if len(row.seats) == 2:
                    raise ServiceError(
                        409,
                        Text(
                            "refusal.undo_opponent_asked",
                            "your opponent has asked to take back a move: accept or decline it",
                        ),
                    )
                asker = row.seats[row.undo_request].name
                raise ServiceError(
                    409,
                    Text(
                        "refusal.undo_other_asked",
                        f"{asker} has asked to take back a move: that request is answered first",
                        name=asker,
                    ),
                )
            target = undo_target(row, w.moves, seat)
            if row.mode in ("hotseat", "ai"):
                take_back(w, target)
            elif row.undo_request is None:
                check_may_ask(w.tx, row.id, seat, UNDO, len(w.moves))
                row.undo_request, row.undo_agreed = seat, 0
                if undo_waiting(row, w.moves):
                    tables.update_game(w.tx, game_id, undo_request=seat, undo_agreed=0)
                else:  # no other human seat has a say (the others are AI seats, resigned or not yet taken)
                    take_back(w, target)

        return self.endings.guarded(game_id, token, OVER, body)

    def answer(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """Another player accepts or declines an undo request.  One refusal ends the request; the move
        is taken back when the last human seat whose answer is needed accepts."""

        def body(w: Work, seat: int) -> None:
            row = w.row
            if row.undo_request is None:
                raise ServiceError(409, Text("refusal.undo_no_request", "nobody has asked to take back a move"))
            if row.undo_request == seat:
                raise ServiceError(
                    409, Text("refusal.undo_own_request", "you cannot answer your own request to take back a move")
                )
            waiting = undo_waiting(row, w.moves)
            if seat not in waiting:
                if row.seats[seat].kind == "ai":
                    why = Text("refusal.undo_why.ai", "an AI seat agrees by itself")
                elif row.undo_agreed >> seat & 1:
                    why = Text("refusal.undo_why.accepted", "you have already accepted it")
                else:
                    why = Text("refusal.undo_why.resigned", "you have resigned: the others decide")
                raise ServiceError(
                    409,
                    Text(
                        "refusal.undo_not_yours",
                        f"this request to take back a move is not yours to answer: {why}",
                        why=why,
                    ),
                )
            if not accept:
                declined(w.tx, game_id, row.undo_request, UNDO, len(w.moves))
                row.undo_request, row.undo_agreed = None, 0
                tables.update_game(w.tx, game_id, undo_request=None, undo_agreed=0)
            elif waiting == [seat]:
                take_back(w, undo_target(row, w.moves, row.undo_request))
            else:
                undo_target(row, w.moves, row.undo_request)  # still possible (an AI may have resigned since)
                row.undo_agreed |= 1 << seat
                tables.update_game(w.tx, game_id, undo_agreed=row.undo_agreed)

        return self.endings.guarded(game_id, token, OVER, body)
