"""Finding puzzles in played games: ``tessera puzzles make`` (docs/puzzles.md).

For every position of every game read (:mod:`tessera.puzzles.sources`) where the player to move
has a forced win and exactly one first step keeps it, a :class:`~tessera.puzzles.model.Puzzle`:

* **proved** (games with an exact solver, :func:`~tessera.puzzles.solve.solver_for`): the solver
  proves the win, then every legal step is played and the position after it solved again — the
  puzzle is kept only when exactly one step keeps the win and every other is proved not to.  The
  line goes on with the opponent's best reply (the longest resistance) and the player's next
  step, as long as that step is again the only winning one; it stops where several steps win
  (from there any of them does: the win is obvious) or the game ends.
* **by search** (games without a solver): an alpha-beta search of fixed depth scores every first
  step; the puzzle is kept when the best step gains at least :attr:`Settings.gain` over the
  position and every other step scores at least :attr:`Settings.margin` less.

Every other step gets its refutation (the best play after it up to the opponent's first
answer).  A puzzle that a level-1 agent solves in most of :attr:`Settings.tries` tries is too
easy and dropped; equal positions are one puzzle (the id is a digest of the position).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tessera.core.game import State
from tessera.core.records import play_stored
from tessera.puzzles.model import Puzzle, puzzle_id
from tessera.puzzles.solve import PuzzleSolver, solver_for
from tessera.puzzles.sources import PlayedGame
from tessera.puzzles.themes import themes_of

LEVEL1 = "greedy(noise=0.5)"
"""The level-1 agent (docs/agents.md) whose success rate marks a puzzle as too easy."""


@dataclass
class Settings:
    """How puzzles are searched for."""

    reach: int | None = None
    """Solver games: the largest positions searched (the game's measure; default the levels' reach)."""
    horizon: int | None = None
    """Race solvers: plies looked ahead (default the solver's own)."""
    max_steps: int = 4
    """Most steps of the player in a line."""
    per_game: int = 2
    """Most puzzles taken from one played game."""
    last: int | None = None
    """Only the positions of the last ``last`` plies of each game (``None``: every position)."""
    tries: int = 10
    """Tries of the level-1 agent per puzzle."""
    depth: int = 2
    """By search: steps searched after each first step."""
    margin: float = 0.4
    """By search: how much lower (the evaluation, from −1 to 1) every other first step must score."""
    gain: float = 0.3
    """By search: how much the best step must score above the position's own evaluation."""
    seed: int = 0


@dataclass
class Report:
    """What a run found (the command prints it)."""

    games: int = 0
    positions: int = 0
    wins: int = 0
    """Positions where the player to move has a forced win (by search: a step gains enough)."""
    unique: int = 0
    """... of which exactly one first step keeps it."""
    too_easy: int = 0
    duplicates: int = 0
    kept: int = 0
    level1: list[float] = field(default_factory=list)
    """The level-1 agent's success rate on each unique puzzle met for the first time (kept or dropped);
    ``too_easy / len(level1)`` is the share dropped as too easy (``too_easy_share``)."""

    def as_dict(self) -> dict[str, Any]:
        """The figures as JSON-ready data."""
        share = sum(self.level1) / len(self.level1) if self.level1 else None
        dropped = self.too_easy / len(self.level1) if self.level1 else None
        return {
            "games": self.games,
            "positions": self.positions,
            "wins": self.wins,
            "unique": self.unique,
            "too_easy": self.too_easy,
            "duplicates": self.duplicates,
            "kept": self.kept,
            "level1_mean_success": share,
            "too_easy_share": dropped,
        }


@dataclass
class Found:
    """A proved (or searched) line before it becomes a puzzle."""

    line: list[str]
    refutations: list[dict[str, list[str]]]
    plies: int | None
    proof: str
    notes: dict[str, Any] = field(default_factory=dict)


# -- proof by an exact solver -------------------------------------------------------------


def _winning_steps(ps: PuzzleSolver, solver: Any, state: State, mover: int) -> tuple[list[int], list[int]] | None:
    """The steps that keep ``mover``'s win and those proved not to; ``None`` if one is unknown, or two win."""
    wins: list[int] = []
    others: list[int] = []
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        v = ps.verdict(solver, child, mover)
        if v is None:
            return None
        (wins if v else others).append(a)
        if len(wins) > 1:
            return wins, others
    return wins, others


def _solver_refutation(ps: PuzzleSolver, solver: Any, state: State, mover: int, cap: int = 8) -> list[str]:
    """Best play from ``state`` (after a wrong step) up to the opponent's first answer."""
    out: list[str] = []
    st = state.clone()
    while not st.is_terminal() and len(out) < cap:
        p = st.current_player()
        a = ps.best(solver, st)
        if a is None:
            break
        out.append(st.action_to_string(a))
        st.apply_action(a)
        if p != mover:
            break
    return out


def prove(
    ps: PuzzleSolver, solver: Any, state: State, settings: Settings, report: Report | None = None
) -> Found | None:
    """The proved line of ``state`` (module docstring), or ``None`` (no win, several winning steps, unknown)."""
    mover = state.current_player()
    if ps.verdict(solver, state, mover) is not True:
        return None
    if report is not None:
        report.wins += 1
    line: list[str] = []
    refutations: list[dict[str, list[str]]] = []
    cur = state.clone()
    tail = 0  # replies after the last player's step
    while len(refutations) < settings.max_steps:
        found = _winning_steps(ps, solver, cur, mover)
        if found is None or len(found[0]) != 1:
            if not line:
                return None
            break
        (a,), others = found
        refs: dict[str, list[str]] = {}
        for o in others:
            child = cur.clone()
            child.apply_action(o)
            reply = _solver_refutation(ps, solver, child, mover)
            if reply:  # a step with no refutation to show (a race nobody wins in time) is not stored
                refs[cur.action_to_string(o)] = reply
        line.append(cur.action_to_string(a))
        refutations.append(refs)
        cur.apply_action(a)
        tail = 0
        while not cur.is_terminal() and cur.current_player() != mover:
            b = ps.best(solver, cur)
            if b is None:
                break
            line.append(cur.action_to_string(b))
            cur.apply_action(b)
            tail += 1
        if cur.is_terminal() or cur.current_player() != mover:
            break
    if tail and not cur.is_terminal():
        del line[len(line) - tail :]
    root = solver.solve(state, None, exact=True) if ps.horizon is None else None
    plies = None if root is None else root.plies
    notes = {} if ps.horizon is None else {"horizon": ps.horizon}
    return Found(line, refutations, plies, "solver", notes)


# -- by search ----------------------------------------------------------------------------


def _search_values(state: State, depth: int) -> dict[int, float]:
    """Every first step's value for the player to move, by a full-window alpha-beta of ``depth`` steps."""
    from tessera.agents.alphabeta import AlphaBetaAgent

    ab = AlphaBetaAgent(max_depth=depth)
    ab._me = -1
    me = state.current_player()
    out: dict[int, float] = {}
    for a in state.legal_actions():
        child = state.clone()
        child.apply_action(a)
        out[a] = ab._value_of_child(child, me, depth - 1, -10.0, 10.0, 1)
    return out


def _greedy_refutation(state: State, mover: int, cap: int = 8) -> list[str]:
    """The search's play after a wrong step (each side's best step by evaluation) up to the opponent's answer."""
    out: list[str] = []
    st = state.clone()
    while not st.is_terminal() and len(out) < cap:
        p = st.current_player()
        best, best_v = None, -10.0
        for a in st.legal_actions():
            ch = st.clone()
            ch.apply_action(a)
            v = ch.returns()[p] * 2 if ch.is_terminal() else ch.evaluate(p)
            if v > best_v:
                best, best_v = a, v
        if best is None:
            break
        out.append(st.action_to_string(best))
        st.apply_action(best)
        if p != mover:
            break
    return out


def search(state: State, settings: Settings, report: Report | None = None) -> Found | None:
    """A first step found by search (module docstring), or ``None``."""
    mover = state.current_player()
    actions = state.legal_actions()
    if len(actions) < 2:
        return None
    values = _search_values(state, settings.depth)
    ranked = sorted(values, key=lambda a: -values[a])
    best, second = ranked[0], ranked[1]
    before = state.evaluate(mover)
    if values[best] - before < settings.gain:
        return None
    if report is not None:
        report.wins += 1
    if values[best] - values[second] < settings.margin:
        return None
    refs: dict[str, list[str]] = {}
    for o in ranked[1:]:
        child = state.clone()
        child.apply_action(o)
        reply = _greedy_refutation(child, mover)
        if reply:
            refs[state.action_to_string(o)] = reply
    notes = {
        "depth": settings.depth,
        "before": round(before, 3),
        "best": round(values[best], 3),
        "second": round(values[second], 3),
    }
    return Found([state.action_to_string(best)], [refs], None, "search", notes)


# -- the level-1 agent --------------------------------------------------------------------


def level1_success(puzzle: Puzzle, tries: int, seed: int = 0) -> float:
    """Share of ``tries`` in which the level-1 agent plays the whole line of ``puzzle``."""
    from tessera.agents import make_agent

    agent = make_agent(LEVEL1)
    wins = 0
    for t in range(tries):
        rng = random.Random(f"{seed}/{puzzle.id}/{t}")
        state = puzzle.state()
        ok = True
        for move in puzzle.line:
            if state.current_player() == puzzle.to_move:
                a = agent.choose(state, rng=rng)
                if state.action_to_string(a) != move:
                    ok = False
                    break
            state.play(move)
        wins += ok
    return wins / tries if tries else 0.0


def starting_rating(steps: int, level1: float) -> float:
    """A puzzle's first rating: longer lines and lines the level-1 agent misses start higher."""
    return round(1100.0 + 150.0 * (steps - 1) + 500.0 * (1.0 - level1))


# -- the run ------------------------------------------------------------------------------


def positions(played: PlayedGame, first: int = 0) -> Iterator[tuple[int, State]]:
    """Every position of a played game from ply ``first`` on where a player is to move, with its ply."""
    from tessera.core.registry import load_game

    state = load_game(played.spec).new_initial_state(seed=played.seed)
    for ply, (player, move) in enumerate(played.moves):
        if ply >= first and not state.is_terminal() and state.current_player() >= 0 and state.game.num_players == 2:
            yield ply, state.clone()
        play_stored(state, player, move)


def find(
    game: str,
    games: Iterable[PlayedGame],
    settings: Settings,
    *,
    known: Iterable[str] = (),
    report: Report | None = None,
    budget: Callable[[], bool] | None = None,
) -> Iterator[Puzzle]:
    """The new puzzles of ``game`` in ``games`` (ids in ``known`` are skipped); ``budget()`` false stops it."""
    report = report if report is not None else Report()
    ps = solver_for(game, reach=settings.reach, horizon=settings.horizon)
    solver = None if ps is None else ps.new()
    seen = set(known)
    for played in games:
        if budget is not None and not budget():
            return
        report.games += 1
        taken = 0
        skip_to = -1
        first = 0 if settings.last is None else len(played.moves) - settings.last
        for ply, state in positions(played, first):
            if taken >= settings.per_game or (budget is not None and not budget()):
                break
            if ply < skip_to:
                continue
            if ps is not None:
                if not ps.within(state):
                    continue
                if ps.horizon is not None and ply + ps.horizon >= state.game.max_game_length():
                    # the game's safeguard (a draw) falls within the race's horizon: there "the only step
                    # that wins within the horizon" is mostly the only one that wins before the draw
                    continue
                report.positions += 1
                found = prove(ps, solver, state, settings, report)
            else:
                report.positions += 1
                found = search(state, settings, report)
            if found is None:
                continue
            report.unique += 1
            spec = str(state.game)
            # the position as the puzzle file keeps it (keys sorted): the level-1 agent is measured on
            # what is shipped (Ikabegamá's random move follows the order of the tokens)
            position = json.loads(json.dumps(state.to_dict(), sort_keys=True))
            pid = puzzle_id(game, spec, position)
            if pid in seen:  # found before: its line's positions are skipped as a kept puzzle's are
                report.duplicates += 1
                taken += 1
                skip_to = ply + len(found.line)
                continue
            draft = Puzzle(
                pid, game, spec, position, state.current_player(), found.line, found.refutations, [], found.proof
            )
            success = level1_success(draft, settings.tries, settings.seed)
            report.level1.append(success)
            if success > 0.5:
                report.too_easy += 1
                continue
            seen.add(pid)
            taken += 1
            skip_to = ply + len(found.line)
            report.kept += 1
            yield Puzzle(
                pid,
                game,
                spec,
                position,
                state.current_player(),
                found.line,
                found.refutations,
                themes_of(draft),
                found.proof,
                plies=found.plies,
                rating=starting_rating(len(found.refutations), success),
                source=f"{played.label}, ply {ply}",
                notes={**found.notes, "level1": success, "seed": settings.seed},
            )


__all__ = ["LEVEL1", "Found", "Report", "Settings", "find", "level1_success", "positions", "prove", "search"]
