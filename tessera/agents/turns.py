"""Search over whole turns with greedy rollouts (``turns``): the four-player Nymbat search levels.

In four-player Nymbat a home-row race is decided by the three other players'
turns, each a chain of several steps; a step-level search (MCTS, alpha-beta)
spends its budget inside the mover's own turn and hardly reaches them
(docs/agents.md).  This agent searches one level up:

* **Candidate turns.** Every legal first step is scored by ``evaluate`` (as
  greedy does) and, best first, completed into a whole turn by greedy steps
  of the same player (a *macro-action*).  Candidates are added one at a time,
  progressive widening: at most ``max(width, 2·sqrt(N + 1))`` candidates
  after ``N`` rollouts, and at most ``cap`` if ``cap`` > 0 (the rest of the
  budget goes to rollouts of those).
* **Rollouts.** From the position after a candidate turn, the other players
  play ``rounds`` rounds of whole turns with greedy steps (a random step with
  probability ``noise``, so repeated rollouts differ), until the mover's turn
  comes back ``rounds`` times (the home-row win is checked at the start of his
  turn); the result is ``returns()`` if the game ended, else
  ``evaluate(mover)``.  The game's one evaluation is the only knowledge used.
  With ``reply=k`` (k > 1) each other player instead answers with his best of
  ``k`` whole turns (:func:`best_turn`: his ``k`` best first steps, each
  completed greedily, judged by his own evaluation at the turn's end) — a
  stronger model of opponents who search themselves, at about ``k``/2 times
  the cost of a rollout.
* **Selection** by UCB1 over the candidates (``c``); the decision is the best
  mean value among the most visited half (ties: more visits).
* **Plan.** The chosen turn's steps are kept: the following calls of the same
  turn play them without searching (so the time per move is per turn), as
  long as the position is the one the plan expects.

Each candidate completion and each rollout counts one iteration of the budget;
the greedy completion of the best first step is always made, so a tiny budget
plays like greedy over whole turns.  ``limit=N`` (N > 0) stops the search of a
turn after N iterations even when the caller's budget (time) allows more: a
strength set by effort rather than by the machine's speed (the four-player
Nymbat levels, docs/agents.md).
"""

from __future__ import annotations

import math
import random
from typing import Any

from tessera.agents.base import Agent, Budget, terminal_or_eval
from tessera.core.game import Action, State


def _greedy_step(state: State, me: int, rng: random.Random) -> Action:
    """The step that ``evaluate`` (or the result) likes best for ``me`` right after it; ties at random."""
    actions = state.legal_actions()
    if len(actions) == 1:
        return actions[0]
    best: list[Action] = []
    best_v = -math.inf
    for a in actions:
        child = state.clone()
        child.apply_legal(a)
        v = terminal_or_eval(child, me)
        if v > best_v:
            best_v, best = v, [a]
        elif v == best_v:
            best.append(a)
    return best[0] if len(best) == 1 else rng.choice(best)


def finish_turn(state: State, rng: random.Random, noise: float = 0.0, limit: int = 200) -> list[Action]:
    """Play the current player's turn to its end in place with greedy steps; the steps played.

    With ``noise`` a step is a random legal one with that probability.  A turn
    ends when the game ends or another player is to move; ``limit`` bounds the
    steps (a safeguard for games whose turns could be endless).
    """
    me = state.current_player()
    played: list[Action] = []
    while not state.is_terminal() and state.current_player() == me and len(played) < limit:
        a = state.random_action(rng) if noise and rng.random() < noise else _greedy_step(state, me, rng)
        state.apply_legal(a)
        played.append(a)
    return played


def best_turn(state: State, rng: random.Random, k: int, noise: float = 0.0) -> State:
    """The position after the current player's best of ``k`` whole turns (``state`` is not changed).

    His ``k`` best first steps by ``evaluate`` (greedy's view) are each completed by
    :func:`finish_turn` (with ``noise``), and the turn he likes best at its end
    (``returns`` if the game ended, else ``evaluate`` for him) is kept: a whole-turn
    greedy player, who sees what a chain of steps leads to.  ``k=1`` is a greedy turn.
    """
    me = state.current_player()
    actions = state.legal_actions()
    if k <= 1 or len(actions) == 1:
        out = state.clone()
        finish_turn(out, rng, noise)
        return out
    scored: list[tuple[float, float, State]] = []
    for a in actions:
        child = state.clone()
        child.apply_legal(a)
        scored.append((terminal_or_eval(child, me), rng.random(), child))
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    best: State | None = None
    best_v = -math.inf
    for _, _, child in scored[:k]:
        if not child.is_terminal() and child.current_player() == me:
            finish_turn(child, rng, noise)
        v = terminal_or_eval(child, me)
        if v > best_v:
            best_v, best = v, child
    assert best is not None
    return best


class _Candidate:
    __slots__ = ("after", "n", "steps", "w")

    def __init__(self, steps: list[Action], after: State) -> None:
        self.steps = steps
        self.after = after
        self.n = 0
        self.w = 0.0


