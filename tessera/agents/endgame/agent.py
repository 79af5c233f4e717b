"""The levels' endgame wrapper: ask the exact solver first when the end is within reach.

:class:`EndgameAgent` wraps a search agent.  In a position its game's solver can take
(Nibble: at most :data:`~tessera.agents.endgame.nibble.REACH` blocks on the board) it
gives the solver a share of the move's time; a proved win (or draw) is played at once —
a winning step keeps the win, so a level that proves a win never gives it away.  When
the solver proves a loss, or does not finish in its share, the wrapped search plays with
the time left (against a fallible opponent the search's move keeps more chances than the
longest loss).  Elsewhere the wrapped agent plays exactly as without the wrapper.
"""

from __future__ import annotations

import random
from typing import Any

from tessera.agents.base import Agent, Budget, clock
from tessera.agents.endgame.nibble import REACH, NibbleSolver
from tessera.core.game import Action, State

SOLVER_SHARE = 0.5
"""Share of a move's remaining time the solver may use before the wrapped search takes over."""

NODES_WITHOUT_DEADLINE = 2_000_000
"""Solver nodes when the budget has no deadline (an iteration budget): about a second of CPU."""

GAMES = ("nibble",)
"""Games with an endgame solver."""


def within_reach(state: State, reach: int = REACH) -> bool:
    """Whether ``state`` is a two-player position the solver takes (Nibble: at most ``reach`` blocks left)."""
    if state.is_terminal() or state.game.name not in GAMES or state.game.num_players != 2:
        return False
    return len(state.to_dict()["cells"]) <= reach


class EndgameAgent(Agent):
    """``inner`` with the exact solver first when the end is within reach (module docstring)."""

    def __init__(
        self,
        inner: Agent,
        *,
        reach: int = REACH,
        share: float = SOLVER_SHARE,
        nodes: int = NODES_WITHOUT_DEADLINE,
        tt_bits: int = 20,
        name: str | None = None,
    ) -> None:
        super().__init__(None)
        if isinstance(reach, bool) or not isinstance(reach, int) or not 1 <= reach <= 40:
            raise ValueError(f"endgame: reach must be an integer from 1 to 40 blocks, not {reach!r}")
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
            raise ValueError(f"endgame: share must be a number above 0 and at most 1, not {share!r}")
        self.inner = inner
        self.reach = reach
        self.share = float(share)
        self.nodes = nodes
        self.tt_bits = tt_bits
        self.name = name or inner.name
        self.rng = inner.rng
        self._solver: NibbleSolver | None = None

    @property
    def default_seconds(self) -> float | None:  # type: ignore[override]
        return self.inner.default_seconds

    @default_seconds.setter
    def default_seconds(self, value: float | None) -> None:
        self.inner.default_seconds = value

    @property
    def solver(self) -> NibbleSolver:
        """The solver, with its transposition table (allocated on first use, kept between moves)."""
        if self._solver is None:
            self._solver = NibbleSolver(self.tt_bits)
        return self._solver

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        if within_reach(state, self.reach):
            seconds = None if budget.deadline is None else max(0.0, budget.deadline - clock()) * self.share
            t0 = clock()
            out = self.solver.solve(state, seconds, nodes=self.nodes if seconds is None else None, exact=False)
            info: dict[str, Any] = {"solver_seconds": clock() - t0}
            if out is not None:
                info.update(
                    solver="win" if out.value > 0 else "loss" if out.value < 0 else "draw", solver_nodes=out.nodes
                )
                if out.value >= 0:
                    self.stats = {**info, "value": float(out.value)}
                    return out.best_move
            else:
                info["solver"] = "unknown"
            action = self.inner._choose(state, budget, rng)
            self.stats = {**self.inner.stats, **info}
            if info["solver"] == "loss":
                self.stats["value"] = -1.0  # proved: the search's estimate is only its hope
            return action
        action = self.inner._choose(state, budget, rng)
        self.stats = self.inner.stats
        return action

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        out = self.inner._choose_order(state, player, budget, rng)
        self.stats = self.inner.stats
        return out

    def reset(self) -> None:
        """Reset the wrapped agent; the solver's table stays (its entries depend only on positions)."""
        self.inner.reset()
        self.stats = {}


def with_endgame(agent: Agent, game: str | None) -> Agent:
    """``agent`` wrapped in :class:`EndgameAgent` when ``game`` has an endgame solver, else ``agent`` itself."""
    if game not in GAMES:
        return agent
    return EndgameAgent(agent)


__all__ = ["GAMES", "NODES_WITHOUT_DEADLINE", "SOLVER_SHARE", "EndgameAgent", "with_endgame", "within_reach"]
