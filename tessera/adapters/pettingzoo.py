"""PettingZoo: ``env(spec)`` — an AEC environment of any tessera game; ``parallel_env(spec)`` for Nelaxtam.

>>> from tessera.adapters.pettingzoo import env
>>> e = env("nume(size=3)")
>>> e.reset(seed=0)
>>> obs, reward, terminated, truncated, info = e.last()
>>> sorted(obs)
['action_mask', 'observation']

Agents are ``player_0``, ``player_1`` (… ``player_3``).  Observations are
dicts ``{"observation": float32 planes (C, H, W), "action_mask": int8 (n,)}``
(planes and actions: docs/research.md, :mod:`tessera.adapters.core`); the
action space is ``Discrete(n)``.  A player whose turn has several steps
(Nymbat, Nibble) is selected again until his turn ends.  Rewards are the
game's returns (+1 / −1 / 0) when it ends.  Nibble deals from the ``seed``
given to ``reset`` (a random deal without one).

**Illegal actions** (not in the mask) follow PettingZoo's classic-game
convention (``TerminateIllegalWrapper``): the game ends, the offender gets −1,
every other player 0, and ``infos[agent]["illegal_move"]`` says why.

``env(spec, actions="factored")`` makes a move a short sequence of decisions (Nume: the cell, then
the number; Nymbat: the piece or group, then the destination;
:class:`~tessera.adapters.core.FactoredMoves`): the action space is the decisions', the mask the
current decision's, and the player stays selected until his move is complete.

``parallel_env("nelaxtam(size=8,variant=quiet)")`` plays Nelaxtam as it is
played, both players at once: each step is a *round* in which every player
decides for his next living troop (in increasing number; in ``quiet`` battle
turns one round, one whole order), with the same actions, masks and planes
as the AEC env.  A player's pending decisions are in his own observation and
never in the other's; the turn resolves after the last round.  A player with
fewer troops waits: his mask allows only action 0, which is ignored.  The
masks are exact (every masked choice can be completed to a legal order).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv

from tessera.adapters.core import CHANCE, AdaptedGame, AdaptedState, FactoredMoves, adapt
from tessera.core.game import IllegalMove


def _agents(n: int) -> list[str]:
    return [f"player_{i}" for i in range(n)]


def _obs_space(game: AdaptedGame, width: int | None = None) -> gymnasium.spaces.Dict:
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(0.0, 1.0, game.observation_shape, np.float32),
            "action_mask": gymnasium.spaces.Box(
                0, 1, (game.num_distinct_actions if width is None else width,), np.int8
            ),
        }
    )


def _render_text(render_mode: str | None, state: object) -> str | None:
    """PettingZoo's ``render()``: the board as text ("ansi"), printed ("human"), or a warning without a mode."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode")
        return None
    text = str(state)
    if render_mode == "human":
        print(text)
        return None
    return text


