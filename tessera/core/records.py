"""Stored moves and game records: the one reader and writer of both.

A game is kept as its one-string form, its seed and its moves; the position is
always rebuilt by replaying them.  A *stored move* is a ``(player, move)`` pair
exactly as :meth:`State.history` gives it:

* a step of the player to move: ``(player, "d3=5")``;
* a joint move at a simultaneous node: ``(SIMULTANEOUS, "<order 0> | <order 1>")``
  (only resolved turns are ever stored: a sealed order is not a move);
* a resignation where the others play on (:meth:`State.resign_plays_on`):
  ``(player, "resign")``, on that player's turn or not.

:func:`play_stored` plays one stored move, :func:`replay` a whole list;
:func:`turns_of` groups moves into turns, the unit of the records
(docs/records.md): :func:`text_record` writes the plain-text form,
:func:`parse_text_record` and :func:`play_turn_line` read it back, and
:func:`play_turn` reads one turn of the JSON form.

>>> from tessera import load_game
>>> state = load_game("nume(size=2)").new_initial_state()
>>> state.play("d3=5")
>>> moves = state.history()
>>> moves
[(0, 'd3=5')]
>>> replay(state.game, 0, moves).to_dict() == state.to_dict()
True
>>> turns_of(moves)
[{'player': 0, 'moves': ['d3=5']}]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tessera.core.game import SIMULTANEOUS, Game, IllegalMove, Move, State
from tessera.core.registry import load_game

RESIGN = "resign"
"""The stored move of a player who resigned in a game that goes on without him (four-player Nymbat)."""

ORDER_SEPARATOR = " | "
"""Joins the players' orders of one joint move (``history()``'s form)."""

MAX_WORDS_PER_MOVE = 8
"""The most words one move has (Nume's ``komi 3.5 white`` has three): a text record's line is read
as the longest legal moves from the left, trying at most this many words."""

StoredMove = tuple[int, Move]
"""``(player, move)`` as :meth:`State.history` gives it (``player`` is ``SIMULTANEOUS`` for a joint move)."""

Turn = dict[str, Any]
"""One turn of a record: ``{"player": p, "moves": [...]}`` (the steps of one player's turn) or
``{"player": SIMULTANEOUS, "orders": [...]}`` (one order per player)."""


def join_orders(orders: Sequence[Move]) -> Move:
    """The stored form of a joint move: the orders joined by ``" | "``."""
    return ORDER_SEPARATOR.join(orders)


def split_orders(move: Move) -> list[Move]:
    """The players' orders of a stored joint move (spaces around ``|`` are optional)."""
    return [part.strip() for part in move.split("|")]


def play_stored(state: State, player: int, move: Move) -> None:
    """Play one stored move: a joint move, a resignation, or a move of the player to move.

    ``IllegalMove`` (the state unchanged) if the rules refuse it.
    """
    if player == SIMULTANEOUS:
        state.play_joint(split_orders(move))
    elif move == RESIGN and state.resign_plays_on():
        state.resign(player)
    else:
        state.play(move)


def replay(game: Game, seed: int, moves: Iterable[StoredMove]) -> State:
    """The position after the stored ``moves`` from the initial state dealt by ``seed``."""
    state = game.new_initial_state(seed=seed)
    for player, move in moves:
        play_stored(state, player, move)
    return state


def turns_of(moves: Iterable[StoredMove]) -> list[Turn]:
    """Group stored moves into turns: consecutive steps of one player, or one joint move.

    A resignation is a turn of its own.
    """
    turns: list[Turn] = []
    for player, move in moves:
        if player == SIMULTANEOUS:
            turns.append({"player": SIMULTANEOUS, "orders": split_orders(move)})
        elif turns and turns[-1]["player"] == player and RESIGN not in (move, turns[-1]["moves"][-1]):
            turns[-1]["moves"].append(move)
        else:
            turns.append({"player": player, "moves": [move]})
    return turns


def turn_line(turn: Turn) -> str:
    """One turn as a line of a text record (without its number)."""
    if turn["player"] == SIMULTANEOUS:
        return join_orders(turn["orders"])
    if turn["moves"] == [RESIGN]:
        return f"{RESIGN} {turn['player']}"  # a resignation names its seat (it can come on another player's turn)
    return " ".join(turn["moves"])


def text_record(
    spec: str,
    seed: int,
    moves: Iterable[StoredMove],
    *,
    players: Sequence[str] = (),
    result: str | None = None,
) -> str:
    """The plain-text record (docs/records.md): tag lines, then one numbered line per turn.

    ``players`` are the seats' display names (``[Player0 "..."]``), ``result`` the
    result line's text, both optional.
    """
    lines = [f'[Game "{spec}"]', f'[Seed "{seed}"]']
    lines += [f'[Player{i} "{name}"]' for i, name in enumerate(players)]
    if result is not None:
        lines.append(f'[Result "{result}"]')
    lines.append("")
    lines += [f"{i}. {turn_line(t)}" for i, t in enumerate(turns_of(moves), start=1)]
    return "\n".join(lines) + "\n"


_TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')
_NUMBER = re.compile(r"^\d+\.\s*")


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


def play_turn_line(state: State, line: str, number: int) -> list[StoredMove]:
    """Play one line of a text record: the stored moves it made.

    The steps of a turn are found as the longest legal prefixes (a move may hold
    spaces); ``ValueError`` names the turn ``number`` and the rule broken.
    """
    if state.current_player() == SIMULTANEOUS or ORDER_SEPARATOR in line:
        try:
            state.play_joint(split_orders(line))
        except IllegalMove as e:
            raise ValueError(f"turn {number} ({line!r}): {e}") from None
        return [state.history()[-1]]
    words = line.split()
    if len(words) == 2 and words[0] == RESIGN and state.resign_plays_on():
        try:
            play_stored(state, int(words[1]) if words[1].isdigit() else -1, RESIGN)
        except IllegalMove as e:
            raise ValueError(f"turn {number} ({line!r}): {e}") from None
        return [state.history()[-1]]
    played: list[StoredMove] = []
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


def play_turn(state: State, turn: Mapping[str, Any], number: int) -> list[StoredMove]:
    """Play one turn of a JSON record (:data:`Turn`): the stored moves it made.

    ``ValueError`` names the turn ``number`` and what is wrong (a move the rules
    refuse, or a turn that names the wrong player).
    """
    if not isinstance(turn, Mapping):
        raise ValueError(f"turn {number} must be an object")
    played: list[StoredMove] = []
    try:
        if "orders" in turn:
            state.play_joint([str(o) for o in turn["orders"]])
            return [state.history()[-1]]
        for mv in turn.get("moves", []):
            player = turn.get("player", -1)
            if str(mv) == RESIGN and state.resign_plays_on():
                play_stored(state, player, RESIGN)
            else:
                if state.current_player() != player:
                    raise IllegalMove(
                        f"the record says player {player} moves, but player {state.current_player()} is to move"
                    )
                state.play(str(mv))
            played.append(state.history()[-1])
    except IllegalMove as e:
        raise ValueError(f"turn {number}: {e}") from None
    return played


def replay_text_record(text: str) -> State:
    """The position at the end of a plain-text record, every move checked by the rules.

    ``ValueError`` names the first problem (``turn 3: ...`` with the game's reason).
    """
    spec, seed, lines = parse_text_record(text)
    state = load_game(spec).new_initial_state(seed=seed)
    for i, line in enumerate(lines, start=1):
        if state.is_terminal():
            raise ValueError(f"turn {i}: the game was already over")
        play_turn_line(state, line, i)
    return state


__all__ = [
    "MAX_WORDS_PER_MOVE",
    "ORDER_SEPARATOR",
    "RESIGN",
    "StoredMove",
    "Turn",
    "join_orders",
    "parse_text_record",
    "play_stored",
    "play_turn",
    "play_turn_line",
    "replay",
    "replay_text_record",
    "split_orders",
    "text_record",
    "turn_line",
    "turns_of",
]
