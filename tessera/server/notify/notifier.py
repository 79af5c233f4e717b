"""The notifications' subscriber on the event interface (tessera.server.events).

:meth:`Notifier.on_event` only queues (it is called on the event loop, where a move was just
stored); one thread of its own does the rest, off the event loop:

- a game changed (here or, on PostgreSQL, in another process): the live pages of the accounts
  bound to its seats are woken (an :class:`~tessera.server.events.AccountChanged` to their
  ``GET /api/account/events`` streams, which the pages take as "read your games waiting again";
  a change is not even read when no account has a page or stream open here and it calls for no push);
- a game this process changed: the seats that must now act and were not yet told for this move
  get a "your turn" push, and every seat a "game over" push when it ended;
- a challenge this process stored (an ``AccountChanged`` published here): the challenged
  account gets a "challenge received" push.

Pushes go to a small pool of sender threads (a push service may be slow).  Hot-seat games send
none (everybody is at the one screen).  Which seats were told is kept in memory: a process
started again may tell a waiting seat once more.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, Protocol

from tessera.server.accounts.queries import seat_holders
from tessera.server.accounts.store import AccountStore, seat_result
from tessera.server.events import AccountChanged, Changed, Event, Events
from tessera.server.match.service import MatchService
from tessera.server.notify import push
from tessera.server.notify.store import NotifyStore
from tessera.server.notify.waiting import waiting_seats

log = logging.getLogger("tessera.server.notify")

REMEMBERED = 10_000
"""Games whose told seats are remembered (the least recently changed are forgotten first)."""

BATCH = 500
"""At most so many queued changes are handled together: one read of their seats' accounts, one wake
of each account's pages."""

BUSY = 100
"""Changes per second (over the last second) above which the thread waits :data:`COALESCE` before
handling a change, so that the next ones join it.  Before, every change cost a database
transaction in this thread — on PostgreSQL in every server process, since each hears of every
move — which competed with the event loop for the interpreter lock: under
``benchmarks/server_load.py``'s saturation the server's CPU per move was about 0.5 ms higher with
the notifier than without it (one pair of runs).  Below it (every ordinary server, the tests)
each change is handled as soon as it comes."""

COALESCE = 0.01
"""Seconds a change waits for the next ones when changes come faster than :data:`BUSY` per second."""

CHALLENGE_FRESH = 600.0
"""A pending challenge is pushed only if made within these many seconds."""


class Listening(Protocol):
    """Live pages or streams of accounts open in this process (the accounts' live streams, the bot
    API's event streams): ``listening`` counts the accounts with one open, kept as they open and close
    (an attribute, read on every move without a call)."""

    listening: int


