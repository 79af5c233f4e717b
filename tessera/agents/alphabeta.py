"""Alpha-beta (negamax) with iterative deepening and a time budget, for sequential games.

Depth counts *steps*: in a multi-step turn (Nymbat, Nibble, Nume's komi
bidding) the same player moves again, and the child's value is then taken as
is instead of negated (and the window is not flipped).  Leaves are scored with
``state.evaluate(player)`` in [-1, 1]; a finished game scores
``returns()[player]`` scaled to ``±(2 − 0.001·steps)``, so a win beats any
evaluation and a faster win beats a slower one.

Iterative deepening searches depth 1, 2, ... until the budget runs out; the
root moves are re-ordered by the previous iteration's scores, inner nodes
with depth ≥ 2 order their children by static evaluation (and with
``width=k`` keep only the ``k`` best of them, and the root keeps its ``k``
best moves after depth 1: a beam).  With ``sample=m`` every inner node looks at up to ``m`` distinct actions drawn
with the game's ``random_action`` (its own move distribution: for Nume a
uniform cell, then a number) instead of all of them (Nume's thousands of
placements); the root always looks at every move at depth 1.

With more than two players (four-player Nymbat) the search is *paranoid*:
the other players are taken as one side playing against the player to move
at the root, every position is scored ``evaluate(me)`` (``returns()[me]`` at
the end) for him and its negation for them, so the two-side negamax holds.

A depth interrupted by the deadline is used only as far as it got: its best move is taken when it beat the previous
iteration's best move on the same search.  ``iterations`` counts completed
depths (``iterations=3`` searches to depth 3).
"""

from __future__ import annotations

import random

from tessera.agents.base import DEFAULT_SECONDS, Agent, Budget
from tessera.core.game import Action, State


class _Timeout(Exception):
    pass


class AlphaBetaAgent(Agent):
    """Negamax alpha-beta with iterative deepening (see module docstring)."""

    default_seconds = DEFAULT_SECONDS

    def __init__(
        self, max_depth: int = 64, width: int = 0, sample: int = 0, seed: int | None = None, name: str | None = None
    ) -> None:
        super().__init__(seed)
        if max_depth < 1:
            raise ValueError(f"alphabeta: max_depth must be >= 1, not {max_depth!r}")
        if width < 0:
            raise ValueError(f"alphabeta: width must be >= 0 (0 = every move), not {width!r}")
        self.max_depth = int(max_depth)
        self.width = int(width)
        if sample < 0:
            raise ValueError(f"alphabeta: sample must be >= 0 (0 = every move), not {sample!r}")
        self.sample = int(sample)
        self._rng = random.Random(0)
        self.name = name or "alphabeta"
        self._nodes = 0
        self._budget: Budget | None = None
        self._me = -1
        """Paranoid search (more than two players): the root player, else -1."""

    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        me = state.current_player()
        self._me = me if state.game.num_players > 2 else -1
        actions = state.legal_actions()
        if len(actions) == 1:
            self.stats = {"depth": 0, "nodes": 0}
            return actions[0]
        self._budget = budget
        self._nodes = 0
        order = list(actions)
        rng.shuffle(order)  # random tie-breaking among equal moves
        scores: dict[Action, float] = {}
        for a in order:  # depth 1 (the deadline may cut it short: the moves seen so far)
            ch = state.clone()
            ch.apply_legal(a)
            scores[a] = self._static(ch, me, 1)
            if budget.out_of_time():
                break
        order = sorted(scores, key=lambda a: -scores[a])
        best, best_v = order[0], scores[order[0]]
        if self.width and len(order) > self.width:
            order = order[: self.width]
        self._rng = rng
        depth_done = 1
        depth = 2
        limit = self.max_depth if budget.iterations is None else min(self.max_depth, budget.iterations)
        while depth <= limit and not budget.out_of_time() and abs(best_v) < 1.5:
            new_scores: dict[Action, float] = {}
            alpha = -10.0
            try:
                for a in order:
                    child = state.clone()
                    child.apply_legal(a)
                    v = self._value_of_child(child, me, depth - 1, alpha, 10.0, 1)
                    new_scores[a] = v
                    if v > alpha:
                        alpha = v
            except _Timeout:
                if new_scores:
                    a0 = max(new_scores, key=lambda a: new_scores[a])
                    if a0 == order[0] or new_scores[a0] > new_scores.get(order[0], -10.0):
                        best, best_v = a0, new_scores[a0]
                break
            order.sort(key=lambda a: -new_scores[a])
            best, best_v = order[0], new_scores[order[0]]
            depth_done = depth
            depth += 1
        self.stats = {"depth": depth_done, "nodes": self._nodes, "value": best_v}
        return best

    def _sampled_actions(self, st: State) -> list[Action]:
        """Up to ``sample`` distinct actions drawn with the game's ``random_action`` (its own move distribution)."""
        rng = self._rng
        seen: dict[Action, None] = {}
        for _ in range(3 * self.sample):
            seen[st.random_action(rng)] = None
            if len(seen) >= self.sample:
                break
        return list(seen)

    def _static(self, st: State, player: int, ply: int) -> float:
        me = self._me
        if me >= 0:  # paranoid: the root player's value, negated for the others' side
            v = st.returns()[me] * (2.0 - 0.001 * ply) if st.is_terminal() else st.evaluate(me)
            return v if player == me else -v
        if st.is_terminal():
            return st.returns()[player] * (2.0 - 0.001 * ply)
        return st.evaluate(player)

    def _value_of_child(self, child: State, player: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Value for ``player`` of ``child`` (reached by ``player``'s step)."""
        if child.is_terminal() or depth <= 0:
            return self._static(child, player, ply)
        cp = child.current_player()
        me = self._me
        if cp == player or (me >= 0 and cp != me and player != me):  # same player, or the same side (paranoid)
            return self._negamax(child, cp, depth, alpha, beta, ply)
        return -self._negamax(child, cp, depth, -beta, -alpha, ply)

    def _negamax(self, st: State, player: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Value for ``player`` (to move in ``st``) searched ``depth`` steps deep."""
        self._nodes += 1
        budget = self._budget
        if budget is not None and budget.out_of_time():  # every node: nodes are costly (all children built)
            raise _Timeout
        if self.sample:
            actions = self._sampled_actions(st)
        else:
            actions = st.legal_actions()
        kids: list[State] = []
        for i, a in enumerate(actions):
            if (i & 255) == 255 and budget is not None and budget.out_of_time():
                raise _Timeout  # wide nodes (Nume: thousands of children)
            ch = st.clone()
            ch.apply_legal(a)
            kids.append(ch)
        if depth >= 2 and len(kids) > 1:
            keyed = sorted(((self._static(ch, player, ply + 1), i) for i, ch in enumerate(kids)), reverse=True)
            if self.width and len(keyed) > self.width:
                keyed = keyed[: self.width]
            kids = [kids[i] for _, i in keyed]
        best = -10.0
        for ch in kids:
            v = self._value_of_child(ch, player, depth - 1, alpha, beta, ply + 1)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best


__all__ = ["AlphaBetaAgent"]
