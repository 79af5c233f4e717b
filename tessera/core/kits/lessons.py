"""Rule diagrams and lessons as data, and the checks that tie them to the engine.

A :class:`Diagram` is a real position (a position dictionary of the game), optional steps
played from it, a caption, and :class:`Check` s that say in data what the caption claims
("this move is legal", "after the attack the blue 3 is gone", "Light has 12 jumps").  The
tests play every diagram through the engine and evaluate its checks; the web client draws
each step with the one board renderer.

A :class:`Lesson` is a position, a task for one player, hints, and :class:`Goal` s: checks
on the position after the player's turn, each with the sentence that explains a miss.
:func:`judge` plays an answer (the player's moves for one turn; at a simultaneous node his
one order, played against the lesson's fixed order for the other side) and says whether it
is right, and why not.

A game declares its diagrams and lessons (``games/<game>/lessons.py``) with ``Game.lessons()``,
a :class:`LessonBook`; :mod:`tessera.lessons` finds them there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tessera.core.game import IllegalMove, State
from tessera.core.registry import load_game

Move = str | tuple[str, ...]
"""One move, or at a simultaneous node one order per player (played with ``play_joint``)."""


@dataclass(frozen=True)
class Check:
    """One claim about a position, evaluated by :func:`failure`.

    Kinds and their ``args``:

    ``("at", cell, value)``
        what stands on ``cell`` as the position dictionary writes it (``None``: nothing):
        Nymbat ``[owner, number]``, Ikabegamá the owner, Nume ``[colour, number]``,
        Nibble the colour, Nelaxtam the territory letter (``"x"``, ``"o"``, ``"."``).
    ``("troop", player, troop, cell)``
        Nelaxtam: where that troop stands (``None``: dead).
    ``("alive", player, troop)``
        Nelaxtam: that troop is alive.
    ``("legal", move, player)`` / ``("illegal", move, reason, player)``
        the move is legal now / is refused with a reason containing ``reason`` (``player``:
        whose order it is at a simultaneous node, else ``None``).
    ``("count", pattern, n)``
        ``n`` legal moves match the regular expression ``pattern`` (whole move).
    ``("moves", pattern, [moves])``
        the legal moves matching ``pattern`` are exactly these.
    ``("options", player, troop, [tokens])``
        Nelaxtam: that troop's possible actions (``troop_options``), excluding ``=``.
    ``("value", "reserves.0", value)``
        a field of the position dictionary (dotted path; list indices are numbers).
    ``("owned", player, n)``
        the player has ``n`` pieces (tokens, stones) on the board.
    ``("no_win", player)``
        ``player`` is to move and none of his legal moves wins at once.
    ``("winner", player)`` / ``("scores", [a, b])`` / ``("to_move", player)``
        the game's result, scores, or the player to move (``tessera.TERMINAL`` when over).
    """

    step: int
    """After how many of the diagram's steps it holds (0: the position as given)."""
    kind: str
    args: tuple[Any, ...]


def at(step: int, cell: str, value: Any) -> Check:
    """``cell`` holds ``value`` after ``step`` steps."""
    return Check(step, "at", (cell, value))


def legal(step: int, move: str, player: int | None = None) -> Check:
    """``move`` is legal after ``step`` steps (for ``player`` at a simultaneous node)."""
    return Check(step, "legal", (move, player))


def illegal(step: int, move: str, reason: str, player: int | None = None) -> Check:
    """``move`` is refused after ``step`` steps with a reason containing ``reason``."""
    return Check(step, "illegal", (move, reason, player))


def count(step: int, pattern: str, n: int) -> Check:
    """Exactly ``n`` legal moves match ``pattern`` after ``step`` steps."""
    return Check(step, "count", (pattern, n))


def moves(step: int, pattern: str, expected: list[str]) -> Check:
    """The legal moves matching ``pattern`` are exactly ``expected``."""
    return Check(step, "moves", (pattern, sorted(expected)))


def value(step: int, path: str, expected: Any) -> Check:
    """A field of the position dictionary (``"reserves.0"``) equals ``expected``."""
    return Check(step, "value", (path, expected))


def winner(step: int, player: int | None) -> Check:
    """The game is over and ``player`` won (``None``: a draw)."""
    return Check(step, "winner", (player,))


