"""Decoupled UCT for simultaneous-move games (Nelaxtam).

At a simultaneous node every player keeps *his own* statistics over *his own*
choices and picks by UCB1 without looking at the other's choice (decoupled
UCT, Lanctot et al. 2013); the pair of orders leads to the child.  Only the
searching player's own order is returned, and the search never reads the
opponent's pending order: it starts from ``state.view(player)`` when the game
has views (Nelaxtam hides the other side's sealed order there), and from the
position alone in any case.

**Factored mode** (games with ``random_actions(rng, player)``,
``order_reason(actions, player)`` and ``apply_actions``: Nelaxtam).  An order
is one integer action per troop (the game's factored form).  Each player has
one bandit *per troop slot* at each node; a slot's arms grow by progressive
widening (``ceil(pw_k · n^pw_alpha)`` arms after ``n`` visits), new arms being
that troop's part of a random legal order from ``random_actions``.  The
per-troop picks are combined into an order; if the combination breaks a rule
between troops (two troops ending on one square, too few by sea) the random
legal order is used instead.  Every slot's arm is credited with the player's
reward.  The decision combines each slot's most visited arm (or, if that is
not a legal order, the most visited full order).

**String mode** (any other game): orders are move strings drawn with
``random_move(rng, player)`` under the same progressive widening, one bandit
over whole orders per player.

Rollouts play random joint orders for at most ``rollout_cutoff`` turns (factored
mode: one ``State.rollouts`` call, a compiled kernel where the game has one), then
score with ``evaluate`` (two-player zero-sum: scored once for player 0).  The
tree is not reused between turns.
"""

from __future__ import annotations

import math
import random
from typing import Any

from tessera.agents.base import DEFAULT_SECONDS, Agent, Budget
from tessera.core.game import SIMULTANEOUS, Action, State


def _factored(state: State) -> bool:
    return all(hasattr(state, m) for m in ("random_actions", "order_reason", "apply_actions", "actions_to_order"))


class SMNode:
    """A node: per-player bandits and children by joint choice."""

    __slots__ = ("children", "n", "orders", "stats")

    def __init__(self, players: int) -> None:
        self.n = 0
        """Visits."""
        self.stats: list[Any] = [None] * players
        """Per player: string mode ``{order: [visits, reward]}``; factored mode one such dict per troop slot."""
        self.orders: list[dict[tuple[Action, ...], int]] = [{} for _ in range(players)]
        """Factored mode: visits of each full order actually played, per player."""
        self.children: dict[Any, SMNode] = {}
        """Children by the tuple of both players' choices."""


def _movers(state: State) -> list[int]:
    cp = state.current_player()
    return list(range(state.game.num_players)) if cp == SIMULTANEOUS else [cp]


def _play(state: State, orders: tuple[str, ...]) -> None:
    cp = state.current_player()
    if cp == SIMULTANEOUS:
        state.play_joint(list(orders))
    else:
        state.play(orders[cp])


def _ucb(arms: dict[Any, list[float]], ln: float, c: float) -> Any:
    best, best_u = None, -math.inf
    for key, (n, w) in arms.items():
        u = math.inf if n == 0 else w / n + c * math.sqrt(ln / n)
        if u > best_u:
            best, best_u = key, u
    return best


