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
``num_envs × n``) marks his legal actions and the reward is his return when a game ends.

Autoreset is Gymnasium's *same-step* mode, as its ``SyncVectorEnv`` does it over single
envs: in the step where game ``i`` ends (by the learner's move or by the opponents' replies)
``terminated[i]`` is true, ``rewards[i]`` is that game's return — never mixed with the next
game's — ``info["final_obs"][i]`` is the learner's observation of the finished position and
``info["final_info"]`` its info (``info["_final_obs"]`` / ``info["_final_info"]`` mark the
games that ended); the observation is the next game's first one for the learner.  A next
game the opponents end before the learner has moved (the first player can win at once in
some variants) is no episode of his: it is counted in ``info["unplayed_games"][i]`` with his
returns summed in ``info["unplayed_reward"][i]`` and another game starts, in ``reset()`` as
in a step — as ``gymnasium.make`` of the same id does in its ``reset()``.  The finished
position's observation is read by replaying the game's actions on the adapters' state
(:class:`~tessera.adapters.core.AdaptedState`), once per game that ends.

Keyword arguments: the game's parameters (``size=3``) or ``game="nume(size=3)"``; ``seat``;
``window`` (Ikabegamá); ``seed`` of the engine; the engine's formats (:func:`tessera.vector.make`):
``obs_dtype`` (``"float32"``, the default here — the Gymnasium env's observation space since its first
version —, or ``"uint8"``, the engine's own default: the observation space's dtype) and
``actions`` (``"flat"``, the default, or ``"factored"``: an action is then one decision of a move —
Nume's cell then its number, Nymbat's piece then its destination —, ``info["action_mask"]`` is the
current decision's, ``info["phase"]`` says which (0: a move starts) and ``info["decided"]`` holds the
first decision at phase 1; the opponents' moves are played decision by decision the same way).  An
illegal action is refused (``IllegalMove`` naming the slot) and no game changes.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from tessera.adapters.core import AdaptedState
from tessera.core.kernels import rng_state
from tessera.core.kits.draw import random_legal
from tessera.core.kits.vector import quantize
from tessera.core.registry import load_game
from tessera.vector import make

MAX_UNPLAYED = 100
"""Games in a row an environment may see end before the learner's first move (then ``RuntimeError``:
in that variant and seat the learner never plays)."""


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
        obs_dtype: str = "float32",
        actions: str = "flat",
        **params: Any,
    ) -> None:
        if opponent != "random":
            raise ValueError(
                f"the vector env plays against opponent='random' only, not {opponent!r} "
                "(gymnasium.make plays one game against any tessera agent)"
            )
        tgame = load_game(game, **params)
        self.engine = make(tgame, batch=num_envs, seed=seed, window=window, obs_dtype=obs_dtype, actions=actions)
        """The vector engine (:func:`tessera.vector.make`)."""
        n = self.engine.num_players
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise ValueError(f"seat must be a player index 0 … {n - 1}, not {seat!r}")
        self.seat = seat
        self.num_envs = num_envs
        a = self.engine.num_actions
        shape = self.engine.observation_shape
        if obs_dtype == "uint8":
            self.single_observation_space = gymnasium.spaces.Box(0, 255, shape, np.uint8)
            self.observation_space = gymnasium.spaces.Box(0, 255, (num_envs, *shape), np.uint8)
        else:
            self.single_observation_space = gymnasium.spaces.Box(0.0, 1.0, shape, np.float32)
            self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (num_envs, *shape), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(a)
        self.action_space = gymnasium.spaces.MultiDiscrete(np.full(num_envs, a))
        self._rs = rng_state(seed + 1)
        self._opp = np.empty(num_envs, np.int64)
        self._hist = np.zeros((num_envs, 64), np.int64)
        """Each game's adapter actions so far (every seat's), to replay a finished game."""
        self._len = np.zeros(num_envs, np.int64)
        self._deal = np.zeros(num_envs, np.int64)
        """Each game's deal (dealt games: the seed of ``AdaptedGame.new_initial_state``)."""
        self._initial: dict[int | None, Any] = {}
        """The initial tessera state of each deal seen (``None``: a game without a deal), to clone."""

    # -- the games' histories -------------------------------------------------------------
    def _start(self, which: np.ndarray) -> None:
        """Games ``which`` (bool) have just started: empty their histories, note their deals."""
        self._len[which] = 0
        deal_of = getattr(self.engine, "deal_of", None)
        if deal_of is not None:
            self._deal[which] = deal_of[which]

    def _record(self, actions: np.ndarray, which: np.ndarray) -> None:
        idx = np.flatnonzero(which)
        if idx.size == 0:
            return
        need = int(self._len[idx].max()) + 1
        if need > self._hist.shape[1]:
            grown = np.zeros((self.num_envs, max(need, 2 * self._hist.shape[1])), np.int64)
            grown[:, : self._hist.shape[1]] = self._hist
            self._hist = grown
        self._hist[idx, self._len[idx]] = actions[idx]
        self._len[idx] += 1

    def replay(self, i: int) -> AdaptedState:
        """Game ``i``'s position as an adapters' state, replayed from its actions so far."""
        ad = self.engine.adapted
        st = ad.new_initial_state(seed=int(self._deal[i]) if ad.dealt else None)
        for a in self._hist[i, : self._len[i]].tolist():
            st.apply(a)
        return st

    def _planes(self, i: int) -> tuple[np.ndarray, bool]:
        """The learner's planes of game ``i`` replayed from its actions so far, and whether it is over.

        A sequential game is replayed on the tessera state itself, from a clone of its initial
        position (kept per deal), which costs about half of :meth:`replay`; Nelaxtam's decisions
        need the adapters' queue."""
        ad = self.engine.adapted
        if ad.simultaneous:
            st = self.replay(i)
            return self._as_obs(st.observation(self.seat)), st.is_terminal()
        deal = int(self._deal[i]) if ad.dealt else None
        first = self._initial.get(deal)
        if first is None:
            first = self._initial[deal] = ad.game.new_initial_state(seed=deal)
        state = first.clone()
        for a in self._hist[i, : self._len[i]].tolist():
            state.apply_action(ad.to_tessera(a))
        return self._as_obs(ad.obs.observe(state, self.seat)), state.is_terminal()

    def _as_obs(self, planes: np.ndarray) -> np.ndarray:
        """The adapters' ``float32`` planes in the engine's ``obs_dtype``."""
        return quantize(planes, self.engine.obs_scale) if self.engine.obs_dtype == "uint8" else planes

    # -- ends of games --------------------------------------------------------------------
    def _ended(self, ended: np.ndarray, out: dict[str, Any]) -> None:
        """Games ``ended`` (bool) ended in the engine's last call and were reset by it: the learner's
        episode if it was still open, else a game he never moved in."""
        bt = self.engine._batch
        for i in np.flatnonzero(ended).tolist():
            r = float(bt.rewards[i, self.seat])
            if out["open"][i]:
                planes, over = self._planes(i)
                if not over:
                    raise RuntimeError(f"env {i}: the engine ended a game the adapters do not end")
                out["open"][i] = False
                out["reward"][i] = r
                out["final_obs"][i] = planes
            else:
                out["unplayed"][i] += 1
                out["unplayed_reward"][i] += r
                if out["unplayed"][i] >= MAX_UNPLAYED:
                    raise RuntimeError(
                        f"env {i}: {MAX_UNPLAYED} games of {self.engine.game} in a row ended before seat "
                        f"{self.seat} could move: in this variant that seat never plays"
                    )
        self._start(ended)

    def _opponents_play(self, out: dict[str, Any]) -> None:
        """Random moves for every other seat until the learner is to move in every game."""
        bt = self.engine._batch
        while True:
            waiting = bt.player != self.seat
            if not waiting.any():
                return
            random_legal(bt.mask, self._rs, self._opp)
            self._opp[~waiting] = -1
            self.engine._step_some(self._opp)
            moves = self.engine.last_moves
            self._record(moves, moves >= 0)
            ended = bt.terminated & waiting
            if ended.any():
                self._ended(ended, out)

    def _accounts(self, open_: bool) -> dict[str, Any]:
        n = self.num_envs
        return {
            "open": np.full(n, open_, np.bool_),
            "reward": np.zeros(n, np.float32),
            "final_obs": np.full(n, None, dtype=object),
            "unplayed": np.zeros(n, np.int64),
            "unplayed_reward": np.zeros(n, np.float64),
        }

    def _info(self, out: dict[str, Any], started: np.ndarray) -> dict[str, Any]:
        """The info of Gymnasium's vector envs: each key with its ``_key`` mask of the envs that have it."""
        bt = self.engine._batch
        n = self.num_envs
        info: dict[str, Any] = {
            "action_mask": bt.mask.copy(),
            "_action_mask": np.ones(n, np.bool_),
            "unplayed_games": out["unplayed"],
            "_unplayed_games": started.copy(),
            "unplayed_reward": out["unplayed_reward"],
            "_unplayed_reward": started.copy(),
            "phase": bt.phase.copy(),
            "_phase": np.ones(n, np.bool_),
            "decided": bt.decided.copy(),
            "_decided": np.ones(n, np.bool_),
        }
        return info

    # -- gymnasium API --------------------------------------------------------------------
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0]
        if seed is not None:
            self._rs = rng_state(int(seed) + 1)
        self.engine.reset(seed)
        everyone = np.ones(self.num_envs, np.bool_)
        self._start(everyone)
        out = self._accounts(open_=False)
        self._opponents_play(out)
        return self.engine._batch.obs.copy(), self._info(out, everyone)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        bt = self.engine.step(actions)  # checks every action before any game changes
        moves = self.engine.last_moves  # the moves completed (with factored actions, not a first decision)
        self._record(moves, moves >= 0)
        out = self._accounts(open_=True)
        if bt.terminated.any():
            self._ended(bt.terminated.copy(), out)
        self._opponents_play(out)
        terminated = ~out["open"]
        info = self._info(out, terminated)
        if terminated.any():
            info["final_obs"] = out["final_obs"]
            info["_final_obs"] = terminated.copy()
            info["final_info"] = {
                "action_mask": np.zeros_like(bt.mask),
                "_action_mask": terminated.copy(),
            }
            info["_final_info"] = terminated.copy()
        return bt.obs.copy(), out["reward"], terminated, np.zeros(self.num_envs, np.bool_), info


__all__ = ["MAX_UNPLAYED", "TesseraVectorEnv"]
