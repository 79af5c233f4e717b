"""Restricted armies (the ``army=`` agent option): an agent that only brings in some numbers.

Nymbat's designer asks about nontransitivity: "armies of 3s beat 6s and 5s, 1s+4s beat
3s …".  ``make_agent("greedy(army=3)")`` or ``"mcts(army=1+4)"`` builds the agent and
wraps it in :class:`ArmyAgent`: whenever it is to move, it sees the state through a view
in which its own bring-in steps (moves written ``cell=N``) with a number outside the army
are not legal — in its search too, since every copy of the view keeps the restriction,
and in the game's random playouts.  The opponent's moves are not restricted.  When the
army leaves the agent no legal move at all, it falls back on the unrestricted moves (a
turn always has a move).
"""

from __future__ import annotations

import random
import re
from typing import Any

from tessera.agents.base import Agent, Budget
from tessera.core.game import Action, State

_NUMBERED = re.compile(r"=(\d+)$")


def parse_army(value: Any) -> frozenset[int]:
    """``3`` → {3}; ``"1+4"`` → {1, 4} (numbers joined by ``+``)."""
    text = str(value).strip()
    parts = [p.strip() for p in text.split("+")]
    if not text or not all(p.isdigit() for p in parts):
        raise ValueError(f"army={value!r}: expected numbers joined by '+', e.g. army=3 or army=1+4")
    return frozenset(int(p) for p in parts)


_VIEWS: dict[tuple[type, int, frozenset[int]], type] = {}


def _view_class(base: type[State], player: int, army: frozenset[int]) -> type:
    """A subclass of the game's state class whose ``player`` may only bring in ``army`` numbers."""
    key = (base, player, army)
    if key in _VIEWS:
        return _VIEWS[key]
    allowed: dict[int, bool] = {}

    def permitted(self: State, a: Action) -> bool:
        ok = allowed.get(a)
        if ok is None:
            m = _NUMBERED.search(base.action_to_string(self, a))
            ok = m is None or int(m.group(1)) in army
            allowed[a] = ok
        return ok

    def _legal_actions(self: State) -> list[Action]:
        acts = base._legal_actions(self)  # type: ignore[misc]
        if self.current_player() != player:
            return acts
        kept = [a for a in acts if permitted(self, a)]
        return kept or acts

    def _illegal_reason(self: State, action: Action) -> str | None:
        why = base._illegal_reason(self, action)  # type: ignore[misc]
        if (
            why is None
            and self.current_player() == player
            and not permitted(self, action)
            and any(permitted(self, a) for a in base._legal_actions(self))  # type: ignore[misc]
        ):
            return f"{base.action_to_string(self, action)}: outside the army {sorted(army)}"
        return why

    def random_action(self: State, rng: random.Random, p: int | None = None) -> Action:
        if self.current_player() != player:
            return base.random_action(self, rng, p)
        for _ in range(20):
            a = base.random_action(self, rng, p)
            if permitted(self, a):
                return a
        return rng.choice(_legal_actions(self))

    cls = type(
        f"Army{base.__name__}",
        (base,),
        {"_legal_actions": _legal_actions, "_illegal_reason": _illegal_reason, "random_action": random_action},
    )
    _VIEWS[key] = cls
    return cls


class ArmyAgent(Agent):
    """``inner`` playing with a restricted army (see the module docstring)."""

    def __init__(self, inner: Agent, army: Any, name: str | None = None) -> None:
        super().__init__(None)
        self.inner = inner
        self.army = parse_army(army)
        self.name = name or f"{inner.name}+army"
        self.rng = inner.rng
        self.default_seconds = inner.default_seconds

    def _view(self, state: State, player: int) -> State:
        view = state.clone()
        view.__class__ = _view_class(type(state), player, self.army)
        return view

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        out = self.inner._choose(self._view(state, state.current_player()), budget, rng)
        self.stats = self.inner.stats
        return out

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        out = self.inner._choose_order(state, player, budget, rng)
        self.stats = self.inner.stats
        return out

    def reset(self) -> None:
        self.inner.reset()
        self.stats = {}


__all__ = ["ArmyAgent", "parse_army"]
