"""The server's side of what games know: draw offers, each seat's view, stored moves and records.

The games answer through the protocol (:meth:`~tessera.core.game.Game.why_no_draw`,
:meth:`~tessera.core.game.State.view`, :meth:`~tessera.core.game.State.resign_plays_on`) and
:mod:`tessera.core.records` reads and writes stored moves and records; this module only adapts
them to the server's rows (``MoveRow``, ``GameRow``) and statuses.  No game is named here.

Records (docs/records.md): the JSON record (:func:`record_dict`, :func:`parse_record`) and
the plain-text move list (:func:`text_record`, :func:`tessera.core.records.parse_text_record`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from tessera.core import records
from tessera.core.game import SIMULTANEOUS, TERMINAL, Game, State
from tessera.server.http.errors import ServiceError, short
from tessera.server.match.clocks import clock_settings
from tessera.server.match.inputs import check_seed, clean_name, load_checked
from tessera.server.match.results import agreement_result, forfeit_result

if TYPE_CHECKING:
    from tessera.server.match.tables import GameRow, MoveRow

RECORD_FORMAT = "tessera-record"
RECORD_VERSION = 1


# -- turns and replay ---------------------------------------------------------------------


def movers(state: State) -> list[int]:
    """The players who must act now."""
    cp = state.current_player()
    if cp == TERMINAL:
        return []
    if cp == SIMULTANEOUS:
        return list(range(state.game.num_players))
    return [cp]


def stored(moves: list[MoveRow]) -> list[tuple[int, str]]:
    """Stored move rows as the ``(player, move)`` pairs of :mod:`tessera.core.records`."""
    return [(m.player, m.move) for m in moves]


def replay_moves(game: Game, seed: int, moves: list[MoveRow]) -> State:
    """Rebuild a position from its stored moves (:func:`tessera.core.records.replay`)."""
    return records.replay(game, seed, stored(moves))


def depends_on_seed(game: Game) -> bool:
    """Whether the seed changes the initial position (dealt games such as Nibble)."""
    first = game.new_initial_state(seed=0).to_dict()
    return any(game.new_initial_state(seed=s).to_dict() != first for s in (1, 2, 3))


def draws_possible(game: Game) -> str | None:
    """Why a draw cannot be offered in ``game`` (None: the rules allow a draw, so an offer is possible).

    Offers are between two players: a four-player game has none; otherwise the game says
    whether its rules allow a draw (:meth:`tessera.core.game.Game.why_no_draw`).
    """
    if game.num_players != 2:
        return f"draw offers are for two-player games; this {game.name} game has {game.num_players} players"
    return game.why_no_draw()


def abortable(status: str, seats: int, moves: Iterable[MoveRow]) -> bool:
    """Whether a game may still be aborted: it is going on and some seat has not yet made a move (a
    simultaneous turn is a move of every seat).  Reads the moves from the first only until every
    seat has moved (every view asks: not the whole game each time)."""
    if status != "active":
        return False
    moved: set[int] = set()
    for m in moves:
        if m.player < 0:
            return False
        moved.add(m.player)
        if len(moved) >= seats:
            return False
    return True


# -- sealed orders (Nelaxtam's simultaneous turns) ----------------------------------------


def _shown(state: State, seat: int | None, sealed: dict[int, str]) -> State:
    """The position ``seat`` (None: a spectator) may see: the game's own view of it
    (:meth:`tessera.core.game.State.view`, which carries the sealed orders of the open simultaneous
    turn and hides the others'), the one place a sealed order could leak from."""
    if state.current_player() == SIMULTANEOUS and sealed and len(sealed) < state.game.num_players:
        return state.view(seat, sealed)
    return state


def shared_render(state: State, sealed: dict[int, str], status: str, result: Any) -> dict[str, Any]:
    """The fields of the render description every viewer of this position sees alike
    (:meth:`tessera.core.game.State.render_shared`), drawn from the spectator's view (no sealed
    order in it), with the stored result of a finished game.  Shared by the viewers: never changed."""
    render = _shown(state, None, sealed).render_shared()
    if status != "active" and result is not None:
        render["result"] = result
        render["status"] = result["text"]
        render["status_key"], render["status_args"] = result.get("key"), result.get("args", {})
    return render


def seat_render(state: State, seat: int | None, sealed: dict[int, str], status: str) -> dict[str, Any]:
    """The fields of the render description that depend on ``seat`` (None: a spectator; see
    :meth:`tessera.core.game.State.render_seat`), from ``seat``'s own view.  Spectators and the
    viewers of a finished game get no action list (none is computed), nor does a seat whose
    order of the open simultaneous turn is sealed (its order builder shows the sealed order)."""
    cp = state.current_player()
    part = _shown(state, seat, sealed).render_seat(seat, actions=seat is not None and status == "active")
    order = part.get("order")
    if cp == SIMULTANEOUS:
        if isinstance(order, dict) and seat is not None:
            if seat in sealed or status != "active":
                part["actions"] = []
                order["units"] = [] if status != "active" else order.get("units", [])
        elif isinstance(order, dict):
            part["order"] = None
    return part


def render_for(state: State, seat: int | None, sealed: dict[int, str], status: str, result: Any) -> dict[str, Any]:
    """The render description ``seat`` (None: a spectator) sees: :func:`shared_render` with
    :func:`seat_render` over it (a server keeps the shared part once per position)."""
    return {**shared_render(state, sealed, status, result), **seat_render(state, seat, sealed, status)}


def spectator_render(state: State) -> dict[str, Any]:
    """A position as a spectator of the replay browser sees it: no actions (none computed), no order builder."""
    render = {**state.render_shared(), **state.render_seat(None, actions=False)}
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
        "clock": clock_settings(row.clock),  # a correspondence clock adds its kind and days
        "turns": records.turns_of(stored(moves)),
        "moves": len(moves),
        "result": row.result,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.created_at)),
    }