def scores(step: int, expected: list[float]) -> Check:
    """``state.scores()`` equals ``expected``."""
    return Check(step, "scores", (expected,))


def to_move(step: int, player: int) -> Check:
    """``state.current_player()`` is ``player``."""
    return Check(step, "to_move", (player,))


def owned(step: int, player: int, n: int) -> Check:
    """``player`` has exactly ``n`` pieces (tokens, stones) on the board."""
    return Check(step, "owned", (player, n))


def no_win(step: int, player: int) -> Check:
    """``player`` is to move and none of his legal moves wins at once (one-move turns)."""
    return Check(step, "no_win", (player,))


def troop(step: int, player: int, number: int, cell: str | None) -> Check:
    """Nelaxtam: ``player``'s troop ``number`` stands on ``cell`` (``None``: dead)."""
    return Check(step, "troop", (player, number, cell))


def alive(step: int, player: int, number: int) -> Check:
    """Nelaxtam: ``player``'s troop ``number`` is alive."""
    return Check(step, "alive", (player, number))


def options(step: int, player: int, number: int, tokens: list[str]) -> Check:
    """Nelaxtam: the actions of ``player``'s troop ``number`` other than "do nothing"."""
    return Check(step, "options", (player, number, sorted(tokens)))


@dataclass(frozen=True)
class Step:
    """One step of a diagram: a move and what it shows."""

    move: Move
    note: str


@dataclass(frozen=True)
class Mark:
    """A cell outlined on a diagram at one step (``kind``: a render highlight kind)."""

    step: int
    cell: str
    kind: str = "target"
    title: str = ""


@dataclass(frozen=True)
class Diagram:
    """A rule picture: a real position, optional steps, a caption and its checks."""

    id: str
    """Referenced from the rules page by a line ``::diagram <id>``."""
    game: str
    title: str
    caption: str
    """What the picture shows, in the players' words; every claim in it has a check."""
    position: dict[str, Any]
    checks: tuple[Check, ...]
    steps: tuple[Step, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)
    marks: tuple[Mark, ...] = ()
    show: tuple[tuple[int, str], ...] = ()
    """``(step, pattern)``: outline the last cell of every legal move matching ``pattern``."""
    frame: bool = False
    """Draw only the area around the pieces and outlines of its steps (a detail of a big board)."""


@dataclass(frozen=True)
class Goal:
    """What a lesson's answer must achieve, and the sentence shown when it does not."""

    check: Check
    why: str


@dataclass(frozen=True)
class Lesson:
    """A position, a task for ``player``, hints, and the goals the answer must reach."""

    id: str
    game: str
    title: str
    task: str
    position: dict[str, Any]
    player: int
    goals: tuple[Goal, ...]
    solution: tuple[str, ...]
    """One right answer (the tests play it)."""
    hints: tuple[str, ...]
    wrong: tuple[tuple[tuple[str, ...], str], ...] = ()
    """Wrong answers and a phrase of the explanation each gets (the tests play them)."""
    explain: tuple[tuple[tuple[str, ...], str], ...] = ()
    """Wrong answers the lesson explains in its own words (instead of the goal's sentence)."""
    params: dict[str, Any] = field(default_factory=dict)
    opponent: str | None = None
    """At a simultaneous node: the other side's order, played with the player's."""


@dataclass(frozen=True)
class LessonBook:
    """What a game teaches (``Game.lessons()``): its rules page's diagrams and its lessons."""

    diagrams: tuple[Diagram, ...]
    """The pictures of its rules page, in the page's order."""
    lessons: tuple[Lesson, ...]
    """Its lessons, easiest first."""


def new_state(game: str, params: dict[str, Any], position: dict[str, Any]) -> State:
    """The position as a state of the engine."""
    return load_game(game, **params).state_from_dict(position)


def play_move(state: State, move: Move) -> None:
    """Play one diagram step (a joint move is a tuple of orders)."""
    if isinstance(move, tuple):
        state.play_joint(list(move))
    else:
        state.play(move)


def _field(d: Any, path: str) -> Any:
    for part in path.split("."):
        d = d[int(part)] if isinstance(d, list) else d[part]
    return d


