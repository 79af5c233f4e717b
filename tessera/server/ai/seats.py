"""What the AI worker reads of a game: the AI seats that must act now, and a random legal move."""

from __future__ import annotations

import random
import time
from typing import Any

from tessera.core.game import SIMULTANEOUS
from tessera.server.http.errors import ServiceError
from tessera.server.match.clocks import clock_left
from tessera.server.match.knowledge import movers
from tessera.server.match.live import Games


def ai_jobs(games: Games, game_id: str) -> list[dict[str, Any]]:
    """The AI seats that must act now, with what the worker needs to think."""
    try:
        live = games.reload(game_id)
    except ServiceError:
        return []
    row, state = live.row, live.state
    if row.status != "active" or not any(s.kind == "ai" for s in row.seats):
        return []
    jobs = []
    for p in movers(state):
        s = row.seats[p]
        if s.kind == "ai" and p not in live.sealed:
            jobs.append(
                {
                    "game_id": game_id,
                    "spec": row.spec,
                    "seed": row.seed,
                    "moves": [(m.player, m.move) for m in live.moves[: live.n_moves]],
                    "player": p,
                    "level": s.level or 1,
                    "token": s.token,
                    "expected": state.move_number(),
                    "simultaneous": state.current_player() == SIMULTANEOUS,
                    "clock_left": None if row.clock is None else clock_left(row.clock, p, time.time()),
                }
            )
    return jobs


def random_move(games: Games, game_id: str, player: int, seed: int) -> str:
    """A random legal move of ``player`` in the current position (the AI's fallback)."""
    state = games.reload(game_id).state
    return state.clone().random_move(random.Random(seed), player)
