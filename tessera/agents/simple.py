"""The baseline agents: ``random`` and ``greedy`` (one-step lookahead with ``evaluate``)."""

from __future__ import annotations

import random

from tessera.agents.base import Agent, Budget, terminal_or_eval
from tessera.core.game import Action, State


class RandomAgent(Agent):
    """Plays a uniformly random legal move (the game's ``random_action`` / ``random_move``)."""

    name = "random"

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        self.stats = {"iterations": 1}
        return state.random_action(rng)


class GreedyAgent(Agent):
    """One-step lookahead: the move whose resulting position ``evaluate`` likes best.

    Every legal action is applied to a copy and the result scored from the
    mover's point of view (``returns()`` when the game ends, else
    ``evaluate``).  In a multi-step turn each step is judged by the position
    right after it.  Ties are broken at random.  With ``noise=p`` a uniformly
    random move is played with probability ``p`` (strength level 1).

    A one-ply search is a fixed amount of work, so the budget is ignored at
    sequential nodes: greedy always looks at every legal move (it is the
    baseline the search agents are measured against); so are its sampled
    orders at a simultaneous node.
    """

    def __init__(self, noise: float = 0.0, orders: int = 48, replies: int = 4, seed: int | None = None) -> None:
        super().__init__(seed)
        if orders < 1 or replies < 1:
            raise ValueError(f"greedy: orders and replies must be >= 1, got orders={orders!r}, replies={replies!r}")
        self.orders = orders
        self.replies = replies
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"greedy: noise must be from 0 to 1, not {noise!r}")
        self.noise = noise
        self.name = "greedy" if noise == 0 else f"greedy(noise={noise:g})"

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        if self.noise and rng.random() < self.noise:
            self.stats = {"iterations": 1, "noise": True}
            return state.random_action(rng)
        me = state.current_player()
        actions = state.legal_actions()
        if len(actions) == 1:
            self.stats = {"iterations": 1}
            return actions[0]
        order = list(actions)
        rng.shuffle(order)
        best: list[Action] = []
        best_v = -2.0
        done = 0
        for a in order:
            child = state.clone()
            child.apply_legal(a)
            v = terminal_or_eval(child, me)
            done += 1
            if v > best_v:
                best_v, best = v, [a]
            elif v == best_v:
                best.append(a)
        self.stats = {"iterations": done, "value": best_v}
        return best[0] if len(best) == 1 else rng.choice(best)

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        view = getattr(state, "view", None)
        root = view(player) if callable(view) else state.clone()
        if self.noise and rng.random() < self.noise:
            self.stats = {"iterations": 1, "noise": True}
            return root.random_move(rng, player)
        n = root.game.num_players
        replies = [[root.random_move(rng, q) for q in range(n)] for _ in range(self.replies)]
        candidates = {root.random_move(rng, player) for _ in range(self.orders)}
        best: list[str] = []
        best_v = -2.0
        done = 0
        for order in sorted(candidates):
            total = 0.0
            for reply in replies:
                child = root.clone()
                joint = list(reply)
                joint[player] = order
                child.play_joint(joint)
                total += terminal_or_eval(child, player)
                done += 1
            v = total / len(replies)
            if v > best_v:
                best_v, best = v, [order]
            elif v == best_v:
                best.append(order)
        self.stats = {"iterations": done, "value": best_v}
        return best[0] if len(best) == 1 else rng.choice(best)


__all__ = ["GreedyAgent", "RandomAgent"]