def occupant(state: State, cell: str) -> Any:
    """What stands on ``cell``, as the position dictionary writes it (``None``: nothing)."""
    d = state.to_dict()
    for key in ("pieces", "tokens", "stones", "cells"):
        if key in d:
            return d[key].get(cell)
    if "board" in d and isinstance(d["board"], list):  # Nelaxtam: rows from the top rank down
        size = len(d["board"])
        file, rank = ord(cell[0]) - ord("a"), int(cell[1:])
        if not (0 <= file < size and 1 <= rank <= size):
            raise ValueError(f"{cell} is off the board")
        return d["board"][size - rank][file]
    raise ValueError(f"{state.game.name}: no cells in its position dictionary")


def _contents(state: State) -> list[Any]:
    d = state.to_dict()
    for key in ("pieces", "tokens", "stones"):
        if key in d:
            return list(d[key].values())
    raise ValueError(f"{state.game.name}: pieces are not owned by players")


def _owner(v: Any) -> int:
    """The owner of a piece as the position dictionary writes it."""
    if isinstance(v, int):
        return v
    head = v[0]
    if isinstance(head, str):
        return {"b": 0, "w": 1}[head]  # Nume's stones: colour letter first
    return int(head)


def failure(state: State, check: Check) -> str | None:
    """``None`` when ``check`` holds on ``state``, else a sentence saying what is instead."""
    kind, args = check.kind, check.args
    if kind == "at":
        cell, want = args
        got = occupant(state, cell)
        return None if got == want else f"{cell} holds {got!r}, not {want!r}"
    if kind == "owned":
        player, want = args
        got = sum(1 for v in _contents(state) if _owner(v) == player)
        return None if got == want else f"player {player} has {got} pieces, not {want}"
    if kind == "no_win":
        if state.current_player() != args[0]:
            return f"it is not player {args[0]}'s turn"
        for move in state.legal_moves():
            probe = state.clone()
            probe.play(move)
            if probe.is_terminal() and probe.winner() == args[0]:
                return f"{move} wins for player {args[0]}"
        return None
    if kind == "troop":
        player, number, want = args
        got = state.to_dict()["troops"][player].get(str(number))
        return None if got == want else f"troop {number} of player {player} is on {got}, not {want}"
    if kind == "alive":
        player, number = args
        return (
            None if str(number) in state.to_dict()["troops"][player] else f"troop {number} of player {player} is dead"
        )
    if kind == "legal":
        why = state.why_illegal(args[0], args[1])
        return None if why is None else f"{args[0]} is not legal: {why}"
    if kind == "illegal":
        move, reason, player = args
        why = state.why_illegal(move, player)
        if why is None:
            return f"{move} is legal"
        return None if reason in why else f"{move} is refused, but for another reason: {why}"
    if kind in ("count", "moves"):
        pattern = re.compile(args[0])
        found = sorted(m for m in state.legal_moves() if pattern.fullmatch(m))
        if kind == "count":
            return None if len(found) == args[1] else f"{len(found)} moves match {args[0]}: {found}"
        return None if found == args[1] else f"the moves matching {args[0]} are {found}"
    if kind == "options":
        player, number, want = args
        got = sorted(t for t in state.troop_options(player).get(number, []) if not t.endswith("="))  # type: ignore[attr-defined]
        return None if got == want else f"troop {number} can {got}"
    if kind == "value":
        got = _field(state.to_dict(), args[0])
        return None if got == args[1] else f"{args[0]} is {got!r}, not {args[1]!r}"
    if kind == "winner":
        if not state.is_terminal():
            return "the game is not over"
        return None if state.winner() == args[0] else f"the winner is {state.winner()}"
    if kind == "scores":
        return None if state.scores() == args[0] else f"the scores are {state.scores()}"
    if kind == "to_move":
        return None if state.current_player() == args[0] else f"player {state.current_player()} is to move"
    raise ValueError(f"unknown check kind {kind!r}")


def diagram_states(diagram: Diagram) -> list[State]:
    """The position after 0, 1, … of the diagram's steps."""
    state = new_state(diagram.game, diagram.params, diagram.position)
    out = [state.clone()]
    for step in diagram.steps:
        play_move(state, step.move)
        out.append(state.clone())
    return out


def diagram_failures(diagram: Diagram) -> list[str]:
    """Every check of the diagram that does not hold (empty: the picture tells the truth)."""
    states = diagram_states(diagram)
    out = []
    for check in diagram.checks:
        if not 0 <= check.step < len(states):
            out.append(f"{check}: there is no step {check.step}")
            continue
        why = failure(states[check.step], check)
        if why is not None:
            out.append(f"{check.kind}{check.args} at step {check.step}: {why}")
    return out


