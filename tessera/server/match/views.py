"""What each person sees of a game: built from the game in memory, never writing to storage.

A view is filtered per seat (a Nelaxtam player's sealed order reaches only him, spectators see
resolved turns only: :func:`tessera.server.match.knowledge.render_for`).  The part of a render
every viewer sees alike is rendered once per (game, version) and each seat's own part added to it
(the game says which fields are the seat's: :attr:`tessera.core.game.State.render_seat_fields`);
render descriptions are kept for a few (game, version, seat): a move's answer and its pushes share one.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from itertools import islice
from typing import Any

from tessera.core.game import SIMULTANEOUS, TERMINAL
from tessera.core.registry import game_class
from tessera.server.events import Presence
from tessera.server.http.encoding import dumps, loads
from tessera.server.http.errors import ServiceError
from tessera.server.match import tables
from tessera.server.match.changes import Op, Shared, diff_views
from tessera.server.match.clocks import clock_public, clock_settings, flagged
from tessera.server.match.knowledge import (
    abortable,
    draws_possible,
    replay_moves,
    seat_render,
    shared_render,
    spectator_render,
)
from tessera.server.match.live import Games, Live, seat_of, undo_waiting

RENDER_CACHE = 64
"""How many render descriptions (game, version, seat) are kept, and as many shared parts (game,
version): a move's answer and its pushes share one.
Few: a render is about 540 objects the garbage collector tracks, and renders kept long enough to
reach its oldest generation made it walk them all about once a second (pauses of 300-570 ms
under load with 512 kept); a view asked for later is rendered again (0.15 ms)."""

LAST_VIEWS = 1024
"""How many encoded views (game, seat) are kept as the base of a move's change (JSON bytes: not
objects the garbage collector walks; 10-25 KB each on default boards, so 10-25 MB, up to 120 MB on
Nume's largest boards); a base no longer kept is built again from the position before the move."""

RECENT_VIEWS = 128
"""How many built views (game, seat, version) are kept as objects for the next change's diff (a
view's render is the render cache's object, so they cost little more; few for the same reason as
:data:`RENDER_CACHE`); older bases are decoded from their JSON (:data:`LAST_VIEWS`).  By version:
a seat's view of the version before a move is still there when its change is computed, after its
new view was built (the hub builds every viewer's new view first)."""

DIFFS_KEPT = 32
"""For how many games (the last changed) the change of the render's shared part is kept
(:meth:`Views.diff`): it serves the viewers of one move, all diffed right after it (the move's
answer, then the pushes), so few; what it keeps (two versions' render objects a game) is walked
by the garbage collector like :data:`RENDER_CACHE`'s renders."""

ALWAYS_SENT = ("seats", "clock")
"""Fields a move's answer sets whole in its change: they also change between versions (presence,
the clock's seconds left now), so the viewer's copy may differ from the base the change is computed on."""


