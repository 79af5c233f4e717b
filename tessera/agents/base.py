"""The agent interface: ``Agent.choose(state, *, seconds, iterations, rng, player)``.

An agent is given a state and a budget (Ludii-style: a time limit in seconds,
a number of iterations, or both — whichever runs out first) and returns its
choice without changing the state:

* at a sequential node (``current_player() >= 0``): an integer action of the
  player to move, legal in ``state`` (``state.apply_action(a)`` accepts it);
* at a simultaneous node (``current_player() == SIMULTANEOUS``, Nelaxtam): the
  full order of ``player`` as a **move string**, the form ``play_joint`` takes
  (``state.is_legal(order, player)`` is true).  Nelaxtam's orders are too many
  to number, so the string is the one representation shared by every game.

:meth:`Agent.choose_move` returns a move string in both cases.

Agents may keep state between calls (MCTS keeps its search tree to reuse it
after the opponent's reply); :meth:`Agent.reset` forgets it.  Randomness is
injected: ``rng`` may be a :class:`random.Random` or an int seed; without it
the agent uses its own generator, seeded from the ``seed=`` option of its spec.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from tessera.core import clock as _clocks
from tessera.core.clock import CLOCKS, clock, clock_name, set_clock, using_clock
from tessera.core.game import SIMULTANEOUS, TERMINAL, Action, State

DEFAULT_SECONDS = 1.0
"""Time budget of a search agent called with neither ``seconds`` nor ``iterations``."""


@dataclass
class Budget:
    """A search budget: stop at ``deadline`` (search-clock seconds, see :func:`clock`) or after ``iterations``."""

    deadline: float | None
    """Absolute :func:`clock` value at which to stop, or ``None``."""
    iterations: int | None
    """Maximum number of iterations (simulations, nodes), or ``None``."""
    start: float
    """:func:`clock` when the budget started."""

    @classmethod
    def make(cls, seconds: float | None, iterations: int | None, default_seconds: float | None) -> Budget:
        """A budget from the caller's arguments; the agent's default time when both are ``None``."""
        if seconds is not None and (not isinstance(seconds, int | float) or seconds < 0 or seconds != seconds):
            raise ValueError(f"seconds must be a number >= 0, not {seconds!r}")
        if iterations is not None and (
            not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1
        ):
            raise ValueError(f"iterations must be an integer >= 1, not {iterations!r}")
        if seconds is None and iterations is None:
            seconds = default_seconds
        now = _clocks._clock()
        return cls(None if seconds is None else now + float(seconds), iterations, now)

    def exhausted(self, done: int) -> bool:
        """True once ``done`` iterations reach the limit or the deadline has passed."""
        if self.iterations is not None and done >= self.iterations:
            return True
        return self.deadline is not None and _clocks._clock() >= self.deadline

    def elapsed(self) -> float:
        """Search-clock seconds since the budget started."""
        return _clocks._clock() - self.start

    def out_of_time(self) -> bool:
        """True once the deadline (if any) has passed."""
        return self.deadline is not None and _clocks._clock() >= self.deadline


def as_rng(rng: random.Random | int | None, fallback: random.Random) -> random.Random:
    """``rng`` as a generator: a ``Random`` as is, an int as a seed, ``None`` → ``fallback``."""
    if rng is None:
        return fallback
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return random.Random(rng)
    raise ValueError(f"rng must be a random.Random, an int seed or None, not {type(rng).__name__}")


class Agent(ABC):
    """Something that picks moves.  Subclasses implement :meth:`_choose` (and optionally :meth:`_choose_order`)."""

    name: str = "agent"
    """The spec string that builds this agent again with :func:`tessera.agents.make_agent`."""
    default_seconds: float | None = None
    """Time used when ``choose`` gets neither ``seconds`` nor ``iterations`` (``None``: no limit)."""
    stats: dict[str, Any]
    """What the last ``choose`` did (iterations, seconds, value estimate...), for logs and benchmarks."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.stats = {}

    def choose(
        self,
        state: State,
        *,
        seconds: float | None = None,
        iterations: int | None = None,
        rng: random.Random | int | None = None,
        player: int | None = None,
    ) -> Any:
        """The agent's choice in ``state`` within the budget; ``state`` is not changed.

        Returns an integer action at a sequential node and ``player``'s order
        (a move string) at a simultaneous node, where ``player`` is required.
        """
        cp = state.current_player()
        if cp == TERMINAL:
            raise ValueError("the game is over: there is no move to choose")
        budget = Budget.make(seconds, iterations, self.default_seconds)
        r = as_rng(rng, self.rng)
        if cp == SIMULTANEOUS:
            if player is None or not 0 <= player < state.game.num_players:
                raise ValueError(
                    f"at a simultaneous node choose() needs player=0..{state.game.num_players - 1}, got {player!r}"
                )
            return self._choose_order(state, player, budget, r)
        if player is not None and player != cp:
            raise ValueError(f"it is player {cp}'s turn, not player {player}'s")
        return self._choose(state, budget, r)

    def choose_move(
        self,
        state: State,
        *,
        seconds: float | None = None,
        iterations: int | None = None,
        rng: random.Random | int | None = None,
        player: int | None = None,
    ) -> str:
        """Like :meth:`choose`, always as a move string."""
        choice = self.choose(state, seconds=seconds, iterations=iterations, rng=rng, player=player)
        if isinstance(choice, str):
            return choice
        return state.action_to_string(choice)

    @abstractmethod
    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        """An action for the player to move at a sequential node."""

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        """``player``'s order at a simultaneous node (default: a random legal order)."""
        return state.random_move(rng, player)

    def reset(self) -> None:
        """Forget anything kept from earlier calls (a new game starts); stateless agents keep nothing."""
        self.stats = {}

    def __repr__(self) -> str:
        return f"make_agent({self.name!r})"


def terminal_or_eval(state: State, player: int) -> float:
    """``returns()[player]`` at the end of the game, else ``evaluate(player)``."""
    if state.is_terminal():
        return state.returns()[player]
    return state.evaluate(player)


__all__ = [
    "CLOCKS",
    "DEFAULT_SECONDS",
    "Agent",
    "Budget",
    "as_rng",
    "clock",
    "clock_name",
    "set_clock",
    "terminal_or_eval",
    "using_clock",
]