def diagram_views(diagram: Diagram) -> list[dict[str, Any]]:
    """Each step's render description (a spectator's), with the diagram's outlines added."""
    views = []
    for i, state in enumerate(diagram_states(diagram)):
        desc = state.render(None)
        desc["actions"] = []
        extra = [{"cell": m.cell, "kind": m.kind, "title": m.title} for m in diagram.marks if m.step == i]
        for at_step, pattern in diagram.show:
            if at_step == i:
                rx = re.compile(pattern)
                for m in state.legal_moves():
                    if rx.fullmatch(m):
                        extra.append({"cell": _last_cell(m), "kind": "target", "title": m})
        desc["highlights"] = list(desc.get("highlights") or []) + extra
        if i:
            move = diagram.steps[i - 1].move
            desc["step_move"] = " | ".join(move) if isinstance(move, tuple) else move
        views.append(desc)
    return views


def diagram_focus(diagram: Diagram, views: list[dict[str, Any]]) -> list[str]:
    """The cells a framed diagram shows: every piece and outline of its steps (empty: the whole board)."""
    if not diagram.frame:
        return []
    cells = {p["cell"] for v in views for p in v.get("pieces", [])}
    cells |= {h["cell"] for v in views for h in v.get("highlights", []) if h.get("kind") in ("target", "warning")}
    return sorted(cells)


def _last_cell(move: str) -> str:
    """The cell a move ends on: ``0,0>2,-1`` → ``2,-1``, ``h5-g7`` → ``g7``, ``xg6`` → ``g6``, ``d3=5`` → ``d3``."""
    if ">" in move:
        return move.split(">")[-1]
    m = re.fullmatch(r"x?([a-z]\d+)(?:-([a-z]\d+))?(?:=\d+)?", move)
    if m:
        return m.group(2) or m.group(1)
    return move.split("=")[0]


@dataclass
class Verdict:
    """The answer to a lesson attempt."""

    done: bool
    """The player's turn is over (or the game): the answer is complete and judged."""
    correct: bool
    explanation: str
    state: State
    key: str | None = None
    """Where the explanation comes from, for its translation: ``"goals.0"``, ``"explain.1"``, or
    ``None`` for the engine's own reason why a move is illegal (and for a right answer)."""


def judge(lesson: Lesson, answer: list[str]) -> Verdict:
    """Play ``answer`` (the player's moves, or his one order) from the lesson's position.

    An illegal move is a wrong answer explained by the engine's reason; an answer that ends
    the turn is right when every goal holds, else it is explained by the first goal missed.
    Raises ``ValueError`` for input that is not a list of move strings.
    """
    if not isinstance(answer, list) or not all(isinstance(m, str) for m in answer):
        raise ValueError("the answer is a list of move strings")
    state = new_state(lesson.game, lesson.params, lesson.position)
    if lesson.opponent is not None:
        if len(answer) > 1:
            raise ValueError("the answer to this lesson is one order")
        if not answer:
            return Verdict(False, False, "", state)
        orders = [lesson.opponent, lesson.opponent]
        orders[lesson.player] = answer[0]
        try:
            state.play_joint(orders)
        except IllegalMove as e:
            return Verdict(True, False, str(e), state)
    else:
        for move in answer:
            if state.current_player() != lesson.player:
                raise ValueError("the answer goes on after the player's turn is over")
            try:
                state.play(move)
            except IllegalMove as e:
                return Verdict(True, False, str(e), state)
        if state.current_player() == lesson.player and not state.is_terminal():
            return Verdict(False, False, "", state)
    for i, goal in enumerate(lesson.goals):
        if failure(state, goal.check) is not None:
            known = _explain(lesson, answer)
            if known is not None:
                return Verdict(True, False, lesson.explain[known][1], state, f"explain.{known}")
            return Verdict(True, False, goal.why, state, f"goals.{i}")
    return Verdict(True, True, "", state)


def _explain(lesson: Lesson, answer: list[str]) -> int | None:
    """The index of the lesson's own explanation of this wrong answer, when it has one."""
    for i, (moves_, _) in enumerate(lesson.explain):
        if tuple(answer[: len(moves_)]) == moves_:
            return i
    return None
