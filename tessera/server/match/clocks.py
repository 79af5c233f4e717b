"""Game clocks: plain functions over the clock stored with a game (a JSON-able dict).

A clock holds each player's ``remaining`` seconds and, for a running clock, ``since`` (when
it started).  Two players: a player's clock first runs after his first turn; until then
``first_since`` holds when his first turn began, and a first move not made within
:func:`first_move_limit` aborts the game (lichess-style).  The timers that store a flag when
a clock runs out are :class:`ClockTimers` (run by the app on its event loop).

A **correspondence** clock (``"kind": "correspondence"``, ``"days"`` per move, one of
:data:`CORRESPONDENCE_DAYS`) is the same clock whose time does not add up: each completed turn
sets the mover's time back to the whole ``days`` (``initial`` holds them in seconds, the
increment is 0), and the first move too may take that long.  A running correspondence clock's
``deadline`` (epoch seconds) is in the public clock.  Deadlines are days away, so they are
taken from storage, not from in-memory timers alone: :func:`clocks_due` finds the games whose
deadline falls within the next sweep, and the app's sweep (:meth:`ClockTimers.sweep`) arms
their timers — after a restart too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from tessera.server.events import Changed, Event
from tessera.server.match.tables import GameRow, games_table
from tessera.server.store.storage import Storage

log = logging.getLogger("tessera.server.match.clocks")


CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 14)
"""The days per move a correspondence clock may give."""

DAY = 86400.0

SWEEP_SECONDS = 60.0
"""How often the app looks in storage for clocks that run out before the next look."""


def is_correspondence(clock: dict[str, Any] | None) -> bool:
    """Whether ``clock`` gives days per move (not a time for the whole game)."""
    return clock is not None and clock.get("kind") == "correspondence"


def check_days(days: Any) -> int:
    """``days`` as a correspondence clock's days per move; ``ValueError`` with the reason if not one."""
    if isinstance(days, bool) or not isinstance(days, int | float) or days not in CORRESPONDENCE_DAYS:
        raise ValueError(
            f"clock: days per move must be one of {', '.join(map(str, CORRESPONDENCE_DAYS))} (got {days!r})"
        )
    return int(days)


def correspondence_new(days: int, players: int) -> dict[str, Any]:
    """A stopped correspondence clock of ``days`` per move (see :func:`check_days`)."""
    clock = clock_new(check_days(days) * DAY, 0.0, players)
    clock["kind"] = "correspondence"
    clock["days"] = int(days)
    return clock


REAL_TIME_RULE = "clock: time per game must be 1 s to 24 h and increment 0 to 3600 s"


def clock_from(settings: Any, players: int) -> dict[str, Any] | None:
    """A new stopped clock from its settings: None (no clock), ``(initial, increment)`` or
    ``{"initial", "increment"}`` (real time), or ``{"days": n}`` (correspondence);
    ``ValueError`` with the reason when they are not acceptable."""
    if settings is None:
        return None
    if isinstance(settings, dict) and settings.get("days") is not None:
        if settings.get("initial") is not None or settings.get("increment"):
            raise ValueError("clock: give days per move, or a time per game and increment, not both")
        return correspondence_new(check_days(settings["days"]), players)
    if isinstance(settings, dict):
        settings = (settings.get("initial"), settings.get("increment", 0.0) or 0.0)
    try:
        initial, inc = (float(x) for x in settings)
    except (TypeError, ValueError):
        raise ValueError(REAL_TIME_RULE) from None
    if not (0 < initial <= DAY) or not (0 <= inc <= 3600):
        raise ValueError(REAL_TIME_RULE)
    return clock_new(initial, inc, players)


def first_move_limit(initial: float) -> float:
    """Seconds a player has for his first move before the game is aborted (lichess-style).

    30 s, or the whole clock if shorter; long clocks (over 10 minutes) give a
    twentieth of the clock, at most an hour.
    """
    return max(min(initial, 30.0), min(initial / 20, 3600.0))


