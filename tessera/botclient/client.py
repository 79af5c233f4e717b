"""The bot API's reference client: one event stream, one thread per game, one request at a time.

- :class:`Api` — the server and the token: every request waits for the one before it (the API's
  etiquette), and a ``429`` is answered by waiting ``Retry-After`` seconds and sending it again
  (a 429 is refused before anything is done, so nothing is lost or done twice).
- :class:`BotClient` — reads ``GET /api/stream/event``; answers challenges by its
  :class:`AcceptRules`; starts a :class:`GameRunner` for each ``gameStart`` (also those the
  stream repeats after a reconnection: a game already played is resumed, not started twice).
- :class:`GameRunner` — reads ``GET /api/bot/game/stream/{id}``, rebuilds the position from the
  moves of each ``gameState`` and, when its seat is to move (or has an order to seal), asks the
  player for a move and posts it.  A dropped stream is opened again; the server then sends
  ``gameFull`` with the position as it is, so nothing is missed.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import logging
import random
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tessera.core.game import SIMULTANEOUS, State
from tessera.core.records import play_stored
from tessera.core.registry import load_game

log = logging.getLogger("tessera.bot")

Player = Callable[[State, int], str]
"""What chooses a move: the position and our seat in, a move string out."""

STREAM_READ_TIMEOUT = 20.0
"""Seconds without a line (the server sends one at least every 7 s) before a stream counts as dead."""

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
"""Seconds to wait before the 1st, 2nd, … attempt to open a dropped stream again (then the last)."""


class Busy(Exception):
    """The server answered 429 to a stream: try again after ``retry_after`` seconds."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"busy: retry after {retry_after} s")
        self.retry_after = retry_after


