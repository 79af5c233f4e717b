"""A puzzle, its file format (JSON lines, one puzzle a line), and how an attempt is judged.

A puzzle is a position from a played game, the player to move (who must find the win), and the
*line*: the steps from the position on, the solver's (or the search's) first, alternating with
the opponent's best replies, up to the depth where the win is obvious.  Every step of the
player in the line is the only one that keeps the win; for the other steps the puzzle keeps a
*refutation* (the best play that follows it, up to the opponent's first answer).

This module needs neither the solvers nor the server: the server plays puzzles from it alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tessera.core.game import IllegalMove, State
from tessera.core.registry import load_game

DATA = Path(__file__).resolve().parent / "data"
"""The shipped puzzles: ``<game>.jsonl`` per game."""

PROOFS = ("solver", "search")
"""How a puzzle's uniqueness was established: proved by an exact solver, or found by search."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle (see the module docstring)."""

    id: str
    """Stable id: the game's name and a digest of the game string and position."""
    game: str
    """The game's name."""
    spec: str
    """The game string (``load_game``), with its parameters."""
    position: dict[str, Any]
    """The position, as ``state.to_dict()`` writes it."""
    to_move: int
    """The player who must find the win."""
    line: list[str]
    """The steps from the position: the player's (each the only one that keeps the win) and the replies."""
    refutations: list[dict[str, list[str]]]
    """For the player's ``i``-th step in the line: the other legal steps and the play that refutes each (a step
    whose refutation is empty — a race nobody wins within the solver's horizon — is left out)."""
    themes: list[str]
    """Theme keys (docs/puzzles.md)."""
    proof: str
    """``solver`` (the win and the unique steps are proved) or ``search`` (found by search)."""
    plies: int | None = None
    """Steps to the end of the game with best play (solver puzzles where the solver counted them)."""
    rating: float = 1500.0
    """The puzzle's starting rating (the server rates it from there)."""
    source: str = ""
    """Where the position was found (a record, a database game, a self-play game)."""
    notes: dict[str, Any] = field(default_factory=dict)
    """What the finder measured (the level-1 agent's tries, the search's values)."""

    def to_json(self) -> str:
        """One line of a puzzle file."""
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Puzzle:
        """A puzzle from one parsed line; a missing or unknown field is a ``ValueError`` naming it."""
        names = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - names)
        if unknown:
            raise ValueError(f"puzzle: unknown field(s) {', '.join(unknown)}")
        for need in ("id", "game", "spec", "position", "to_move", "line", "refutations", "themes", "proof"):
            if need not in d:
                raise ValueError(f"puzzle: the field {need!r} is missing")
        if d["proof"] not in PROOFS:
            raise ValueError(f"puzzle {d['id']}: proof is one of {', '.join(PROOFS)}, not {d['proof']!r}")
        return cls(**d)

    def state(self) -> State:
        """The puzzle's position as a fresh state."""
        return load_game(self.spec).state_from_dict(self.position)

    def player_steps(self) -> list[int]:
        """Indices in :attr:`line` of the player's own steps."""
        state = self.state()
        out: list[int] = []
        for i, move in enumerate(self.line):
            if state.current_player() == self.to_move:
                out.append(i)
            state.play(move)
        return out


def puzzle_id(game: str, spec: str, position: dict[str, Any]) -> str:
    """The id of the puzzle at ``position``: equal positions of the same game string get the same id."""
    text = json.dumps([spec, position], sort_keys=True, separators=(",", ":"))
    return f"{game}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def read_puzzles(path: str | Path) -> list[Puzzle]:
    """Every puzzle of a JSON-lines file (blank lines skipped); a bad line is a ``ValueError`` naming it."""
    out: list[Puzzle] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(Puzzle.from_dict(json.loads(line)))
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path}:{n}: {e}") from e
    return out


def write_puzzles(path: str | Path, puzzles: Iterable[Puzzle]) -> int:
    """Write ``puzzles`` as JSON lines, ordered by id; the number written.

    The file is replaced whole (written beside it, then renamed): a run stopped while writing leaves
    the file as it was."""
    rows = sorted(puzzles, key=lambda p: p.id)
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text("".join(p.to_json() + "\n" for p in rows), encoding="utf-8")
    tmp.replace(target)
    return len(rows)


