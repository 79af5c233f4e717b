"""Solving shipped puzzles again: every step of the player in the line must be the only winning one.

:func:`check_puzzle` replays a solver-backed puzzle with a fresh solver: the player to move has a
forced win; at each of his steps in the line, every legal step is played and solved, and exactly
one keeps the win — the line's; every reply in the line is legal and leaves the player's win
standing; every refutation is a legal continuation of another legal step (each proved not to win).  Puzzles
found by search are checked for their form only (legal line and refutations).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from tessera.core.game import IllegalMove, State
from tessera.puzzles.model import Puzzle
from tessera.puzzles.solve import PuzzleSolver, solver_for


def _legal_line(state: State, moves: Sequence[str]) -> str | None:
    st = state.clone()
    for m in moves:
        try:
            st.play(m)
        except IllegalMove as e:
            return f"{m!r} is illegal: {e}"
    return None


def check_puzzle(puzzle: Puzzle, ps: PuzzleSolver | None, solver: Any = None) -> str | None:
    """What is wrong with ``puzzle`` (``None``: it holds).  ``ps``: the game's solver (``None``: by search)."""
    state = puzzle.state()
    mover = puzzle.to_move
    if state.current_player() != mover:
        return f"the position has player {state.current_player()} to move, not {mover}"
    if (ps is None) != (puzzle.proof == "search"):
        return f"proof {puzzle.proof!r} does not match the game (solver: {ps is not None})"
    if ps is not None and solver is None:
        solver = ps.new()
    k = 0
    for move in puzzle.line:
        if state.is_terminal():
            return "the line goes on after the end of the game"
        if state.current_player() == mover:
            if k >= len(puzzle.refutations):
                return f"player step {k + 1} has no refutations"
            refs = puzzle.refutations[k]
            legal = {state.action_to_string(a): a for a in state.legal_actions()}
            if move not in legal:
                return f"player step {k + 1} ({move!r}) is illegal"
            if not set(refs) <= set(legal) - {move}:
                return f"player step {k + 1}: a refutation is of a step that is not another legal step"
            for other, reply in refs.items():
                child = state.clone()
                child.play(other)
                bad = _legal_line(child, reply)
                if bad:
                    return f"player step {k + 1}: refutation of {other!r}: {bad}"
            if ps is not None:
                for step, a in legal.items():
                    child = state.clone()
                    child.apply_action(a)
                    v = ps.verdict(solver, child, mover)
                    if v is None:
                        return f"player step {k + 1}: {step!r} could not be solved in time"
                    if v != (step == move):
                        what = "keeps the win too" if v else "does not keep the win"
                        return f"player step {k + 1}: {step!r} {what}"
            k += 1
        try:
            state.play(move)
        except IllegalMove as e:
            return f"the reply {move!r} is illegal: {e}"
        if ps is not None and ps.verdict(solver, state, mover) is not True:
            return f"after {move!r} the player's win is gone"
    if k != len(puzzle.refutations):
        return "more refutations than player steps"
    return None


def check_puzzles(
    puzzles: Sequence[Puzzle], *, sample: int | None = None, seed: int = 0
) -> tuple[list[tuple[str, str]], int, float]:
    """Check ``puzzles`` (all, or a seeded ``sample``): the problems as ``(id, why)``, how many, CPU seconds."""
    chosen = list(puzzles)
    if sample is not None and sample < len(chosen):
        chosen = random.Random(seed).sample(chosen, sample)
    start = time.process_time()
    solvers: dict[str, tuple[PuzzleSolver | None, Any]] = {}
    problems: list[tuple[str, str]] = []
    for p in chosen:
        if p.game not in solvers:
            ps = solver_for(p.game)
            solvers[p.game] = (ps, None if ps is None else ps.new())
        ps, solver = solvers[p.game]
        if ps is not None and ps.horizon is not None:
            horizon = p.notes.get("horizon")
            if isinstance(horizon, int):
                ps = solver_for(p.game, horizon=horizon)
        why = check_puzzle(p, ps, solver)
        if why is not None:
            problems.append((p.id, why))
    return problems, len(chosen), time.process_time() - start


__all__ = ["check_puzzle", "check_puzzles"]
