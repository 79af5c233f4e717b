"""Games waiting for you: the active games in which one of your seats must act now.

A seat waits when the game is active and the seat is to move; in a turn of simultaneous orders
(Nelaxtam) every seat that has not yet sealed its order waits — whether the others have is all
this tells, never what they ordered.  An account's games are those bound to it (across devices,
:mod:`tessera.server.accounts`); a guest's are the seats whose tokens the browser shows.
"""

from __future__ import annotations

import time
from typing import Any

from tessera.core.game import SIMULTANEOUS
from tessera.server.accounts.queries import account_seats
from tessera.server.http.errors import ServiceError
from tessera.server.match.clocks import clock_public
from tessera.server.match.knowledge import movers
from tessera.server.match.live import Live
from tessera.server.match.queries import active_seats, active_token_seats
from tessera.server.match.service import MatchService

MAX_TOKENS = 500
"""Seat tokens one request may show (as many as a guest's claim into an account)."""

MAX_GAMES = 200
"""Games looked at per request (the most recently changed first)."""


def waiting_seats(live: Live) -> set[int]:
    """The seats of ``live`` that must act now (none unless the game is active)."""
    if live.row.status != "active":
        return set()
    seats = set(movers(live.state))
    if live.state.current_player() == SIMULTANEOUS:
        seats -= set(live.sealed)
    return {s for s in seats if s < len(live.row.seats) and live.row.seats[s].kind != "ai"}


def check_tokens(tokens: Any) -> list[str]:
    """The seat tokens of a request body (422 unless a list of at most :data:`MAX_TOKENS` strings)."""
    if tokens is None:
        return []
    if not isinstance(tokens, list) or len(tokens) > MAX_TOKENS or not all(isinstance(t, str) for t in tokens):
        raise ServiceError(
            422,
            f"tokens: a list of at most {MAX_TOKENS} seat tokens",
            key="refusal.notify.tokens_list",
            args={"n": MAX_TOKENS},
        )
    return sorted({t for t in tokens if 0 < len(t) <= 200})


def seats_of(service: MatchService, *, user_id: str | None, tokens: list[str]) -> dict[str, set[int]]:
    """The seats of active games held by the account ``user_id`` and by the seat ``tokens``."""
    found: dict[str, set[int]] = {}
    with service.storage.transaction() as tx:
        held = active_seats(tx, account_seats(user_id), MAX_GAMES) if user_id is not None else []
        for game_id, seat in held + active_token_seats(tx, tokens):
            found.setdefault(game_id, set()).add(seat)
    return found


def entry(service: MatchService, live: Live, seats: list[int]) -> dict[str, Any]:
    """One game of the list: what it is, which of your seats waits, who plays, since when."""
    row = live.row
    title = service.views.render(live, None).get("title", row.game)
    return {
        "id": row.id,
        "game": row.game,
        "title": title,
        "spec": row.spec,
        "seats": seats,
        "players": [{"seat": s.seat, "name": s.name, "kind": s.kind} for s in row.seats],
        "move_number": live.state.move_number(),
        "since": row.updated_at,
        "clock": clock_public(row.clock, time.time()),
        "url": f"/g/{row.id}",
    }


def waiting_games(service: MatchService, *, user_id: str | None, tokens: list[str]) -> list[dict[str, Any]]:
    """The games waiting for the account ``user_id`` and the holder of ``tokens``, longest waiting first."""
    out = []
    for game_id, mine in sorted(seats_of(service, user_id=user_id, tokens=tokens).items())[:MAX_GAMES]:
        try:
            live = service.games.reload(game_id)
        except ServiceError:
            continue
        seats = sorted(waiting_seats(live) & mine)
        if seats:
            out.append(entry(service, live, seats))
    out.sort(key=lambda e: (e["since"], e["id"]))
    return out