class Notifier:
    """Subscriber: wakes accounts' live pages and sends pushes, in a thread of its own."""

    def __init__(
        self,
        service: MatchService,
        store: NotifyStore,
        pusher: push.Pusher | None,
        listeners: Sequence[Listening] | None = None,
    ) -> None:
        self.service = service
        self.listeners = listeners
        """What has accounts' live pages or streams open in this process (None: not known, any may)."""
        self.events: Events = service.events
        self.store = store
        self.pusher = pusher
        self.accounts = AccountStore(service.storage)
        self._queue: queue.SimpleQueue[tuple[str, Any, bool] | None] = queue.SimpleQueue()
        self._pending: set[Future[None]] = set()
        self._told: OrderedDict[str, tuple[int, set[int]]] = OrderedDict()
        self._ended: OrderedDict[str, None] = OrderedDict()
        self._challenges: OrderedDict[str, None] = OrderedDict()
        self._senders = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tessera-push")
        self._thread = threading.Thread(target=self._run, name="tessera-notify", daemon=True)
        self._thread.start()

    # -- the subscriber (any thread, often the event loop: only queues) ------------------------
    def on_event(self, event: Event) -> None:
        """Queue a game's change, or a challenge made here (never blocks: called on the event loop).

        A change with nothing to do here — no account page or stream open in this process and
        no push it may call for (another process's change, a hot-seat game, no push service) —
        is not queued: the thread is not woken for it (every move of every game on every
        process, with several processes on one database)."""
        if isinstance(event, Changed):
            if not self.listening() and not self._may_push(event.game_id, event.local, event.mode):
                return
            self._queue.put(("game", event.game_id, event.local))
        elif isinstance(event, AccountChanged) and event.local:
            self._queue.put(("account", event.user_id, True))

    def close(self) -> None:
        """Stop the thread (after the queued work) and the senders."""
        self._queue.put(None)
        self._thread.join(timeout=10)
        self._senders.shutdown(wait=True, cancel_futures=False)

    def idle(self, timeout: float = 10.0) -> bool:
        """Wait until everything queued so far is done, pushes sent included (for tests)."""
        done = threading.Event()
        self._queue.put(("mark", done, False))
        return done.wait(timeout)

    def _run(self) -> None:
        try:
            self.store.forget_deleted()  # accounts deleted since the last start
            self.store.prune_guests()  # guests' subscriptions whose games are over
        except Exception:
            log.exception("could not forget the notification settings of deleted accounts")
        recent: deque[tuple[float, int]] = deque()  # (when, changes) of the batches of the last second
        while True:
            first = self._queue.get()
            now = time.monotonic()
            while recent and recent[0][0] < now - 1.0:
                recent.popleft()
            if first is not None and first[0] == "game" and sum(n for _, n in recent) > BUSY:
                time.sleep(COALESCE)  # busy: the changes of the next moments join this one
            batch = [first]
            with contextlib.suppress(queue.Empty):
                while len(batch) < BATCH:
                    batch.append(self._queue.get_nowait())
            recent.append((now, sum(1 for e in batch if e is not None and e[0] == "game")))
            games: dict[str, bool] = {}
            for entry in batch:
                if entry is not None and entry[0] == "game":
                    games[entry[1]] = games.get(entry[1], False) or entry[2]
                    continue
                self._games(games)  # in the order queued: the changes before a mark are done before it
                games = {}
                if entry is None:
                    return
                kind, key, _local = entry
                try:
                    if kind == "account":
                        self._account(key)
                    elif kind == "mark":
                        wait(list(self._pending))
                        key.set()
                except Exception:
                    log.exception("notifying about %s %s failed", kind, key)
            self._games(games)

    def _games(self, games: dict[str, bool]) -> None:
        """The changed games (id → changed by this process), their bound accounts read at once."""
        if not games:
            return
        if not self.listening() and not any(self._may_push(g, here) for g, here in games.items()):
            return  # no page here to wake and nothing to push (made elsewhere, or hot-seat): nothing to read
        try:
            bound = self._bound(list(games))
            users: dict[str, None] = {}
            for game_id in games:
                users.update(dict.fromkeys(sorted(set(bound.get(game_id, {}).values()))))
            for uid in users:
                self.events.publish(AccountChanged(uid, local=False))  # their pages read their games again
        except Exception:
            log.exception("notifying about games %s failed", ", ".join(games))
            return
        for game_id, local in games.items():
            try:
                self._game(game_id, local, bound.get(game_id, {}))
            except Exception:
                log.exception("notifying about game %s failed", game_id)

    # -- a game changed ---------------------------------------------------------------------------
    def _bound(self, game_ids: list[str]) -> dict[str, dict[int, str]]:
        """The accounts bound to the seats of each game (game id → seat → user id), one read."""
        with self.service.storage.transaction() as tx:
            return seat_holders(tx, game_ids, BATCH)

    def listening(self) -> bool:
        """Whether an account may have a live page or stream open in this process (True: not known)."""
        return self.listeners is None or any(x.listening for x in self.listeners)

    def _may_push(self, game_id: str, local: bool, mode: str | None = None) -> bool:
        """Whether a change may call for a push from here (see :meth:`_game`); ``mode``: the game's mode
        if the change said it (else it is read from memory)."""
        if not local or self.pusher is None:
            return False
        if mode is None:
            live = self.service.games.cached(game_id)
            mode = None if live is None else live.row.mode
        return mode != "hotseat"

    def _game(self, game_id: str, local: bool, bound: dict[int, str]) -> None:
        """The pushes a game's change calls for (``bound``: its seats' accounts)."""
        if not local or self.pusher is None:
            return
        live = self.service.games.cached(game_id)
        if live is None or live.row.mode == "hotseat":
            return
        row = live.row
        title = self.service.views.render(live, None).get("title", row.game)
        if row.status == "finished":
            self._told.pop(game_id, None)
            if game_id in self._ended:
                return
            _remember(self._ended, game_id)
            humans = [s.seat for s in row.seats if s.kind == "human"]
            self._send_per_seat(
                "end",
                game_id,
                humans,
                bound,
                lambda lang, seat: push.end_payload(
                    lang, game_id=game_id, title=title, result=_outcome(lang, row.result, seat)
                ),
            )
            return
        waiting = waiting_seats(live)
        move = live.state.move_number()
        told_move, told = self._told.get(game_id, (move, set()))
        if told_move != move:
            told = set()
        new = sorted(waiting - told)
        self._told[game_id] = (move, told | set(new))
        self._told.move_to_end(game_id)
        while len(self._told) > REMEMBERED:
            self._told.popitem(last=False)
        if new:
            self._send_per_seat(
                "turn", game_id, new, bound, lambda lang, seat: push.turn_payload(lang, game_id=game_id, title=title)
            )

    def _send_per_seat(self, kind: str, game_id: str, seats: list[int], bound: dict[int, str], payload: Any) -> None:
        done: set[str] = set()
        for seat in seats:
            users = [bound[seat]] if seat in bound else []
            for sub in self.store.targets(kind, user_ids=users, seats=[(game_id, seat)]):
                if sub["id"] in done:
                    continue
                done.add(sub["id"])
                self._submit(sub, payload(sub["lang"], seat))

    def _submit(self, sub: dict[str, Any], payload: dict[str, Any]) -> None:
        future = self._senders.submit(self._send, sub, payload)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)

    def _send(self, sub: dict[str, Any], payload: dict[str, Any]) -> None:
        assert self.pusher is not None
        try:
            self.pusher.send(sub, payload)
        except Exception:
            log.exception("a push could not be sent")

    # -- a challenge made here ---------------------------------------------------------------------
    def _account(self, user_id: str) -> None:
        if self.pusher is None:
            return
        user = self.accounts.user_by_id(user_id)
        if user is None or user.deleted_at is not None:
            return
        now = time.time()
        for c in self.accounts.challenges(user, pending_only=True)["incoming"]:
            if c["id"] in self._challenges or c["created_at"] < now - CHALLENGE_FRESH:
                continue
            _remember(self._challenges, c["id"])
            for sub in self.store.targets("challenge", user_ids=[user_id]):
                payload = push.challenge_payload(sub["lang"], challenger=str(c["from"]), game=str(c["game"]))
                self._submit(sub, payload)


def _remember(seen: OrderedDict[str, None], key: str) -> None:
    seen[key] = None
    while len(seen) > REMEMBERED:
        seen.popitem(last=False)


def _outcome(lang: str, result: dict[str, Any] | None, seat: int) -> str:
    """The result as ``seat`` lived it, in words (win, loss, draw, no result)."""
    from tessera.server.notify.texts import text

    return text(lang, f"push.result_{seat_result(result, seat)}")
