"""Game records in and out (docs/records.md), games continued from a position, and what the
analysis board may read of a game.

Records read the database, never the cache; the record formats themselves (JSON and text,
reading and writing) are game knowledge: :mod:`tessera.server.match.knowledge`.
"""

from __future__ import annotations

import time
from typing import Any

from tessera.core.game import IllegalMove
from tessera.server.events import Events
from tessera.server.http.errors import ServiceError, short
from tessera.server.match import tables
from tessera.server.match.clocks import clock_new, clock_start, correspondence_new, is_correspondence
from tessera.server.match.inputs import check_seed, load_or_refuse
from tessera.server.match.knowledge import movers, parse_record, record_dict, replay_moves, text_record
from tessera.server.match.live import Games
from tessera.server.match.results import rules_result
from tessera.server.match.seats import Created, Seats
from tessera.server.match.tables import MoveRow

LIVE = ("open", "active")
"""The statuses of a game in progress (waiting for its players, or being played)."""


def engine_refusal(view: dict[str, Any], *, rated: bool) -> ServiceError | None:
    """Why the analysis board may not take a game now (None: it may).

    **No engine for a game in progress**: while a game is open or being played, its analysis
    source is refused to everyone — its players, spectators, a logged-out tab — so that nobody
    can hand a player the engine's move.  Excepted are the games with no human opponent to
    cheat: a hot-seat game (every seat at one screen) and an unrated game of one person
    against AI seats alone.  ``view`` is any view of the game; ``rated``: whether it is rated.
    """
    if view["status"] not in LIVE or view["mode"] == "hotseat":
        return None
    people = sum(1 for s in view["seats"] if s["kind"] != "ai")
    if people <= 1 and not rated:
        return None
    return ServiceError(
        403,
        "no analysis of a game in progress: it opens when the game is over",
        key="refusal.analysis.live_game",
    )


class Records:
    """Records of stored games, imports, continuations, and the analysis board's sources."""

    def __init__(self, games: Games, seats: Seats, events: Events) -> None:
        self.games = games
        self.seats = seats
        self.events = events

    def record(self, game_id: str) -> dict[str, Any]:
        """The JSON record of a game (docs/records.md); sealed orders are never in it."""
        row, moves = self.games.stored(game_id)
        return record_dict(row, moves, self.games.game(row.spec))

    def text(self, game_id: str) -> str:
        """The plain-text move list of a game (docs/records.md)."""
        row, moves = self.games.stored(game_id)
        return text_record(row, moves)

    def _fill(
        self, created: Created, played: list[tuple[int, str]], state: Any, *, imported: bool, result: Any = None
    ) -> None:
        """Store the moves of a new game made from a record (``imported``: its result and clock too)
        or from a position."""
        with self.games.write(created.game_id) as w:
            row = w.row
            for i, (p, mv) in enumerate(played):
                tables.insert_move(w.tx, row.id, i, p, mv)
            w.moves = [MoveRow(i, p, mv) for i, (p, mv) in enumerate(played)]
            w.state = state
            if imported:
                if state.is_terminal():
                    row.result, row.status = rules_result(state), "finished"
                elif result is not None:
                    row.result, row.status = result, "finished"
                if row.clock is not None:
                    n = state.game.num_players
                    if is_correspondence(row.clock):
                        row.clock = correspondence_new(row.clock["days"], n)
                    else:
                        row.clock = clock_new(row.clock["initial"], row.clock["increment"], n)
                    if row.status == "active":
                        clock_start(row.clock, movers(state), time.time())
                tables.update_game(w.tx, row.id, status=row.status, result=row.result, clock=row.clock)
            else:
                tables.update_game(w.tx, row.id, status=row.status)
        self.events.publish(self.games.changed(created.game_id))

    def import_record(self, record: dict[str, Any] | str) -> Created:
        """A new hot-seat game from a JSON record (dict) or a plain-text record (str)."""
        g, seed, state, played, names, result, clock = parse_record(record)
        created = self.seats.create(g.name, g.params, mode="hotseat", seed=seed, names=names, public=False, clock=clock)
        self._fill(created, played, state, imported=True, result=result)
        return created

    def continue_from(
        self, spec: str, seed: int, moves: list[tuple[int, str]], *, mode: str, seat: int = 0, ai_level: int = 2
    ) -> Created:
        """A new game (hot-seat or against the AI) from a position: ``moves`` played from ``seed``."""
        if mode not in ("hotseat", "ai"):
            raise ServiceError(422, f"mode {short(str(mode), 40)!r} is not accepted here: expected hotseat or ai")
        seed = check_seed(seed)
        g = load_or_refuse(spec)
        try:
            state = replay_moves(g, seed, [MoveRow(i, p, mv) for i, (p, mv) in enumerate(moves)])
        except IllegalMove as e:
            raise ServiceError(422, f"the position cannot be reached: {short(str(e), 500)}") from None
        if state.is_terminal():
            raise ServiceError(409, "the game is over in this position: there is nothing to continue")
        created = self.seats.create(g.name, g.params, mode=mode, seed=seed, public=False, seat=seat, ai_level=ai_level)
        self._fill(created, state.history(), state, imported=False)
        return created

    def analysis_source(self, view: dict[str, Any], *, rated: bool) -> dict[str, Any]:
        """A game's public moves for the analysis board (``view``: its spectator's view), unless
        the game goes on between people (:func:`engine_refusal`: 403 to everyone, whoever asks).

        The moves are the resolved ones (a sealed order never is).
        """
        refusal = engine_refusal(view, rated=rated)
        if refusal is not None:
            raise refusal
        return {
            "id": view["id"],
            "game": view["game"],
            "spec": view["spec"],
            "seed": view["seed"],
            "title": view["title"],
            "status": view["status"],
            "moves": [[m["player"], m["move"]] for m in view["moves"]],
            "result": view["result"],
        }

    @staticmethod
    def analysis_record(record: dict[str, Any] | str) -> dict[str, Any]:
        """A record for the analysis board, straight from its text or JSON: no game is created."""
        g, seed, state, played, _names, result, _clock = parse_record(record)
        if state.is_terminal():
            result = rules_result(state)
        return {
            "game": g.name,
            "spec": str(g),
            "seed": seed,
            "title": g.info.title,
            "moves": [[p, m] for p, m in played],
            "result": result,
        }
