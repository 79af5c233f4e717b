"""The authoritative match service: every change to a game goes through here.

It checks the seat token, whose turn it is, that the game is not over and the
move number the client expects; a move is committed to storage before it is
acknowledged; the views it hands out are filtered per seat (a Nelaxtam
player's sealed order reaches only him, spectators see resolved turns only).
The service knows no HTTP: it raises :class:`ServiceError` with the status
code and the reason, which the web layer turns into ``{"detail": ...}``.
"""

from __future__ import annotations

import contextlib
import logging
import random
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import tessera
from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, IllegalMove, State
from tessera.core.registry import game_class
from tessera.core.render import status_line
from tessera.server.ai import RESIGN, can_resign_and_play_on, play_stored
from tessera.server.storage import Conflict, GameRow, MoveRow, SeatRow, Storage, Transaction

log = logging.getLogger("tessera.server.service")

MODES = ("hotseat", "ai", "online")
"""hot-seat (one screen, every seat), against the AI, online between browsers."""

CACHE_GAMES = 256
"""How many games' positions the service keeps in memory (the rest are replayed on demand)."""

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


# -- clocks -------------------------------------------------------------------------------


def clock_new(initial: float, increment: float, players: int) -> dict[str, Any]:
    """A stopped clock: ``initial`` seconds each, ``increment`` added per completed turn."""
    return {"initial": initial, "increment": increment, "remaining": [initial] * players, "since": [None] * players}


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


def clock_start(clock: dict[str, Any], players: list[int], now: float) -> None:
    """Start the clocks of ``players`` (those already running keep running)."""
    for p in players:
        if clock["since"][p] is None:
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


