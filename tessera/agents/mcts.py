"""UCT Monte-Carlo tree search for the sequential games.

* **Nodes** are positions reached by one action (one *step*: a multi-step
  turn — Nymbat, Nibble, Nume's komi bidding — is a chain of nodes of the same
  player, because ``current_player()`` does not change).  Each node stores the
  player who moved into it (``mover``) and that player's total reward, so
  selection at a node maximises the value for the player choosing there.
* **Selection** by UCB1, ``Q + c·sqrt(ln N / n)``; unvisited children first.
* **Expansion** of one child per simulation.  For huge branching (Nume has
  ``cells × (cells + 1)`` placements) *progressive widening* bounds the
  children of a node with ``n`` visits to ``ceil(pw_k · n^pw_alpha)`` and
  *candidates are sampled* with the game's ``random_action`` instead of
  listing every legal action; ``widen="auto"`` switches both on when the root
  has more than ``wide`` legal actions.  With ``sample=m`` a new candidate is
  the best of ``m`` random actions by ``evaluate`` (a cheap prior).
* **Rollouts** play ``random_action`` for at most ``rollout_cutoff`` steps,
  then score the position with ``state.evaluate`` (exact ``returns()`` when the
  game ends first); they go through ``State.rollouts`` (one rollout, seeded
  from the agent's generator), which a game with a compiled kernel plays in
  one call.  ``rollout_cutoff=0`` is pure evaluation at the leaf; a
  negative cut-off plays random moves to the end.  Evaluations are in
  [-1, 1].  Two-player games are zero-sum, so the position is scored once,
  for player 0, and negated for player 1.
* **More than two players** (four-player Nymbat): *max-n*.  The leaf is
  scored for every player (``returns()`` when the game is over, else
  ``evaluate(p)`` for each ``p``) and each node on the path is credited with
  the result of the player who moved into it, so every player picks the
  children best for himself.
* **Tree reuse**: after a search the agent keeps the root and a copy of its
  position; on the next call, if the new position's history extends the
  stored one (same game, the stored moves then the opponent's replies) and
  replaying those moves gives the same position, the matching subtree becomes
  the new root with its statistics.
* **Decision**: the most visited root child (ties: higher mean value).
"""

from __future__ import annotations

import math
import random
from typing import Any

from tessera.agents.base import DEFAULT_SECONDS, Agent, Budget
from tessera.core.game import Action, State


class Node:
    """One position in the tree."""

    __slots__ = ("children", "isq", "mover", "n", "q", "sampled", "untried", "w")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        """The player whose action led here (rewards are from his point of view); -1 at a fresh root."""
        self.n = 0
        """Visits."""
        self.w = 0.0
        """Total reward of ``mover``."""
        self.q = math.inf
        """Mean reward ``w / n`` (infinite while unvisited, so UCB1 tries it first)."""
        self.isq = 0.0
        """``1 / sqrt(n)`` (0 while unvisited): UCB1's exploration term is ``c·sqrt(ln N)·isq``."""
        self.children: dict[Action, Node] = {}
        """Expanded children by action."""
        self.untried: list[Action] | None = None
        """Legal actions not expanded yet (shuffled), ``None`` until first needed."""
        self.sampled = False
        """True when candidates are drawn with ``random_action`` (wide games)."""


