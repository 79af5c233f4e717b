"""New games and their seats: create, join from the lobby, and a seat holder's arrival.

A seat is held by its token.  A seat taken by invite link is claimed when its holder first
arrives (opens the game with the token); a clock starts once every seat is taken.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tessera.server.ai.levels import ALL_LEVELS, check_ai_level
from tessera.server.events import Events
from tessera.server.http.errors import ServiceError, short
from tessera.server.match import tables
from tessera.server.match.clocks import clock_from, clock_start, flagged
from tessera.server.match.endings import Endings
from tessera.server.match.inputs import MODES, check_seed, clean_name, new_game_id, new_token, seat_plan
from tessera.server.match.knowledge import movers
from tessera.server.match.live import Games, Live, Unchanged, Work, copy_row, seat_of
from tessera.server.match.tables import GameRow, SeatRow
from tessera.server.store.storage import Transaction

Within = Callable[[Transaction, "Created"], None]
"""Writes that belong to a new game's creation (the accounts bound to its seats, the challenge or
seeks it settles): run in the transaction that stores the game, so that a crash leaves both or
neither.  Raising in it stores nothing."""


@dataclass
class Created:
    """A new game and the tokens handed to its creator."""

    game_id: str
    tokens: dict[int, str]
    invites: dict[int, str]


def maybe_start_clock(w: Work) -> None:
    """Start the clock once every seat is taken (if it has not started)."""
    row = w.row
    if row.clock is None or not all(s.claimed for s in row.seats):
        return
    if any(v is not None for v in row.clock["since"]):
        return
    clock_start(row.clock, [p for p in movers(w.state) if p not in w.sealed], time.time())
    tables.update_game(w.tx, row.id, clock=row.clock)


class Seats:
    """Creating games, joining them, arriving at a seat."""

    def __init__(self, games: Games, endings: Endings, events: Events) -> None:
        self.games = games
        self.endings = endings
        self.events = events

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
        """A new game; the creator gets the tokens of the seats he plays here.

        ``mode`` is ``hotseat`` (every seat at this screen), ``ai`` (the creator's ``seat``
        against the AI at ``ai_level``) or ``online`` (the creator's ``seat``, the others by
        invite).  ``seat_kinds`` chooses every seat at once (any number of players, any mix):
        ``{"kind": "here"}`` a human at this screen (hot-seat: his token goes to
        the creator), ``{"kind": "invite"}`` a human invited by link (an invite
        token per seat), ``{"kind": "ai", "level": 3}`` the computer; each may
        carry a ``"name"``.  ``mode`` then follows from the mix: ``online`` with
        an invitee, else ``ai`` with an AI seat, else ``hotseat``.

        ``bound``: every seat already belongs to someone (a challenge accepted, a pairing, a
        rematch): the first-move countdown of a two-player clock runs from now for each seat in
        turn, whether or not its holder ever opens the game (a first mover who never comes is
        aborted, as lichess does); otherwise clocks start once every seat is taken.
        ``arrived``: the invited seats are taken at once (their holders are known, as two paired
        seekers are; the clock starts).  ``within``: writes stored in the same transaction as the
        game (:data:`Within`); the game is announced only after that transaction commits.
        ``halved``: the seats whose real-time clock starts with half its time (an arena's berserk,
        tessera.server.match.handicap); 422 with a correspondence clock or none.
        """
        kinds: list[tuple[str, int | None, str]] = []
        if seat_kinds is not None:
            mode, kinds = seat_plan(seat_kinds)
        if mode not in MODES:
            raise ServiceError(
                422, f"mode {short(str(mode), 40)!r} is not accepted: expected one of {', '.join(MODES)}"
            )
        g = self.games.requested(game, params)
        n = g.num_players
        if seat_kinds is not None and len(kinds) != n:
            raise ServiceError(422, f"seats: {g} has {n} seats, but {len(kinds)} were given")
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise ServiceError(422, f"seat {seat!r} is not accepted: expected 0 to {n - 1}")
        if mode == "ai" and seat_kinds is None:  # the level of the AI seats: one this game offers (5 or 6 on top)
            check_ai_level(ai_level, g.name, n)
        elif isinstance(ai_level, bool) or not isinstance(ai_level, int) or not 1 <= ai_level <= ALL_LEVELS[-1]:
            raise ServiceError(422, f"ai_level {ai_level!r} is not accepted: expected 1 to {ALL_LEVELS[-1]}")
        for i, (k, lv, _) in enumerate(kinds):
            if k == "ai":
                check_ai_level(lv, g.name, n, field=f"seats[{i}].level")
        try:
            new_clock = clock_from(clock, n)  # (initial, increment), or {"days": n} per move
        except ValueError as e:
            raise ServiceError(422, str(e)) from None
        if halved:
            if new_clock is None or "remaining" not in new_clock or any(not 0 <= i < n for i in halved):
                raise ServiceError(422, "halved: seats of a game with a real-time clock")
            for i in set(halved):
                new_clock["remaining"][i] = new_clock["remaining"][i] / 2.0
        seed = secrets.randbelow(2**31) if seed is None else check_seed(seed)
        default_names = list(g.player_names)
        seats: list[SeatRow] = []
        for i in range(n):
            kind = "ai" if mode == "ai" and i != seat else "human"
            claimed = kind == "ai" or mode == "hotseat" or i == seat
            level: int | None = ai_level
            if seat_kinds is not None:
                kind = "ai" if kinds[i][0] == "ai" else "human"
                claimed = kinds[i][0] != "invite" or arrived
                level = kinds[i][1]
            given = clean_name(names[i]) if names and i < len(names) and names[i] else None
            if seat_kinds is not None and kinds[i][2]:
                given = given or clean_name(kinds[i][2])
            name = given or (f"AI level {level}" if kind == "ai" else default_names[i])
            seats.append(SeatRow(i, new_token(), name[:80], kind, level if kind == "ai" else None, claimed))
        now = time.time()
        row = GameRow(
            id=new_game_id(),
            game=g.name,
            spec=str(g),
            params=dict(g.params),
            seed=seed,
            mode=mode,
            status="active",
            public=bool(public),
            result=None,
            clock=new_clock,
            undo_request=None,
            version=0,
            created_at=now,
            updated_at=now,
            seats=seats,
        )
        state = g.new_initial_state(seed=seed)
        if row.clock is not None and bound and "moved" in row.clock:
            row.clock["from_creation"] = True  # first moves are counted down whether seats are claimed or not
        if row.clock is not None and (all(s.claimed for s in seats) or row.clock.get("from_creation")):
            clock_start(row.clock, movers(state), now)
        if mode == "hotseat":
            tokens = {s.seat: s.token for s in seats}
        elif seat_kinds is not None:  # every seat played at this screen
            tokens = {s.seat: s.token for s in seats if s.kind == "human" and kinds[s.seat][0] != "invite"}
        else:
            tokens = {seat: seats[seat].token}
        invited = {s.seat for s in seats if s.kind == "human" and not s.claimed}
        if seat_kinds is not None:
            invited = {i for i in range(n) if kinds[i][0] == "invite"}
        created = Created(row.id, tokens, {i: seats[i].token for i in sorted(invited)})
        with self.games.storage.transaction(write=True) as tx:
            tables.insert_game(tx, row)
            if within is not None:
                within(tx, created)
            tx.changed(row.id)
        self.games.install(Live(copy_row(row), state, [], {}))
        self.events.publish(self.games.changed(row.id))
        return created

    def join(self, game_id: str) -> tuple[int, str]:
        """Take the open seat of an online game (from the lobby); its token."""
        with self.games.write(game_id) as w:
            row = w.row
            if not row.public:
                raise ServiceError(
                    403, "this game is private: only its invite link can take the seat (ask the player who made it)"
                )
            if row.status != "active":
                raise ServiceError(409, "the game is over")
            free = [s for s in row.seats if s.kind == "human" and not s.claimed]
            if not free:
                raise ServiceError(409, "every seat of this game is taken; you can watch it")
            s = free[0]
            tables.claim_seat(w.tx, row.id, s.seat)
            s.claimed = True
            maybe_start_clock(w)
        self.events.publish(self.games.changed(game_id))
        return s.seat, s.token

    def arrive(self, game_id: str, token: str | None, *, check: bool = True) -> tuple[Live, int | None]:
        """Someone opens the game (with a seat's token, or none: a spectator): the game (checked
        against the stored version when ``check``) and his seat.  The only writes a look at a game
        can cause are done here, before any view is built: his seat is claimed if he holds an
        invite, and a clock that ran out is stored."""
        with self.games.locked(game_id):
            live = self.games.live(game_id, check=check)
            seat = seat_of(live.row, token, required=False)
            claim = seat is not None and not live.row.seats[seat].claimed
            due = flagged(live.row, time.time())
        if not (claim or due):
            return live, seat
        try:
            with self.games.write(game_id) as w:
                changed = flagged(w.row, time.time())
                self.endings.enforce_clock(w, time.time())
                if seat is not None and not w.row.seats[seat].claimed:
                    tables.claim_seat(w.tx, game_id, seat)
                    w.row.seats[seat].claimed = True
                    maybe_start_clock(w)
                    changed = True
                if not changed:
                    raise Unchanged
        except Unchanged:
            pass
        else:
            self.events.publish(self.games.changed(game_id))
        return self.games.current(game_id), seat