def clock_new(initial: float, increment: float, players: int) -> dict[str, Any]:
    """A stopped clock: ``initial`` seconds each, ``increment`` added per completed turn."""
    clock: dict[str, Any] = {
        "initial": initial,
        "increment": increment,
        "remaining": [initial] * players,
        "since": [None] * players,
    }
    if players == 2:  # with more players a latecomer is flagged out and the others play on instead
        clock["moved"] = [False] * players
        clock["first_since"] = [None] * players
    return clock


def _has_moved(clock: dict[str, Any], player: int) -> bool:
    """Whether ``player`` has completed his first turn (clocks stored before this rule count as moved)."""
    moved = clock.get("moved")
    return True if moved is None else bool(moved[player])


def clock_first_left(clock: dict[str, Any], player: int, now: float) -> float | None:
    """Seconds ``player`` has left for his first move (``None``: he has moved, or is not waiting)."""
    firsts = clock.get("first_since")
    if firsts is None or firsts[player] is None or _has_moved(clock, player):
        return None
    limit = clock["initial"] if is_correspondence(clock) else first_move_limit(clock["initial"])
    return float(limit - (now - firsts[player]))


def clock_left(clock: dict[str, Any], player: int, now: float) -> float:
    """Seconds left for ``player`` at ``now``."""
    since = clock["since"][player]
    return float(clock["remaining"][player] - ((now - since) if since is not None else 0.0))


def clock_stop(clock: dict[str, Any], player: int, now: float, *, turn_done: bool) -> None:
    """Charge ``player`` for the time since his clock started; add the increment at a turn's end."""
    if clock["since"][player] is not None:
        clock["remaining"][player] = clock_left(clock, player, now)
        clock["since"][player] = None
    if turn_done:
        if is_correspondence(clock):  # each move has the whole days again
            clock["remaining"][player] = clock["initial"]
        else:
            clock["remaining"][player] += clock["increment"]
        if "moved" in clock:
            clock["moved"][player] = True
            clock["first_since"][player] = None


def clock_stop_all(clock: dict[str, Any] | None, now: float) -> None:
    """Stop every running clock (the game ended or was taken back), without an increment."""
    if clock is not None:
        for p in range(len(clock["since"])):
            clock_stop(clock, p, now, turn_done=False)


def clock_start(clock: dict[str, Any], players: list[int], now: float) -> None:
    """Start the clocks of ``players`` (those already running keep running).

    A player who has not yet made his first move keeps his time: only his
    first-move countdown starts.
    """
    for p in players:
        if not _has_moved(clock, p):
            if clock["first_since"][p] is None:
                clock["first_since"][p] = now
        elif clock["since"][p] is None:
            clock["since"][p] = now


def _rounded(x: float | None) -> float | None:
    return None if x is None else max(0.0, round(x, 3))


def clock_public(clock: dict[str, Any] | None, now: float) -> dict[str, Any] | None:
    """The clock as clients see it: seconds left now, and whose clock runs."""
    if clock is None:
        return None
    n = len(clock["remaining"])
    public = {
        "initial": clock["initial"],
        "increment": clock["increment"],
        "remaining": [max(0.0, round(clock_left(clock, p, now), 3)) for p in range(n)],
        "running": [p for p in range(n) if clock["since"][p] is not None],
        "first_move": [_rounded(clock_first_left(clock, p, now)) for p in range(n)],
    }
    if is_correspondence(clock):
        public["kind"] = "correspondence"
        public["days"] = clock["days"]
        public["deadline"] = [clock_deadline(clock, p, now) for p in range(n)]
    return public


def clock_deadline(clock: dict[str, Any], player: int, now: float) -> float | None:
    """When (epoch seconds, UTC) ``player`` must have moved: his running clock's or his first move's
    end (None: he is not to move)."""
    left = clock_first_left(clock, player, now)
    if left is None and clock["since"][player] is not None:
        left = clock_left(clock, player, now)
    return None if left is None else round(now + left, 3)


