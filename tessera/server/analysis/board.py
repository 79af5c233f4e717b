"""The analysis board's server side: positions off any move list, and our AI's view of them.

Stateless: a position is a game spec, a seed and the moves played (sequential
moves, and resolved joint orders at simultaneous turns), so the client keeps
its whole move tree and asks for one node at a time.  Nothing here reads a
stored game: the moves come from a record or a finished game's move list
(spectators see only resolved turns: a sealed Nelaxtam order never is one),
so this module cannot reveal a secret.  Whether a person may analyse a live
game is the caller's business (:meth:`tessera.server.match.records.Records.analysis_source`).
"""

from __future__ import annotations

import random
import time
from typing import Any

from tessera.core.game import SIMULTANEOUS, TERMINAL, IllegalMove, State
from tessera.server.http.errors import ServiceError
from tessera.server.match.inputs import load_checked

MAX_ANALYSIS_MOVES = 5000
"""Longest move list accepted (far beyond any game's length)."""

ANALYSIS_SECONDS = (0.05, 5.0)
"""Shortest and longest thinking time a client may ask for."""

EXACT_SHARE = 0.5
"""Share of the thinking time the exact endgame solver may use (where the game has one and the end is
within its reach) before the level's search gets the rest."""


def replay_list(spec: str, seed: int, moves: list[Any]) -> State:
    """The position after ``moves`` (``[player, move]`` pairs; a joint move's orders joined by ``" | "``)."""
    try:
        game = load_checked(spec)
    except ValueError as e:
        raise ServiceError(422, str(e)) from None
    if not isinstance(moves, list) or len(moves) > MAX_ANALYSIS_MOVES:
        raise ServiceError(422, f"moves must be a list of at most {MAX_ANALYSIS_MOVES} [player, move] pairs")
    state = game.new_initial_state(seed=seed)
    for i, pair in enumerate(moves):
        if not (isinstance(pair, list | tuple) and len(pair) == 2 and isinstance(pair[1], str)):
            raise ServiceError(422, f"move {i}: expected a [player, move] pair, not {str(pair)[:80]!r}")
        player, move = pair
        try:
            if player == SIMULTANEOUS or state.current_player() == SIMULTANEOUS:
                state.play_joint([part.strip() for part in move.split("|")])
            else:
                state.play(move)
        except IllegalMove as e:
            raise ServiceError(422, f"move {i} ({move[:80]!r}): {e}") from None
    return state


def position(spec: str, seed: int, moves: list[Any]) -> dict[str, Any]:
    """The render description of the node, as the player to move sees it (his legal moves as actions)."""
    state = replay_list(spec, seed, moves)
    cp = state.current_player()
    render = state.render(cp if cp >= 0 else None)
    if cp < 0:
        render["actions"] = []
        if isinstance(render.get("order"), dict):
            render["order"] = None  # simultaneous turns are explored through the AI's joint move
    if cp == TERMINAL:
        render["result"] = {**(render.get("result") or {}), **(state.outcome() or {})}
    return {
        "render": render,
        "to_move": cp,
        "move_number": state.move_number(),
        "history": [[p, m] for p, m in state.history()],
    }


def evaluate(spec: str, seed: int, moves: list[Any], seconds: float, level: int = 4) -> dict[str, Any]:
    """Our AI on the node: the value for the side to move (−1…1), its best move and what it searched.

    Where the game has an exact endgame solver and the end is within its reach
    (:func:`tessera.agents.endgame.endgame_verdict`), the solver gets a share of the time
    first; when it proves the result the answer carries ``exact`` (the winner, the steps to
    the end with best play, a best step) and the value is the proved one (+1, 0 or −1).

    At a simultaneous turn the best "move" is a joint move: each player's order
    chosen by the AI on his own (no order is secret here: it is a study).
    """
    if not isinstance(seconds, int | float) or not ANALYSIS_SECONDS[0] <= seconds <= ANALYSIS_SECONDS[1]:
        raise ServiceError(422, f"seconds must be from {ANALYSIS_SECONDS[0]} to {ANALYSIS_SECONDS[1]}")
    state = replay_list(spec, seed, moves)
    cp = state.current_player()
    if cp == TERMINAL:
        r = state.returns()
        return {"to_move": cp, "value": None, "returns": r, "best": None, "stats": {}}
    from tessera.agents import make_agent

    rng = random.Random(0)
    started = time.perf_counter()
    stats: dict[str, Any] = {}
    if cp == SIMULTANEOUS:
        n = state.game.num_players
        orders = []
        for p in range(n):
            agent = make_agent(f"level{level}", game=state.game.name)
            orders.append(agent.choose_move(state, seconds=seconds / n, rng=rng, player=p))
        best: str = " | ".join(orders)
        value = state.evaluate(0)
        side = 0
    else:
        from tessera.agents.endgame import endgame_verdict

        verdict = endgame_verdict(state, seconds * EXACT_SHARE)
        if verdict is not None:
            proved = 0.0 if verdict.winner is None else 1.0 if verdict.winner == cp else -1.0
            return {
                "to_move": cp,
                "side": cp,
                "value": proved,
                "best": verdict.best_move,
                "seconds": round(time.perf_counter() - started, 3),
                "stats": {},
                "exact": verdict.as_dict(),
            }
        left = max(ANALYSIS_SECONDS[0], seconds - (time.perf_counter() - started))
        agent = make_agent(f"level{level}", game=state.game.name)
        best = agent.choose_move(state, seconds=left, rng=rng)
        stats = {k: v for k, v in agent.stats.items() if isinstance(v, int | float) and not isinstance(v, bool)}
        v = stats.get("value")
        value = float(v) if isinstance(v, int | float) else state.evaluate(cp)
        side = cp
    value = max(-1.0, min(1.0, value))
    return {
        "to_move": cp,
        "side": side,
        "value": round(value, 4),
        "best": best,
        "seconds": round(time.perf_counter() - started, 3),
        "stats": stats,
    }
