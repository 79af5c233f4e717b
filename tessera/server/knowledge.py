"""What the server knows about games beyond the game protocol — kept in this one module.

Everything here asks a game something the protocol does not (yet) say for itself: whether a
draw can happen, how a sealed order shows before its turn resolves, how a resignation in a
game that goes on is stored, how stored moves and records replay.  When the games answer
these through the protocol, the server's callers change here and nowhere else.

Records (docs/records.md): the JSON record (:func:`record_dict`, :func:`parse_record`) and
the plain-text move list (:func:`text_record`, :func:`parse_text_record`).
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, NamedTuple

from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, IllegalMove, State
from tessera.server.errors import ServiceError, short
from tessera.server.inputs import check_seed, clean_name, load_checked
from tessera.server.results import agreement_result, forfeit_result

if TYPE_CHECKING:
    from tessera.server.storage import GameRow, MoveRow

RESIGN = "resign"
"""The stored move of a player who resigned in a game that goes on without him (four-player Nymbat)."""

RECORD_FORMAT = "tessera-record"
RECORD_VERSION = 1

MAX_WORDS_PER_MOVE = 8
"""A text record's turn is split into moves of at most this many words (Nume's ``komi 3.5 white`` has three)."""


# -- turns, resignation, replay ----------------------------------------------------------


def movers(state: State) -> list[int]:
    """The players who must act now."""
    cp = state.current_player()
    if cp == TERMINAL:
        return []
    if cp == SIMULTANEOUS:
        return list(range(state.game.num_players))
    return [cp]


def can_resign_and_play_on(state: State) -> bool:
    """Whether resigning is a rule of ``state`` (the others play on): games of more than two players with ``resign``."""
    return state.game.num_players > 2 and callable(getattr(state, "resign", None))


def resign_and_play_on(state: State, player: int) -> None:
    """``player`` resigns and the others play on (``IllegalMove`` if the game does not allow it now)."""
    state.resign(player)  # type: ignore[attr-defined]


def play_stored(state: State, player: int, move: str) -> None:
    """Replay one stored ``(player, move)``: a joint move, a resignation, or a move of the player to move."""
    if player == SIMULTANEOUS:
        state.play_joint(move.split(" | "))
    elif move == RESIGN and can_resign_and_play_on(state):
        resign_and_play_on(state, player)
    else:
        state.play(move)


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


def draws_possible(game: Game) -> str | None:
    """Why a draw cannot be offered in ``game`` (None: the rules allow a draw, so an offer is possible).

    The rulebook: Nibble has no tie; Nume ties only with a whole-number komi (never with komi
    bidding, whose komi ends in .5); Ikabegamá, Nelaxtam and Nymbat draw (equal counts or a
    safeguard).  Offers are between two players: a four-player game has none.
    """
    if game.num_players != 2:
        return f"draw offers are for two-player games; this {game.name} game has {game.num_players} players"
    if game.name == "nibble":
        return "Nibble has no draws (a tie cannot happen)"
    if game.name == "nume":
        komi = game.params.get("komi", 0.5)
        if game.params.get("komi_bidding") or float(komi) % 1 != 0:
            return "this Nume game cannot end in a draw (its komi is not a whole number)"
    return None


# -- sealed orders (Nelaxtam's simultaneous turns) ----------------------------------------


def render_for(state: State, seat: int | None, sealed: dict[int, str], status: str, result: Any) -> dict[str, Any]:
    """The render description ``seat`` (None: a spectator) sees, with the sealed orders of the open
    simultaneous turn marked by the game itself (it hides the others' orders): the one place a sealed
    order could leak from."""
    cp = state.current_player()
    shown = state
    if cp == SIMULTANEOUS and sealed and len(sealed) < state.game.num_players and hasattr(state, "submit"):
        shown = state.clone()
        for p, o in sorted(sealed.items()):
            shown.submit(o, p)
    render = shown.render(seat)
    if seat is None or status != "active":
        render["actions"] = []
    if status != "active" and result is not None:
        render["result"] = result
        render["status"] = result["text"]
    order = render.get("order")
    if cp == SIMULTANEOUS:
        if isinstance(order, dict) and seat is not None:
            order["submitted"] = seat in sealed
            order["pending"] = sealed.get(seat)
            order["opponent_submitted"] = any(p in sealed for p in range(state.game.num_players) if p != seat)
            if seat in sealed or status != "active":
                render["actions"] = []
                order["units"] = [] if status != "active" else order.get("units", [])
        elif isinstance(order, dict):
            render["order"] = None
    return render


def spectator_render(state: State) -> dict[str, Any]:
    """A position as a spectator of the replay browser sees it: no actions, no order builder."""
    render = state.render(None)
    render["actions"] = []
    if isinstance(render.get("order"), dict):
        render["order"] = None
    return render


def is_retry(moves: list[MoveRow], seat: int, move: str) -> bool:
    """Whether ``move`` by ``seat`` is the move just stored (or his order in the joint move just resolved)."""
    if not moves:
        return False
    last = moves[-1]
    if last.player == SIMULTANEOUS:
        parts = last.move.split(" | ")
        return seat < len(parts) and parts[seat] == move
    return last.player == seat and last.move == move


# -- records -------------------------------------------------------------------------------


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


def record_dict(row: GameRow, moves: list[MoveRow], game: Game) -> dict[str, Any]:
    """The JSON record of a game (docs/records.md); sealed orders are never in it."""
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "game": row.game,
        "game_version": game.info.version,
        "spec": row.spec,
        "params": row.params,
        "seed": row.seed,
        "mode": row.mode,
        "players": [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level} for s in row.seats],
        "clock": None if row.clock is None else {"initial": row.clock["initial"], "increment": row.clock["increment"]},
        "turns": turns_of(moves),
        "moves": len(moves),
        "result": row.result,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.created_at)),
    }


_TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
_NUMBER = re.compile(r"^\d+\.\s*")


def text_record(row: GameRow, moves: list[MoveRow]) -> str:
    """The plain-text move list of a game (docs/records.md)."""
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


class ParsedRecord(NamedTuple):
    """A record checked and replayed (:func:`parse_record`)."""

    game: Game
    seed: int
    state: State
    played: list[tuple[int, str]]
    """``(player, move)`` in order, joint moves as one entry of player SIMULTANEOUS."""
    names: list[str] | None
    result: dict[str, Any] | None
    """A result the record gives that the rules do not (resign, flag, agreement)."""
    clock: tuple[float, float] | None


def _play_json_turns(state: State, turns: Any) -> list[tuple[int, str]]:
    played: list[tuple[int, str]] = []
    if not isinstance(turns, list):
        raise ValueError("'turns' must be a list")
    for i, t in enumerate(turns, start=1):
        if not isinstance(t, dict):
            raise ValueError(f"turn {i} must be an object")
        try:
            if "orders" in t:
                state.play_joint([str(o) for o in t["orders"]])
                played.append(state.history()[-1])
                continue
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
    return played


def _parse_json_record(record: dict[str, Any]) -> ParsedRecord:
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
    played = _play_json_turns(state, record.get("turns"))
    players = record.get("players") or []
    if not isinstance(players, list):
        raise ValueError("'players' must be a list")
    names = [clean_name(p.get("name", "")) for p in players if isinstance(p, dict)]
    result: dict[str, Any] | None = None
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
    clock = None
    c = record.get("clock")
    if isinstance(c, dict) and not state.is_terminal() and result is None:
        if "initial" not in c:
            raise ValueError("'clock' needs 'initial' (seconds per player)")
        clock = (float(c["initial"]), float(c.get("increment", 0)))
    return ParsedRecord(g, seed, state, played, names, result, clock)


def parse_record(record: dict[str, Any] | str) -> ParsedRecord:
    """A JSON record (dict) or a plain-text record (str) checked and replayed, nothing stored (422 says why)."""
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
            return ParsedRecord(g, seed, state, played, None, None, None)
        if isinstance(record, dict):
            return _parse_json_record(record)
        raise ValueError("a record is a JSON object or a text")
    except ServiceError as e:
        raise ServiceError(422, f"the record cannot be imported: {e.detail}") from None
    except (ValueError, KeyError, TypeError, OverflowError) as e:
        raise ServiceError(422, f"the record cannot be imported: {short(str(e), 1000)}") from None