class Refused(Exception):
    """The server refused a stream (401 revoked token, 403 not a bot, 404 no such game): trying
    again will not help."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail


def _retry_after(r: httpx.Response) -> float:
    try:
        return max(0.0, float(r.headers.get("Retry-After", "1")))
    except ValueError:
        return 1.0


def _detail(r: httpx.Response) -> str:
    try:
        return str(r.json().get("detail", r.text))
    except ValueError:
        return r.text


class Api:
    """The server at ``server`` with the bearer ``token``: one request at a time, 429s waited out."""

    def __init__(self, server: str, token: str, *, timeout: float = 30.0, transport: Any = None) -> None:
        kw: dict[str, Any] = {"transport": transport} if transport is not None else {}
        self.http = httpx.Client(
            base_url=server.rstrip("/"),
            headers={"Authorization": f"Bearer {token}", "User-Agent": "tessera-bot"},
            timeout=timeout,
            **kw,
        )
        self._one = threading.Lock()
        self._streams: set[httpx.Response] = set()
        self.waited = 0
        """How many 429 answers were waited out (and their requests sent again)."""

    def request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """Send a request once the one before it is answered; on 429 wait ``Retry-After`` and send it again."""
        while True:
            with self._one:
                r = self.http.request(method, path, json=body)
            if r.status_code != 429:
                return r
            self.waited += 1
            wait = _retry_after(r)
            log.info("%s %s: 429, waiting %.1f s as asked", method, path, wait)
            time.sleep(wait)

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.request("POST", path, body)

    def stream(self, path: str) -> Iterator[dict[str, Any] | None]:
        """The objects of an NDJSON stream (None for a keep-alive line).  ``Busy`` on 429,
        ``Refused`` on another 4xx, ``httpx.HTTPError`` when the connection drops."""
        timeout = httpx.Timeout(10.0, read=STREAM_READ_TIMEOUT)
        with self.http.stream("GET", path, timeout=timeout) as r:
            if r.status_code == 429:
                raise Busy(_retry_after(r))
            if r.status_code >= 400:
                r.read()
                raise Refused(r.status_code, _detail(r))
            self._streams.add(r)
            try:
                for line in r.iter_lines():
                    yield json.loads(line) if line.strip() else None
            finally:
                self._streams.discard(r)

    def close(self) -> None:
        """Close the client, ending the streams being read (their sockets are shut: a read blocked
        in another thread returns at once)."""
        for r in list(self._streams):
            stream = r.extensions.get("network_stream")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self.http.close()


# -- the player --------------------------------------------------------------------------------
def load_player(spec: str, *, seconds: float | None = None) -> Player:
    """A player from a tessera agent spec (``greedy``, ``mcts(c=0.7)``, ``level3`` …) or from
    ``module:function``: ``function(state)`` or ``function(state, seat)`` returning a move string
    or an action (an int)."""
    if ":" in spec and "(" not in spec.partition(":")[0]:
        module, _, name = spec.partition(":")
        fn = getattr(importlib.import_module(module), name)
        try:
            takes_seat = len(inspect.signature(fn).parameters) >= 2
        except (TypeError, ValueError):
            takes_seat = False

        def call(state: State, seat: int) -> str:
            got = fn(state.clone(), seat) if takes_seat else fn(state.clone())
            return got if isinstance(got, str) else state.action_to_string(int(got))

        return call
    from tessera.agents import make_agent

    agent = make_agent(spec)
    lock = threading.Lock()  # one agent object serves every game: one search at a time

    def choose(state: State, seat: int) -> str:
        with lock:
            if state.current_player() == SIMULTANEOUS:
                return str(agent.choose(state, seconds=seconds, player=seat))
            return agent.choose_move(state, seconds=seconds)

    return choose


# -- challenges --------------------------------------------------------------------------------
@dataclass
class AcceptRules:
    """Which challenges to accept; the first rule a challenge breaks is the decline's reason."""

    games: set[str] | None = None
    """Game names accepted (None: every game) — else ``variant``."""
    rated: str = "any"
    """``any``, ``rated`` (a casual challenge is declined ``rated``) or ``casual`` (a rated one: ``casual``)."""
    opponents: str = "any"
    """``any``, ``bots`` (a person is declined ``onlyBot``) or ``people`` (a bot: ``noBot``)."""
    min_initial: float | None = None
    """Least time per game in seconds (faster: ``tooFast``; no clock at all: ``timeControl``)."""
    max_initial: float | None = None
    """Most time per game in seconds (slower, or no clock: ``tooSlow``)."""

    def reason(self, c: dict[str, Any], playing: int, concurrency: int) -> str | None:
        """Why ``c`` is declined (a decline reason key), or None to accept it."""
        if playing >= concurrency:
            return "later"
        try:
            name = load_game(c["game"]).name
        except (ValueError, KeyError):
            return "variant"
        if self.games is not None and name not in self.games:
            return "variant"
        if self.opponents == "bots" and not c.get("from_bot"):
            return "onlyBot"
        if self.opponents == "people" and c.get("from_bot"):
            return "noBot"
        if self.rated == "rated" and not c.get("rated"):
            return "rated"
        if self.rated == "casual" and c.get("rated"):
            return "casual"
        clock = c.get("clock")
        if self.min_initial is not None:
            if clock is None:
                return "timeControl"
            if clock["initial"] < self.min_initial:
                return "tooFast"
        if self.max_initial is not None and (clock is None or clock["initial"] > self.max_initial):
            return "tooSlow"
        return None


# -- a game ------------------------------------------------------------------------------------
def own_names(st: dict[str, Any]) -> dict[str, Any]:
    """A ``gameState`` with tessera's own ``moves`` (a list) and ``status`` (``active``/``finished``):
    a two-seat game's line has lichess's there, and tessera's as ``move_list`` and ``game_status``."""
    return {**st, "moves": st.get("move_list", st["moves"]), "status": st.get("game_status", st["status"])}