def clock_settings(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """The clock's settings alone (time per game, increment; the days per move of a correspondence
    clock), as the lobby and records show them."""
    if clock is None:
        return None
    if is_correspondence(clock):
        return {"initial": clock["initial"], "increment": 0.0, "kind": "correspondence", "days": clock["days"]}
    return {"initial": clock["initial"], "increment": clock["increment"]}


def flagged(row: GameRow, now: float) -> bool:
    """Whether a running clock of an active game has run out (or a first move is overdue)."""
    if row.status != "active" or row.clock is None:
        return False
    return any(
        (row.clock["since"][p] is not None and clock_left(row.clock, p, now) <= 0)
        or (clock_first_left(row.clock, p, now) or 1.0) <= 0  # no first move in time: abort
        for p in range(len(row.clock["remaining"]))
    )


def next_flag_in(row: GameRow, now: float) -> float | None:
    """Seconds until a clock of ``row`` can next run out (None: no clock runs)."""
    if row.status != "active" or row.clock is None:
        return None
    return clock_next_flag_in(row.clock, now)


def clock_next_flag_in(clock: dict[str, Any], now: float) -> float | None:
    """Seconds until ``clock`` (of an active game) can next run out (None: none of it runs)."""
    running = [p for p in range(len(clock["since"])) if clock["since"][p] is not None]
    firsts = [x for p in range(len(clock["since"])) if (x := clock_first_left(clock, p, now)) is not None]
    return min([*(clock_left(clock, p, now) for p in running), *firsts], default=None)


def clocks_due(storage: Storage, within: float, now: float) -> list[str]:
    """Active games of ``storage`` whose clock can run out within ``within`` seconds of ``now``
    (or has run out): read from storage, so that a deadline days away survives a restart."""
    t = games_table
    with storage.transaction() as tx:
        rows = tx.conn.execute(sa.select(t.c.id, t.c.clock).where(t.c.status == "active", t.c.clock.is_not(None))).all()
    due = []
    for game_id, text in rows:
        try:
            clock = json.loads(text)
        except ValueError:
            continue
        wait = clock_next_flag_in(clock, now)
        if wait is not None and wait <= within:
            due.append(str(game_id))
    return due


class ClockTimers:
    """One timer per game with a running clock, on the event loop: when it fires, ``check(game_id)``
    (run in a worker thread) stores a flag if a clock ran out and says when to look again."""

    def __init__(self, check: Callable[[str], float | None]) -> None:
        self.check = check
        self.loop: asyncio.AbstractEventLoop | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def on_event(self, event: Event) -> None:
        """Thread-safe: a change of a game with a clock (or one timed here) by this process re-arms its timer."""
        if isinstance(event, Changed) and event.local and (event.clock or event.game_id in self._timers):
            self.arm(event.game_id)

    def arm(self, game_id: str) -> None:
        """Thread-safe: look at the game's clock soon, and set its timer."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return

        async def look() -> None:
            from anyio.to_thread import run_sync

            wait = await run_sync(self.check, game_id)
            old = self._timers.pop(game_id, None)
            if old is not None:
                old.cancel()
            if wait is not None:
                self._timers[game_id] = loop.call_later(max(0.05, wait + 0.02), lambda: asyncio.ensure_future(look()))

        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(lambda: asyncio.ensure_future(look()))

    async def sweep(self, storage: Storage, every: float = SWEEP_SECONDS) -> None:
        """Forever (a task of the app): every ``every`` seconds arm the timers of the games whose clock
        can run out before the next sweep, as storage tells (the first sweep at once: after a restart)."""
        from anyio.to_thread import run_sync

        while True:
            try:
                due = await run_sync(lambda: clocks_due(storage, every * 1.5, time.time()))
            except Exception:  # storage away for a while: look again at the next sweep
                log.exception("could not look for clocks running out")
                due = []
            for game_id in due:
                if game_id not in self._timers:
                    self.arm(game_id)
            await asyncio.sleep(every)

    def close(self) -> None:
        """Cancel every timer."""
        for t in self._timers.values():
            t.cancel()
        self._timers.clear()
