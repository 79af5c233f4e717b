"""Draw offers between the two players of a game whose rules allow a draw.

Whether a game can be drawn is the game's knowledge (:func:`tessera.server.match.knowledge.draws_possible`).
Against an AI the AI answers at once; otherwise the offer is stored until the opponent accepts,
declines, or moves (a move instead of an answer lets it lapse, and so does a takeback). An offer
made while the opponent's stands is an acceptance: two crossing offers are one agreement. A
declined offer is not made again at once (:mod:`tessera.server.match.declines`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tessera.core.texts import Text
from tessera.server.http.errors import ServiceError
from tessera.server.match import tables
from tessera.server.match.declines import DRAW, check_may_ask, declined
from tessera.server.match.knowledge import draws_possible
from tessera.server.match.live import Unchanged, seat_of
from tessera.server.match.results import agreement_result

if TYPE_CHECKING:
    from tessera.server.match.endings import Endings
    from tessera.server.match.live import Work

AI_DRAW_THRESHOLD = -0.5
"""An AI accepts a draw offer only when its evaluation for its own side is at most this (clearly losing)."""


def agree_draw(w: Work, offerer: int) -> None:
    """End the game drawn by agreement (``offerer`` offered)."""
    from tessera.server.match.endings import finish

    w.row.draw_offer = None
    finish(w, agreement_result(w.state.game, offerer), draw_offer=None)


class Draws:
    """Offers and their answers."""

    def __init__(self, endings: Endings) -> None:
        self.endings = endings

    def offer(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The seat offers a draw.  Against an AI the AI answers at once: it accepts only when its
        evaluation for its own side is at most :data:`AI_DRAW_THRESHOLD`, else declines (the answer
        is in the view's ``draw_answer``)."""
        answer: dict[str, str] = {}

        def body(w: Work, seat: int) -> None:
            why = draws_possible(w.state.game)
            if why is not None:
                raise ServiceError(422, why)
            row = w.row
            if row.draw_offer == seat:
                raise ServiceError(
                    409,
                    Text(
                        "refusal.draw_already_offered",
                        "you have already offered a draw: wait for your opponent's answer",
                    ),
                )
            if row.draw_offer is not None:  # two crossing offers are one agreement
                agree_draw(w, row.draw_offer)
                return
            check_may_ask(w.tx, row.id, seat, DRAW, len(w.moves))
            other = 1 - seat
            if row.seats[other].kind == "ai":
                if w.state.evaluate(other) <= AI_DRAW_THRESHOLD:
                    agree_draw(w, seat)
                    answer["draw_answer"] = "accepted"
                else:
                    answer["draw_answer"] = f"{row.seats[other].name} declines the draw"
                    raise Unchanged
            else:
                row.draw_offer = seat
                tables.update_game(w.tx, game_id, draw_offer=seat)

        endings = self.endings
        try:
            view = endings.guarded(game_id, token, "the game is over: a draw can no longer be offered", body)
        except Unchanged:
            with endings.games.locked(game_id):
                live = endings.games.live(game_id, check=False)
                view = endings.views.view(live, seat_of(live.row, token))
        view.update(answer)
        return view

    def answer(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """The offerer's opponent accepts (the game ends drawn, ``reason`` "agreement") or declines."""

        def body(w: Work, seat: int) -> None:
            offer = w.row.draw_offer
            if offer is None:
                raise ServiceError(
                    409,
                    Text(
                        "refusal.draw_no_offer", "nobody has offered a draw (an offer lapses when its opponent moves)"
                    ),
                )
            if offer == seat:
                raise ServiceError(409, Text("refusal.draw_own_offer", "you cannot answer your own draw offer"))
            if accept:
                agree_draw(w, offer)
            else:
                w.row.draw_offer = None
                tables.update_game(w.tx, game_id, draw_offer=None)
                declined(w.tx, game_id, offer, DRAW, len(w.moves))

        return self.endings.guarded(game_id, token, "the game is over: there is no draw offer to answer", body)
