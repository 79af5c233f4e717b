"""Decoupled UCT for simultaneous-move games (Nelaxtam).

At a simultaneous node every player keeps *his own* statistics over *his own*
orders and picks one by UCB1 without looking at the other's choice
(decoupled UCT, Lanctot et al. 2013); the pair of orders leads to the child.
Only the searching player's own order is ever returned, and the search never
reads the opponent's pending order: it works from the position alone.

Orders are move strings (what ``play_joint`` takes).  There are far too many
of them to list (Nelaxtam's invasion has ~10⁹), so candidate orders are drawn
with the game's ``random_move(rng, player)`` under progressive widening: a
player may have ``ceil(pw_k · n^pw_alpha)`` distinct orders at a node visited
``n`` times.  Rollouts play random joint orders for at most
``rollout_cutoff`` turns and then score with ``evaluate``.  A sequential node
met in the tree (none in Nelaxtam) is handled the same way with one mover.
The decision is the searching player's most visited order at the root.
"""

from __future__ import annotations

import math
import random
import time

from tessera.agents.base import DEFAULT_SECONDS, Agent, Budget
from tessera.core.game import SIMULTANEOUS, Action, State


class SMNode:
    """A node with per-player order statistics and children by joint order."""

    __slots__ = ("children", "n", "stats")

    def __init__(self, players: int) -> None:
        self.n = 0
        """Visits."""
        self.stats: list[dict[str, list[float]]] = [{} for _ in range(players)]
        """Per player: order → [visits, total reward of that player]."""
        self.children: dict[tuple[str, ...], SMNode] = {}
        """Children by the tuple of orders (``""`` for a player who does not move)."""


def _movers(state: State) -> list[int]:
    cp = state.current_player()
    return list(range(state.game.num_players)) if cp == SIMULTANEOUS else [cp]


def _play(state: State, orders: tuple[str, ...]) -> None:
    cp = state.current_player()
    if cp == SIMULTANEOUS:
        state.play_joint(list(orders))
    else:
        state.play(orders[cp])


class SMMCTSAgent(Agent):
    """Decoupled UCT over sampled orders (see module docstring)."""

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
        order = self._search(state, cp, budget, rng)
        return state.string_to_action(order)

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        return self._search(state, player, budget, rng)

    def _select(self, node: SMNode, state: State, p: int, rng: random.Random) -> str:
        stats = node.stats[p]
        limit = math.ceil(self.pw_k * (node.n + 1) ** self.pw_alpha)
        if len(stats) < limit:
            for _ in range(3):
                o = state.random_move(rng, p)
                if o not in stats:
                    stats[o] = [0.0, 0.0]
                    return o
        ln = math.log(node.n) if node.n > 1 else 0.0
        best, best_u = "", -math.inf
        for o, (n, w) in stats.items():
            u = math.inf if n == 0 else w / n + self.c * math.sqrt(ln / n)
            if u > best_u:
                best, best_u = o, u
        return best

    def _search(self, root_state: State, me: int, budget: Budget, rng: random.Random) -> str:
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
                movers = _movers(state)
                if len(movers) > 1:
                    state.play_joint([state.random_move(rng, p) for p in range(nplayers)])
                else:
                    state.play(state.random_move(rng))
                steps += 1
            if state.is_terminal():
                values = state.returns()
            else:
                v0 = state.evaluate(0)
                values = [v0, -v0] if nplayers == 2 else [state.evaluate(p) for p in range(nplayers)]
            for nd, joint in path:
                nd.n += 1
                for p, o in enumerate(joint):
                    if o:
                        s = nd.stats[p][o]
                        s[0] += 1
                        s[1] += values[p]
            node.n += 1
            done += 1
        mine = root.stats[me]
        best = max(mine.items(), key=lambda kv: (kv[1][0], kv[1][1] / kv[1][0] if kv[1][0] else -math.inf))
        visits, total = best[1]
        self.stats = {
            "iterations": done,
            "seconds": time.perf_counter() - budget.start,
            "orders": len(mine),
            "value": total / visits if visits else 0.0,
        }
        return best[0]


__all__ = ["SMMCTSAgent", "SMNode"]
