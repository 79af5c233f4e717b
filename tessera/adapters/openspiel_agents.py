"""OpenSpiel's MCTS as a tessera agent: ``openspiel-mcts`` in ``tessera match``, ``tournament`` and ``balance``.

``make_openspiel_agent("openspiel-mcts(uct_c=2,rollouts=1,solve=true,seed=0)")``
returns an :class:`~tessera.agents.base.Agent` that searches with OpenSpiel's
own Python ``MCTSBot`` (``open_spiel.python.algorithms.mcts``) and its
``RandomRolloutEvaluator``, through :mod:`tessera.adapters.openspiel`.
Defaults are those of OpenSpiel's ``examples/mcts.py``: ``uct_c=2``, one random
rollout per leaf, MCTS-Solver on.

How the time budget is matched: OpenSpiel's bot only knows a simulation count
(``max_simulations``).  With ``seconds`` the agent gives it an unbounded count
and stops the search between two simulations, the first time a simulation would
start after the deadline (the check sits at the top of ``_apply_tree_policy``,
so every finished simulation is fully backed up and the bot's own move choice,
the most visited child, is used unchanged).  The search always runs until the
root is expanded (two simulations: OpenSpiel expands a node on its second visit),
even past the deadline.  Both sides of a match therefore get
the same wall-clock time per move, measured the same way (``time.perf_counter``
against the budget's deadline).  With ``iterations`` it is the simulation
count.  Everything OpenSpiel does — cloning states, the tree policy, rollouts
through the adapter — is charged to its own budget; that is the price of
running a generic framework on our engine.

It plays sequential games of any number of players (OpenSpiel's MCTS backs up every
player's return: four-player Nymbat too).  OpenSpiel's MCTS searches sequential games
only: at a simultaneous turn (Nelaxtam's orders) the agent gives a random legal order,
the default of every tessera agent.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from tessera.adapters import openspiel as tos
from tessera.adapters.core import AdaptedGame, AdaptedState
from tessera.agents.base import Agent, Budget
from tessera.core.game import SIMULTANEOUS, Action, State

_SPEC = re.compile(r"^\s*openspiel[-_]mcts\s*(?:\((.*)\))?\s*$", re.IGNORECASE)
OPTIONS = ("uct_c", "rollouts", "solve", "seed")


class _OutOfTime(Exception):
    pass


class TimedMCTSBot(mcts.MCTSBot):  # type: ignore[misc]
    """OpenSpiel's ``MCTSBot`` that stops between simulations once ``deadline`` (perf_counter) passes."""

    deadline: float | None = None
    simulations = 0

    def _apply_tree_policy(self, root: Any, state: Any) -> Any:
        # The root is expanded by the second simulation (OpenSpiel expands a node on its second
        # visit); stopping before that would leave the bot no child to choose from.
        if self.deadline is not None and root.children and time.perf_counter() >= self.deadline:
            raise _OutOfTime
        self.simulations += 1
        self._root = root
        return super()._apply_tree_policy(root, state)

    def mcts_search(self, state: Any) -> Any:
        self.simulations = 0
        try:
            return super().mcts_search(state)
        except _OutOfTime:
            return self._root


class OpenSpielMCTSAgent(Agent):
    """OpenSpiel's Python MCTSBot with random rollouts, on a tessera state, within a tessera budget."""

    def __init__(self, uct_c: float = 2.0, rollouts: int = 1, solve: bool = True, seed: int | None = None) -> None:
        super().__init__(seed)
        self.uct_c = float(uct_c)
        self.rollouts = int(rollouts)
        self.solve = bool(solve)
        self.name = "openspiel-mcts"
        self._games: dict[str, tuple[pyspiel.Game, AdaptedGame]] = {}

    def _game_for(self, state: State) -> tuple[pyspiel.Game, AdaptedState]:
        """The OpenSpiel game and the adapted twin of ``state`` (on a board that can be unbounded: a
        window holding every piece, :meth:`tessera.core.game.Game.window_holding`)."""
        spec = str(state.game)
        side = state.game.window_holding(state)
        key = f"{spec}|{side}"
        if key not in self._games:
            name, _, rest = spec.partition("(")
            params = [p for p in (rest.removesuffix(")"), f"window={side}" if side else "") if p]
            og = pyspiel.load_game(tos.PREFIX + name + (f"({','.join(params)})" if params else ""))
            self._games[key] = (og, og.adapted)
        og, ad = self._games[key]
        twin = ad.game.state_from_dict(state.to_dict()) if ad.window is not None else state.clone()
        return og, AdaptedState(ad, twin)

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        if state.current_player() == SIMULTANEOUS:
            raise ValueError("openspiel-mcts plays sequential games only")
        og, adapted = self._game_for(state)
        ostate = og.new_initial_state()
        ostate.adapted = adapted
        legal = adapted.legal_actions()
        if len(legal) == 1:
            return _back(state, adapted, legal[0])
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(rng.randrange(2**31)))
        bot = TimedMCTSBot(
            og,
            self.uct_c,
            max_simulations=budget.iterations if budget.iterations is not None else 10**9,
            evaluator=evaluator,
            solve=self.solve,
            random_state=np.random.RandomState(rng.randrange(2**31)),
        )
        bot.deadline = budget.deadline
        t0 = time.perf_counter()
        action = bot.step(ostate)
        self.stats = {"simulations": bot.simulations, "seconds": time.perf_counter() - t0}
        return _back(state, adapted, int(action))


def _back(state: State, adapted: AdaptedState, action: int) -> Action:
    """The caller's tessera action of an adapter action (through the move string when the twin is another game)."""
    if adapted.state is not None and adapted.state.game == state.game:
        return adapted.game.to_tessera(action)
    return state.string_to_action(adapted.action_to_string(action))


def parse_openspiel_spec(spec: str) -> dict[str, Any]:
    """Options of an ``openspiel-mcts(...)`` spec; ``ValueError`` for anything else."""
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(
            f"not an openspiel agent spec: {spec!r} (expected 'openspiel-mcts' or 'openspiel-mcts(k=v,...)')"
        )
    opts: dict[str, Any] = {}
    inner = (m.group(1) or "").strip()
    for piece in filter(None, (p.strip() for p in inner.split(","))):
        key, eq, val = piece.partition("=")
        key = key.strip().lower()
        if not eq or key not in OPTIONS:
            raise ValueError(f"openspiel-mcts: bad option {piece!r}; accepted options: {', '.join(OPTIONS)}")
        v = val.strip().lower()
        opts[key] = v in ("true", "1", "yes") if key == "solve" else float(v) if key == "uct_c" else int(v)
    return opts


def make_openspiel_agent(spec: str) -> OpenSpielMCTSAgent:
    """The agent of an ``openspiel-mcts(...)`` spec."""
    agent = OpenSpielMCTSAgent(**parse_openspiel_spec(spec))
    agent.name = spec.strip()
    return agent


def is_openspiel_spec(spec: object) -> bool:
    """Whether ``spec`` names an OpenSpiel agent."""
    return isinstance(spec, str) and spec.strip().lower().startswith(("openspiel-", "openspiel_"))


__all__ = ["OpenSpielMCTSAgent", "TimedMCTSBot", "is_openspiel_spec", "make_openspiel_agent", "parse_openspiel_spec"]
