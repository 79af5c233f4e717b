"""The AI worker: computer seats think away from the event loop.

:func:`think` is a plain function of picklable arguments (the game's spec,
seed and move list), so it runs in a worker *process* (the default for
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

import tessera
from tessera.core.game import SIMULTANEOUS, State

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


RESIGN = "resign"
"""The stored move of a player who resigned in a game that goes on without him (four-player Nymbat)."""


def can_resign_and_play_on(state: State) -> bool:
    """Whether resigning is a rule of ``state`` (the others play on): games of more than two players with ``resign``."""
    return state.game.num_players > 2 and callable(getattr(state, "resign", None))


def play_stored(state: State, player: int, move: str) -> None:
    """Replay one stored ``(player, move)``: a joint move, a resignation, or a move of the player to move."""
    if player == SIMULTANEOUS:
        state.play_joint(move.split(" | "))
    elif move == RESIGN and can_resign_and_play_on(state):
        state.resign(player)  # type: ignore[attr-defined]
    else:
        state.play(move)


def replay(spec: str, seed: int, moves: list[tuple[int, str]]) -> State:
    """The position after ``moves`` (``(player, move)`` pairs as stored)."""
    state = tessera.load_game(spec).new_initial_state(seed=seed)
    for player, move in moves:
        play_stored(state, player, move)
    return state


def _agent_move(state: State, player: int, level: int, seconds: float | None, rng: random.Random) -> str:
    from tessera.agents import make_agent

    agent = make_agent(f"level{level}", game=state.game.name)
    return str(agent.choose_move(state, seconds=seconds, rng=rng, player=player))


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