class SMMCTSAgent(Agent):
    """Decoupled UCT, factored per troop where the game allows (see module docstring)."""

    default_seconds = DEFAULT_SECONDS

    def __init__(
        self,
        c: float = 1.0,
        rollout_cutoff: int = 6,
        pw_k: float = 2.0,
        pw_alpha: float = 0.5,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        if c < 0:
            raise ValueError(f"smmcts: c must be >= 0, not {c!r}")
        self.c = float(c)
        self.rollout_cutoff = int(rollout_cutoff)
        self.pw_k = float(pw_k)
        self.pw_alpha = float(pw_alpha)
        self.name = name or "smmcts"

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        cp = state.current_player()
        order = self._search_strings(state, cp, budget, rng)
        return state.string_to_action(order)

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        view = getattr(state, "view", None)
        root = view(player) if callable(view) else state.clone()
        if _factored(root):
            return self._search_factored(root, player, budget, rng)
        return self._search_strings(root, player, budget, rng)

    # -- factored mode ---------------------------------------------------------------------
    def _select_factored(self, node: SMNode, state: Any, p: int, rng: random.Random) -> list[Action]:
        rand = state.random_actions(rng, p)
        slots = node.stats[p]
        if slots is None or len(slots) != len(rand):
            slots = node.stats[p] = [{} for _ in rand]
        limit = math.ceil(self.pw_k * (node.n + 1) ** self.pw_alpha)
        ln = math.log(node.n) if node.n > 1 else 0.0
        chosen = []
        for arms, r in zip(slots, rand, strict=True):
            if len(arms) < limit and r not in arms:
                arms[r] = [0.0, 0.0]
                chosen.append(r)
            else:
                chosen.append(_ucb(arms, ln, self.c))
        if chosen != rand and state.order_reason(chosen, p) is not None:
            chosen = rand
            for arms, r in zip(slots, rand, strict=True):
                arms.setdefault(r, [0.0, 0.0])
        return chosen

    def _search_factored(self, root_state: Any, me: int, budget: Budget, rng: random.Random) -> str:
        nplayers = root_state.game.num_players
        root = SMNode(nplayers)
        cutoff = self.rollout_cutoff
        done = 0
        while done == 0 or not budget.exhausted(done):
            state = root_state.clone()
            node = root
            path: list[tuple[SMNode, list[list[Action]]]] = []
            expanded = False
            while not state.is_terminal() and not expanded:
                joint = [self._select_factored(node, state, p, rng) for p in range(nplayers)]
                state.apply_actions(joint)
                path.append((node, joint))
                key = tuple(tuple(o) for o in joint)
                child = node.children.get(key)
                if child is None:
                    child = node.children[key] = SMNode(nplayers)
                    expanded = True
                node = child
            if state.is_terminal() or cutoff == 0:
                values = _values(state, nplayers)
            else:  # one rollout through the game's batch hook (a compiled kernel where there is one)
                values = list(state.rollouts(1, rng.getrandbits(63), None if cutoff < 0 else cutoff).totals)
            for nd, joint in path:
                nd.n += 1
                for p, order in enumerate(joint):
                    v = values[p]
                    for arms, a in zip(nd.stats[p], order, strict=True):
                        s = arms[a]
                        s[0] += 1
                        s[1] += v
                    played = tuple(order)
                    nd.orders[p][played] = nd.orders[p].get(played, 0) + 1
            node.n += 1
            done += 1
        slots = root.stats[me]
        best = [max(arms.items(), key=lambda kv: (kv[1][0], kv[1][1]))[0] for arms in slots]
        how = "per troop"
        if root_state.order_reason(best, me) is not None:
            best = list(max(root.orders[me].items(), key=lambda kv: kv[1])[0])
            how = "whole order"
        arms_visits = [arms[a][0] for arms, a in zip(slots, best, strict=True) if a in arms]
        value = sum(arms[a][1] / max(arms[a][0], 1) for arms, a in zip(slots, best, strict=True) if a in arms)
        self.stats = {
            "iterations": done,
            "seconds": budget.elapsed(),
            "decision": how,
            "arms": [len(a) for a in slots],
            "value": value / max(len(arms_visits), 1),
        }
        return str(root_state.actions_to_order(best))

    # -- string mode -----------------------------------------------------------------------
    def _select(self, node: SMNode, state: State, p: int, rng: random.Random) -> str:
        if node.stats[p] is None:
            node.stats[p] = {}
        stats: dict[str, list[float]] = node.stats[p]
        limit = math.ceil(self.pw_k * (node.n + 1) ** self.pw_alpha)
        if len(stats) < limit:
            for _ in range(3):
                o = state.random_move(rng, p)
                if o not in stats:
                    stats[o] = [0.0, 0.0]
                    return o
        ln = math.log(node.n) if node.n > 1 else 0.0
        return str(_ucb(stats, ln, self.c))

    def _search_strings(self, root_state: State, me: int, budget: Budget, rng: random.Random) -> str:
        nplayers = root_state.game.num_players
        root = SMNode(nplayers)
        cutoff = self.rollout_cutoff
        done = 0
        while done == 0 or not budget.exhausted(done):
            state = root_state.clone()
            node = root
            path: list[tuple[SMNode, tuple[str, ...]]] = []
            expanded = False
            while not state.is_terminal() and not expanded:
                movers = _movers(state)
                orders = ["" for _ in range(nplayers)]
                for p in movers:
                    orders[p] = self._select(node, state, p, rng)
                joint = tuple(orders)
                _play(state, joint)
                path.append((node, joint))
                child = node.children.get(joint)
                if child is None:
                    child = SMNode(nplayers)
                    node.children[joint] = child
                    expanded = True
                node = child
            steps = 0
            while not state.is_terminal() and (cutoff < 0 or steps < cutoff):
                if len(_movers(state)) > 1:
                    state.play_joint([state.random_move(rng, p) for p in range(nplayers)])
                else:
                    state.play(state.random_move(rng))
                steps += 1
            values = _values(state, nplayers)
            for nd, joint in path:
                nd.n += 1
                for p, o in enumerate(joint):
                    if o:
                        s = nd.stats[p][o]
                        s[0] += 1
                        s[1] += values[p]
            node.n += 1
            done += 1
        mine: dict[str, list[float]] = root.stats[me] or {}
        best = max(mine.items(), key=lambda kv: (kv[1][0], kv[1][1] / kv[1][0] if kv[1][0] else -math.inf))
        visits, total = best[1]
        self.stats = {
            "iterations": done,
            "seconds": budget.elapsed(),
            "orders": len(mine),
            "value": total / visits if visits else 0.0,
        }
        return best[0]


def _values(state: State, nplayers: int) -> list[float]:
    if state.is_terminal():
        return list(state.returns())
    if nplayers == 2:
        v0 = state.evaluate(0)
        return [v0, -v0]
    return [state.evaluate(p) for p in range(nplayers)]


__all__ = ["SMMCTSAgent", "SMNode"]
