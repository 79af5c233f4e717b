"""Games ended off the board: a clock that ran out (flag, or an abort without a first move), a
resignation, an abort; and the guard every seat action goes through (a clock that ran out is stored
first).

**Abort** (as lichess): until every seat has made a move, any seat may abort the game — it ends with
no winner, no result and no rating change (``reason: "abort"``).  A resignation in that time is an
abort too, in a game that a resignation ends (in four-player Nymbat the others play on instead).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tessera.core.game import GAME_OVER
from tessera.core.records import RESIGN
from tessera.core.texts import Text
from tessera.server.events import Events
from tessera.server.http.errors import ServiceError
from tessera.server.match import tables
from tessera.server.match.clocks import clock_first_left, clock_left, clock_stop, clock_stop_all, flagged, next_flag_in
from tessera.server.match.knowledge import abortable
from tessera.server.match.live import Games, Unchanged, Work, after_move, columns, seat_of
from tessera.server.match.results import abort_result, aborted_by_result, forfeit_result
from tessera.server.match.tables import MoveRow
from tessera.server.match.views import Views

NOT_ABORTABLE = Text(
    "refusal.not_abortable", "every player has moved: the game can no longer be aborted (resign instead)"
)
"""The refusal of an abort once every seat has made a move."""


class FlagFirst(Exception):
    """A clock ran out: the flag is stored (in its own transaction) before the request is refused."""


def finish(w: Work, result: dict[str, Any], **more: Any) -> None:
    """End the game with ``result``: clocks stopped, pending requests dropped, sealed orders forgotten."""
    row = w.row
    clock_stop_all(row.clock, time.time())
    row.result, row.status, row.undo_request = result, "finished", None
    tables.update_game(w.tx, row.id, status="finished", result=result, clock=row.clock, undo_request=None, **more)
    tables.delete_sealed(w.tx, row.id)
    w.sealed = {}


class Endings:
    """Flags, resignations, and the guard of the seats' other actions."""

    def __init__(self, games: Games, views: Views, events: Events) -> None:
        self.games = games
        self.views = views
        self.events = events

    def enforce_clock(self, w: Work, now: float) -> bool:
        """Store what a running clock that ran out means; True if that ended the game.

        In a game whose rules let the others play on (four-player Nymbat) the flagged
        player resigns and the game may go on (False, though the game changed).
        """
        row = w.row
        if not flagged(row, now):
            return False
        assert row.clock is not None
        late = [p for p in range(len(row.clock["remaining"])) if (clock_first_left(row.clock, p, now) or 1.0) <= 0]
        if late:  # lichess-style: a game without a first move in time is aborted, without a result
            finish(w, abort_result(w.state.game, late[0]))
            return True
        clock = row.clock
        out = [p for p in range(len(clock["remaining"])) if clock["since"][p] is not None]
        late_players = [p for p in out if clock_left(clock, p, now) <= 0]
        if w.state.resign_plays_on():
            return self._flag_and_play_on(w, late_players, now)
        loser = min(late_players, key=lambda p: clock_left(clock, p, now))
        for p in out:
            clock_stop(clock, p, now, turn_done=False)
        clock["remaining"] = [max(0.0, r) for r in clock["remaining"]]
        finish(w, forfeit_result(w.state.game, loser, "flag"))
        return True

    def _flag_and_play_on(self, w: Work, late: list[int], now: float) -> bool:
        """A player out of time in a game whose rules let the others play on: he resigns (stored as
        his ``resign``) and the game goes on; True only if that ended it (the last one left wins)."""
        row = w.row
        assert row.clock is not None
        new = w.state.clone()
        n = w.state.move_number()
        added: list[MoveRow] = []
        for p in late:
            new.resign(p)
            tables.insert_move(w.tx, row.id, n, p, RESIGN)
            added.append(MoveRow(n, p, RESIGN))
            n += 1
            if new.is_terminal():
                break
        after_move(row, new, late, now)
        for p in late:
            row.clock["remaining"][p] = 0.0
        tables.update_game(w.tx, row.id, **columns(row))
        w.moves = [*w.moves, *added]
        w.state = new
        return new.is_terminal()

    def flag(self, game_id: str) -> bool:
        """Store a flag (a running clock ran out) in its own transaction; True if that ended the game."""
        try:
            with self.games.write(game_id) as w:
                now = time.time()
                if not flagged(w.row, now):
                    raise Unchanged
                ended = self.enforce_clock(w, now)
        except Unchanged:
            return False
        self.events.publish(self.games.changed(game_id))
        return ended

    def check_clock(self, game_id: str) -> float | None:
        """End the game on a flag; return seconds until the next possible flag (None: no clock running)."""
        with self.games.locked(game_id):
            row = self.games.live(game_id, check=True).row
            now = time.time()
            due = flagged(row, now)
            wait = next_flag_in(row, now)
        if due:
            self.flag(game_id)
            return None
        return wait

    def resign(self, game_id: str, token: str | None, *, _flag_stored: bool = False) -> dict[str, Any]:
        """The token's seat gives up: the other player wins.

        In a game of more than two players whose rules let the others play on
        (four-player Nymbat: ``state.resign``), the resignation is stored as the
        seat's move ``resign``: his pieces leave the board, he passes from then
        on, and the game ends only when the rules end it (the last one left wins).
        """
        late = False
        seat: int | None = None
        try:
            with self.games.write(game_id) as w:
                seat = seat_of(w.row, token)
                assert seat is not None
                if flagged(w.row, time.time()):
                    late = True
                    raise Unchanged  # the flag is stored first, in its own transaction
                if w.row.status != "active":
                    raise ServiceError(409, GAME_OVER)
                if w.state.resign_plays_on():
                    self._resign_and_play_on(w, seat)
                elif abortable(w.row.status, len(w.row.seats), w.moves):  # as lichess: no result yet
                    finish(w, aborted_by_result(w.state.game, seat))
                else:
                    finish(w, forfeit_result(w.state.game, seat, "resign"))
        except Unchanged:
            pass
        if late:
            self.flag(game_id)
            still = self.games.current(game_id).row.status == "active"
            if still and not _flag_stored:  # another player's flag: the game goes on
                return self.resign(game_id, token, _flag_stored=True)
            raise ServiceError(409, GAME_OVER)
        self.events.publish(self.games.changed(game_id))
        with self.games.locked(game_id):
            return self.views.view(self.games.live(game_id, check=False), seat)

    def abort(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat aborts the game: allowed until every seat has made a move (409 after);
        the game ends with no winner, no result and no rating change."""

        def body(w: Work, seat: int) -> None:
            if not abortable(w.row.status, len(w.row.seats), w.moves):
                raise ServiceError(409, NOT_ABORTABLE)
            finish(w, aborted_by_result(w.state.game, seat))

        return self.guarded(game_id, token, GAME_OVER, body)

    def _resign_and_play_on(self, w: Work, seat: int) -> None:
        """Store the seat's ``resign`` as a move; clocks and result follow as after any move."""
        from tessera.core.game import IllegalMove

        new = w.state.clone()
        try:
            new.resign(seat)
        except IllegalMove as e:
            raise ServiceError(409, e.text) from None
        n = w.state.move_number()
        tables.insert_move(w.tx, w.row.id, n, seat, RESIGN)
        w.moves = [*w.moves, MoveRow(n, seat, RESIGN)]
        after_move(w.row, new, [seat], time.time())
        tables.update_game(w.tx, w.row.id, **columns(w.row))
        w.state = new

    def guarded(
        self, game_id: str, token: str | None, message: str, body: Callable[[Work, int], None]
    ) -> dict[str, Any]:
        """A seat's action (undo, draw offers and their answers): the token is checked first (a
        stranger learns nothing), then ``body(work, seat)`` changes the game in one write; a game that is over
        is refused with ``message``, and a clock that ran out is stored first (then refused).  The
        answer is the seat's view."""
        seat = seat_of(self.games.current(game_id).row, token)
        assert seat is not None
        for attempt in range(2):
            try:
                with self.games.write(game_id) as w:
                    if flagged(w.row, time.time()):
                        raise FlagFirst
                    if w.row.status != "active":
                        raise ServiceError(409, message)
                    body(w, seat)
                break
            except FlagFirst:
                if not self.flag(game_id) and attempt == 0:
                    continue  # another player's flag in a game that goes on without him
                raise ServiceError(409, message) from None
        self.events.publish(self.games.changed(game_id))
        with self.games.locked(game_id):
            return self.views.view(self.games.live(game_id, check=False), seat)