class Views:
    """Views, acknowledgements, replay positions and the lobby list."""

    def __init__(self, games: Games, presence: Presence) -> None:
        self.games = games
        self.presence = presence
        self._renders: OrderedDict[tuple[str, int, int | None], dict[str, Any]] = OrderedDict()
        self._shared: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._last: OrderedDict[tuple[str, int | None], tuple[int, bytes]] = OrderedDict()
        self._recent: OrderedDict[tuple[str, int | None, int], tuple[bytes, dict[str, Any]]] = OrderedDict()
        self._changes: OrderedDict[tuple[str, int | None], tuple[bytes, bytes, list[Any]]] = OrderedDict()
        self._diffs: OrderedDict[str, Shared] = OrderedDict()

    def render(self, live: Live, seat: int | None) -> dict[str, Any]:
        """The render description ``seat`` sees (cached for this version): the part every viewer
        sees alike, rendered once per version (:func:`~tessera.server.match.knowledge.shared_render`),
        with the seat's own part over it (:func:`~tessera.server.match.knowledge.seat_render`)."""
        key = (live.row.id, live.row.version, seat)
        with self.games.guard:
            cached = self._renders.get(key)
            shared = self._shared.get(key[:2])
        if cached is not None:
            return cached
        row = live.row
        if shared is None:
            shared = shared_render(live.state, live.sealed, row.status, row.result)
            with self.games.guard:
                self._shared[key[:2]] = shared
                while len(self._shared) > RENDER_CACHE:
                    self._shared.popitem(last=False)
        render = {**shared, **seat_render(live.state, seat, live.sealed, row.status)}
        with self.games.guard:
            self._renders[key] = render
            while len(self._renders) > RENDER_CACHE:
                self._renders.popitem(last=False)
        return render

    def view(self, live: Live, seat: int | None) -> dict[str, Any]:
        """The whole view of ``seat`` (None: a spectator)."""
        row, state, sealed = live.row, live.state, live.sealed
        cp = state.current_player()
        render = self.render(live, seat)
        # the game's knowledge read together, right after the render that reads it too (knowledge.py)
        draws = draws_possible(state.game) is None
        may_abort = abortable(row.status, len(row.seats), islice(live.moves, live.n_moves))
        presence = self.presence.of(row.id)
        seats = []  # a plain loop, as the rest of the view is built: no call on the way (docs/architecture.md)
        for s in row.seats:
            connected = s.kind == "ai" or (s.seat < len(presence) and presence[s.seat])
            seats.append(
                {
                    "seat": s.seat,
                    "name": s.name,
                    "kind": s.kind,
                    "level": s.level,
                    "claimed": s.claimed,
                    "connected": connected,
                }
            )
        return {
            "id": row.id,
            "game": row.game,
            "title": render.get("title", row.game),
            "spec": row.spec,
            "params": row.params,
            "seed": row.seed,
            "mode": row.mode,
            "status": row.status,
            "public": row.public,
            "you": seat,
            "seats": seats,
            "version": row.version,
            "move_number": state.move_number(),
            "to_move": cp if row.status == "active" else TERMINAL,
            "sealed": [p in sealed for p in range(len(row.seats))] if cp == SIMULTANEOUS else None,
            "moves": live.move_dicts[: live.n_moves],
            "result": row.result,
            "clock": None if row.clock is None else clock_public(row.clock, time.time()),
            "undo_request": row.undo_request,
            "undo_waiting": None if row.undo_request is None else undo_waiting(row, live.moves),
            "draw_offer": row.draw_offer if row.status == "active" else None,
            "draws": draws,
            "abortable": may_abort,
            "render": render,
        }

    def encoded(self, live: Live, seat: int | None, view: dict[str, Any] | None = None) -> bytes:
        """The view of ``seat`` as JSON bytes, kept as that seat's last view of the game (the base
        of its next change); ``view``: the view already built for ``live`` (else it is built, or
        the one kept for this version is reused)."""
        return self.encoded_view(live, seat, view)[0]

    def encoded_view(
        self, live: Live, seat: int | None, view: dict[str, Any] | None = None
    ) -> tuple[bytes, dict[str, Any] | None]:
        """:meth:`encoded`, with the view itself when it was built here (None: the kept JSON was reused)."""
        key = (live.row.id, seat)
        version = live.row.version
        if view is None:
            with self.games.guard:
                kept = self._last.get(key)
            if kept is not None and kept[0] == version:
                return kept[1], self.decoded(live.row.id, seat, version, kept[1])
            view = self.view(live, seat)
        text = dumps(view)
        with self.games.guard:
            self._last[key] = (version, text)
            self._last.move_to_end(key)
            while len(self._last) > LAST_VIEWS:
                self._last.popitem(last=False)
            self._recent[(*key, version)] = (text, view)
            self._recent.move_to_end((*key, version))
            while len(self._recent) > RECENT_VIEWS:
                self._recent.popitem(last=False)
        return text, view

    def known_change(self, game_id: str, seat: int | None, base: bytes, new: bytes) -> list[Any] | None:
        """The change from the view JSON ``base`` to ``new`` of ``seat`` if :meth:`change` computed
        it for a move's answer (the same objects), else None."""
        with self.games.guard:
            kept = self._changes.get((game_id, seat))
        if kept is not None and kept[0] is base and kept[1] is new:
            return kept[2]
        return None

    def decoded(self, game_id: str, seat: int | None, version: int, text: bytes) -> dict[str, Any] | None:
        """The view whose JSON is ``text`` (kept by :meth:`encoded_view` for ``seat`` at ``version``)
        as the object it was encoded from, if it is still kept (None: decode ``text``).  Never changed."""
        with self.games.guard:
            kept = self._recent.get((game_id, seat, version))
        if kept is not None and kept[0] is text:
            return kept[1]
        return None

    def last(self, game_id: str, seat: int | None, version: int) -> bytes | None:
        """The view of ``seat`` at ``version`` as kept by :meth:`encoded` (None: not kept)."""
        with self.games.guard:
            kept = self._last.get((game_id, seat))
        return kept[1] if kept is not None and kept[0] == version else None

    def diff(self, game_id: str, before: dict[str, Any], after: dict[str, Any]) -> list[Op]:
        """The change from the view ``before`` to ``after`` (of one viewer of ``game_id``:
        :func:`tessera.server.match.changes.diff`), the operations of the render's fields both
        views share with another viewer's computed once for all of them
        (:func:`~tessera.server.match.changes.diff_views`; kept for the :data:`DIFFS_KEPT` games
        changed last)."""
        with self.games.guard:
            shared = self._diffs.get(game_id)
            if shared is None:
                shared = self._diffs[game_id] = {}
                while len(self._diffs) > DIFFS_KEPT:
                    self._diffs.popitem(last=False)
            else:
                self._diffs.move_to_end(game_id)
        return diff_views(before, after, shared)

    def change(self, old: Live, new: Live, seat: int | None) -> dict[str, Any]:
        """The change from ``seat``'s view of ``old`` to its view of ``new`` (the same game):
        ``{"from": old version, "version": new version, "ops": [...]}`` (tessera.server.match.changes;
        the fields of :data:`ALWAYS_SENT` are set whole).  Both views are that seat's own, so the
        change shows nothing the new view does not."""
        base = self.last(old.row.id, seat, old.row.version)
        if base is not None:
            before = self.decoded(old.row.id, seat, old.row.version, base) or loads(base)
        else:
            before = self.view(old, seat)
        after = self.view(new, seat)
        text = self.encoded(new, seat, after)
        exact = self.diff(old.row.id, before, after)
        if base is not None:  # the same change for this seat's sockets (their base is that JSON)
            with self.games.guard:
                self._changes[(old.row.id, seat)] = (base, text, exact)
                self._changes.move_to_end((old.row.id, seat))
                while len(self._changes) > RECENT_VIEWS:
                    self._changes.popitem(last=False)
        ops = [op for op in exact if not op[0] or op[0][0] not in ALWAYS_SENT]
        ops += [[[k], after[k]] for k in ALWAYS_SENT if k in after]
        return {"from": old.row.version, "version": new.row.version, "ops": ops}

    def from_memory(self, game_id: str, token: str | None) -> dict[str, Any] | None:
        """The view of ``token`` straight from memory, without any lock (for the event loop, right
        after this process's own change); None when that is not enough (the game is not in memory,
        or the look would claim a seat or store a flag: ``MatchService.view`` in a thread)."""
        live = self.games.cached(game_id)
        if live is None:
            return None
        seat = seat_of(live.row, token, required=False)
        if (seat is not None and not live.row.seats[seat].claimed) or (
            live.row.clock is not None and flagged(live.row, time.time())  # an untimed game: no flag to look for
        ):
            return None
        return self.view(live, seat)

    def encoded_from_memory(self, game_id: str, token: str | None) -> tuple[int, bytes, dict[str, Any] | None] | None:
        """:meth:`from_memory` as (version, JSON of the view, the view or None), reusing the JSON
        kept for this version (:meth:`encoded_view`: a move's answer with its change encodes the mover's)."""
        live = self.games.cached(game_id)
        if live is None:
            return None
        seat = seat_of(live.row, token, required=False)
        if (seat is not None and not live.row.seats[seat].claimed) or (
            live.row.clock is not None and flagged(live.row, time.time())  # an untimed game: no flag to look for
        ):
            return None
        return (live.row.version, *self.encoded_view(live, seat))

    def ack(self, live: Live, seat: int) -> dict[str, Any]:
        """The acknowledgement of a stored move (or sealed order): the game's new version, move
        number, who is to move, status and result, and the last stored move.  The fields are those
        of the view (:meth:`view`) without its position and history: a client that follows the
        game by its WebSocket (the web client) gets the new view there, rendered once for it."""
        row, state, sealed = live.row, live.state, live.sealed
        cp = state.current_player()
        return {
            "id": row.id,
            "you": seat,
            "version": row.version,
            "move_number": state.move_number(),
            "to_move": cp if row.status == "active" else TERMINAL,
            "sealed": [p in sealed for p in range(len(row.seats))] if cp == SIMULTANEOUS else None,
            "status": row.status,
            "result": row.result,
            "last_move": live.move_dicts[live.n_moves - 1] if live.n_moves else None,
        }

    def position(self, game_id: str, n: int) -> dict[str, Any]:
        """The spectator's picture after the first ``n`` moves (the replay browser)."""
        row, moves = self.games.stored(game_id)
        if not 0 <= n <= len(moves):
            raise ServiceError(422, f"move number {n} is out of range: the game has {len(moves)} moves")
        render = spectator_render(replay_moves(self.games.game(row.spec), row.seed, moves[:n]))
        if n == len(moves) and row.result is not None:
            render["result"] = row.result
            render["status"] = row.result["text"]
            render["status_key"], render["status_args"] = row.result.get("key"), row.result.get("args", {})
        return render

    def lobby(
        self,
        status: str | None = "open",
        *,
        limit: int = 50,
        offset: int = 0,
        per_creator: int = 0,
        player: str | None = None,
    ) -> list[dict[str, Any]]:
        """The lobby: open online games (a seat free; selected as open in the query, ``limit`` from
        ``offset``, at most ``per_creator`` (0: any number) of one creator's games; for a signed-in
        ``player`` (a user id) the nearest ratings first, else newest first:
        :func:`tessera.server.match.creators.open_games`), or recent public games by status."""
        from tessera.server.match import creators

        with self.games.storage.transaction() as tx:
            if status == "open":
                ids = creators.open_games(tx, limit=limit, offset=offset, per_creator=per_creator, player=player)
                rows = [r for r in (tables.get_game(tx, gid) for gid in ids) if r is not None]
            else:
                rows = tables.list_games(tx, status=status, limit=limit)
        out = []
        for r in rows:
            free = [s.seat for s in r.seats if s.kind == "human" and not s.claimed]
            if status == "open" and (r.status != "active" or not free):
                continue
            out.append(
                {
                    "id": r.id,
                    "game": r.game,
                    "spec": r.spec,
                    "title": game_class(r.game).info.title,
                    "mode": r.mode,
                    "status": r.status,
                    "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "claimed": s.claimed} for s in r.seats],
                    "open_seats": free,
                    "result": r.result,
                    "clock": clock_settings(r.clock),
                    "created_at": r.created_at,
                }
            )
        return out
