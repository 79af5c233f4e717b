"""Gymnasium: ``import tessera.adapters.gymnasium`` registers ``tessera/Nume-v0`` and the others.

>>> import gymnasium, tessera.adapters.gymnasium
>>> env = gymnasium.make("tessera/Nume-v0", size=3, opponent="greedy")
>>> obs, info = env.reset(seed=0)
>>> obs.shape, info["action_mask"].shape
((10, 7, 7), (1444,))

One seat of a tessera game against a tessera agent.  Ids: ``tessera/Nume-v0``,
``tessera/Ikabegama-v0``, ``tessera/Nibble-v0``, ``tessera/Nymbat-v0``,
``tessera/Nelaxtam-v0``.  Keyword arguments:

* the game's parameters (docs/rules/README.md), e.g. ``size=4``; or ``game="nume(size=4)"``;
* ``opponent``: an agent spec, ``"random"`` (default), ``"greedy"``,
  ``"level3"``, ``"mcts(c=1.4)"`` …; ``seconds`` / ``iterations``: its budget
  per move (default: the agent's own);
* ``seat``: the learner's player index, or ``"random"`` (drawn at each reset);
* ``window`` (Ikabegamá), ``render_mode`` (``"ansi"`` or ``"human"``);
* ``actions``: ``"flat"`` (default: an action is a move) or ``"factored"``: a move is a short
  sequence of decisions (Nume: the cell, then the number; Nymbat: the piece or group, then the
  destination; :class:`~tessera.adapters.core.FactoredMoves`), the action space is the decisions',
  ``info["action_mask"]`` the current decision's and ``info["phase"]`` says which (0: a move starts;
  a first decision returns the same observation with reward 0).

Observations are the game's planes (``Box(0, 1, (C, H, W), float32)``, see
docs/research.md); the action space is ``Discrete(n)`` and
``info["action_mask"]`` (int8, length ``n``) marks the legal actions.  The
reward is the learner's return (+1 / −1 / 0) when the game ends.  ``reset()`` always
returns a game the learner is to move in: a game the opponent ends before the learner's
first move (the first player can win at once in some variants, e.g. Ikabegamá at distance 3)
is no episode of his; it is counted in ``info["unplayed_games"]``, his returns in it summed
in ``info["unplayed_reward"]``, and another game starts.  An illegal
action ends the episode with reward −1 and ``info["illegal_move"]``.  The
opponent is seeded from ``reset(seed=...)`` so a seeded episode with a
seeded, untimed opponent (random, greedy) replays exactly; Nibble deals from
the same seed.  In Nelaxtam the learner decides troop by troop
(:mod:`tessera.adapters.core`); the opponent's whole order is chosen from the
position alone and never sees the learner's pending decisions.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np

from tessera.adapters.core import CHANCE, AdaptedState, FactoredMoves, adapt
from tessera.agents import make_agent
from tessera.core.game import IllegalMove
from tessera.core.registry import game_class, list_games, load_game

MAX_UNPLAYED = 100
"""Games in a row that may end before the learner's first move in one ``reset()`` (then
``RuntimeError``: in that variant and seat the learner never plays)."""


class TesseraEnv(gymnasium.Env):  # type: ignore[misc]
    """One seat of a tessera game against a tessera agent (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"]}  # type: ignore[misc]

    def __init__(
        self,
        game: str = "nume",
        opponent: str = "random",
        seat: int | str = 0,
        seconds: float | None = None,
        iterations: int | None = None,
        render_mode: str | None = None,
        window: int = 0,
        actions: str = "flat",
        **params: Any,
    ) -> None:
        if actions not in ("flat", "factored"):
            raise ValueError(f"actions must be 'flat' or 'factored', not {actions!r}")
        tgame = load_game(game, **params)
        self.game = adapt(tgame, window=window)
        self.moves = FactoredMoves(self.game) if actions == "factored" else None
        """The decisions of a move (``actions="factored"``), or ``None``."""
        if self.game.num_players != 2:
            raise ValueError(f"the Gymnasium env plays two-player games; {tgame} has {self.game.num_players} players")
        if seat not in (0, 1, "random"):
            raise ValueError(f"seat must be 0, 1 or 'random', not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.seat_choice = seat
        self.seat = 0 if seat == "random" else int(seat)
        self.opponent = make_agent(opponent, game=tgame.name)
        self.seconds = seconds
        self.iterations = iterations
        self.render_mode = render_mode
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, self.game.observation_shape, np.float32)
        self.action_space = gymnasium.spaces.Discrete(
            self.game.num_distinct_actions if self.moves is None else self.moves.width
        )
        self.state_: AdaptedState | None = None
        self._opp_rng = random.Random(0)
        self._done = False

    # -- the opponent ---------------------------------------------------------------------
    def _opponent_moves(self) -> None:
        st = self.state_
        assert st is not None and st.state is not None
        opp = 1 - self.seat
        while not st.is_terminal() and st.current_player() == opp:
            if self.game.simultaneous:
                order = self.opponent.choose(
                    st.state, player=opp, seconds=self.seconds, iterations=self.iterations, rng=self._opp_rng
                )
                for a in sorted(st.state.order_to_actions(order)):  # type: ignore[attr-defined]
                    st.apply(a)
                if st.is_terminal() or st.current_player() != opp:
                    continue
                # quiet battle: an order is one token, the rest of the queue is empty
            else:
                a = self.opponent.choose(st.state, seconds=self.seconds, iterations=self.iterations, rng=self._opp_rng)
                st.apply(self.game.from_tessera(a))

    def _info(self) -> dict[str, Any]:
        st = self.state_
        assert st is not None
        if self.moves is None:
            n = self.game.num_distinct_actions
            mask = st.legal_mask(self.seat) if not st.is_terminal() else np.zeros(n, np.int8)
            return {"action_mask": mask}
        mask = self.moves.mask(st, self.seat) if not st.is_terminal() else np.zeros(self.moves.width, np.int8)
        return {"action_mask": mask, "phase": self.moves.phase, "decided": self.moves.decided}

    # -- gymnasium API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._opp_rng = random.Random(int(self.np_random.integers(2**31)))
        unplayed, unplayed_reward = 0, 0.0
        while True:
            if self.seat_choice == "random":
                self.seat = int(self.np_random.integers(2))
            st = self.game.new_initial_state()
            if st.current_player() == CHANCE:
                st.apply(int(self.np_random.integers(self.game.deals)))
            self.state_ = st
            self.opponent.reset()
            self._opponent_moves()
            if not st.is_terminal():
                break
            # the opponent ended the game before the learner's first move: no episode of his
            unplayed += 1
            unplayed_reward += float(st.returns()[self.seat])
            if unplayed >= MAX_UNPLAYED:
                raise RuntimeError(
                    f"{MAX_UNPLAYED} games of {self.game.game} in a row ended before seat {self.seat} could move: "
                    "in this variant that seat never plays"
                )
        self._done = False
        if self.moves is not None:
            self.moves.reset()
        info = self._info()
        info["unplayed_games"] = unplayed
        info["unplayed_reward"] = unplayed_reward
        return st.observation(self.seat), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        st = self.state_
        if st is None or self._done:
            raise RuntimeError("the episode is over: call reset()")
        try:
            a = int(action)
            if self.moves is not None:
                move = self.moves.decide(st, a)
                if move is None:  # the first decision of a move: nothing is played yet
                    return st.observation(self.seat), 0.0, False, False, self._info()
                a = move
            elif a not in st.legal_actions(self.seat):
                raise IllegalMove(f"{a} is not a legal action now (see info['action_mask'])")
            st.apply(a)
        except (IllegalMove, ValueError, TypeError) as e:
            self._done = True
            info = self._info()
            info["illegal_move"] = str(e)
            return st.observation(self.seat), -1.0, True, False, info
        self._opponent_moves()
        done = st.is_terminal()
        reward = float(st.returns()[self.seat]) if done else 0.0
        self._done = done
        if self.render_mode == "human":
            self.render()
        return st.observation(self.seat), reward, done, False, self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = str(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text


ENV_IDS: dict[str, str] = {}
"""Registered Gymnasium id of each game."""

for _name in list_games():
    _id = f"tessera/{_name.capitalize()}-v0"
    ENV_IDS[_name] = _id
    if game_class(_name).info.num_players == 2 and _id not in gymnasium.registry:
        gymnasium.register(
            id=_id,
            entry_point="tessera.adapters.gymnasium:TesseraEnv",
            vector_entry_point="tessera.vector.gymnasium:TesseraVectorEnv",
            kwargs={"game": _name},
        )

__all__ = ["ENV_IDS", "MAX_UNPLAYED", "TesseraEnv"]