class TurnAgent(Agent):
    """Flat UCB over greedy-completed whole turns with greedy rollouts (module docstring)."""

    default_seconds = 1.0

    def __init__(
        self,
        width: int = 4,
        rounds: int = 1,
        noise: float = 0.15,
        c: float = 0.4,
        reply: int = 1,
        cap: int = 0,
        limit: int = 0,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"turns: width must be an integer >= 1, not {width!r}")
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 20:
            raise ValueError(f"turns: rounds must be an integer from 1 to 20, not {rounds!r}")
        if isinstance(noise, bool) or not isinstance(noise, int | float) or not 0.0 <= noise <= 1.0:
            raise ValueError(f"turns: noise must be from 0 to 1, not {noise!r}")
        if isinstance(c, bool) or not isinstance(c, int | float) or c < 0:
            raise ValueError(f"turns: c must be a number >= 0, not {c!r}")
        if isinstance(reply, bool) or not isinstance(reply, int) or not 1 <= reply <= 50:
            raise ValueError(f"turns: reply must be an integer from 1 to 50, not {reply!r}")
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
            raise ValueError(f"turns: cap must be an integer >= 0 (0: no cap), not {cap!r}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"turns: limit must be an integer >= 0 (0: no limit), not {limit!r}")
        self.reply = reply
        self.cap = cap
        self.limit = limit
        self.width = width
        self.rounds = rounds
        self.noise = float(noise)
        self.c = float(c)
        self.name = name or "turns"
        self._plan: list[Action] = []
        self._expect: list[Any] | None = None
        self._game = ""

    def reset(self) -> None:
        super().reset()
        self._plan = []
        self._expect = None

    # -- the plan of the current turn ------------------------------------------------------
    def _planned(self, state: State) -> Action | None:
        """The next step of the kept plan if ``state`` is where the plan stands, else ``None``."""
        if not self._plan or self._expect is None or str(state.game) != self._game:
            return None
        if state._history != self._expect:
            return None
        a = self._plan[0]
        return a if state._illegal_reason(a) is None else None

    def _advance(self, state: State, action: Action) -> None:
        self._plan = self._plan[1:]
        self._expect = [*state._history, (state.current_player(), action)] if self._plan else None

    # -- search ----------------------------------------------------------------------------
    def _choose(self, state: State, budget: Budget, rng: random.Random) -> Action:
        a = self._planned(state)
        if a is not None:
            self.stats = {"iterations": 0, "plan": True}
            self._advance(state, a)
            return a
        me = state.current_player()
        actions = state.legal_actions()
        if len(actions) == 1:
            self._plan = []
            self._expect = None
            self.stats = {"iterations": 1}
            return actions[0]
        # Order the first steps by the evaluation right after them (greedy's view), best first.
        scored: list[tuple[float, float, Action]] = []
        for a in actions:
            child = state.clone()
            child.apply_legal(a)
            scored.append((terminal_or_eval(child, me), rng.random(), a))
        scored.sort(reverse=True)
        order = [a for _, _, a in scored]
        cands: list[_Candidate] = []
        seen: set[str] = set()
        nxt = 0
        done = 0
        total = 0

        def add() -> bool:
            nonlocal nxt, done
            while nxt < len(order) and not (cands and self.limit and done >= self.limit):
                a = order[nxt]
                nxt += 1
                child = state.clone()
                child.apply_legal(a)
                steps = [a, *finish_turn(child, rng)]
                done += 1
                key = repr(child.to_dict()) if not child.is_terminal() else f"end{steps}"
                if key in seen:
                    continue
                seen.add(key)
                cands.append(_Candidate(steps, child))
                return True
            return False

        add()
        while not budget.exhausted(done) and not (self.limit and done >= self.limit):
            wide = len(cands) < max(self.width, 2.0 * math.sqrt(total + 1)) and not (
                self.cap and len(cands) >= self.cap
            )
            if nxt < len(order) and wide and add():
                continue
            best = self._select(cands, total)
            v = self._rollout(best.after, me, rng)
            done += 1
            total += 1
            best.n += 1
            best.w += v
            if all(c.after.is_terminal() for c in cands) and nxt >= len(order):
                break
        pick = self._decide(cands)
        self.stats = {
            "iterations": done,
            "rollouts": total,
            "candidates": len(cands),
            "value": (pick.w / pick.n) if pick.n else None,
            "visits": pick.n,
        }
        self._plan = list(pick.steps)
        self._expect = list(state._history)
        self._game = str(state.game)
        first = self._plan[0]
        self._advance(state, first)
        return first

    def _select(self, cands: list[_Candidate], total: int) -> _Candidate:
        for c in cands:
            if c.n == 0:
                return c
        log_n = math.log(total + 1)
        return max(cands, key=lambda c: c.w / c.n + self.c * math.sqrt(log_n / c.n))

    @staticmethod
    def _decide(cands: list[_Candidate]) -> _Candidate:
        visited = [c for c in cands if c.n]
        if not visited:
            return cands[0]
        most = max(c.n for c in visited)
        pool = [c for c in visited if 2 * c.n >= most]
        return max(pool, key=lambda c: (c.w / c.n, c.n))

    def _rollout(self, after: State, me: int, rng: random.Random) -> float:
        """The other players' whole turns by greedy (with noise), ``rounds`` times round to ``me``; his value."""
        return terminal_or_eval(self._rollout_state(after, me, rng), me)

    def _rollout_state(self, after: State, me: int, rng: random.Random) -> State:
        """The position a rollout from ``after`` ends in (a copy; :meth:`_rollout` scores it)."""
        s = after.clone()
        rounds = 0
        guard = 0
        while not s.is_terminal() and guard < 400:
            p = s.current_player()
            if p == me:
                rounds += 1
                if rounds >= self.rounds:
                    break
            if self.reply > 1:
                s = best_turn(s, rng, self.reply, self.noise)
                guard += 1
            else:
                guard += 1 + len(finish_turn(s, rng, self.noise))
        return s


__all__ = ["TurnAgent", "best_turn", "finish_turn"]