class MCTSAgent(Agent):
    """UCT with rollout cut-off, evaluation, progressive widening and tree reuse (see module docstring)."""

    default_seconds = DEFAULT_SECONDS

    def __init__(
        self,
        c: float = 1.0,
        rollout_cutoff: int = 20,
        widen: str | bool = "auto",
        wide: int = 400,
        pw_k: float = 2.0,
        pw_alpha: float = 0.5,
        reuse: bool = True,
        sample: int = 1,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        if c < 0:
            raise ValueError(f"mcts: c must be >= 0, not {c!r}")
        if isinstance(widen, bool):
            widen = "on" if widen else "off"
        if widen not in ("auto", "on", "off"):
            raise ValueError(f"mcts: widen must be 'auto', 'on' or 'off', not {widen!r}")
        if pw_k <= 0 or not 0 <= pw_alpha <= 1:
            raise ValueError(f"mcts: need pw_k > 0 and 0 <= pw_alpha <= 1, got pw_k={pw_k!r}, pw_alpha={pw_alpha!r}")
        self.c = float(c)
        self.rollout_cutoff = int(rollout_cutoff)
        self.widen = widen
        self.wide = int(wide)
        self.pw_k = float(pw_k)
        self.pw_alpha = float(pw_alpha)
        self.reuse = bool(reuse)
        if sample < 1:
            raise ValueError(f"mcts: sample must be >= 1, not {sample!r}")
        self.sample = int(sample)
        self.name = name or "mcts"
        self._root: Node | None = None
        self._root_state: State | None = None

    def reset(self) -> None:
        self._root = None
        self._root_state = None

    def _choose_order(self, state: State, player: int, budget: Budget, rng: random.Random) -> str:
        """At a simultaneous node: decoupled UCT (:mod:`tessera.agents.sm_mcts`) with this agent's options."""
        from tessera.agents.sm_mcts import SMMCTSAgent

        sm = SMMCTSAgent(c=self.c, rollout_cutoff=self.rollout_cutoff, pw_k=self.pw_k, pw_alpha=self.pw_alpha)
        order = sm._choose_order(state, player, budget, rng)
        self.stats = sm.stats
        return order

    # -- tree reuse ------------------------------------------------------------------------
    def _reused_root(self, state: State) -> Node | None:
        root, old = self._root, self._root_state
        if not self.reuse or root is None or old is None or old.game != state.game:
            return None
        h_old, h_new = old._history, state._history
        if len(h_new) < len(h_old) or h_new[: len(h_old)] != h_old:
            return None
        node = root
        replay = old.clone()
        for _, a in h_new[len(h_old) :]:
            child = node.children.get(a)
            if child is None:
                return None
            node = child
            replay.apply_legal(a)
        if replay.to_dict() != state.to_dict():
            return None
        return node

    # -- search ----------------------------------------------------------------------------
    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        actions = state.legal_actions()
        if len(actions) == 1:
            self.stats = {"iterations": 0, "seconds": 0.0, "reused": 0}
            self.reset()
            return actions[0]
        root = self._reused_root(state)
        reused = root.n if root is not None else 0
        if root is None:
            root = Node(-1)
        wide = self.widen == "on" or (self.widen == "auto" and len(actions) > self.wide)
        n = self._search(state, root, budget, rng, wide)
        if not root.children:  # no time at all: fall back to a random move
            self.reset()
            return state.random_action(rng)
        best = self._best(root)
        self.stats = {
            "iterations": n,
            "seconds": _elapsed(budget),
            "reused": reused,
            "root_visits": root.n,
            "children": len(root.children),
            "value": (root.children[best].w / root.children[best].n) if root.children[best].n else 0.0,
        }
        if self.reuse:
            self._root, self._root_state = root, state.clone()
        return best

    def _sample_candidate(self, state: State, node: Node, cp: int, rng: random.Random) -> Action | None:
        """A new action for a widened node: the best of ``sample`` random actions by ``evaluate``."""
        seen: set[Action] = set()
        for _ in range(4 * self.sample):
            a = self._draw(state, rng)
            if a not in node.children:
                seen.add(a)
                if len(seen) >= self.sample:
                    break
        if len(seen) <= 1:
            return next(iter(seen), None)
        best, best_v = None, -math.inf
        for a in sorted(seen):
            child = state.clone()
            child.apply_legal(a)
            v = child.returns()[cp] * 2 if child.is_terminal() else self._leaf_value(child, cp)
            if v > best_v:
                best, best_v = a, v
        return best

    def _draw(self, state: State, rng: random.Random) -> Action:
        """One random candidate step for a widened node (a learned prior overrides this)."""
        return state.random_action(rng)

    def _leaf_value(self, state: State, player: int) -> float:
        """The value of a non-terminal leaf for ``player`` (the game's ``evaluate``; a learned
        evaluation overrides this, :mod:`tessera.agents.learned`)."""
        return state.evaluate(player)

    @staticmethod
    def _best(root: Node) -> Action:
        best_a, best_key = -1, (-1, -math.inf)
        for a, ch in root.children.items():
            key = (ch.n, ch.w / ch.n if ch.n else -math.inf)
            if key > best_key:
                best_a, best_key = a, key
        return best_a

    def _search(self, root_state: State, root: Node, budget: Budget, rng: random.Random, wide: bool) -> int:
        c = self.c
        cutoff = self.rollout_cutoff
        players = root_state.game.num_players
        pw_k, pw_alpha = self.pw_k, self.pw_alpha
        log = math.log
        sqrt = math.sqrt
        getrandbits = rng.getrandbits
        done = 0
        while done == 0 or not budget.exhausted(done):
            state = root_state.clone()
            node = root
            path = [root]
            while not state.is_terminal():
                cp = state.current_player()
                if node.untried is None:
                    if wide:
                        node.untried = []
                        node.sampled = True
                    else:
                        node.untried = state.legal_actions()
                        rng.shuffle(node.untried)
                expand: Action | None = None
                if node.sampled:
                    limit = math.ceil(pw_k * (node.n + 1) ** pw_alpha)
                    if len(node.children) < limit:
                        expand = self._sample_candidate(state, node, cp, rng)
                elif node.untried:
                    expand = node.untried.pop()
                if expand is not None:
                    state.apply_legal(expand)
                    child = Node(cp)
                    node.children[expand] = child
                    path.append(child)
                    break
                # UCB1 among the children, Q + c·sqrt(ln N / n) = q + c·sqrt(ln N)·isq; the mean
                # and 1/sqrt(n) are kept up to date in the back-up (a wide root has hundreds of children).
                cs = c * sqrt(log(node.n)) if node.n > 1 else 0.0
                best_child: Node | None = None
                best_a = -1
                best_u = -math.inf
                for a, ch in node.children.items():
                    u = ch.q + cs * ch.isq
                    if u > best_u:
                        best_u, best_a, best_child = u, a, ch
                assert best_child is not None
                state.apply_legal(best_a)
                node = best_child
                path.append(node)
            # Rollout with cut-off through State.rollouts (the game's compiled kernel where it has one).
            if players > 2:  # max-n: each node gets the result of the player who moved into it
                if state.is_terminal():
                    rewards = list(state.returns())
                elif cutoff == 0:
                    rewards = [self._leaf_value(state, p) for p in range(players)]
                else:
                    rewards = list(state.rollouts(1, getrandbits(63), None if cutoff < 0 else cutoff).totals)
                for nd in path:
                    nd.n += 1
                    if nd.mover >= 0:
                        nd.w += rewards[nd.mover]
                    nd.q = nd.w / nd.n
                    nd.isq = 1.0 / sqrt(nd.n)
                done += 1
                continue
            # Two players, zero-sum: score once for player 0.
            if state.is_terminal():
                v0 = state.returns()[0]
            elif cutoff == 0:
                v0 = self._leaf_value(state, 0)
            else:
                v0 = state.rollouts(1, getrandbits(63), None if cutoff < 0 else cutoff).totals[0]
            for nd in path:
                nd.n += 1
                if nd.mover == 0:
                    nd.w += v0
                elif nd.mover > 0:
                    nd.w -= v0
                nd.q = nd.w / nd.n
                nd.isq = 1.0 / sqrt(nd.n)
            done += 1
        return done


def _elapsed(budget: Budget) -> float:
    return budget.elapsed()


def describe(agent: MCTSAgent) -> dict[str, Any]:
    """The agent's options (for docs and logs)."""
    return {
        "c": agent.c,
        "rollout_cutoff": agent.rollout_cutoff,
        "widen": agent.widen,
        "wide": agent.wide,
        "pw_k": agent.pw_k,
        "pw_alpha": agent.pw_alpha,
        "reuse": agent.reuse,
        "sample": agent.sample,
    }


__all__ = ["MCTSAgent", "Node", "describe"]