class TesseraAECEnv(AECEnv):  # type: ignore[misc]
    """A tessera game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "tessera_v0"}

    def __init__(
        self,
        game: str | AdaptedGame = "nume",
        render_mode: str | None = None,
        actions: str = "flat",
        **adapt_kwargs: Any,
    ) -> None:
        super().__init__()
        if actions not in ("flat", "factored"):
            raise ValueError(f"actions must be 'flat' or 'factored', not {actions!r}")
        self.game = game if isinstance(game, AdaptedGame) else adapt(game, **adapt_kwargs)
        self.moves = FactoredMoves(self.game) if actions == "factored" else None
        """The decisions of a move (``actions="factored"``), or ``None``."""
        width = self.game.num_distinct_actions if self.moves is None else self.moves.width
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"tessera_{self.game.name}_v0", is_parallelizable=False)  # type: ignore[misc]
        self.possible_agents = _agents(self.game.num_players)
        self._obs_space = _obs_space(self.game, width)
        self._act_space = gymnasium.spaces.Discrete(width)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.np_random, _ = seeding.np_random(None)
        self.state_: AdaptedState | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        st = self.game.new_initial_state()
        if st.current_player() == CHANCE:
            st.apply(int(self.np_random.integers(self.game.deals)))
        self.state_ = st
        if self.moves is not None:
            self.moves.reset()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[st.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.state_ is not None, "call reset() first"
        p = self.possible_agents.index(agent)
        st = self.state_
        if self.moves is None:
            mask = st.legal_mask(p) if not st.is_terminal() else np.zeros(self.game.num_distinct_actions, np.int8)
        elif st.is_terminal() or st.current_player() != p:
            mask = np.zeros(self.moves.width, np.int8)
        else:
            mask = self.moves.mask(st, p)
        return {"observation": st.observation(p), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state_
        assert st is not None
        p = self.possible_agents.index(agent)
        self._cumulative_rewards[agent] = 0.0
        try:
            if action is None or not 0 <= int(action) < self._act_space.n:
                raise IllegalMove(f"{action!r} is not an action of {self.game.name}")
            move = int(action) if self.moves is None else self.moves.decide(st, int(action))
            if move is not None:
                st.apply(move)
        except (IllegalMove, ValueError, TypeError) as e:
            self._end(p, f"{agent} played an illegal action {action!r}: {e}")
        else:
            if st.is_terminal():
                ret = st.returns()
                for i, a in enumerate(self.agents):
                    self.rewards[a] = float(ret[i])
                    self.terminations[a] = True
                self.agent_selection = self.possible_agents[(p + 1) % len(self.possible_agents)]
            else:
                for a in self.agents:
                    self.rewards[a] = 0.0
                self.agent_selection = self.possible_agents[st.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end(self, offender: int, reason: str) -> None:
        for i, a in enumerate(self.agents):
            self.rewards[a] = -1.0 if i == offender else 0.0
            self.terminations[a] = True
            self.infos[a] = {"illegal_move": reason}
        self.agent_selection = self.possible_agents[(offender + 1) % len(self.possible_agents)]

    def render(self) -> str | None:
        return _render_text(self.render_mode, self.state_)

    def close(self) -> None:
        pass


class NelaxtamParallelEnv(ParallelEnv):  # type: ignore[misc]
    """Nelaxtam as a PettingZoo parallel environment: both players decide at once, troop by troop."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "tessera_nelaxtam_parallel_v0"}

    def __init__(self, game: str | AdaptedGame = "nelaxtam", render_mode: str | None = None) -> None:
        self.game = game if isinstance(game, AdaptedGame) else adapt(game)
        if not self.game.simultaneous:
            raise ValueError(f"parallel_env is for simultaneous games (nelaxtam), not {self.game.name}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = _agents(2)
        self._obs_space = _obs_space(self.game)
        self._act_space = gymnasium.spaces.Discrete(self.game.num_distinct_actions)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.state_: AdaptedState | None = None
        self.agents: list[str] = []
        self._todo: list[list[int | None]] = [[], []]

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._act_space

    # -- decision rounds ------------------------------------------------------------------
    def _start_turn(self) -> None:
        """Each player's troops to decide this turn (``[None]``: one whole quiet order)."""
        st = self.state_
        assert st is not None and st.state is not None
        st._queue = []
        self._todo = [[], []]
        if not st.is_terminal():
            quiet = bool(st.state.legal_moves(0) or st.state.legal_moves(1))
            for p in (0, 1):
                if quiet:
                    self._todo[p] = [None] if st.state.legal_actions(p) else []
                else:
                    self._todo[p] = list(sorted(st.state.troop_actions(p)))  # type: ignore[attr-defined]
        self._set_round()

    def _set_round(self) -> None:
        st = self.state_
        assert st is not None
        st.rounds = {p: (todo[0] if todo else None) for p, todo in enumerate(self._todo)}

    def _mask(self, p: int) -> np.ndarray:
        st = self.state_
        assert st is not None
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        if st.is_terminal():
            return mask
        if not self._todo[p]:
            mask[0] = 1  # nothing to decide this round: action 0 stands for "wait" and is ignored
            return mask
        acts = st.troop_choices(p, self._todo[p][0])
        mask[np.asarray(acts, dtype=np.intp)] = 1
        return mask

    def _observe(self, p: int) -> dict[str, Any]:
        st = self.state_
        assert st is not None
        return {"observation": st.observation(p), "action_mask": self._mask(p)}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.state_ = self.game.new_initial_state()
        self.agents = self.possible_agents[:]
        self._start_turn()
        return {a: self._observe(i) for i, a in enumerate(self.agents)}, {a: {} for a in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        st = self.state_
        assert st is not None and st.state is not None, "call reset() first"
        chosen: list[int | None] = [None, None]
        offender = None
        reason = ""
        for p, agent in enumerate(self.agents):
            if not self._todo[p]:
                continue  # waiting: the action is ignored
            try:
                a = int(actions[agent])
                if a not in st.troop_choices(p, self._todo[p][0]):
                    raise IllegalMove(f"{a} is not a legal decision now (see the action mask)")
                chosen[p] = a
            except (IllegalMove, KeyError, TypeError, ValueError) as e:
                offender, reason = p, f"{agent} made an illegal decision: {e}"
                break
        infos: dict[str, Any] = {a: {} for a in self.agents}
        if offender is not None:
            rewards = {a: (-1.0 if i == offender else 0.0) for i, a in enumerate(self.agents)}
            terms = {a: True for a in self.agents}
            infos = {a: {"illegal_move": reason} for a in self.agents}
        else:
            for p, choice in enumerate(chosen):
                if choice is not None:
                    st.decide(p, choice)
                    self._todo[p].pop(0)
            if not self._todo[0] and not self._todo[1]:
                st.state.apply_actions(st._pending)  # type: ignore[arg-type]
                st._start_turn()
                self._start_turn()
            else:
                self._set_round()
            done = st.is_terminal()
            ret = st.returns()
            rewards = {a: (float(ret[i]) if done else 0.0) for i, a in enumerate(self.agents)}
            terms = {a: done for a in self.agents}
        truncs = {a: False for a in self.agents}
        obs = {a: self._observe(i) for i, a in enumerate(self.agents)}
        if all(terms.values()):
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        return _render_text(self.render_mode, self.state_)

    def close(self) -> None:
        pass


def env(game: str = "nume", render_mode: str | None = None, **adapt_kwargs: Any) -> TesseraAECEnv:
    """An AEC environment of ``game`` (a tessera game string, e.g. ``"nume(size=4)"``)."""
    return TesseraAECEnv(game, render_mode=render_mode, **adapt_kwargs)


def parallel_env(game: str = "nelaxtam", render_mode: str | None = None) -> NelaxtamParallelEnv:
    """A parallel environment of a simultaneous game, e.g. ``"nelaxtam(size=8,variant=quiet)"``."""
    return NelaxtamParallelEnv(game, render_mode=render_mode)


__all__ = ["NelaxtamParallelEnv", "TesseraAECEnv", "env", "parallel_env"]
