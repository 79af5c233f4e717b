"""The levels' endgame wrapper: ask the exact solver first when the end is within reach.

:class:`EndgameAgent` wraps a search agent.  In a position its game's solver can take
(:data:`SOLVERS`: Nibble with at most :data:`~tessera.agents.endgame.nibble.REACH` blocks on
the board; Nume with at most :data:`~tessera.agents.endgame.nume.REACH` empty cells;
Ikabegamá when either player could win within :data:`~tessera.agents.endgame.ikabegama.REACH`
moves) it gives the solver a share of the
move's time; a proved win (or draw) is played at once — a winning step keeps the win, so a
level that proves a win never gives it away.  When the solver proves a loss, or does not
finish in its share, the wrapped search plays with the time left (against a fallible
opponent the search's move keeps more chances than the longest loss).  Elsewhere the wrapped
agent plays exactly as without the wrapper.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tessera.agents.base import Agent, Budget, clock
from tessera.agents.endgame import ikabegama, nibble, nume
from tessera.core.game import Action, State

SOLVER_SHARE = 0.5
"""Share of a move's remaining time Nibble's solver may use before the wrapped search takes over."""

NODES_WITHOUT_DEADLINE = 2_000_000
"""Solver nodes when the budget has no deadline (an iteration budget): about a second of CPU."""


@dataclass(frozen=True)
class EndgameSolver:
    """How the levels and the analysis board use one game's exact solver."""

    make: Callable[[int], Any]
    """A new solver with a table of ``2^bits`` slots; its ``solve(state, seconds, *, nodes, exact)`` gives a
    :class:`~tessera.agents.endgame.solution.Solution` or ``None``."""
    within: Callable[[State, int], bool]
    """Whether the solver takes a position, given a reach."""
    reach: int
    """The levels' reach (Nibble: blocks left; Nume: empty cells; Ikabegamá: moves to win)."""
    analysis_reach: int
    """The analysis board's reach (it may think longer; a position out of time gives no verdict)."""
    share: float
    """Share of a move's remaining time the levels give the solver."""


def _nibble_within(state: State, reach: int) -> bool:
    return len(state.to_dict()["cells"]) <= reach


SOLVERS: dict[str, EndgameSolver] = {
    "nibble": EndgameSolver(nibble.NibbleSolver, _nibble_within, nibble.REACH, 24, SOLVER_SHARE),
    # a race the solver cannot prove costs the search its share: a smaller one than Nibble's
    "ikabegama": EndgameSolver(
        ikabegama.IkabegamaSolver, ikabegama.within_reach, ikabegama.REACH, ikabegama.REACH, 0.25
    ),
    "nume": EndgameSolver(nume.NumeSolver, nume.within_reach, nume.REACH, nume.ANALYSIS_REACH, SOLVER_SHARE),
}
"""The games with an exact solver, by game name."""

GAMES = tuple(SOLVERS)
"""Games with an endgame solver."""


def warm_solvers() -> list[str]:
    """Load (or compile) every solver's search once, on a small position of its game, so that a level's
    first solve does not spend its share of time loading it; the games warmed."""
    from tessera.core.registry import load_game

    rng = random.Random(0)
    small = {"nibble": "nibble", "nume": "nume(size=2)", "ikabegama": "ikabegama(distance=2)"}
    for name, spec in small.items():
        state = load_game(spec).new_initial_state(seed=0)
        while not state.is_terminal() and not within_reach(state, 8):
            state.apply_action(state.random_action(rng))
        if not state.is_terminal():
            SOLVERS[name].make(10).solve(state, nodes=2000)
    return list(small)


def within_reach(state: State, reach: int | None = None) -> bool:
    """Whether ``state`` is a two-player position its game's solver takes (``reach``: the game's default)."""
    spec = SOLVERS.get(state.game.name)
    if spec is None or state.is_terminal() or state.game.num_players != 2:
        return False
    return spec.within(state, spec.reach if reach is None else reach)


class EndgameAgent(Agent):
    """``inner`` with the exact solver first when the end is within reach (module docstring)."""

    def __init__(
        self,
        inner: Agent,
        *,
        reach: int | None = None,
        share: float | None = None,
        nodes: int = NODES_WITHOUT_DEADLINE,
        tt_bits: int = 20,
        name: str | None = None,
    ) -> None:
        super().__init__(None)
        if reach is not None and (isinstance(reach, bool) or not isinstance(reach, int) or not 1 <= reach <= 40):
            raise ValueError(f"endgame: reach must be an integer from 1 to 40, not {reach!r}")
        if share is not None and (isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1):
            raise ValueError(f"endgame: share must be a number above 0 and at most 1, not {share!r}")
        self.inner = inner
        self.reach = reach
        """Reach in the game's own measure (``None``: the game's default, :data:`SOLVERS`)."""
        self.share = None if share is None else float(share)
        self.nodes = nodes
        self.tt_bits = tt_bits
        self.name = name or inner.name
        self.rng = inner.rng
        self._solvers: dict[str, Any] = {}

    @property
    def default_seconds(self) -> float | None:  # type: ignore[override]
        return self.inner.default_seconds

    @default_seconds.setter
    def default_seconds(self, value: float | None) -> None:
        self.inner.default_seconds = value

    def solver(self, game: str) -> Any:
        """The solver of ``game``, with its transposition table (allocated on first use, kept between moves)."""
        if game not in self._solvers:
            self._solvers[game] = SOLVERS[game].make(self.tt_bits)
        return self._solvers[game]

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        if within_reach(state, self.reach):
            game = state.game.name
            share = SOLVERS[game].share if self.share is None else self.share
            seconds = None if budget.deadline is None else max(0.0, budget.deadline - clock()) * share
            t0 = clock()
            out = self.solver(game).solve(state, seconds, nodes=self.nodes if seconds is None else None, exact=False)
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


__all__ = [
    "GAMES",
    "NODES_WITHOUT_DEADLINE",
    "SOLVERS",
    "SOLVER_SHARE",
    "EndgameAgent",
    "EndgameSolver",
    "warm_solvers",
    "with_endgame",
    "within_reach",
]