def shipped(game: str | None = None) -> list[Puzzle]:
    """The puzzles shipped with tessera (of one game, or all)."""
    files = sorted(DATA.glob("*.jsonl")) if game is None else [DATA / f"{game}.jsonl"]
    return [p for f in files if f.exists() for p in read_puzzles(f)]


# -- judging an attempt ----------------------------------------------------------------------


@dataclass(frozen=True)
class StepVerdict:
    """The answer to one of the player's steps."""

    move: str
    """The step as the game normalises it."""
    verdict: str
    """``correct``, ``wrong`` or ``solved``."""
    replies: list[str]
    """After a correct step: the opponent's replies, played for the player."""
    refutation: list[str]
    """After a wrong step: the play that refutes it (best play up to the opponent's first answer)."""


@dataclass(frozen=True)
class Judgement:
    """What an attempt (the player's steps so far) comes to."""

    status: str
    """``correct`` (so far, go on), ``wrong`` or ``solved``."""
    steps: list[StepVerdict]
    position: dict[str, Any]
    """The position after the steps, replies and refutation shown."""


def _normalised(state: State, move: str) -> str:
    state.play(move)  # IllegalMove: the caller says why
    return str(state.history()[-1][1])


def judge(puzzle: Puzzle, moves: Sequence[str]) -> Judgement:
    """Judge the player's ``moves`` (his own steps, in order) against the puzzle's line.

    Each step is checked for legality first (``IllegalMove`` names the rule); a step that is not the
    line's is ``wrong`` and ends the attempt with its refutation; after the line's last step the
    puzzle is ``solved``.  Steps after the end are refused (``ValueError``).
    """
    state = puzzle.state()
    steps: list[StepVerdict] = []
    at = 0  # index in the line
    for n, move in enumerate(moves):  # n: the player's step number
        if not isinstance(move, str):
            raise ValueError(f"step {n + 1}: a move is a string in the game's notation, not {move!r}")
        probe = state.clone()
        try:
            mine = _normalised(probe, move)
        except IllegalMove as e:
            raise IllegalMove(f"step {n + 1} ({move!r}): {e}") from None
        if mine != puzzle.line[at]:
            refutation = list(puzzle.refutations[n].get(mine, [])) if n < len(puzzle.refutations) else []
            for r in refutation:
                probe.play(r)
            steps.append(StepVerdict(mine, "wrong", [], refutation))
            return Judgement("wrong", steps, probe.to_dict())
        state = probe
        at += 1
        replies: list[str] = []
        while at < len(puzzle.line) and state.current_player() != puzzle.to_move:
            state.play(puzzle.line[at])
            replies.append(puzzle.line[at])
            at += 1
        done = at >= len(puzzle.line)
        steps.append(StepVerdict(mine, "solved" if done else "correct", replies, []))
        if done:
            if n + 1 < len(moves):
                raise ValueError(f"the puzzle is already solved after {n + 1} step(s); step {n + 2} is one too many")
            return Judgement("solved", steps, state.to_dict())
    return Judgement("correct", steps, state.to_dict())


def public_view(puzzle: Puzzle, rating: float | None = None) -> dict[str, Any]:
    """What a player sees before solving: never the line or the refutations."""
    return {
        "id": puzzle.id,
        "game": puzzle.game,
        "spec": puzzle.spec,
        "position": puzzle.position,
        "to_move": puzzle.to_move,
        "themes": list(puzzle.themes),
        "rating": round(puzzle.rating if rating is None else rating),
        "proof": puzzle.proof,
        "steps": len(puzzle.refutations),
    }


__all__ = [
    "DATA",
    "PROOFS",
    "Judgement",
    "Puzzle",
    "StepVerdict",
    "judge",
    "public_view",
    "puzzle_id",
    "read_puzzles",
    "shipped",
    "write_puzzles",
]
