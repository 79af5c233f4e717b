"""The match service: the one door through which every change to a game goes.

A thin facade over the match layer's modules, with the names the web layer, the AI worker
and the tests call:

=====================  =====================================================================
:mod:`.live`           the match model: games in memory, their locks, how a change is written
:mod:`.moves`          the move pipeline (prepare → commit → publish)
:mod:`.views`          per-seat views, acknowledgements, replay positions, the lobby
:mod:`.seats`          new games, joining, a seat holder's arrival
:mod:`.endings`        flags, resignations, the guard of the seats' other actions
:mod:`.undo`           taking back moves
:mod:`.draws`          draw offers
:mod:`.records`        records in and out, continuing from a position, analysis sources
:mod:`.ai_seats`       what the AI worker reads
:mod:`.clocks`         clock arithmetic and timers
:mod:`.knowledge`      what the server knows of games beyond the protocol (one module)
:mod:`.events`         the one event interface (the service publishes, the hub subscribes)
=====================  =====================================================================

The service knows no HTTP: it raises :class:`ServiceError` with the status code and the
reason, which the web layer turns into ``{"detail": ...}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tessera.server.ai.seats import ai_jobs, random_move
from tessera.server.events import Events, Presence
from tessera.server.http.errors import ServiceError
from tessera.server.match.clocks import first_move_limit
from tessera.server.match.draws import AI_DRAW_THRESHOLD, Draws
from tessera.server.match.endings import Endings
from tessera.server.match.inputs import MODES, check_seed, clean_name, load_checked
from tessera.server.match.knowledge import ParsedRecord, draws_possible, parse_record, replay_moves
from tessera.server.match.live import Games
from tessera.server.match.moves import MovePipeline
from tessera.server.match.records import Records
from tessera.server.match.seats import Created, Seats, Within
from tessera.server.match.undo import Undo
from tessera.server.match.views import Views
from tessera.server.store.storage import Storage

__all__ = [
    "AI_DRAW_THRESHOLD",
    "MODES",
    "Created",
    "MatchService",
    "ParsedRecord",
    "ServiceError",
    "Within",
    "check_seed",
    "clean_name",
    "draws_possible",
    "first_move_limit",
    "load_checked",
    "replay_moves",
]


class MatchService:
    """Creates games, checks and stores moves, hands out per-seat views (see the module's text).

    ``events`` receives a :class:`tessera.server.events.Changed` after every stored change;
    ``presence`` says which seats have a live connection (the hub keeps it).
    """

    def __init__(self, storage: Storage, events: Events | None = None, presence: Presence | None = None) -> None:
        self.storage = storage
        self.events = events if events is not None else Events()
        self.presence = presence if presence is not None else Presence()
        self.games = Games(storage)
        self.views = Views(self.games, self.presence)
        self.endings = Endings(self.games, self.views, self.events)
        self.seats = Seats(self.games, self.endings, self.events)
        self.moves = MovePipeline(self.games, self.views, self.endings, self.events)
        self.records = Records(self.games, self.seats, self.events)
        self._undo = Undo(self.endings)
        self._draws = Draws(self.endings)

    # -- games and seats -------------------------------------------------------------------
    def create(
        self,
        game: str,
        params: dict[str, Any] | None = None,
        *,
        mode: str = "hotseat",
        seat: int = 0,
        ai_level: int = 2,
        clock: tuple[float, float] | dict[str, Any] | None = None,
        seed: int | None = None,
        names: list[str] | None = None,
        public: bool = True,
        seat_kinds: list[Any] | None = None,
        bound: bool = False,
        arrived: bool = False,
        within: Within | None = None,
        halved: Sequence[int] = (),
    ) -> Created:
        """A new game (:meth:`tessera.server.match.seats.Seats.create` says what each option means; ``within``:
        writes stored in the same transaction as the game; ``halved``: seats whose real-time clock
        starts with half its time, an arena's berserk)."""
        return self.seats.create(
            game,
            params,
            mode=mode,
            seat=seat,
            ai_level=ai_level,
            clock=clock,
            seed=seed,
            names=names,
            public=public,
            seat_kinds=seat_kinds,
            bound=bound,
            arrived=arrived,
            within=within,
            halved=halved,
        )

    def join(self, game_id: str) -> tuple[int, str]:
        """Take the open seat of a public online game: ``(seat, token)``."""
        return self.seats.join(game_id)

    # -- reading ---------------------------------------------------------------------------
    def view(self, game_id: str, token: str | None = None, *, trust_cache: bool = False) -> dict[str, Any]:
        """What the holder of ``token`` (None: a spectator) sees of the game, after his arrival is
        stored (:meth:`Seats.arrive`: an invite's seat claimed, a clock that ran out flagged).

        ``trust_cache``: skip the check of the stored version (right after this process's own
        change; a change by another process is announced separately).
        """
        live, seat = self.seats.arrive(game_id, token, check=not trust_cache)
        return self.views.view(live, seat)

    def cached_view(self, game_id: str, token: str | None) -> dict[str, Any] | None:
        """A view straight from memory (:meth:`tessera.server.match.views.Views.from_memory`)."""
        return self.views.from_memory(game_id, token)

    def needs(self, game_id: str) -> tuple[bool, bool]:
        """Whether the game has AI seats and whether it has a clock (both True when not in memory)."""
        live = self.games.cached(game_id)
        if live is None:
            return True, True
        return any(s.kind == "ai" for s in live.row.seats), live.row.clock is not None

    def version(self, game_id: str) -> int:
        """The game's stored version (``ServiceError`` 404 if there is no such game)."""
        return self.games.version(game_id)

    def position(self, game_id: str, n: int) -> dict[str, Any]:
        """The spectator's picture after the first ``n`` moves (the replay browser)."""
        return self.views.position(game_id, n)

    def list_games(self, status: str | None = "open", **page: Any) -> list[dict[str, Any]]:
        """The lobby: open online games (a seat free), or recent public games by status
        (``limit``, ``offset``, ``per_creator``, ``player``: :meth:`tessera.server.match.views.Views.lobby`)."""
        return self.views.lobby(status, **page)

    # -- moves (the pipeline) ----------------------------------------------------------------
    def play(
        self, game_id: str, token: str | None, move: str, expected: int | None, *, view: bool = True
    ) -> dict[str, Any]:
        """Submit a move (or seal an order) from this thread: :class:`tessera.server.match.moves.MovePipeline`."""
        result: dict[str, Any] = self.moves.play(game_id, token, move, expected, view=view)
        return result

    async def play_async(
        self, game_id: str, token: str | None, move: str, expected: int | None, *, view: bool = True
    ) -> dict[str, Any]:
        """Submit a move on the event loop: the same pipeline, its slow steps awaited."""
        return await self.moves.submit(game_id, token, move, expected, view=view)

    # -- the seats' other actions ------------------------------------------------------------
    def resign(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat gives up (:meth:`tessera.server.match.endings.Endings.resign`)."""
        return self.endings.resign(game_id, token)

    def abort(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat aborts the game before every seat has moved (:meth:`.endings.Endings.abort`)."""
        return self.endings.abort(game_id, token)

    def undo(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Take back the seat's last move, or ask the others (:mod:`tessera.server.match.undo`)."""
        return self._undo.undo(game_id, token)

    def answer_undo(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """Accept or decline another player's undo request."""
        return self._undo.answer(game_id, token, accept)

    def offer_draw(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Offer a draw (:mod:`tessera.server.match.draws`)."""
        return self._draws.offer(game_id, token)

    def answer_draw(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """Accept or decline the opponent's draw offer."""
        return self._draws.answer(game_id, token, accept)

    # -- clocks and AI seats -----------------------------------------------------------------
    def check_clock(self, game_id: str) -> float | None:
        """End the game on a flag; seconds until the next possible flag (None: no clock running)."""
        return self.endings.check_clock(game_id)

    def ai_jobs(self, game_id: str) -> list[dict[str, Any]]:
        """The AI seats that must act now (:func:`tessera.server.ai.seats.ai_jobs`)."""
        return ai_jobs(self.games, game_id)

    def random_move(self, game_id: str, player: int, seed: int) -> str:
        """A random legal move of ``player`` now (the AI's fallback)."""
        return random_move(self.games, game_id, player, seed)

    # -- records and analysis ----------------------------------------------------------------
    def record(self, game_id: str) -> dict[str, Any]:
        """The JSON record of a game (docs/records.md)."""
        return self.records.record(game_id)

    def text(self, game_id: str) -> str:
        """The plain-text move list of a game (docs/records.md)."""
        return self.records.text(game_id)

    def parse_record(self, record: dict[str, Any] | str) -> ParsedRecord:
        """A record checked and replayed, nothing stored (422 says why)."""
        return parse_record(record)

    def import_record(self, record: dict[str, Any] | str) -> Created:
        """A new hot-seat game from a JSON or plain-text record."""
        return self.records.import_record(record)

    def continue_from(
        self, spec: str, seed: int, moves: list[tuple[int, str]], *, mode: str, seat: int = 0, ai_level: int = 2
    ) -> Created:
        """A new game (hot-seat or against the AI) from a position."""
        return self.records.continue_from(spec, seed, moves, mode=mode, seat=seat, ai_level=ai_level)

    def analysis_source(self, game_id: str, *, rated: bool) -> dict[str, Any]:
        """A game's public moves for the analysis board, unless it is in progress between people
        (:func:`tessera.server.match.records.engine_refusal`; ``rated``: whether the game is rated)."""
        return self.records.analysis_source(self.view(game_id), rated=rated)

    def analysis_record(self, record: dict[str, Any] | str) -> dict[str, Any]:
        """A record for the analysis board, straight from its text or JSON: no game is created."""
        return self.records.analysis_record(record)
