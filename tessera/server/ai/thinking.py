"""The AI worker: computer seats think away from the event loop.

:func:`think_step` (one step of a turn, within the budget of the whole turn)
and :func:`think` (one move) are plain functions of picklable arguments (the
game's spec, seed and move list), so they run in a worker *process* (the default for
``tessera serve``: a search never holds the server's GIL) or, for tests, in a
worker thread.  The agent comes from ``tessera.agents`` (``level(n)`` gives an
agent with ``choose_move(state, seconds=None, rng=None, player=None)``: an
integer action at a sequential node, the player's whole order at Nelaxtam's
simultaneous nodes); while
that package is not installed the seat plays a uniformly random legal move
(``state.random_move``), and :data:`AGENTS_AVAILABLE` says so.
"""

from __future__ import annotations

import importlib.util
import random
import time
from typing import Any

import tessera
from tessera.core import records
from tessera.core.game import State

__all__ = ["replay", "think", "think_step"]

AGENTS_AVAILABLE = importlib.util.find_spec("tessera.agents") is not None
"""Whether ``tessera.agents`` is importable (else the AI plays random legal moves)."""

LEVEL_SECONDS = {1: 0.05, 2: 0.1, 3: 0.3, 4: 1.0, 5: 3.0}
"""About the thinking time per move of each level (used to fit a clock; the agents' own defaults rule)."""
if AGENTS_AVAILABLE:
    try:
        from tessera.agents import LEVEL_SECONDS as _AGENT_SECONDS

        LEVEL_SECONDS.update({k: v for k, v in _AGENT_SECONDS.items() if v is not None})
    except ImportError:  # an older agents package without the table
        pass


def replay(spec: str, seed: int, moves: list[tuple[int, str]]) -> State:
    """The position after ``moves`` (``(player, move)`` pairs as stored)."""
    return records.replay(tessera.load_game(spec), seed, moves)


def _agent_move(state: State, player: int, level: int, seconds: float | None, rng: random.Random) -> str:
    from tessera.agents import make_agent

    agent = make_agent(f"level{level}", game=state.game.name)
    return str(agent.choose_move(state, seconds=seconds, rng=rng, player=player))


def multi_step(state: State, player: int, rng: random.Random, probes: int = 6) -> bool:
    """Whether ``player``'s turn may go on after a step here (Nymbat, Nibble, Nume's bidding).

    Probed with a few random legal steps: game-agnostic, and cheap next to a search.
    """
    if state.current_player() != player:
        return False
    for _ in range(probes):
        probe = state.clone()
        probe.apply_action(probe.random_action(rng))
        if probe.current_player() == player:
            return True
    return False


def step_budget(total: float, left: float, multi: bool) -> float | None:
    """Thinking time of one step of a turn whose whole budget is ``total`` with ``left`` remaining.

    A one-step turn gets everything; a multi-step turn gives each step
    :data:`STEP_SHARE` of what is left (the first steps matter most), and once
    less than :data:`STEP_FLOOR` of the total is left the remaining steps are
    played greedily (``None``: one-step lookahead, no search).
    """
    if not multi:
        return max(0.0, left)
    if left < STEP_FLOOR * total:
        return None
    return left * STEP_SHARE


STEP_SHARE = 0.4
"""Share of a multi-step turn's remaining time given to its next step."""

STEP_FLOOR = 0.05
"""Below this share of the turn's budget left, the turn's remaining steps are greedy."""


def think_step(
    spec: str,
    seed: int,
    moves: list[tuple[int, str]],
    player: int,
    level: int,
    total: float,
    left: float,
    rng_seed: int,
) -> dict[str, Any]:
    """One step of the AI's turn, within a budget for the **whole turn**.

    ``total`` is the turn's thinking time and ``left`` what remains of it;
    the step takes its share (:func:`step_budget`).  Returns ``{"move": …,
    "more": …, "seconds": …, "stats": {…}}``: ``more`` says whether the same
    player is still to move after the step (the turn goes on); ``stats`` is
    what the search did (depth, nodes, iterations, value).
    """
    state = replay(spec, seed, moves)
    rng = random.Random(rng_seed)
    started = time.perf_counter()
    stats: dict[str, Any] = {}
    if not AGENTS_AVAILABLE:
        move = state.random_move(rng, player)
    else:
        from tessera.agents import make_agent

        seconds: float | None = None
        name = f"level{level}"
        if level >= 3:
            seconds = step_budget(total, left, multi_step(state, player, random.Random(rng_seed)))
            if seconds is None:
                name = "greedy"
        agent = make_agent(name, game=state.game.name)
        move = str(agent.choose_move(state, seconds=seconds, rng=rng, player=player))
        stats = {k: v for k, v in agent.stats.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    more = False
    if state.current_player() >= 0:
        after = state.clone()
        after.play(move)
        more = after.current_player() == player
    return {"move": move, "more": more, "seconds": time.perf_counter() - started, "stats": stats}


def think(
    spec: str,
    seed: int,
    moves: list[tuple[int, str]],
    player: int,
    level: int,
    seconds: float | None,
    rng_seed: int,
) -> str:
    """The move (or, at a simultaneous node, the order) the AI of ``level`` plays for ``player``.

    ``seconds`` caps the thinking time; ``None`` leaves the level's own budget.
    """
    state = replay(spec, seed, moves)
    rng = random.Random(rng_seed)
    if AGENTS_AVAILABLE:
        try:
            move = _agent_move(state, player, level, seconds, rng)
        except ImportError:
            move = state.random_move(rng, player)
    else:
        move = state.random_move(rng, player)
    return move
