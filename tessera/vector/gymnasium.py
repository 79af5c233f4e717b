"""A Gymnasium vector environment on the vector engine: ``gymnasium.make_vec("tessera/Nume-v0", num_envs=B)``.

>>> import gymnasium, tessera.adapters.gymnasium
>>> envs = gymnasium.make_vec("tessera/Nume-v0", num_envs=8, size=3)
>>> obs, info = envs.reset(seed=0)
>>> obs.shape, info["action_mask"].shape
((8, 10, 7, 7), (8, 1444))

``num_envs`` games, each one seat (``seat``, default 0) against ``opponent="random"``: every
other seat plays a uniformly random legal action, drawn in a kernel from the mask.  The
opponents' moves are played before the learner's turn, so every observation is the learner's
(the game's planes, :mod:`tessera.adapters.core`), ``info["action_mask"]`` (bool,
``num_envs × n``) marks his legal actions and the reward is his return when a game ends.  A
game that ends is reset at once (Gymnasium's *same-step* autoreset: ``terminated`` is true
and the observation is the new game's first one for the learner).  Keyword arguments: the
game's parameters (``size=3``) or ``game="nume(size=3)"``; ``seat``; ``window`` (Ikabegamá);
``seed`` of the engine.  An illegal action is refused (``IllegalMove`` naming the slot) and
no game changes.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from tessera.core.kernels import rng_state
from tessera.core.kits.vector import random_legal
from tessera.core.registry import load_game
from tessera.vector import make


class TesseraVectorEnv(VectorEnv):  # type: ignore[misc]
    """``num_envs`` games of one seat against random opponents (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (Gymnasium's class attribute)

    def __init__(
        self,
        num_envs: int = 1,
        game: str = "nume",
        opponent: str = "random",
        seat: int = 0,
        window: int = 0,
        seed: int = 0,
        **params: Any,
    ) -> None:
        if opponent != "random":
            raise ValueError(
                f"the vector env plays against opponent='random' only, not {opponent!r} "
                "(gymnasium.make plays one game against any tessera agent)"
            )
        tgame = load_game(game, **params)
        self.engine = make(tgame, batch=num_envs, seed=seed, window=window)
        """The vector engine (:func:`tessera.vector.make`)."""
        n = self.engine.num_players
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise ValueError(f"seat must be a player index 0 … {n - 1}, not {seat!r}")
        self.seat = seat
        self.num_envs = num_envs
        a = self.engine.num_actions
        self.single_observation_space = gymnasium.spaces.Box(0.0, 1.0, self.engine.observation_shape, np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(a)
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (num_envs, *self.engine.observation_shape), np.float32)
        self.action_space = gymnasium.spaces.MultiDiscrete(np.full(num_envs, a))
        self._rs = rng_state(seed + 1)
        self._opp = np.empty(num_envs, np.int64)
        self._reward = np.zeros(num_envs, np.float32)
        self._ended = np.zeros(num_envs, np.bool_)

    def _opponents_play(self) -> None:
        """Random moves for every other seat until the learner is to move in every game."""
        bt = self.engine._batch
        while True:
            waiting = bt.player != self.seat
            if not waiting.any():
                return
            random_legal(bt.mask, self._rs, self._opp)
            self._opp[~waiting] = -1
            self.engine._step_some(self._opp)
            self._reward += bt.rewards[:, self.seat]
            self._ended |= bt.terminated

    def _out(self) -> tuple[np.ndarray, dict[str, Any]]:
        bt = self.engine._batch
        return bt.obs.copy(), {"action_mask": bt.mask.copy()}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            self._rs = rng_state(int(seed) + 1)
        self.engine.reset(seed)
        self._reward[:] = 0.0
        self._ended[:] = False
        self._opponents_play()
        return self._out()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        bt = self.engine.step(np.asarray(actions))
        self._reward[:] = bt.rewards[:, self.seat]
        self._ended[:] = bt.terminated
        self._opponents_play()
        obs, info = self._out()
        return obs, self._reward.copy(), self._ended.copy(), np.zeros(self.num_envs, np.bool_), info


__all__ = ["TesseraVectorEnv"]