class MatchService:
    """Creates games, checks and stores moves, hands out per-seat views."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._locks: dict[str, _GameLock] = {}  # only games with a request in flight
        self._locks_guard = threading.Lock()
        self._cache: OrderedDict[str, State] = OrderedDict()  # most recently used last
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

    def _state(self, row: GameRow, moves: list[MoveRow]) -> State:
        """The current position (cached; rebuilt when the stored moves differ)."""
        cached = self._cache.get(row.id)
        if cached is not None:
            hist = cached.history()
            if len(hist) == len(moves) and all(h == (m.player, m.move) for h, m in zip(hist, moves, strict=True)):
                with contextlib.suppress(KeyError):
                    self._cache.move_to_end(row.id)
                return cached
        state = replay_moves(tessera.load_game(row.spec), row.seed, moves)
        self._remember(row.id, state)
        return state

    def _remember(self, game_id: str, state: State) -> None:
        self._cache[game_id] = state
        with contextlib.suppress(KeyError):
            self._cache.move_to_end(game_id)
        while len(self._cache) > CACHE_GAMES:
            with contextlib.suppress(KeyError):
                self._cache.popitem(last=False)

    def _seated(self, tx: Transaction, game_id: str, token: str | None) -> tuple[GameRow, int, list[MoveRow], State]:
        """Lock the game's row, check the seat token, and rebuild the position."""
        row = self._load(tx, game_id, lock=True)
        seat = self._seat_of(row, token)
        assert seat is not None
        moves = tx.moves(game_id)
        return row, seat, moves, self._state(row, moves)

    def _load(self, tx: Transaction, game_id: str, *, lock: bool) -> GameRow:
        row = tx.lock_game(game_id) if lock else tx.get_game(game_id)
        if row is None:
            raise ServiceError(404, f"there is no game {game_id!r}")
        return row

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

    def _enforce_clock(self, tx: Transaction, row: GameRow, state: State, now: float) -> bool:
        """End the game if a running clock has run out; True if it did."""
        if row.status != "active" or row.clock is None:
            return False
        out = [p for p in range(len(row.clock["remaining"])) if row.clock["since"][p] is not None]
        flagged = [p for p in out if clock_left(row.clock, p, now) <= 0]
        if not flagged:
            return False
        if can_resign_and_play_on(state):
            return self._flag_and_play_on(tx, row, state, flagged, now)
        clock = row.clock
        loser = min(flagged, key=lambda p: clock_left(clock, p, now))
        for p in out:
            clock_stop(row.clock, p, now, turn_done=False)
        row.clock["remaining"] = [max(0.0, r) for r in row.clock["remaining"]]
        row.result = forfeit_result(state.game, loser, "flag")
        row.status = "finished"
        tx.update_game(row.id, status="finished", result=row.result, clock=row.clock, undo_request=None)
        tx.delete_sealed(row.id)
        return True

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
        state = g.new_initial_state(seed=seed)
        if row.clock is not None and all(s.claimed for s in seats):
            clock_start(row.clock, movers(state), now)
        with self.storage.transaction() as tx:
            tx.insert_game(row)
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
        with self._locked(game_id), self.storage.transaction() as tx:
            row = self._load(tx, game_id, lock=True)
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
            tx.claim_seat(row.id, s.seat)
            s.claimed = True
            self._maybe_start_clock(tx, row)
        self.on_change(game_id)
        return s.seat, s.token

    def _maybe_start_clock(self, tx: Transaction, row: GameRow) -> None:
        if row.clock is None or not all(s.claimed for s in row.seats):
            return
        if any(v is not None for v in row.clock["since"]):
            return
        state = self._state(row, tx.moves(row.id))
        sealed = tx.sealed(row.id, state.move_number())
        clock_start(row.clock, [p for p in movers(state) if p not in sealed], time.time())
        tx.update_game(row.id, clock=row.clock)

    # -- reading ---------------------------------------------------------------------------
    def view(self, game_id: str, token: str | None = None) -> dict[str, Any]:
        """What the holder of ``token`` (None: a spectator) sees of the game."""
        changed = False
        with self._locked(game_id), self.storage.transaction() as tx:
            row = self._load(tx, game_id, lock=False)
            seat = self._seat_of(row, token, required=False)
            moves = tx.moves(game_id)
            state = self._state(row, moves)
            if row.status == "active" and row.clock is not None and self._clock_out(row):
                row = self._load(tx, game_id, lock=True)
                changed = self._enforce_clock(tx, row, state, time.time())
            if seat is not None and not next(s for s in row.seats if s.seat == seat).claimed:
                row = self._load(tx, game_id, lock=True)
                tx.claim_seat(game_id, seat)
                next(s for s in row.seats if s.seat == seat).claimed = True
                self._maybe_start_clock(tx, row)
                changed = True
            sealed = tx.sealed(game_id, state.move_number()) if state.current_player() == SIMULTANEOUS else {}
            out = self._view(row, state, moves, seat, sealed)
        if changed:
            self.on_change(game_id)
        return out

    @staticmethod
    def _clock_out(row: GameRow) -> bool:
        now = time.time()
        assert row.clock is not None
        return any(
            row.clock["since"][p] is not None and clock_left(row.clock, p, now) <= 0
            for p in range(len(row.clock["remaining"]))
        )

    def _view(
        self, row: GameRow, state: State, moves: list[MoveRow], seat: int | None, sealed: dict[int, str]
    ) -> dict[str, Any]:
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
        presence = self.presence(row.id)
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
            "moves": [{"index": m.index, "player": m.player, "move": m.move} for m in moves],
            "result": row.result,
            "clock": clock_public(row.clock, time.time()),
            "undo_request": row.undo_request,
            "render": render,
        }

    def position(self, game_id: str, n: int) -> dict[str, Any]:
        """The spectator's picture after the first ``n`` moves (the replay browser)."""
        with self.storage.transaction() as tx:
            row = self._load(tx, game_id, lock=False)
            moves = tx.moves(game_id)
        if not 0 <= n <= len(moves):
            raise ServiceError(422, f"move number {n} is out of range: the game has {len(moves)} moves")
        state = replay_moves(tessera.load_game(row.spec), row.seed, moves[:n])
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
    def play(self, game_id: str, token: str | None, move: str, expected: int | None) -> dict[str, Any]:
        """Submit a move (or at a simultaneous node, seal an order) for the token's seat."""
        if not isinstance(move, str) or not move.strip():
            raise ServiceError(422, "the move is empty")
        if len(move) > MAX_MOVE_CHARS:
            raise ServiceError(422, f"the move is too long: {len(move)} characters (at most {MAX_MOVE_CHARS})")
        move = move.strip()
        if expected is None:
            raise ServiceError(422, "expected (the move number the move is for) is required")
        changed = False
        try:
            with self._locked(game_id), self.storage.transaction() as tx:
                row, seat, moves, state = self._seated(tx, game_id, token)
                now = time.time()
                if expected == state.move_number() - 1 and self._is_retry(moves, state, seat, move):
                    sealed = tx.sealed(game_id, expected + 1) if state.current_player() == SIMULTANEOUS else {}
                    return self._view(row, state, moves, seat, sealed)  # a duplicate of the accepted move
                if self._enforce_clock(tx, row, state, now):
                    changed = True
                    raise ServiceError(409, f"the game is over: {row.result['text'] if row.result else ''}")
                if row.status != "active":
                    raise ServiceError(409, "the game is over" + (f": {row.result['text']}" if row.result else ""))
                if not next(s for s in row.seats if s.seat == seat).claimed:
                    tx.claim_seat(game_id, seat)
                n = state.move_number()
                cp = state.current_player()
                if expected != n:
                    raise ServiceError(
                        409, f"stale move: it was sent for move number {expected}, but the game is at move {n}"
                    )
                if cp == SIMULTANEOUS:
                    result_view = self._seal(tx, row, state, moves, seat, move, now)
                    changed = True
                    return result_view
                if cp != seat:
                    raise ServiceError(
                        409,
                        f"it is not your turn: {_names(state.game)[cp]} (seat {cp}) is to move, you hold seat {seat}",
                    )
                new = state.clone()
                try:
                    new.play(move)
                except IllegalMove as e:
                    raise ServiceError(400, str(e)) from None
                normal = new.history()[-1][1]
                tx.insert_move(game_id, n, cp, normal)
                moves = [*moves, MoveRow(n, cp, normal)]
                self._after_move(tx, row, new, [cp], now)
                changed = True
                out = self._view(row, new, moves, seat, {})
            self._remember(game_id, new)
            return out
        except Conflict as e:
            raise ServiceError(409, f"stale move: another move was stored first ({e})") from None
        finally:
            if changed:
                self.on_change(game_id)

    @staticmethod
    def _is_retry(moves: list[MoveRow], state: State, seat: int, move: str) -> bool:
        """Whether ``move`` by ``seat`` is the move just stored (or his order in the joint move just resolved)."""
        if not moves:
            return False
        last = moves[-1]
        if last.player == SIMULTANEOUS:
            parts = last.move.split(" | ")
            return seat < len(parts) and parts[seat] == move
        return last.player == seat and (last.move == move or state.history()[-1][1] == move)

    def _seal(
        self, tx: Transaction, row: GameRow, state: State, moves: list[MoveRow], seat: int, order: str, now: float
    ) -> dict[str, Any]:
        n = state.move_number()
        sealed = tx.sealed(row.id, n)
        if seat in sealed:
            if sealed[seat] == order:
                return self._view(row, state, moves, seat, sealed)
            raise ServiceError(409, "your order for this turn is already sealed")
        reason = state.why_illegal(order, seat)
        if reason is not None:
            raise ServiceError(400, reason)
        tx.insert_sealed(row.id, n, seat, order)
        sealed[seat] = order
        if row.clock is not None:
            clock_stop(row.clock, seat, now, turn_done=True)
            tx.update_game(row.id, clock=row.clock)
        if len(sealed) < state.game.num_players:
            row.undo_request = None
            tx.update_game(row.id, undo_request=None)
            return self._view(row, state, moves, seat, sealed)
        new = state.clone()
        try:
            new.play_joint([sealed[p] for p in range(state.game.num_players)])
        except IllegalMove as e:  # each order was checked alone: a joint refusal would be a bug in the game
            # the message may quote the opponent's sealed order: it stays in the log, not in the answer
            log.error("game %s: sealed orders %r could not be resolved: %s", row.id, sealed, e)
            raise ServiceError(
                409, "the sealed orders could not be resolved together; the turn is still open"
            ) from None
        joint = new.history()[-1][1]
        tx.insert_move(row.id, n, SIMULTANEOUS, joint)
        tx.delete_sealed(row.id)
        moves = [*moves, MoveRow(n, SIMULTANEOUS, joint)]
        self._after_move(tx, row, new, [], now)
        self._remember(row.id, new)
        return self._view(row, new, moves, seat, {})

    def _after_move(self, tx: Transaction, row: GameRow, new: State, stepped: list[int], now: float) -> None:
        """Clocks, result and status after an accepted move."""
        if row.clock is not None:
            nxt = movers(new)
            for p in stepped:
                clock_stop(row.clock, p, now, turn_done=p not in nxt)
            if new.is_terminal():
                for p in range(len(row.clock["since"])):
                    clock_stop(row.clock, p, now, turn_done=False)
            elif all(s.claimed for s in row.seats):
                clock_start(row.clock, nxt, now)
        row.undo_request = None
        if new.is_terminal():
            row.status = "finished"
            row.result = rules_result(new)
        tx.update_game(row.id, clock=row.clock, status=row.status, result=row.result, undo_request=None)

    def resign(self, game_id: str, token: str | None) -> dict[str, Any]:
        """The token's seat gives up: the other player wins.

        In a game of more than two players whose rules let the others play on
        (four-player Nymbat: ``state.resign``), the resignation is stored as the
        seat's move ``resign``: his pieces leave the board, he passes from then
        on, and the game ends only when the rules end it (the last one left wins).
        """
        with self._locked(game_id), self.storage.transaction() as tx:
            row, seat, moves, state = self._seated(tx, game_id, token)
            if self._enforce_clock(tx, row, state, time.time()) or row.status != "active":
                raise ServiceError(409, "the game is over")
            if can_resign_and_play_on(state):
                out = self._resign_and_play_on(tx, row, seat, moves, state)
            else:
                if row.clock is not None:
                    for p in range(len(row.clock["since"])):
                        clock_stop(row.clock, p, time.time(), turn_done=False)
                row.result = forfeit_result(state.game, seat, "resign")
                row.status = "finished"
                tx.update_game(game_id, status="finished", result=row.result, clock=row.clock, undo_request=None)
                tx.delete_sealed(game_id)
                out = self._view(row, state, moves, seat, {})
        self.on_change(game_id)
        return out

    def _flag_and_play_on(self, tx: Transaction, row: GameRow, state: State, flagged: list[int], now: float) -> bool:
        """A player out of time in a game whose rules let the others play on: he resigns (stored as
        his ``resign``) and the game goes on; True only if that ended it (the last one left wins)."""
        assert row.clock is not None
        new = state.clone()
        n = state.move_number()
        for p in flagged:
            new.resign(p)  # type: ignore[attr-defined]
            tx.insert_move(row.id, n, p, RESIGN)
            n += 1
            if new.is_terminal():
                break
        self._after_move(tx, row, new, flagged, now)
        for p in flagged:
            row.clock["remaining"][p] = 0.0
        tx.update_game(row.id, clock=row.clock)
        self._remember(row.id, new)
        return new.is_terminal()

    def _resign_and_play_on(
        self, tx: Transaction, row: GameRow, seat: int, moves: list[MoveRow], state: State
    ) -> dict[str, Any]:
        """Store the seat's ``resign`` as a move; clocks and result follow as after any move."""
        new = state.clone()
        try:
            new.resign(seat)  # type: ignore[attr-defined]
        except IllegalMove as e:
            raise ServiceError(409, str(e)) from None
        n = state.move_number()
        tx.insert_move(row.id, n, seat, RESIGN)
        moves = [*moves, MoveRow(n, seat, RESIGN)]
        self._after_move(tx, row, new, [seat], time.time())
        self._remember(row.id, new)
        return self._view(row, new, moves, seat, {})

    # -- undo ------------------------------------------------------------------------------
    def undo(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Take back the seat's last move: at once in hot-seat and against the AI, else ask the opponent."""
        with self._locked(game_id), self.storage.transaction() as tx:
            row, seat, moves, state = self._seated(tx, game_id, token)
            if self._enforce_clock(tx, row, state, time.time()) or row.status != "active":
                raise ServiceError(409, "the game is over: moves can no longer be taken back")
            target = self._undo_target(row, moves, seat)
            if row.mode in ("hotseat", "ai"):
                out = self._take_back(tx, row, moves, target, seat)
            else:
                if row.undo_request is not None and row.undo_request != seat:
                    raise ServiceError(409, "your opponent has asked to take back a move: accept or decline it")
                row.undo_request = seat
                tx.update_game(game_id, undo_request=seat)
                out = self._view(row, state, moves, seat, {})
        self.on_change(game_id)
        return out

    @staticmethod
    def _undo_target(row: GameRow, moves: list[MoveRow], seat: int) -> int:
        if row.mode == "hotseat":
            if not moves:
                raise ServiceError(409, "there is no move to take back")
            return moves[-1].index
        for m in reversed(moves):
            if m.player in (seat, SIMULTANEOUS):
                return m.index
        raise ServiceError(409, "you have no move to take back")

    def _take_back(
        self, tx: Transaction, row: GameRow, moves: list[MoveRow], target: int, seat: int | None
    ) -> dict[str, Any]:
        tx.delete_moves_from(row.id, target)
        tx.delete_sealed(row.id)
        kept = [m for m in moves if m.index < target]
        state = self._state(row, kept)
        row.undo_request = None
        if row.clock is not None:
            now = time.time()
            for p in range(len(row.clock["since"])):
                clock_stop(row.clock, p, now, turn_done=False)
            clock_start(row.clock, movers(state), now)
        tx.update_game(row.id, undo_request=None, clock=row.clock)
        return self._view(row, state, kept, seat, {})

    def answer_undo(self, game_id: str, token: str | None, accept: bool) -> dict[str, Any]:
        """The opponent accepts (the move is taken back) or declines an undo request."""
        with self._locked(game_id), self.storage.transaction() as tx:
            row, seat, moves, state = self._seated(tx, game_id, token)
            if self._enforce_clock(tx, row, state, time.time()) or row.status != "active":
                raise ServiceError(409, "the game is over: moves can no longer be taken back")
            if row.undo_request is None:
                raise ServiceError(409, "nobody has asked to take back a move")
            if row.undo_request == seat:
                raise ServiceError(409, "you cannot answer your own request to take back a move")
            if accept:
                out = self._take_back(tx, row, moves, self._undo_target(row, moves, row.undo_request), seat)
            else:
                row.undo_request = None
                tx.update_game(game_id, undo_request=None)
                out = self._view(row, state, moves, seat, {})
        self.on_change(game_id)
        return out

    # -- clocks ----------------------------------------------------------------------------
    def check_clock(self, game_id: str) -> float | None:
        """End the game on a flag; return seconds until the next possible flag (None: no clock running)."""
        changed = False
        with self._locked(game_id), self.storage.transaction() as tx:
            row = self._load(tx, game_id, lock=False)
            if row.status != "active" or row.clock is None:
                return None
            if self._clock_out(row):
                row = self._load(tx, game_id, lock=True)
                changed = self._enforce_clock(tx, row, self._state(row, tx.moves(game_id)), time.time())
                wait = None
            else:
                now = time.time()
                clock = row.clock
                assert clock is not None
                running = [p for p in range(len(clock["since"])) if clock["since"][p] is not None]
                wait = min((clock_left(clock, p, now) for p in running), default=None)
        if changed:
            self.on_change(game_id)
        return wait

    # -- AI support ------------------------------------------------------------------------
    def ai_jobs(self, game_id: str) -> list[dict[str, Any]]:
        """The AI seats that must act now, with what the worker needs to think."""
        with self.storage.transaction() as tx:
            row = tx.get_game(game_id)
            if row is None or row.status != "active":
                return []
            moves = tx.moves(game_id)
            state = self._state(row, moves)
            sealed = tx.sealed(game_id, state.move_number()) if state.current_player() == SIMULTANEOUS else {}
        jobs = []
        for p in movers(state):
            s = row.seats[p]
            if s.kind == "ai" and p not in sealed:
                jobs.append(
                    {
                        "game_id": game_id,
                        "spec": row.spec,
                        "seed": row.seed,
                        "moves": [(m.player, m.move) for m in moves],
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
        with self.storage.transaction() as tx:
            row = self._load(tx, game_id, lock=False)
            state = self._state(row, tx.moves(game_id))
            return state.clone().random_move(random.Random(seed), player)

    # -- records ---------------------------------------------------------------------------
    def record(self, game_id: str) -> dict[str, Any]:
        """The JSON record of a game (docs/records.md); sealed orders are never in it."""
        with self.storage.transaction() as tx:
            row = self._load(tx, game_id, lock=False)
            moves = tx.moves(game_id)
        g = tessera.load_game(row.spec)
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
        with self.storage.transaction() as tx:
            row = self._load(tx, game_id, lock=False)
            moves = tx.moves(game_id)
        return text_record(row, moves)

    def import_record(self, record: dict[str, Any] | str) -> Created:
        """A new hot-seat game from a JSON record (dict) or a plain-text record (str)."""
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
        created = self.create(g.name, g.params, mode="hotseat", seed=seed, names=names, public=False, clock=clock)
        with self._locked(created.game_id), self.storage.transaction() as tx:
            row = self._load(tx, created.game_id, lock=True)
            for i, (p, mv) in enumerate(played):
                tx.insert_move(row.id, i, p, mv)
            if state.is_terminal():
                row.result, row.status = rules_result(state), "finished"
            elif result is not None:
                row.result, row.status = result, "finished"
            if row.clock is not None:
                row.clock = clock_new(row.clock["initial"], row.clock["increment"], g.num_players)
                if row.status == "active":
                    clock_start(row.clock, movers(state), time.time())
            tx.update_game(row.id, status=row.status, result=row.result, clock=row.clock)
        self.on_change(created.game_id)
        return created
