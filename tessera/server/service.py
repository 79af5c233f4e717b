"""The authoritative match service: every change to a game goes through here.

It checks the seat token, whose turn it is, that the game is not over and the
move number the client expects; a move is committed to storage before it is
acknowledged; the views it hands out are filtered per seat (a Nelaxtam
player's sealed order reaches only him, spectators see resolved turns only).
The service knows no HTTP: it raises :class:`ServiceError` with the status
code and the reason, which the web layer turns into ``{"detail": ...}``.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, NamedTuple

import tessera
from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, IllegalMove, State
from tessera.core.registry import game_class
from tessera.core.render import status_line
from tessera.server.ai import RESIGN, can_resign_and_play_on, play_stored
from tessera.server.storage import Conflict, GameRow, MoveRow, SeatRow, Storage, Transaction

log = logging.getLogger("tessera.server.service")

MODES = ("hotseat", "ai", "online")
"""hot-seat (one screen, every seat), against the AI, online between browsers."""

CACHE_GAMES = 4096
"""How many games the service keeps in memory (the rest are read and replayed when next used)."""

LOOP_COMMIT_PATIENCE = 1.0
"""How long (s) a move to be stored on the event loop waits there while something else writes,
before it is handed to a worker thread (:meth:`MatchService._commit_move_soon`)."""

RENDER_CACHE = 64
"""How many render descriptions (game, version, seat) are kept: a move's answer and its pushes share one.
Few: a render is about 540 objects the garbage collector tracks, and renders kept long enough to
reach its oldest generation made it walk them all about once a second (pauses of 300-570 ms
under load with 512 kept); a view asked for later is rendered again (0.15 ms)."""

MAX_MOVE_CHARS = 2000
"""The longest move or order text accepted (every game's longest legal move is far shorter)."""

MAX_WORDS_PER_MOVE = 8
"""A text record's turn is split into moves of at most this many words (Nume's ``komi 3.5 white`` has three)."""

SEED_RANGE = (-(2**63), 2**63 - 1)
"""Seeds are stored as 64-bit integers."""

RECORD_FORMAT = "tessera-record"
RECORD_VERSION = 1


class ServiceError(Exception):
    """A refused request: ``status`` (4xx) and the reason shown to the person."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def clean_name(name: object) -> str:
    """A player's name as printable text: control characters and lone surrogates are dropped, 80 characters at most."""
    text = str(name)
    return "".join(ch for ch in text if ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF)[:80].strip()


def check_seed(seed: object) -> int:
    """A seed as a 64-bit integer; ``ServiceError`` (422) otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ServiceError(422, f"seed {seed!r} is not accepted: expected a whole number")
    if not SEED_RANGE[0] <= seed <= SEED_RANGE[1]:
        raise ServiceError(422, f"seed {seed} is out of range: expected a 64-bit integer (-2**63 to 2**63-1)")
    return seed


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def load_checked(spec: str, params: dict[str, Any] | None = None) -> Game:
    """``tessera.load_game``, with every refusal of the name or parameters as a ``ValueError``."""
    if not isinstance(spec, str):
        raise ValueError(f"the game must be a name like 'nume' or 'nume(size=3)', not {spec!r}")
    if len(spec) > 500:
        raise ValueError(f"unknown game {_short(spec, 60)!r}: a game name or spec is at most 500 characters")
    try:
        return tessera.load_game(spec, **(params or {}))
    except (TypeError, OverflowError, ArithmeticError) as e:  # a parameter value the game's checks did not foresee
        for name, value in (params or {}).items():
            try:
                tessera.load_game(spec, **{name: value})
            except (TypeError, OverflowError, ArithmeticError):
                raise ValueError(
                    f"{_short(spec, 60)}: parameter {name}={_short(repr(value), 60)} is not accepted ({e})"
                ) from None
            except ValueError:
                pass
        raise ValueError(f"{_short(spec, 60)}: a parameter is not accepted ({e})") from None


def new_token() -> str:
    """An unguessable seat credential (256 bits)."""
    return secrets.token_urlsafe(32)


def new_game_id() -> str:
    """A short random game id."""
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


def movers(state: State) -> list[int]:
    """The players who must act now."""
    cp = state.current_player()
    if cp == TERMINAL:
        return []
    if cp == SIMULTANEOUS:
        return list(range(state.game.num_players))
    return [cp]


def replay_moves(game: Game, seed: int, moves: list[MoveRow]) -> State:
    """Rebuild a position from its stored moves."""
    state = game.new_initial_state(seed=seed)
    for m in moves:
        play_stored(state, m.player, m.move)
    return state


def depends_on_seed(game: Game) -> bool:
    """Whether the seed changes the initial position (dealt games such as Nibble)."""
    first = game.new_initial_state(seed=0).to_dict()
    return any(game.new_initial_state(seed=s).to_dict() != first for s in (1, 2, 3))


SEAT_KINDS = ("here", "invite", "ai")
"""Kinds of seat a new game can have (``create(seat_kinds=...)``)."""


def _seat_plan(seat_kinds: Any) -> tuple[str, list[tuple[str, int | None, str]]]:
    """Check a list of seat choices; the mode they amount to and ``(kind, level, name)`` per seat."""
    if not isinstance(seat_kinds, list) or not seat_kinds or len(seat_kinds) > 16:
        raise ServiceError(422, "seats must be a list with one entry per seat")
    out: list[tuple[str, int | None, str]] = []
    for i, entry in enumerate(seat_kinds):
        if not isinstance(entry, dict):
            raise ServiceError(422, f"seats[{i}] must be an object such as {{'kind': 'ai', 'level': 3}}")
        extra = sorted(set(entry) - {"kind", "level", "name"})
        if extra:
            raise ServiceError(422, f"seats[{i}]: unknown key {_short(str(extra[0]), 40)!r} (kind, level, name)")
        kind = entry.get("kind")
        if kind not in SEAT_KINDS:
            raise ServiceError(
                422,
                f"seats[{i}].kind {_short(str(kind), 40)!r} is not accepted: expected one of {', '.join(SEAT_KINDS)}",
            )
        level = entry.get("level")
        if kind == "ai":
            if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 5:
                raise ServiceError(422, f"seats[{i}].level {_short(str(level), 40)!r} is not accepted: expected 1 to 5")
        elif level is not None:
            raise ServiceError(422, f"seats[{i}]: only an AI seat has a level")
        name = entry.get("name") or ""
        if not isinstance(name, str):
            raise ServiceError(422, f"seats[{i}].name must be a string")
        out.append((kind, level if kind == "ai" else None, name))
    kinds = [k for k, _, _ in out]
    mode = "online" if "invite" in kinds else "ai" if "ai" in kinds else "hotseat"
    return mode, out


def _names(game: Game) -> list[str]:
    return list(game.player_names)


def rules_result(state: State) -> dict[str, Any]:
    """The result of a game the rules ended: ``reason`` and ``text`` name the rule that decided."""
    why = state.outcome() or {"reason": "rules", "text": status_line(state, _names(state.game))}
    return {
        "winner": state.winner(),
        "returns": list(state.returns()),
        "reason": why["reason"],
        "text": why["text"],
    }


def forfeit_result(game: Game, loser: int, reason: str) -> dict[str, Any]:
    """The result when ``loser`` resigns or runs out of time."""
    n = game.num_players
    winner = (loser + 1) % n
    returns = [-1.0] * n
    returns[winner] = 1.0
    names = _names(game)
    how = "resigned" if reason == "resign" else "ran out of time"
    return {
        "winner": winner,
        "returns": returns,
        "reason": reason,
        "text": f"{names[loser]} {how}: {names[winner]} wins",
    }


def draws_possible(game: Game) -> str | None:
    """Why a draw cannot be offered in ``game`` (None: the rules allow a draw, so an offer is possible).

    RULES.md: Nibble has no tie; Nume ties only with a whole-number komi (never with komi
    bidding, whose komi ends in .5); Ikabegamá, Nelaxtam and Nymbat draw (equal counts or a
    safeguard).  Offers are between two players: a four-player game has none.
    """
    if game.num_players != 2:
        return f"draw offers are for two-player games; this {game.name} game has {game.num_players} players"
    if game.name == "nibble":
        return "Nibble has no draws (RULES.md: a tie cannot happen)"
    if game.name == "nume":
        komi = game.params.get("komi", 0.5)
        if game.params.get("komi_bidding") or float(komi) % 1 != 0:
            return "this Nume game cannot end in a draw (its komi is not a whole number)"
    return None


def agreement_result(game: Game, offerer: int | None) -> dict[str, Any]:
    """The result of a draw agreed between the players: ``offerer`` offered (None: not known), the other accepted."""
    n = game.num_players
    names = _names(game)
    text = (
        "Draw by agreement between the players"
        if offerer is None
        else f"Draw by agreement: {names[offerer]} offered a draw and {names[(offerer + 1) % n]} accepted"
    )
    return {"winner": None, "returns": [0.0] * n, "reason": "agreement", "text": text}


AI_DRAW_THRESHOLD = -0.5
"""An AI accepts a draw offer only when its evaluation for its own side is at most this (clearly losing)."""


# -- clocks -------------------------------------------------------------------------------


def first_move_limit(initial: float) -> float:
    """Seconds a player has for his first move before the game is aborted (lichess-style).

    30 s, or the whole clock if shorter; long clocks (over 10 minutes) give a
    twentieth of the clock, at most an hour.
    """
    return max(min(initial, 30.0), min(initial / 20, 3600.0))


def clock_new(initial: float, increment: float, players: int) -> dict[str, Any]:
    """A stopped clock: ``initial`` seconds each, ``increment`` added per completed turn.

    Two players: a player's clock first runs after his first turn (``moved``);
    until then ``first_since`` holds when his first turn began, and a first
    move not made within :func:`first_move_limit` aborts the game.
    """
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
    return float(first_move_limit(clock["initial"]) - (now - firsts[player]))


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
        clock["remaining"][player] += clock["increment"]
        if "moved" in clock:
            clock["moved"][player] = True
            clock["first_since"][player] = None


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


def clock_public(clock: dict[str, Any] | None, now: float) -> dict[str, Any] | None:
    """The clock as clients see it: seconds left now, and whose clock runs."""
    if clock is None:
        return None
    n = len(clock["remaining"])
    return {
        "initial": clock["initial"],
        "increment": clock["increment"],
        "remaining": [max(0.0, round(clock_left(clock, p, now), 3)) for p in range(n)],
        "running": [p for p in range(n) if clock["since"][p] is not None],
        "first_move": [_rounded(clock_first_left(clock, p, now)) for p in range(n)],
    }


def _rounded(x: float | None) -> float | None:
    return None if x is None else max(0.0, round(x, 3))


def abort_result(game: Game, player: int) -> dict[str, Any]:
    """A game aborted because ``player`` made no first move in time: no winner, no result."""
    who = _names(game)[player] if player < len(_names(game)) else f"Player {player}"
    return {
        "winner": None,
        "returns": None,
        "reason": "abort",
        "text": f"Game aborted: {who} made no first move in time (no result)",
    }


def _clock_settings(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if clock is None else {"initial": clock["initial"], "increment": clock["increment"]}


# -- records ------------------------------------------------------------------------------


def turns_of(moves: list[MoveRow]) -> list[dict[str, Any]]:
    """Group stored moves into turns: consecutive steps of one player, or one joint move."""
    turns: list[dict[str, Any]] = []
    for m in moves:
        if m.player == SIMULTANEOUS:
            turns.append({"player": SIMULTANEOUS, "orders": m.move.split(" | ")})
        elif turns and turns[-1]["player"] == m.player and RESIGN not in (m.move, turns[-1]["moves"][-1]):
            turns[-1]["moves"].append(m.move)
        else:
            turns.append({"player": m.player, "moves": [m.move]})
    return turns


_TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
_NUMBER = re.compile(r"^\d+\.\s*")


def text_record(row: GameRow, moves: list[MoveRow]) -> str:
    """The plain-text move list of a game (docs/records.md)."""
    game = tessera.load_game(row.spec)
    lines = [
        f'[Game "{row.spec}"]',
        f'[Seed "{row.seed}"]',
    ]
    for s in row.seats:
        who = f"AI level {s.level}" if s.kind == "ai" else "human"
        lines.append(f'[Player{s.seat} "{s.name}"]' if s.name == who else f'[Player{s.seat} "{s.name} ({who})"]')
    if row.result is not None:
        lines.append(f'[Result "{row.result["text"]} ({row.result["reason"]})"]')
    lines.append("")
    for i, t in enumerate(turns_of(moves), start=1):
        body = " | ".join(t["orders"]) if t["player"] == SIMULTANEOUS else " ".join(t["moves"])
        if t.get("moves") == [RESIGN]:
            body = f"{RESIGN} {t['player']}"  # a resignation names its seat (it can come on another player's turn)
        lines.append(f"{i}. {body}")
    del game
    return "\n".join(lines) + "\n"


def parse_text_record(text: str) -> tuple[str, int, list[str]]:
    """``(spec, seed, turn lines)`` of a plain-text record; ``ValueError`` says what is wrong."""
    tags: dict[str, str] = {}
    body: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _TAG.match(line)
        if m and not body:
            tags[m.group(1).lower()] = m.group(2)
            continue
        body.append(_NUMBER.sub("", line))
    if "game" not in tags:
        raise ValueError('the record has no [Game "..."] line')
    try:
        seed = int(tags.get("seed", "0"))
    except ValueError:
        raise ValueError(f"[Seed] must be a whole number, not {tags['seed']!r}") from None
    return tags["game"], seed, body


def play_turn_line(state: State, line: str, number: int) -> list[tuple[int, str]]:
    """Play one line of a text record; the steps of a turn are found as the longest legal prefixes."""
    played: list[tuple[int, str]] = []
    if state.current_player() == SIMULTANEOUS or " | " in line:
        try:
            state.play_joint([part.strip() for part in line.split("|")])
        except IllegalMove as e:
            raise ValueError(f"turn {number} ({line!r}): {e}") from None
        played.append(state.history()[-1])
        return played
    words = line.split()
    if len(words) == 2 and words[0] == RESIGN and can_resign_and_play_on(state):
        try:
            play_stored(state, int(words[1]) if words[1].isdigit() else -1, RESIGN)
        except IllegalMove as e:
            raise ValueError(f"turn {number} ({line!r}): {e}") from None
        return [state.history()[-1]]
    i = 0
    while i < len(words):
        for j in range(min(len(words), i + MAX_WORDS_PER_MOVE), i, -1):
            candidate = " ".join(words[i:j])
            if state.is_legal(candidate):
                state.play(candidate)
                played.append(state.history()[-1])
                i = j
                break
        else:
            reason = state.why_illegal(words[i]) or "not legal"
            raise ValueError(f"turn {number}: {words[i]!r}: {reason}")
    return played


# -- the service --------------------------------------------------------------------------


@dataclass
class _GameLock:
    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


@dataclass
class Created:
    """A new game and the tokens handed to its creator."""

    game_id: str
    tokens: dict[int, str]
    invites: dict[int, str]


@dataclass
class Live:
    """A game as this process last stored or read it, valid for ``row.version``.

    The position is kept, not rebuilt: a move costs one clone and one step,
    whatever the game's length.  Only touched under the game's lock.
    """

    row: GameRow
    state: State
    moves: list[MoveRow]
    sealed: dict[int, str]
    """Sealed orders of the current simultaneous turn, by player."""
    move_dicts: list[dict[str, Any]] = field(default_factory=list)
    """``moves`` as the views show them (appended to, never rebuilt)."""
    n_moves: int = -1
    """How many of ``moves``/``move_dicts`` belong to this version (the lists are shared with later
    versions, which append to them): a view built from this object while a later move is being
    stored shows this version's moves only."""

    def __post_init__(self) -> None:
        if not self.move_dicts:
            self.move_dicts = [{"index": m.index, "player": m.player, "move": m.move} for m in self.moves]
        if self.n_moves < 0:
            self.n_moves = len(self.moves)


@dataclass
class _Prepared:
    """A move checked against a cached position, ready to be stored (:meth:`MatchService.play_async`)."""

    seat: int
    row: GameRow
    state: State
    record: MoveRow


@dataclass
class Work:
    """A write in progress (see :meth:`MatchService._write`): change ``row``/``state``/``moves``/``sealed``
    by assignment (``row`` and ``sealed`` are private copies; ``state`` and ``moves`` are shared)."""

    tx: Transaction
    row: GameRow
    state: State
    moves: list[MoveRow]
    sealed: dict[int, str]


class _Stale(Exception):
    """The stored game changed since this process cached it (another process wrote it)."""


class _Unchanged(Exception):
    """A write found nothing to change: its transaction is rolled back."""


class _FlagFirst(Exception):
    """A clock ran out: the flag is stored (in its own transaction) before the request is refused."""


class ParsedRecord(NamedTuple):
    """A record checked and replayed (:meth:`MatchService.parse_record`)."""

    game: Game
    seed: int
    state: State
    played: list[tuple[int, str]]
    """``(player, move)`` in order, joint moves as one entry of player SIMULTANEOUS."""
    names: list[str] | None
    result: dict[str, Any] | None
    """A result the record gives that the rules do not (resign, flag, agreement)."""
    clock: tuple[float, float] | None


def copy_row(row: GameRow) -> GameRow:
    """A copy of ``row`` whose clock, result and seats may be changed freely."""
    return replace(
        row,
        clock=copy.deepcopy(row.clock),
        result=copy.deepcopy(row.result),
        seats=[replace(s) for s in row.seats],
    )


class MatchService:
    """Creates games, checks and stores moves, hands out per-seat views.

    Every active game this process touches is kept in memory (:class:`Live`:
    row, position, moves, sealed orders) at the version stored in its
    ``games`` row.  A write claims the next version with one conditional
    ``UPDATE … WHERE version = cached`` (plus one ``INSERT`` for a move) and
    is acknowledged only after the commit; if another process wrote the game
    meanwhile the update matches no row and the game is read again.  Reads
    check the stored version (one indexed ``SELECT``) before trusting the cache.
    """

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._locks: dict[str, _GameLock] = {}  # only games with a request in flight
        self._locks_guard = threading.Lock()
        self._cache: OrderedDict[str, Live] = OrderedDict()  # most recently used last
        self._cache_guard = threading.Lock()
        self._games: dict[str, Game] = {}
        self._renders: OrderedDict[tuple[str, int, int | None], dict[str, Any]] = OrderedDict()
        self.on_change: Callable[[str], None] = lambda game_id: None
        """Called (from any thread) after a game changed: the app pushes views and wakes the AI."""
        self.presence: Callable[[str], list[bool]] = lambda game_id: []
        """Which seats have a live connection (the WebSocket hub sets this)."""

    # -- plumbing --------------------------------------------------------------------------
    @contextmanager
    def _locked(self, game_id: str) -> Iterator[None]:
        """Serialise this process's requests for one game (the lock is dropped when nobody holds or awaits it)."""
        with self._locks_guard:
            entry = self._locks.get(game_id)
            if entry is None:
                entry = self._locks[game_id] = _GameLock()
            entry.users += 1
        try:
            with entry.lock:
                yield
        finally:
            with self._locks_guard:
                entry.users -= 1
                if entry.users == 0:
                    del self._locks[game_id]

    @contextmanager
    def _locked_now(self, game_id: str) -> Iterator[bool]:
        """:meth:`_locked` without waiting: yields False (and holds nothing) if someone holds the game."""
        with self._locks_guard:
            entry = self._locks.get(game_id)
            if entry is None:
                entry = self._locks[game_id] = _GameLock()
            entry.users += 1
        got = entry.lock.acquire(blocking=False)
        try:
            yield got
        finally:
            if got:
                entry.lock.release()
            with self._locks_guard:
                entry.users -= 1
                if entry.users == 0:
                    del self._locks[game_id]

    def _game(self, spec: str) -> Game:
        """The game object of a stored spec (shared: games are immutable)."""
        g = self._games.get(spec)
        if g is None:
            g = self._games[spec] = tessera.load_game(spec)
        return g

    def _read(self, tx: Transaction, game_id: str, row: GameRow | None = None) -> Live:
        """The game as stored (the only place a position is rebuilt from its moves)."""
        row = row if row is not None else tx.get_game(game_id)
        if row is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        moves = tx.moves(game_id)
        state = replay_moves(self._game(row.spec), row.seed, moves)
        sealed = tx.sealed(game_id, state.move_number()) if state.current_player() == SIMULTANEOUS else {}
        return Live(row, state, moves, sealed)

    def _install(self, live: Live) -> None:
        with self._cache_guard:
            self._cache[live.row.id] = live
            self._cache.move_to_end(live.row.id)
            while len(self._cache) > CACHE_GAMES:
                self._cache.popitem(last=False)

    def _cached(self, game_id: str) -> Live | None:
        with self._cache_guard:
            live = self._cache.get(game_id)
            if live is not None:
                self._cache.move_to_end(game_id)
            return live

    def _live(self, game_id: str, *, check: bool = True) -> Live:
        """The game (call under its lock): from memory, checked against the stored version when ``check``."""
        live = self._cached(game_id)
        if live is not None and not check:
            return live
        with self.storage.transaction() as tx:
            if live is not None:
                stored = tx.version(game_id)
                if stored == live.row.version:
                    return live
                if stored is None:
                    raise ServiceError(404, f"there is no game {game_id!r}")
            live = self._read(tx, game_id)
        self._install(live)
        return live

    def _fresh(self, live: Live) -> bool:
        """Whether ``live`` is still the stored version."""
        with self.storage.transaction() as tx:
            return tx.version(live.row.id) == live.row.version

    @contextmanager
    def _write(self, game_id: str) -> Iterator[Work]:
        """One change of a game, under its lock: the stored version is claimed first (from the cached
        version, or by reading the game again if another process changed it); the block changes the
        ``Work``; the new state is kept in memory only once the transaction has committed."""
        with self._locked(game_id):
            live = self._cached(game_id)
            with self.storage.transaction(write=True) as tx:
                if live is not None and tx.bump_version(game_id, live.row.version):
                    row = copy_row(live.row)
                    row.version += 1
                else:
                    locked = tx.lock_game(game_id)  # bumps the version: serialises writers of this game
                    if locked is None:
                        raise ServiceError(404, f"there is no game {game_id!r}")
                    live = self._read(tx, game_id, locked)
                    row = copy_row(live.row)
                work = Work(tx, row, live.state, live.moves, dict(live.sealed))
                yield work
                tx.changed(game_id)
            self._install(Live(work.row, work.state, work.moves, work.sealed))

    @staticmethod
    def _seat_of(row: GameRow, token: str | None, *, required: bool = True) -> int | None:
        if not token:
            if required:
                raise ServiceError(401, "a seat token is needed for this (you are watching as a spectator)")
            return None
        given = token.encode("utf-8", "surrogatepass")  # any text: compare_digest refuses non-ASCII str
        for s in row.seats:
            if secrets.compare_digest(s.token.encode("ascii"), given):
                return s.seat
        raise ServiceError(403, f"this token does not hold a seat in game {row.id}")

    @staticmethod
    def _flagged(row: GameRow, now: float) -> bool:
        """Whether a running clock of an active game has run out."""
        if row.status != "active" or row.clock is None:
            return False
        return any(
            (row.clock["since"][p] is not None and clock_left(row.clock, p, now) <= 0)
            or (clock_first_left(row.clock, p, now) or 1.0) <= 0  # no first move in time: abort
            for p in range(len(row.clock["remaining"]))
        )

    def _enforce_clock(self, w: Work, now: float) -> bool:
        """Store what a running clock that ran out means; True if that ended the game.

        In a game whose rules let the others play on (four-player Nymbat) the flagged
        player resigns and the game may go on (False, though the game changed).
        """
        row = w.row
        if not self._flagged(row, now):
            return False
        assert row.clock is not None
        late = [p for p in range(len(row.clock["remaining"])) if (clock_first_left(row.clock, p, now) or 1.0) <= 0]
        if late:  # lichess-style: a game without a first move in time is aborted, without a result
            for p in range(len(row.clock["since"])):
                clock_stop(row.clock, p, now, turn_done=False)
            row.result = abort_result(w.state.game, late[0])
            row.status = "finished"
            w.tx.update_game(row.id, status="finished", result=row.result, clock=row.clock, undo_request=None)
            w.tx.delete_sealed(row.id)
            w.sealed = {}
            return True
        clock = row.clock
        out = [p for p in range(len(clock["remaining"])) if clock["since"][p] is not None]
        flagged = [p for p in out if clock_left(clock, p, now) <= 0]
        if can_resign_and_play_on(w.state):
            return self._flag_and_play_on(w, flagged, now)
        loser = min(flagged, key=lambda p: clock_left(clock, p, now))
        for p in out:
            clock_stop(clock, p, now, turn_done=False)
        clock["remaining"] = [max(0.0, r) for r in clock["remaining"]]
        row.result = forfeit_result(w.state.game, loser, "flag")
        row.status = "finished"
        w.tx.update_game(row.id, status="finished", result=row.result, clock=row.clock, undo_request=None)
        w.tx.delete_sealed(row.id)
        w.sealed = {}
        return True

    def _flag(self, game_id: str) -> bool:
        """Store a flag (a running clock ran out) in its own transaction; True if that ended the game."""
        try:
            with self._write(game_id) as w:
                now = time.time()
                if not self._flagged(w.row, now):
                    raise _Unchanged
                ended = self._enforce_clock(w, now)
        except _Unchanged:
            return False
        self.on_change(game_id)
        return ended

    # -- create / join ---------------------------------------------------------------------
    def create(
        self,
        game: str,
        params: dict[str, Any] | None = None,
        *,
        mode: str = "hotseat",
        seat: int = 0,
        ai_level: int = 2,
        clock: tuple[float, float] | None = None,
        seed: int | None = None,
        names: list[str] | None = None,
        public: bool = True,
        seat_kinds: list[Any] | None = None,
    ) -> Created:
        """A new game; returns the creator's tokens (every human seat in hot-seat) and invite tokens.

        ``seat_kinds`` chooses every seat at once (any number of players, any mix):
        ``{"kind": "here"}`` a human at this screen (hot-seat: his token goes to
        the creator), ``{"kind": "invite"}`` a human invited by link (an invite
        token per seat), ``{"kind": "ai", "level": 3}`` the computer; each may
        carry a ``"name"``.  ``mode`` then follows from the mix: ``online`` with
        an invitee, else ``ai`` with an AI seat, else ``hotseat``.
        """
        kinds: list[tuple[str, int | None, str]] = []
        if seat_kinds is not None:
            mode, kinds = _seat_plan(seat_kinds)
        if mode not in MODES:
            raise ServiceError(
                422, f"mode {_short(str(mode), 40)!r} is not accepted: expected one of {', '.join(MODES)}"
            )
        try:
            g = load_checked(game, params)
        except ValueError as e:
            raise ServiceError(422, _short(str(e), 1000)) from None
        n = g.num_players
        if seat_kinds is not None and len(kinds) != n:
            raise ServiceError(422, f"seats: {g} has {n} seats, but {len(kinds)} were given")
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise ServiceError(422, f"seat {seat!r} is not accepted: expected 0 to {n - 1}")
        if not isinstance(ai_level, int) or not 1 <= ai_level <= 5:
            raise ServiceError(422, f"ai_level {ai_level!r} is not accepted: expected 1 to 5")
        if clock is not None:
            initial, inc = clock
            if not (0 < initial <= 24 * 3600) or not (0 <= inc <= 3600):
                raise ServiceError(422, "clock: time per game must be 1 s to 24 h and increment 0 to 3600 s")
        seed = secrets.randbelow(2**31) if seed is None else check_seed(seed)
        default_names = list(g.player_names)
        seats: list[SeatRow] = []
        for i in range(n):
            kind = "ai" if mode == "ai" and i != seat else "human"
            claimed = kind == "ai" or mode == "hotseat" or i == seat
            level: int | None = ai_level
            if seat_kinds is not None:
                kind = "ai" if kinds[i][0] == "ai" else "human"
                claimed = kinds[i][0] != "invite"
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
            params=g.params,
            seed=seed,
            mode=mode,
            status="active",
            public=bool(public),
            result=None,
            clock=clock_new(clock[0], clock[1], n) if clock else None,
            undo_request=None,
            version=0,
            created_at=now,
            updated_at=now,
            seats=seats,
        )
        g = self._games.setdefault(row.spec, g)  # one game object per spec: its board geometry is computed once
        state = g.new_initial_state(seed=seed)
        if row.clock is not None and all(s.claimed for s in seats):
            clock_start(row.clock, movers(state), now)
        with self.storage.transaction(write=True) as tx:
            tx.insert_game(row)
            tx.changed(row.id)
        self._install(Live(copy_row(row), state, [], {}))
        if mode == "hotseat":
            tokens = {s.seat: s.token for s in seats}
        elif seat_kinds is not None:  # every seat played at this screen
            tokens = {s.seat: s.token for s in seats if s.kind == "human" and s.claimed}
        else:
            tokens = {seat: seats[seat].token}
        invites = {s.seat: s.token for s in seats if s.kind == "human" and not s.claimed}
        self.on_change(row.id)
        return Created(row.id, tokens, invites)

    def join(self, game_id: str) -> tuple[int, str]:
        """Take the open seat of an online game (from the lobby); its token."""
        with self._write(game_id) as w:
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
            w.tx.claim_seat(row.id, s.seat)
            s.claimed = True
            self._maybe_start_clock(w)
        self.on_change(game_id)
        return s.seat, s.token

    def _maybe_start_clock(self, w: Work) -> None:
        row = w.row
        if row.clock is None or not all(s.claimed for s in row.seats):
            return
        if any(v is not None for v in row.clock["since"]):
            return
        clock_start(row.clock, [p for p in movers(w.state) if p not in w.sealed], time.time())
        w.tx.update_game(row.id, clock=row.clock)

    # -- reading ---------------------------------------------------------------------------
    def view(self, game_id: str, token: str | None = None, *, trust_cache: bool = False) -> dict[str, Any]:
        """What the holder of ``token`` (None: a spectator) sees of the game.

        ``trust_cache``: skip the check of the stored version (the hub, right after this process's
        own change; a change by another process is announced separately).
        """
        with self._locked(game_id):
            live = self._live(game_id, check=not trust_cache)
            seat = self._seat_of(live.row, token, required=False)
            claim = seat is not None and not live.row.seats[seat].claimed
            flag = self._flagged(live.row, time.time())
        if not (claim or flag):
            with self._locked(game_id):
                return self._view(self._live(game_id, check=False), seat)
        try:
            with self._write(game_id) as w:
                changed = self._flagged(w.row, time.time())
                self._enforce_clock(w, time.time())
                if seat is not None and not w.row.seats[seat].claimed:
                    w.tx.claim_seat(game_id, seat)
                    w.row.seats[seat].claimed = True
                    self._maybe_start_clock(w)
                    changed = True
                if not changed:
                    raise _Unchanged
        except _Unchanged:
            pass
        else:
            self.on_change(game_id)
        with self._locked(game_id):
            return self._view(self._live(game_id, check=False), seat)

    def cached_view(self, game_id: str, token: str | None) -> dict[str, Any] | None:
        """:meth:`view` straight from memory, without waiting for any lock (for the event loop, right
        after this process's own change); None when that is not enough (the game is not in memory,
        or the view would claim a seat or enforce a clock): then call :meth:`view` in a thread."""
        live = self._cached(game_id)
        if live is None:
            return None
        seat = self._seat_of(live.row, token, required=False)
        if (seat is not None and not live.row.seats[seat].claimed) or self._flagged(live.row, time.time()):
            return None
        return self._view(live, seat)

    def _render(self, live: Live, seat: int | None) -> dict[str, Any]:
        """The render description ``seat`` sees (cached for this version)."""
        key = (live.row.id, live.row.version, seat)
        with self._cache_guard:
            cached = self._renders.get(key)
        if cached is not None:
            return cached
        row, state, sealed = live.row, live.state, live.sealed
        cp = state.current_player()
        shown = state
        if cp == SIMULTANEOUS and sealed and len(sealed) < state.game.num_players and hasattr(state, "submit"):
            shown = state.clone()  # let the game itself mark the sealed orders (it hides the other's)
            for p, o in sorted(sealed.items()):
                shown.submit(o, p)
        render = shown.render(seat)
        if seat is None or row.status != "active":
            render["actions"] = []
        if row.status != "active" and row.result is not None:
            render["result"] = row.result
            render["status"] = row.result["text"]
        order = render.get("order")
        if cp == SIMULTANEOUS:
            if isinstance(order, dict) and seat is not None:
                order["submitted"] = seat in sealed
                order["pending"] = sealed.get(seat)
                order["opponent_submitted"] = any(p in sealed for p in range(len(row.seats)) if p != seat)
                if seat in sealed or row.status != "active":
                    render["actions"] = []
                    order["units"] = [] if row.status != "active" else order.get("units", [])
            elif isinstance(order, dict):
                render["order"] = None
        with self._cache_guard:
            self._renders[key] = render
            while len(self._renders) > RENDER_CACHE:
                self._renders.popitem(last=False)
        return render

    def _view(self, live: Live, seat: int | None) -> dict[str, Any]:
        row, state, sealed = live.row, live.state, live.sealed
        cp = state.current_player()
        presence = self.presence(row.id)
        return {
            "id": row.id,
            "game": row.game,
            "title": self._render(live, seat).get("title", row.game),
            "spec": row.spec,
            "params": row.params,
            "seed": row.seed,
            "mode": row.mode,
            "status": row.status,
            "public": row.public,
            "you": seat,
            "seats": [
                {
                    "seat": s.seat,
                    "name": s.name,
                    "kind": s.kind,
                    "level": s.level,
                    "claimed": s.claimed,
                    "connected": s.kind == "ai" or (s.seat < len(presence) and presence[s.seat]),
                }
                for s in row.seats
            ],
            "version": row.version,
            "move_number": state.move_number(),
            "to_move": cp if row.status == "active" else TERMINAL,
            "sealed": [p in sealed for p in range(len(row.seats))] if cp == SIMULTANEOUS else None,
            "moves": live.move_dicts[: live.n_moves],
            "result": row.result,
            "clock": clock_public(row.clock, time.time()),
            "undo_request": row.undo_request,
            "undo_waiting": None if row.undo_request is None else self._undo_waiting(row, live.moves),
            "draw_offer": row.draw_offer if row.status == "active" else None,
            "draws": draws_possible(state.game) is None,
            "render": self._render(live, seat),
        }

    def needs(self, game_id: str) -> tuple[bool, bool]:
        """Whether the game has AI seats and whether it has a clock (both True when not in memory)."""
        live = self._cached(game_id)
        if live is None:
            return True, True
        return any(s.kind == "ai" for s in live.row.seats), live.row.clock is not None

    def version(self, game_id: str) -> int:
        """The game's stored version (``ServiceError`` 404 if there is no such game)."""
        with self.storage.transaction() as tx:
            v = tx.version(game_id)
        if v is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        return v

    def position(self, game_id: str, n: int) -> dict[str, Any]:
        """The spectator's picture after the first ``n`` moves (the replay browser)."""
        with self.storage.transaction() as tx:
            row = tx.get_game(game_id)
            if row is None:
                raise ServiceError(404, f"there is no game {game_id!r}")
            moves = tx.moves(game_id)
        if not 0 <= n <= len(moves):
            raise ServiceError(422, f"move number {n} is out of range: the game has {len(moves)} moves")
        state = replay_moves(self._game(row.spec), row.seed, moves[:n])
        render = state.render(None)
        render["actions"] = []
        if isinstance(render.get("order"), dict):
            render["order"] = None
        if n == len(moves) and row.result is not None:
            render["result"] = row.result
            render["status"] = row.result["text"]
        return render

    def list_games(self, status: str | None = "open") -> list[dict[str, Any]]:
        """The lobby: open online games (a seat free), or recent public games by status."""
        with self.storage.transaction() as tx:
            rows = tx.list_games(status=None if status in (None, "open") else status)
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
                    "clock": None
                    if r.clock is None
                    else {"initial": r.clock["initial"], "increment": r.clock["increment"]},
                    "created_at": r.created_at,
                }
            )
        return out

    # -- moves -----------------------------------------------------------------------------
    def play(
        self,
        game_id: str,
        token: str | None,
        move: str,
        expected: int | None,
        *,
        view: bool = True,
        _flag_stored: bool = False,
    ) -> dict[str, Any]:
        """Submit a move (or at a simultaneous node, seal an order) for the token's seat.

        The answer is the seat's new view, or with ``view`` False only the acknowledgement
        (:meth:`_ack`).

        The move is checked against the position in memory; storing it is one conditional
        ``UPDATE`` of the game's version and one ``INSERT``, acknowledged after the commit.
        A refusal is only given once the cached game is known to be the stored one.
        """
        move = self._checked_input(move, expected)
        assert expected is not None
        flagged = False
        with self._locked(game_id):
            live = self._live(game_id, check=False)
            for attempt in range(3):
                try:
                    if self._flagged(live.row, time.time()):
                        flagged = True
                        break
                    out, changed = self._try_play(live, token, move, expected, view)
                except _Stale:
                    live = self._live(game_id, check=True)
                    continue
                except ServiceError:
                    if attempt == 0 and not self._fresh(live):
                        live = self._live(game_id, check=True)
                        continue
                    raise
                except Conflict as e:
                    raise ServiceError(409, f"stale move: another move was stored first ({e})") from None
                break
            else:
                raise ServiceError(409, "stale move: the game kept changing; send it again")
        if flagged:
            self._flag(game_id)
            with self._locked(game_id):
                row = self._live(game_id, check=False).row
            if row.status == "active" and not _flag_stored:  # the flagged player resigned; the others play on
                return self.play(game_id, token, move, expected, view=view, _flag_stored=True)
            raise ServiceError(409, "the game is over" + (f": {row.result['text']}" if row.result else ""))
        if changed:
            self.on_change(game_id)
        return out

    @staticmethod
    def _checked_input(move: object, expected: int | None) -> str:
        """The move text, stripped, if the request is well formed."""
        if not isinstance(move, str) or not move.strip():
            raise ServiceError(422, "the move is empty")
        if len(move) > MAX_MOVE_CHARS:
            raise ServiceError(422, f"the move is too long: {len(move)} characters (at most {MAX_MOVE_CHARS})")
        if expected is None:
            raise ServiceError(422, "expected (the move number the move is for) is required")
        return move.strip()

    async def play_async(
        self, game_id: str, token: str | None, move: str, expected: int | None, *, view: bool = True
    ) -> dict[str, Any]:
        """:meth:`play` for the event loop: the same checks, answers and guarantees, but at most
        the database transaction runs in a worker thread.

        The move is checked and the answer built on the loop against the game in memory, then
        stored (the game's lock, its version claimed by the conditional ``UPDATE``, one
        ``INSERT``, the commit) and acknowledged after the commit.  The transaction is awaited in
        a worker thread (PostgreSQL: network round trips; SQLite ``synchronous=FULL``: a disk
        flush), except on an SQLite file in ``NORMAL`` mode when nothing has to be waited for:
        its commit is a write into the log (about 0.05 ms), cheaper than the trip to a thread,
        so it is done on the loop (:meth:`Storage.append_move_now`).  If the game in memory
        turns out stale (another request or process changed it), it is read again and the move
        checked again.  Games not in memory, sealed orders and running-out clocks take the
        synchronous path (:meth:`play`) in a thread.
        """
        from anyio.to_thread import run_sync

        move = self._checked_input(move, expected)
        assert expected is not None
        live = self._cached(game_id)
        for attempt in range(3):
            if live is None or self._flagged(live.row, time.time()):
                return await run_sync(partial(self.play, game_id, token, move, expected, view=view))
            try:
                prepared = self._prepare_move(live, token, move, expected)
            except ServiceError:
                if attempt == 0 and not await run_sync(self._fresh, live):
                    live = await run_sync(self._reload, game_id)
                    continue
                raise
            if prepared is None:  # a sealed order: the synchronous path stores those
                return await run_sync(partial(self.play, game_id, token, move, expected, view=view))
            if isinstance(prepared, int):
                return self._answer(live, prepared, view)  # a duplicate of the accepted move
            try:
                new = self._commit_move_now(live, prepared)
                if new is None and self.storage.writes_now:
                    new = await self._commit_move_soon(live, prepared)
                if new is None:
                    new = await run_sync(self._commit_move, live, prepared)
            except _Stale:
                live = await run_sync(self._reload, game_id)
                continue
            except Conflict as e:
                raise ServiceError(409, f"stale move: another move was stored first ({e})") from None
            answer = self._answer(new, prepared.seat, view)
            self.on_change(game_id)
            return answer
        raise ServiceError(409, "stale move: the game kept changing; send it again")

    async def _commit_move_soon(self, live: Live, p: _Prepared) -> Live | None:
        """:meth:`_commit_move_now` again and again while something else is writing (another
        thread of this process: a new game, an AI move; or another process), waiting on the event
        loop between tries, longer and longer (0.25 ms doubling to 8 ms), for at most
        :data:`LOOP_COMMIT_PATIENCE` seconds; None if it never could.

        Why not hand the move to a worker thread at once: a thread's transaction holds the write
        lock while it waits for the interpreter lock (GIL) several times, so it holds it for
        milliseconds under load, and every move that found the lock taken went to a thread too;
        measured: after a few seconds of load nearly every move took the thread path, at about
        twice the CPU per move."""
        wait, waited = 0.00025, 0.0
        while waited < LOOP_COMMIT_PATIENCE:
            await asyncio.sleep(wait)
            waited += wait
            wait = min(wait * 2, 0.008)
            new = self._commit_move_now(live, p)
            if new is not None:
                return new
        return None

    def _reload(self, game_id: str) -> Live | None:
        """The game checked against the stored version (read again if it changed), under its lock."""
        with self._locked(game_id):
            return self._live(game_id, check=True)

    def _prepare_move(self, live: Live, token: str | None, move: str, expected: int) -> _Prepared | int | None:
        """Check ``move`` against ``live`` without storing it: the move and its new position, the
        sender's seat if it is a duplicate of the move just accepted, or None at a simultaneous
        node (an order to seal)."""
        row, state = live.row, live.state
        seat = self._seat_of(row, token)
        assert seat is not None
        if expected == state.move_number() - 1 and self._is_retry(live.moves[: live.n_moves], state, seat, move):
            return seat
        if row.status != "active":
            raise ServiceError(409, "the game is over" + (f": {row.result['text']}" if row.result else ""))
        n = state.move_number()
        cp = state.current_player()
        if expected != n:
            raise ServiceError(409, f"stale move: it was sent for move number {expected}, but the game is at move {n}")
        if cp == SIMULTANEOUS:
            return None
        if cp != seat:
            raise ServiceError(
                409, f"it is not your turn: {_names(state.game)[cp]} (seat {cp}) is to move, you hold seat {seat}"
            )
        try:
            action = state.string_to_action(move)
        except IllegalMove as e:
            raise ServiceError(400, str(e)) from None
        normal = state.action_to_string(action)
        new = state.clone()
        try:
            new.play(move)
        except IllegalMove as e:
            raise ServiceError(400, str(e)) from None
        nrow = copy_row(row)
        self._after_move(nrow, new, [cp], time.time())
        return _Prepared(seat, nrow, new, MoveRow(n, cp, normal))

    def _commit_move(self, live: Live, p: _Prepared) -> Live:
        """Store a prepared move (in a worker thread): ``_Stale`` if the game changed since ``live``."""
        game_id = live.row.id
        with self._locked(game_id):
            if self._cached(game_id) is not live:
                raise _Stale
            new = self._store_move(live, p)
            assert new is not None
            return new

    def _commit_move_now(self, live: Live, p: _Prepared) -> Live | None:
        """:meth:`_commit_move` on the calling thread (the event loop) if nothing has to be waited
        for (see :meth:`Storage.append_move_now`); None if something would have to be."""
        if not self.storage.writes_now:
            return None
        game_id = live.row.id
        with self._locked_now(game_id) as got:
            if not got:
                return None
            if self._cached(game_id) is not live:
                raise _Stale
            return self._store_move(live, p, now=True)

    def _store_move(self, live: Live, p: _Prepared, *, now: bool = False) -> Live | None:
        """One conditional ``UPDATE`` and one ``INSERT``, committed; then the new version in memory
        (call under the game's lock).  ``now``: only if the transaction can begin without waiting
        (else None, nothing done)."""
        row, nrow = live.row, p.row
        if now:
            claim = None if nrow.seats[p.seat].claimed else p.seat
            done = self.storage.append_move_now(
                row.id, row.version, self._columns(nrow), (p.record.index, p.record.player, p.record.move), claim
            )
            if done is None:
                return None
            if not done:
                raise _Stale
            if claim is not None:
                nrow.seats[p.seat].claimed = True
            nrow.version += 1
            return self._advance_live(live, nrow, p.state, p.record, {})
        with self.storage.transaction(write=True) as tx:
            if not tx.bump_version(row.id, row.version, **self._columns(nrow)):
                raise _Stale
            if not nrow.seats[p.seat].claimed:
                tx.claim_seat(row.id, p.seat)
                nrow.seats[p.seat].claimed = True
            tx.insert_move(row.id, p.record.index, p.record.player, p.record.move)
            tx.changed(row.id)
        nrow.version += 1
        return self._advance_live(live, nrow, p.state, p.record, {})

    def _try_play(
        self, live: Live, token: str | None, move: str, expected: int, view: bool
    ) -> tuple[dict[str, Any], bool]:
        """Check and store one move against ``live`` (the answer, and whether the game changed)."""
        prepared = self._prepare_move(live, token, move, expected)
        if isinstance(prepared, int):
            return self._answer(live, prepared, view), False  # a duplicate of the accepted move
        if prepared is None:
            seat = self._seat_of(live.row, token)
            assert seat is not None
            after, changed = self._seal(live, seat, move)
            return self._answer(after, seat, view), changed
        new = self._store_move(live, prepared)
        assert new is not None
        return self._answer(new, prepared.seat, view), True

    def _answer(self, live: Live, seat: int, view: bool) -> dict[str, Any]:
        """What the sender of a move gets back: his view, or with ``view`` False the acknowledgement
        alone (:meth:`_ack`)."""
        return self._view(live, seat) if view else self._ack(live, seat)

    def _ack(self, live: Live, seat: int) -> dict[str, Any]:
        """The acknowledgement of a stored move (or sealed order): the game's new version, move
        number, who is to move, status and result, and the last stored move.  The fields are those
        of the view (:meth:`_view`) without its position and history: a client that follows the
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

    def _advance_live(
        self, live: Live, row: GameRow, state: State, record: MoveRow | None, sealed: dict[int, str]
    ) -> Live:
        """Keep the committed change in memory: the moves lists grow in place (``live`` keeps showing
        its own ``n_moves``), unless ``live`` is not their latest version (then they are copied)."""
        moves, dicts = live.moves, live.move_dicts
        if len(moves) != live.n_moves or len(dicts) != live.n_moves:
            moves, dicts = moves[: live.n_moves], dicts[: live.n_moves]
        if record is not None:
            moves.append(record)
            dicts.append({"index": record.index, "player": record.player, "move": record.move})
        new = Live(row, state, moves, sealed, dicts)
        self._install(new)
        return new

    @staticmethod
    def _columns(row: GameRow) -> dict[str, Any]:
        """The columns a move may change."""
        return {
            "clock": row.clock,
            "status": row.status,
            "result": row.result,
            "undo_request": row.undo_request,
            "draw_offer": row.draw_offer,
        }

    @staticmethod
    def _is_retry(moves: list[MoveRow], state: State, seat: int, move: str) -> bool:
        """Whether ``move`` by ``seat`` is the move just stored (or his order in the joint move just resolved)."""
        if not moves:
            return False
        last = moves[-1]
        if last.player == SIMULTANEOUS:
            parts = last.move.split(" | ")
            return seat < len(parts) and parts[seat] == move
        return last.player == seat and last.move == move

    def _seal(self, live: Live, seat: int, order: str) -> tuple[Live, bool]:
        """Seal ``seat``'s order (resolving the turn once every order is in): the game after it, and
        whether it changed (False: the same order was sealed already)."""
        row, state = live.row, live.state
        n = state.move_number()
        sealed = dict(live.sealed)
        if seat in sealed:
            if sealed[seat] == order:
                return live, False
            raise ServiceError(409, "your order for this turn is already sealed")
        reason = state.why_illegal(order, seat)
        if reason is not None:
            raise ServiceError(400, reason)
        sealed[seat] = order
        now = time.time()
        nrow = copy_row(row)
        nrow.undo_request = None
        if nrow.draw_offer is not None and nrow.draw_offer != seat:
            nrow.draw_offer = None  # the offerer's opponent gave his order instead of answering: the offer lapses
        if nrow.clock is not None:
            clock_stop(nrow.clock, seat, now, turn_done=True)
        new, record = state, None
        if len(sealed) == state.game.num_players:
            new = state.clone()
            try:
                new.play_joint([sealed[p] for p in range(state.game.num_players)])
            except IllegalMove as e:  # each order was checked alone: a joint refusal would be a bug in the game
                # the message may quote the opponent's sealed order: it stays in the log, not in the answer
                log.error("game %s: sealed orders %r could not be resolved: %s", row.id, sealed, e)
                raise ServiceError(
                    409, "the sealed orders could not be resolved together; the turn is still open"
                ) from None
            record = MoveRow(n, SIMULTANEOUS, new.history()[-1][1])
            self._after_move(nrow, new, [], now)
        with self.storage.transaction(write=True) as tx:
            if not tx.bump_version(row.id, row.version, **self._columns(nrow)):
                raise _Stale
            if not nrow.seats[seat].claimed:
                tx.claim_seat(row.id, seat)
                nrow.seats[seat].claimed = True
            tx.insert_sealed(row.id, n, seat, order)
            if record is not None:
                tx.insert_move(row.id, n, SIMULTANEOUS, record.move)
                tx.delete_sealed(row.id)
            tx.changed(row.id)
        nrow.version += 1
        return self._advance_live(live, nrow, new, record, {} if record is not None else sealed), True

    @staticmethod
    def _after_move(row: GameRow, new: State, stepped: list[int], now: float) -> None:
        """Clocks, result and status after an accepted move (``row`` is changed; the caller stores it)."""
        if row.clock is not None:
            nxt = movers(new)
            for p in stepped:
                clock_stop(row.clock, p, now, turn_done=p not in nxt)
            if new.is_terminal():
                for p in range(len(row.clock["since"])):
                    clock_stop(row.clock, p, now, turn_done=False)
            elif all(s.claimed for s in row.seats):
                clock_start(row.clock, nxt, now)
        if not stepped or any(row.seats[p].kind != "ai" for p in stepped):
            row.undo_request = None  # a move lets a pending undo request lapse (an AI seat's move does not)
        if row.draw_offer is not None and any(p != row.draw_offer for p in stepped or [SIMULTANEOUS]):
            row.draw_offer = None  # the offerer's opponent moved (or a joint turn was resolved): the offer lapses
        if new.is_terminal():
            row.status = "finished"
            row.result = rules_result(new)

    def resign(self, game_id: str, token: str | None, *, _flag_stored: bool = False) -> dict[str, Any]:
        """The token's seat gives up: the other player wins.

        In a game of more than two players whose rules let the others play on
        (four-player Nymbat: ``state.resign``), the resignation is stored as the
        seat's move ``resign``: his pieces leave the board, he passes from then
        on, and the game ends only when the rules end it (the last one left wins).
        """
        flagged = False
        seat: int | None = None
        try:
            with self._write(game_id) as w:
                seat = self._seat_of(w.row, token)
                assert seat is not None
                if self._flagged(w.row, time.time()):
                    flagged = True
                    raise _Unchanged  # the flag is stored first, in its own transaction
                if w.row.status != "active":
                    raise ServiceError(409, "the game is over")
                row = w.row
                if can_resign_and_play_on(w.state):
                    self._resign_and_play_on(w, seat)
                else:
                    if row.clock is not None:
                        for p in range(len(row.clock["since"])):
                            clock_stop(row.clock, p, time.time(), turn_done=False)
                    row.result = forfeit_result(w.state.game, seat, "resign")
                    row.status = "finished"
                    row.undo_request = None
                    w.tx.update_game(game_id, status="finished", result=row.result, clock=row.clock, undo_request=None)
                    w.tx.delete_sealed(game_id)
                    w.sealed = {}
        except _Unchanged:
            pass
        if flagged:
            self._flag(game_id)
            with self._locked(game_id):
                still = self._live(game_id, check=False).row.status == "active"
            if still and not _flag_stored:  # another player's flag: the game goes on
                return self.resign(game_id, token, _flag_stored=True)
            raise ServiceError(409, "the game is over")
        self.on_change(game_id)
        with self._locked(game_id):
            return self._view(self._live(game_id, check=False), seat)

    def _flag_and_play_on(self, w: Work, flagged: list[int], now: float) -> bool:
        """A player out of time in a game whose rules let the others play on: he resigns (stored as
        his ``resign``) and the game goes on; True only if that ended it (the last one left wins)."""
        row = w.row
        assert row.clock is not None
        new = w.state.clone()
        n = w.state.move_number()
        added: list[MoveRow] = []
        for p in flagged:
            new.resign(p)  # type: ignore[attr-defined]
            w.tx.insert_move(row.id, n, p, RESIGN)
            added.append(MoveRow(n, p, RESIGN))
            n += 1
            if new.is_terminal():
                break
        self._after_move(row, new, flagged, now)
        for p in flagged:
            row.clock["remaining"][p] = 0.0
        w.tx.update_game(row.id, **self._columns(row))
        w.moves = [*w.moves, *added]
        w.state = new
        return new.is_terminal()

    def _resign_and_play_on(self, w: Work, seat: int) -> None:
        """Store the seat's ``resign`` as a move; clocks and result follow as after any move."""
        new = w.state.clone()
        try:
            new.resign(seat)  # type: ignore[attr-defined]
        except IllegalMove as e:
            raise ServiceError(409, str(e)) from None
        n = w.state.move_number()
        w.tx.insert_move(w.row.id, n, seat, RESIGN)
        w.moves = [*w.moves, MoveRow(n, seat, RESIGN)]
        self._after_move(w.row, new, [seat], time.time())
        w.tx.update_game(w.row.id, **self._columns(w.row))
        w.state = new

    # -- undo ------------------------------------------------------------------------------
    def _refuse_if_over(self, w: Work, message: str) -> None:
        """409 if the game is over (a clock that ran out is stored first, after this refusal)."""
        if self._flagged(w.row, time.time()):
            raise _FlagFirst
        if w.row.status != "active":
            raise ServiceError(409, message)

    def _guarded(self, game_id: str, message: str, body: Callable[[Work], int | None]) -> dict[str, Any]:
        """Run a write; if a clock ran out, store the flag instead and refuse with ``message``."""
        for attempt in range(2):
            try:
                with self._write(game_id) as w:
                    self._refuse_if_over(w, message)
                    seat = body(w)
                break
            except _FlagFirst:
                if not self._flag(game_id) and attempt == 0:
                    continue  # another player's flag in a game that goes on without him
                raise ServiceError(409, message) from None
        self.on_change(game_id)
        with self._locked(game_id):
            return self._view(self._live(game_id, check=False), seat)

    def undo(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Take back the seat's last move: at once in hot-seat and against the AI, else ask the others.

        Online, the move is taken back once every other human seat still in the game
        has accepted (AI seats agree by themselves; with two players that is the
        opponent).  With more than two seats only the AI seats' moves may be taken
        back along with it, and a resignation is never taken back
        (:meth:`_undo_target`; docs/http-api.md, "Taking back a move").
        """

        def body(w: Work) -> int | None:
            seat = self._seat_of(w.row, token)
            assert seat is not None
            row = w.row
            if row.mode == "online" and row.undo_request is not None and row.undo_request != seat:
                if len(row.seats) == 2:
                    raise ServiceError(409, "your opponent has asked to take back a move: accept or decline it")
                asker = row.seats[row.undo_request].name
                raise ServiceError(409, f"{asker} has asked to take back a move: that request is answered first")
            target = self._undo_target(row, w.moves, seat)
            if row.mode in ("hotseat", "ai"):
                self._take_back(w, target)
            elif row.undo_request is None:
                row.undo_request, row.undo_agreed = seat, 0
                if self._undo_waiting(row, w.moves):
                    w.tx.update_game(game_id, undo_request=seat, undo_agreed=0)
                else:  # no other human seat has a say (the others are AI seats, resigned or not yet taken)
                    self._take_back(w, target)
            return seat

        with self._locked(game_id):  # the token is checked before the clock (a stranger learns nothing)
            self._seat_of(self._live(game_id, check=False).row, token)
        return self._guarded(game_id, "the game is over: moves can no longer be taken back", body)

    @staticmethod
    def _undo_target(row: GameRow, moves: list[MoveRow], seat: int) -> int:
        """The index of the first move an undo by ``seat`` takes back (409 with the reason if none may be).

        Hot-seat: the last move, whoever made it; otherwise the seat's last move and
        every move after it.  A resignation (also a player out of time, stored as his
        ``resign``) is never taken back, and a player who has resigned has nothing
        to take back.  Online with more than two seats, only AI seats may have moved
        since (another human's move is his, not the requester's, to take back).
        """
        if any(m.player == seat and m.move == RESIGN for m in moves):
            raise ServiceError(409, "you have resigned: you have no move to take back")
        if row.mode == "hotseat":
            if not moves:
                raise ServiceError(409, "there is no move to take back")
            target = moves[-1].index
        else:
            for m in reversed(moves):
                if m.player in (seat, SIMULTANEOUS):
                    target = m.index
                    break
            else:
                raise ServiceError(409, "you have no move to take back")
        for m in moves[target:]:
            if m.move == RESIGN:
                name = row.seats[m.player].name if 0 <= m.player < len(row.seats) else "a player"
                raise ServiceError(409, f"{name} has resigned since: a resignation is never taken back")
            if (
                row.mode == "online"
                and len(row.seats) > 2
                and m.player not in (seat, SIMULTANEOUS)
                and row.seats[m.player].kind != "ai"
            ):
                raise ServiceError(
                    409, f"{row.seats[m.player].name} has moved since your move: it can no longer be taken back"
                )
        return target

    @staticmethod
    def _undo_waiting(row: GameRow, moves: list[MoveRow]) -> list[int]:
        """The seats whose answer the pending undo request still needs: every human seat other than
        the requester's that is taken, has not resigned and has not accepted yet."""
        if row.undo_request is None:
            return []
        resigned = {m.player for m in moves if m.move == RESIGN}
        return [
            s.seat
            for s in row.seats
            if s.kind == "human"
            and s.claimed
            and s.seat != row.undo_request
            and s.seat not in resigned
            and not row.undo_agreed >> s.seat & 1
        ]

    def _take_back(self, w: Work, target: int) -> None:
        row = w.row
        w.tx.delete_moves_from(row.id, target)
        w.tx.delete_sealed(row.id)
        w.moves = w.moves[:target]
        w.state = replay_moves(w.state.game, row.seed, w.moves)
        w.sealed = {}
        row.undo_request = None
        row.undo_agreed = 0
        if row.clock is not None:
            now = time.time()
            for p in range(len(row.clock["since"])):
                clock_stop(row.clock, p, now, turn_done=False)
            clock_start(row.clock, movers(w.state), now)
        w.tx.update_game(row.id, undo_request=None, undo_agreed=0, clock=row.clock)

    def answer_undo(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """Another player accepts or declines an undo request.  One refusal ends the request; the move
        is taken back when the last human seat whose answer is needed accepts (:meth:`undo`)."""

        def body(w: Work) -> int | None:
            seat = self._seat_of(w.row, token)
            assert seat is not None
            row = w.row
            if row.undo_request is None:
                raise ServiceError(409, "nobody has asked to take back a move")
            if row.undo_request == seat:
                raise ServiceError(409, "you cannot answer your own request to take back a move")
            waiting = self._undo_waiting(row, w.moves)
            if seat not in waiting:
                if row.seats[seat].kind == "ai":
                    why = "an AI seat agrees by itself"
                elif row.undo_agreed >> seat & 1:
                    why = "you have already accepted it"
                else:
                    why = "you have resigned: the others decide"
                raise ServiceError(409, f"this request to take back a move is not yours to answer: {why}")
            if not accept:
                row.undo_request, row.undo_agreed = None, 0
                w.tx.update_game(game_id, undo_request=None, undo_agreed=0)
            elif waiting == [seat]:
                self._take_back(w, self._undo_target(row, w.moves, row.undo_request))
            else:
                self._undo_target(row, w.moves, row.undo_request)  # still possible (an AI may have resigned since)
                row.undo_agreed |= 1 << seat
                w.tx.update_game(game_id, undo_agreed=row.undo_agreed)
            return seat

        with self._locked(game_id):
            self._seat_of(self._live(game_id, check=False).row, token)
        return self._guarded(game_id, "the game is over: moves can no longer be taken back", body)

    # -- draw offers ------------------------------------------------------------------------
    def offer_draw(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The seat offers a draw.  Against an AI the AI answers at once: it accepts only when its
        evaluation for its own side is at most :data:`AI_DRAW_THRESHOLD`, else declines (the answer
        is in the view's ``draw_answer``).  Otherwise the offer is stored until the opponent
        accepts, declines, or moves (a move instead of an answer lets it lapse)."""
        answer: dict[str, str] = {}

        def body(w: Work) -> int | None:
            seat = self._seat_of(w.row, token)
            assert seat is not None
            why = draws_possible(w.state.game)
            if why is not None:
                raise ServiceError(422, why)
            row = w.row
            if row.draw_offer == seat:
                raise ServiceError(409, "you have already offered a draw: wait for your opponent's answer")
            if row.draw_offer is not None:
                raise ServiceError(409, "your opponent has offered a draw: accept or decline it")
            other = 1 - seat
            if row.seats[other].kind == "ai":
                value = w.state.evaluate(other)
                if value <= AI_DRAW_THRESHOLD:
                    self._agree_draw(w, seat)
                    answer["draw_answer"] = "accepted"
                else:
                    answer["draw_answer"] = f"{row.seats[other].name} declines the draw"
                    raise _Unchanged
            else:
                row.draw_offer = seat
                w.tx.update_game(game_id, draw_offer=seat)
            return seat

        with self._locked(game_id):
            self._seat_of(self._live(game_id, check=False).row, token)
        try:
            view = self._guarded(game_id, "the game is over: a draw can no longer be offered", body)
        except _Unchanged:
            with self._locked(game_id):
                live = self._live(game_id, check=False)
                view = self._view(live, self._seat_of(live.row, token))
        view.update(answer)
        return view

    def _agree_draw(self, w: Work, offerer: int) -> None:
        row = w.row
        if row.clock is not None:
            for p in range(len(row.clock["since"])):
                clock_stop(row.clock, p, time.time(), turn_done=False)
        row.result = agreement_result(w.state.game, offerer)
        row.status = "finished"
        row.undo_request = row.draw_offer = None
        w.tx.update_game(
            row.id, status="finished", result=row.result, clock=row.clock, undo_request=None, draw_offer=None
        )
        w.tx.delete_sealed(row.id)
        w.sealed = {}

    def answer_draw(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """The offerer's opponent accepts (the game ends drawn, ``reason`` "agreement") or declines."""

        def body(w: Work) -> int | None:
            seat = self._seat_of(w.row, token)
            assert seat is not None
            offer = w.row.draw_offer
            if offer is None:
                raise ServiceError(409, "nobody has offered a draw (an offer lapses when its opponent moves)")
            if offer == seat:
                raise ServiceError(409, "you cannot answer your own draw offer")
            if accept:
                self._agree_draw(w, offer)
            else:
                w.row.draw_offer = None
                w.tx.update_game(game_id, draw_offer=None)
            return seat

        with self._locked(game_id):
            self._seat_of(self._live(game_id, check=False).row, token)
        return self._guarded(game_id, "the game is over: there is no draw offer to answer", body)

    # -- clocks ----------------------------------------------------------------------------
    def check_clock(self, game_id: str) -> float | None:
        """End the game on a flag; return seconds until the next possible flag (None: no clock running)."""
        with self._locked(game_id):
            row = self._live(game_id, check=True).row
            if row.status != "active" or row.clock is None:
                return None
            now = time.time()
            flagged = self._flagged(row, now)
            clock = row.clock
            running = [p for p in range(len(clock["since"])) if clock["since"][p] is not None]
            firsts = [x for p in range(len(clock["since"])) if (x := clock_first_left(clock, p, now)) is not None]
            wait = min([*(clock_left(clock, p, now) for p in running), *firsts], default=None)
        if flagged:
            self._flag(game_id)
            return None
        return wait

    # -- AI support ------------------------------------------------------------------------
    def ai_jobs(self, game_id: str) -> list[dict[str, Any]]:
        """The AI seats that must act now, with what the worker needs to think."""
        with self._locked(game_id):
            try:
                live = self._live(game_id, check=True)
            except ServiceError:
                return []
            row, state = live.row, live.state
            if row.status != "active" or not any(s.kind == "ai" for s in row.seats):
                return []
            jobs = []
            for p in movers(state):
                s = row.seats[p]
                if s.kind == "ai" and p not in live.sealed:
                    jobs.append(
                        {
                            "game_id": game_id,
                            "spec": row.spec,
                            "seed": row.seed,
                            "moves": [(m.player, m.move) for m in live.moves],
                            "player": p,
                            "level": s.level or 1,
                            "token": s.token,
                            "expected": state.move_number(),
                            "simultaneous": state.current_player() == SIMULTANEOUS,
                            "clock_left": None if row.clock is None else clock_left(row.clock, p, time.time()),
                        }
                    )
        return jobs

    def random_move(self, game_id: str, player: int, seed: int) -> str:
        """A random legal move of ``player`` in the current position (the AI's fallback)."""
        with self._locked(game_id):
            state = self._live(game_id, check=True).state
            return state.clone().random_move(random.Random(seed), player)

    # -- records ---------------------------------------------------------------------------
    def record(self, game_id: str) -> dict[str, Any]:
        """The JSON record of a game (docs/records.md); sealed orders are never in it."""
        row, moves = self._stored(game_id)
        g = self._game(row.spec)
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "game": row.game,
            "game_version": g.info.version,
            "spec": row.spec,
            "params": row.params,
            "seed": row.seed,
            "mode": row.mode,
            "players": [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level} for s in row.seats],
            "clock": None
            if row.clock is None
            else {"initial": row.clock["initial"], "increment": row.clock["increment"]},
            "turns": turns_of(moves),
            "moves": len(moves),
            "result": row.result,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.created_at)),
        }

    def text(self, game_id: str) -> str:
        """The plain-text move list of a game (docs/records.md)."""
        row, moves = self._stored(game_id)
        return text_record(row, moves)

    def _stored(self, game_id: str) -> tuple[GameRow, list[MoveRow]]:
        """The stored game and its moves (records read the database, never the cache)."""
        with self.storage.transaction() as tx:
            row = tx.get_game(game_id)
            if row is None:
                raise ServiceError(404, f"there is no game {game_id!r}")
            return row, tx.moves(game_id)

    def parse_record(self, record: dict[str, Any] | str) -> ParsedRecord:
        """A JSON record (dict) or a plain-text record (str) checked and replayed, nothing stored (422 says why)."""
        result: dict[str, Any] | None = None
        names: list[str] | None = None
        clock = None
        try:
            if isinstance(record, str):
                spec, seed, lines = parse_text_record(record)
                seed = check_seed(seed)
                g = load_checked(spec)
                state = g.new_initial_state(seed=seed)
                played: list[tuple[int, str]] = []
                for i, line in enumerate(lines, start=1):
                    if state.is_terminal():
                        raise ValueError(f"turn {i}: the game was already over")
                    played += play_turn_line(state, line, i)
            elif isinstance(record, dict):
                if record.get("format") != RECORD_FORMAT:
                    raise ValueError(f"not a tessera record: 'format' must be {RECORD_FORMAT!r}")
                version = record.get("version")
                if isinstance(version, bool) or version != RECORD_VERSION:
                    raise ValueError(f"record version {record.get('version')!r} is not supported (expected 1)")
                params = record.get("params") or {}
                if not isinstance(params, dict):
                    raise ValueError("'params' must be an object of parameter names and values")
                g = load_checked(str(record.get("game", "")), params)
                if "seed" in record:
                    seed = check_seed(record.get("seed"))
                elif depends_on_seed(g):
                    raise ValueError(f"a {g.name} record needs its 'seed' (it deals the initial position)")
                else:
                    seed = 0  # docs/records.md: only dealt games (Nibble) use the seed
                state = g.new_initial_state(seed=seed)
                played = []
                turns = record.get("turns")
                if not isinstance(turns, list):
                    raise ValueError("'turns' must be a list")
                for i, t in enumerate(turns, start=1):
                    if not isinstance(t, dict):
                        raise ValueError(f"turn {i} must be an object")
                    try:
                        if "orders" in t:
                            state.play_joint([str(o) for o in t["orders"]])
                            played.append(state.history()[-1])
                        else:
                            for mv in t.get("moves", []):
                                if str(mv) == RESIGN and can_resign_and_play_on(state):
                                    play_stored(state, t.get("player", -1), RESIGN)
                                    played.append(state.history()[-1])
                                    continue
                                if state.current_player() != t.get("player"):
                                    raise IllegalMove(
                                        f"the record says player {t.get('player')} moves, but player "
                                        f"{state.current_player()} is to move"
                                    )
                                state.play(str(mv))
                                played.append(state.history()[-1])
                    except IllegalMove as e:
                        raise ValueError(f"turn {i}: {e}") from None
                players = record.get("players") or []
                if not isinstance(players, list):
                    raise ValueError("'players' must be a list")
                names = [clean_name(p.get("name", "")) for p in players if isinstance(p, dict)]
                res = record.get("result")
                if isinstance(res, dict) and res.get("reason") == "agreement" and not state.is_terminal():
                    why = draws_possible(g)
                    if why is not None:
                        raise ValueError(f"'result' says the players agreed a draw, but {why}")
                    result = agreement_result(g, None)
                if isinstance(res, dict) and res.get("reason") in ("resign", "flag") and not state.is_terminal():
                    w = res.get("winner")
                    if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w < g.num_players:
                        raise ValueError("'result.winner' must be a seat number")
                    result = forfeit_result(g, (w + 1) % g.num_players, str(res["reason"]))
                c = record.get("clock")
                if isinstance(c, dict) and not state.is_terminal() and result is None:
                    if "initial" not in c:
                        raise ValueError("'clock' needs 'initial' (seconds per player)")
                    clock = (float(c["initial"]), float(c.get("increment", 0)))
            else:
                raise ValueError("a record is a JSON object or a text")
        except ServiceError as e:
            raise ServiceError(422, f"the record cannot be imported: {e.detail}") from None
        except (ValueError, KeyError, TypeError, OverflowError) as e:
            raise ServiceError(422, f"the record cannot be imported: {_short(str(e), 1000)}") from None
        return ParsedRecord(g, seed, state, played, names, result, clock)

    def import_record(self, record: dict[str, Any] | str) -> Created:
        """A new hot-seat game from a JSON record (dict) or a plain-text record (str)."""
        g, seed, state, played, names, result, clock = self.parse_record(record)
        created = self.create(g.name, g.params, mode="hotseat", seed=seed, names=names, public=False, clock=clock)
        with self._write(created.game_id) as w:
            row = w.row
            for i, (p, mv) in enumerate(played):
                w.tx.insert_move(row.id, i, p, mv)
            w.moves = [MoveRow(i, p, mv) for i, (p, mv) in enumerate(played)]
            w.state = state
            if state.is_terminal():
                row.result, row.status = rules_result(state), "finished"
            elif result is not None:
                row.result, row.status = result, "finished"
            if row.clock is not None:
                row.clock = clock_new(row.clock["initial"], row.clock["increment"], g.num_players)
                if row.status == "active":
                    clock_start(row.clock, movers(state), time.time())
            w.tx.update_game(row.id, status=row.status, result=row.result, clock=row.clock)
        self.on_change(created.game_id)
        return created

    # -- analysis board ---------------------------------------------------------------------
    def analysis_source(self, game_id: str, token: str | None) -> dict[str, Any]:
        """A game's public moves for the analysis board, unless ``token`` holds a seat of it in progress.

        No help during a live game: a seated player (other than at a hot-seat screen,
        which has no opponent to hide from) cannot analyse it until it is over.  A
        spectator may; the moves are the resolved ones (a sealed order never is).
        """
        view = self.view(game_id)  # the spectator's view: resolved turns only
        if token and view["status"] == "active" and view["mode"] != "hotseat":
            with self._locked(game_id):
                row = self._live(game_id, check=False).row
            try:
                seat = self._seat_of(row, token, required=False)
            except ServiceError:  # a token of another game: this person watches
                seat = None
            if seat is not None:
                raise ServiceError(403, "no analysis during your own game: it opens when the game is over")
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

    def analysis_record(self, record: dict[str, Any] | str) -> dict[str, Any]:
        """A record for the analysis board, straight from its text or JSON: no game is created."""
        g, seed, state, played, _names, result, _clock = self.parse_record(record)
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

    def continue_from(
        self, spec: str, seed: int, moves: list[tuple[int, str]], *, mode: str, seat: int = 0, ai_level: int = 2
    ) -> Created:
        """A new game (hot-seat or against the AI) from a position: ``moves`` played from ``seed``."""
        if mode not in ("hotseat", "ai"):
            raise ServiceError(422, f"mode {_short(str(mode), 40)!r} is not accepted here: expected hotseat or ai")
        seed = check_seed(seed)
        try:
            g = load_checked(spec)
        except ValueError as e:
            raise ServiceError(422, _short(str(e), 1000)) from None
        try:
            state = replay_moves(g, seed, [MoveRow(i, p, mv) for i, (p, mv) in enumerate(moves)])
        except IllegalMove as e:
            raise ServiceError(422, f"the position cannot be reached: {_short(str(e), 500)}") from None
        if state.is_terminal():
            raise ServiceError(409, "the game is over in this position: there is nothing to continue")
        played = state.history()
        created = self.create(g.name, g.params, mode=mode, seed=seed, public=False, seat=seat, ai_level=ai_level)
        with self._write(created.game_id) as w:
            row = w.row
            for i, (p, mv) in enumerate(played):
                w.tx.insert_move(row.id, i, p, mv)
            w.moves = [MoveRow(i, p, mv) for i, (p, mv) in enumerate(played)]
            w.state = state
            w.tx.update_game(row.id, status=row.status)
        self.on_change(created.game_id)
        return created