def text_record(row: GameRow, moves: list[MoveRow]) -> str:
    """The plain-text move list of a game (docs/records.md), written by :func:`tessera.core.records.text_record`."""
    players = []
    for seat in row.seats:
        who = f"AI level {seat.level}" if seat.kind == "ai" else "human"
        players.append(seat.name if seat.name == who else f"{seat.name} ({who})")
    result = None if row.result is None else f"{row.result['text']} ({row.result['reason']})"
    return records.text_record(row.spec, row.seed, stored(moves), players=players, result=result)


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
    clock: tuple[float, float] | dict[str, Any] | None
    """``(initial, increment)``, or ``{"days": n}`` for a correspondence clock."""


def _play_json_turns(state: State, turns: Any) -> list[tuple[int, str]]:
    if not isinstance(turns, list):
        raise ValueError("'turns' must be a list")
    played: list[tuple[int, str]] = []
    for i, t in enumerate(turns, start=1):
        played += records.play_turn(state, t, i)
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
    clock: tuple[float, float] | dict[str, Any] | None = None
    c = record.get("clock")
    if isinstance(c, dict) and not state.is_terminal() and result is None and c.get("days") is not None:
        clock = {"days": c["days"]}  # correspondence (checked when the game is made)
    elif isinstance(c, dict) and not state.is_terminal() and result is None:
        if "initial" not in c:
            raise ValueError("'clock' needs 'initial' (seconds per player)")
        clock = (float(c["initial"]), float(c.get("increment", 0)))
    return ParsedRecord(g, seed, state, played, names, result, clock)


def parse_record(record: dict[str, Any] | str) -> ParsedRecord:
    """A JSON record (dict) or a plain-text record (str) checked and replayed, nothing stored (422 says why)."""
    try:
        if isinstance(record, str):
            spec, seed, lines = records.parse_text_record(record)
            seed = check_seed(seed)
            g = load_checked(spec)
            state = g.new_initial_state(seed=seed)
            played: list[tuple[int, str]] = []
            for i, line in enumerate(lines, start=1):
                if state.is_terminal():
                    raise ValueError(f"turn {i}: the game was already over")
                played += records.play_turn_line(state, line, i)
            return ParsedRecord(g, seed, state, played, None, None, None)
        if isinstance(record, dict):
            return _parse_json_record(record)
        raise ValueError("a record is a JSON object or a text")
    except ServiceError as e:
        raise ServiceError(422, f"the record cannot be imported: {e.detail}") from None
    except (ValueError, KeyError, TypeError, OverflowError) as e:
        raise ServiceError(422, f"the record cannot be imported: {short(str(e), 1000)}") from None
