"""The levels' endgame wrapper: ask the exact solver first when the end is within reach.

:class:`EndgameAgent` wraps a search agent.  In a position its game's solver can take (the
game declares it: ``Game.solver()`` gives an :class:`~tessera.core.kits.solver.EndgameSolver`, whose
``within`` and ``reach`` say which positions: Nibble's blocks left, Nume's empty cells, Ikabegamá's
moves to win) it gives the solver a share of the
move's time; a proved win (or draw) is played at once — a winning step keeps the win, so a
level that proves a win never gives it away.  When the solver proves a loss, or does not
finish in its share, the wrapped search plays with the time left (against a fallible
opponent the search's move keeps more chances than the longest loss).  Elsewhere the wrapped
agent plays exactly as without the wrapper.
"""

from __future__ import annotations

import random
from typing import Any

from tessera.agents.base import Agent, Budget, clock
from tessera.core.game import Action, Game, State
from tessera.core.kits.solver import SOLVER_SHARE, EndgameSolver
from tessera.core.registry import list_games, load_game

NODES_WITHOUT_DEADLINE = 2_000_000
"""Solver nodes when the budget has no deadline (an iteration budget): about a second of CPU."""


def solver_of(game: Game | str) -> EndgameSolver | None:
    """The exact solver ``game`` declares (a game object, a name or a one-string form), or ``None`` (also for a
    name that is no registered game)."""
    if isinstance(game, str):
        try:
            game = load_game(game)
        except ValueError:
            return None
    return game.solver()


def games_with_solver() -> list[str]:
    """The registered games that declare an exact solver."""
    return [name for name in list_games() if solver_of(name) is not None]


def warm_solvers() -> list[str]:
    """Load (or compile) every solver's search once, on a small position of its game, so that a level's
    first solve does not spend its share of time loading it; the games warmed."""
    rng = random.Random(0)
    warmed = []
    for name in list_games():
        spec = solver_of(name)
        if spec is None:
            continue
        state = load_game(spec.warm_up).new_initial_state(seed=0)
        while not state.is_terminal() and not within_reach(state, 8):
            state.apply_action(state.random_action(rng))
        if not state.is_terminal():
            spec.make(10).solve(state, nodes=2000)
        warmed.append(name)
    return warmed


def within_reach(state: State, reach: int | None = None) -> bool:
    """Whether ``state`` is a two-player position its game's solver takes (``reach``: the game's default)."""
    spec = state.game.solver()
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
        """Reach in the game's own measure (``None``: the game's default, its solver's ``reach``)."""
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

    def solver(self, game: Game) -> Any:
        """The solver of ``game``, with its transposition table (allocated on first use, kept between moves)."""
        if game.name not in self._solvers:
            spec = game.solver()
            if spec is None:
                raise ValueError(f"{game.name}: this game declares no exact solver")
            self._solvers[game.name] = spec.make(self.tt_bits)
        return self._solvers[game.name]

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        if within_reach(state, self.reach):
            game = state.game
            spec = game.solver()
            assert spec is not None  # within reach: the game has a solver
            share = spec.share if self.share is None else self.share
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


def with_endgame(agent: Agent, game: Game | str | None) -> Agent:
    """``agent`` wrapped in :class:`EndgameAgent` when ``game`` (a game or its name) declares an exact solver,
    else ``agent`` itself."""
    if game is None or solver_of(game) is None:
        return agent
    return EndgameAgent(agent)


__all__ = [
    "NODES_WITHOUT_DEADLINE",
    "SOLVER_SHARE",
    "EndgameAgent",
    "EndgameSolver",
    "games_with_solver",
    "solver_of",
    "warm_solvers",
    "with_endgame",
    "within_reach",
]