def position(full: dict[str, Any], st: dict[str, Any]) -> State:
    """The position of a ``gameState`` (its moves replayed from the ``gameFull``'s spec and seed)."""
    state = load_game(full["spec"]).new_initial_state(seed=full["seed"])
    for mover, move in zip(st["movers"], st["moves"], strict=True):
        play_stored(state, mover, move)
    return state


def my_turn(st: dict[str, Any], seat: int) -> bool:
    """Whether ``seat`` must act in this ``gameState``: it is to move, or has an order to seal."""
    if st["status"] != "active":
        return False
    if st["to_move"] == seat:
        return True
    return st["to_move"] == SIMULTANEOUS and bool(st.get("sealed")) and not st["sealed"][seat]


@dataclass
class GameRunner:
    """Plays one game through its game stream (a thread of its own: :meth:`start`)."""

    api: Api
    game_id: str
    player: Player
    log_dir: Path | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    full: dict[str, Any] | None = None
    last: dict[str, Any] | None = None
    sent: list[str] = field(default_factory=list)
    """The moves (orders) this bot posted and the server took, in order."""
    lines: list[dict[str, Any]] = field(default_factory=list)
    """Every line the game stream sent (kept for the log, and for checks)."""
    reconnects: int = 0
    finished: threading.Event = field(default_factory=threading.Event)
    _acted: int = -1
    """The version of the last state acted on."""
    _floor: int = -1
    """The game's version after our last move was stored: older lines are not acted on."""
    _thread: threading.Thread | None = None
    _position: tuple[State, list[str]] | None = None
    """The last position rebuilt and the moves played to reach it."""

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name=f"bot-game-{self.game_id}", daemon=True)
        self._thread.start()

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        attempt = 0
        try:
            while not self.stop.is_set() and not self.finished.is_set():
                try:
                    for obj in self.api.stream(f"/api/bot/game/stream/{self.game_id}"):
                        attempt = 0
                        if obj is not None:
                            self.lines.append(obj)
                            self.on_line(obj)
                        if self.stop.is_set():
                            return
                except Busy as e:
                    time.sleep(e.retry_after)
                    continue
                except Refused as e:
                    log.error("game %s: the server refused the game stream (%s)", self.game_id, e)
                    return
                except (httpx.HTTPError, ValueError) as e:
                    if self.stop.is_set():
                        return
                    log.warning("game %s: the game stream dropped (%s); opening it again", self.game_id, e)
                if self.finished.is_set() or self.stop.is_set():
                    return
                self.reconnects += 1
                time.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
                attempt += 1
        finally:
            self.write_log()

    def on_line(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "gameFull":
            self.full = obj
            self._position = None
            players = ", ".join(
                f"{p['seat']}: {p['name']}{' (bot)' if p['bot'] else ''}"
                + (f" {p['rating']}{'?' if p['provisional'] else ''}" if p["rating"] is not None else "")
                for p in obj["players"]
            )
            log.info(
                "game %s: %s, seat %d, %s; %s",
                self.game_id,
                obj["spec"],
                obj["seat"],
                "rated" if obj["rated"] else "casual",
                players,
            )
            self.on_state(own_names(obj["state"]))
        elif kind == "gameState":
            self.on_state(own_names(obj))
        elif kind == "opponentGone":
            log.info("game %s: seats %s %s", self.game_id, obj["seats"], "left" if obj["gone"] else "came back")

    def on_state(self, st: dict[str, Any]) -> None:
        self.last = st
        full = self.full
        assert full is not None
        if st["status"] == "finished":
            result = st.get("result") or {}
            log.info(
                "game %s finished: %s (%s) after %d moves",
                self.game_id,
                result.get("text"),
                result.get("reason"),
                len(st["moves"]),
            )
            self.finished.set()
            return
        seat = full["seat"]
        if not my_turn(st, seat) or st["version"] <= self._acted or st["version"] < self._floor:
            return  # not ours to act on, answered already, or a line older than our last move
        before, self._acted = self._acted, st["version"]
        state = self.position(st)
        move = self.player(state, seat)
        r = self.post_move(move, st["move_number"])
        if r.status_code == 400:  # refused by the rules: say so, and play a random legal move instead
            log.error("game %s: the server refused %r: %s", self.game_id, move, _detail(r))
            move = state.random_move(random.Random(), seat if st["to_move"] == SIMULTANEOUS else None)
            r = self.post_move(move, st["move_number"])
        if r.status_code == 200:
            self._floor = max(self._floor, int(r.json().get("version", st["version"])))
            self.sent.append(move)
            log.debug("game %s: played %s", self.game_id, move)
        elif r.status_code >= 500 and not self.stop.is_set():  # the server is in trouble: try again shortly
            log.warning(
                "game %s: move %r not taken (%d: %s); trying again", self.game_id, move, r.status_code, _detail(r)
            )
            time.sleep(_retry_after(r))
            self._acted = before
            self.on_state(st)
        else:  # 409: the game moved on meanwhile; the next gameState says how
            log.warning("game %s: move %r not taken (%d: %s)", self.game_id, move, r.status_code, _detail(r))

    def position(self, st: dict[str, Any]) -> State:
        """The position of ``st``: the moves new since the last one played on a kept copy (the whole
        game replayed when the moves are not a continuation of those: a take-back, a new stream)."""
        assert self.full is not None
        kept = self._position
        if kept is None or st["moves"][: len(kept[1])] != kept[1]:
            state, played = position(self.full, {"moves": [], "movers": []}), []
        else:
            state, played = kept[0], list(kept[1])
        for mover, move in zip(st["movers"][len(played) :], st["moves"][len(played) :], strict=True):
            play_stored(state, mover, move)
            played.append(move)
        self._position = (state, played)
        return state.clone()

    def post_move(self, move: str, expected: int) -> httpx.Response:
        """Post a move; when the connection drops before the answer, post it again (the same move for
        the same move number: the server takes it once and answers the repeat as the move stored)."""
        for attempt in range(len(RECONNECT_DELAYS)):
            try:
                return self.api.post(f"/api/bot/game/{self.game_id}/move", {"move": move, "expected": expected})
            except httpx.TransportError as e:
                if self.stop.is_set():
                    raise
                log.warning("game %s: no answer to move %r (%s); sending it again", self.game_id, move, e)
                time.sleep(RECONNECT_DELAYS[attempt])
        return self.api.post(f"/api/bot/game/{self.game_id}/move", {"move": move, "expected": expected})

    def write_log(self) -> None:
        """``<log_dir>/<game id>.json``: the game as this bot saw it (gameFull, last state, its moves)."""
        if self.log_dir is None or self.full is None:
            return
        self.log_dir.mkdir(parents=True, exist_ok=True)
        record = {"game": {k: v for k, v in self.full.items() if k != "state"}, "last": self.last, "sent": self.sent}
        (self.log_dir / f"{self.game_id}.json").write_text(json.dumps(record, indent=1))


# -- the bot -----------------------------------------------------------------------------------
class BotClient:
    """A bot: the event stream, challenges answered by ``rules``, a :class:`GameRunner` per game."""

    def __init__(
        self,
        api: Api,
        player: Player,
        *,
        rules: AcceptRules | None = None,
        concurrency: int = 1,
        log_dir: Path | None = None,
    ) -> None:
        self.api = api
        self.player = player
        self.rules = rules or AcceptRules()
        self.concurrency = concurrency
        self.log_dir = log_dir
        self.games: dict[str, GameRunner] = {}
        self.events: list[dict[str, Any]] = []
        self.stop_event = threading.Event()
        self.connected = threading.Event()
        self.reconnects = 0
        self.refused: Refused | None = None
        """Why the server refused the event stream (a revoked token …): the bot then stops."""
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None

    def playing(self) -> int:
        """Games being played now."""
        with self._guard:
            return sum(1 for g in self.games.values() if g.alive() and not g.finished.is_set())

    def start(self) -> None:
        """Run in a thread of its own (:meth:`stop` ends it)."""
        self._thread = threading.Thread(target=self.run, name="bot-events", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        for g in list(self.games.values()):
            g.stop.set()
        self.api.close()  # ends the blocking reads of the streams
        if self._thread is not None:
            self._thread.join(timeout)
        for g in list(self.games.values()):
            g.join(timeout)

    def run(self) -> None:
        """Read the event stream until stopped, opening it again whenever it drops."""
        attempt = 0
        while not self.stop_event.is_set():
            try:
                for obj in self.api.stream("/api/stream/event"):
                    self.connected.set()
                    attempt = 0
                    if obj is not None:
                        self.events.append(obj)
                        self.on_event(obj)
                    if self.stop_event.is_set():
                        return
            except Busy as e:
                time.sleep(e.retry_after)
                continue
            except Refused as e:
                log.error("the server refused the event stream (%s): stopping", e)
                self.refused = e
                self.stop_event.set()
                return
            except (httpx.HTTPError, ValueError, RuntimeError) as e:
                if self.stop_event.is_set():
                    return
                log.warning("the event stream dropped (%s); opening it again", e)
            self.connected.clear()
            self.reconnects += 1
            time.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1

    def on_event(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "gameStart":
            self.play(obj["game"]["id"])
        elif kind == "gameFinish":
            g = obj["game"]
            log.info("game %s over: %s", g["id"], (g.get("result") or {}).get("text"))
        elif kind == "challenge" and obj["challenge"].get("direction") == "in":
            self.answer(obj["challenge"])
        elif kind == "challengeDeclined":
            c = obj["challenge"]
            log.info("challenge %s to %s declined: %s", c["id"], c["to"], c.get("reason_text") or c.get("reason"))
        elif kind == "challengeCanceled":
            log.info("challenge %s cancelled", obj["challenge"]["id"])

    def play(self, game_id: str) -> None:
        """Play ``game_id`` (nothing if it is being played already)."""
        with self._guard:
            running = self.games.get(game_id)
            if running is not None and (running.alive() or running.finished.is_set()):
                return
            runner = GameRunner(self.api, game_id, self.player, self.log_dir)
            self.games[game_id] = runner
        log.info("game %s: playing", game_id)
        runner.start()

    def answer(self, c: dict[str, Any]) -> None:
        """Accept a challenge, or decline it with the reason the rules give."""
        reason = self.rules.reason(c, self.playing(), self.concurrency)
        if reason is None:
            r = self.api.post(f"/api/challenges/{c['id']}/accept")
            log.info("challenge %s from %s (%s): accepted (%d)", c["id"], c["from"], c["game"], r.status_code)
        else:
            r = self.api.post(f"/api/challenges/{c['id']}/decline", {"reason": reason})
            log.info(
                "challenge %s from %s (%s): declined, %s (%d)", c["id"], c["from"], c["game"], reason, r.status_code
            )


def main(args: Any) -> int:
    """``tessera bot``: run a bot until interrupted."""
    rules = AcceptRules(
        games=None if not args.accept or args.accept == "all" else {g.strip() for g in args.accept.split(",")},
        rated=args.rated,
        opponents=args.opponents,
        min_initial=args.min_initial,
        max_initial=args.max_initial,
    )
    player = load_player(args.agent, seconds=args.seconds)
    api = Api(args.server, args.token)
    bot = BotClient(
        api, player, rules=rules, concurrency=args.concurrency, log_dir=Path(args.log_dir) if args.log_dir else None
    )
    log.info("tessera bot on %s playing %s (%d games at once)", args.server, args.agent, args.concurrency)
    try:
        bot.run()
    finally:
        bot.stop()
    return 1 if bot.refused is not None else 0
