"""Multi-step turns: consecutive steps of the same player are not negated (alpha-beta) and rewards
follow the player who moved (MCTS).

A tiny hand-made game isolates the rule: player 0 takes two steps in a row
(``current_player()`` stays 0), then the game ends.  After ``x`` then ``y`` player 0
scores ``PAYOFF[x][y]``.  The right first step is ``1`` (then ``1`` wins); an agent
that treated the second step as the opponent's would see ``1`` lose and play ``0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tessera.agents import make_agent
from tessera.core.game import TERMINAL, Action, Game, GameInfo, State

PAYOFF = [[0.0, 0.0], [-1.0, 1.0]]


class TwoStepGame(Game):
    info = GameInfo(name="twostep", title="Two steps", params=())

    def new_initial_state(self, seed: int | None = None) -> TwoStepState:
        return TwoStepState(self)

    def state_from_dict(self, d: Mapping[str, Any]) -> TwoStepState:
        st = TwoStepState(self)
        st.steps = list(d["steps"])
        return st

    def num_distinct_actions(self) -> int:
        return 2

    def max_game_length(self) -> int:
        return 2


class TwoStepState(State):
    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.steps: list[int] = []

    def current_player(self) -> int:
        return TERMINAL if len(self.steps) == 2 else 0

    def _legal_actions(self) -> list[Action]:
        return [0, 1]

    def _apply(self, action: Action) -> None:
        self.steps.append(action)

    def action_to_string(self, action: Action) -> str:
        return str(action)

    def string_to_action(self, move: str) -> Action:
        return int(move)

    def is_terminal(self) -> bool:
        return len(self.steps) == 2

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        v = PAYOFF[self.steps[0]][self.steps[1]]
        return [v, -v]

    def evaluate(self, player: int) -> float:
        return self.returns()[player]

    def to_dict(self) -> dict[str, Any]:
        return {"steps": list(self.steps)}

    def _copy_from(self, other: Any) -> None:
        self.steps = list(other.steps)

    def render(self, player: int | None = None) -> dict[str, Any]:
        return {}


@pytest.mark.parametrize("spec", ["alphabeta", "mcts", "mcts(rollout_cutoff=0)"])
@pytest.mark.parametrize("seed", range(5))
def test_same_player_steps_are_one_players_plan(spec: str, seed: int) -> None:
    """docs/rules/README.md: a turn of several steps is played as several moves by the same player; the search
    must plan both steps for him (first step 1, then 1 wins), not assume an opponent picks the second."""
    state = TwoStepGame().new_initial_state()
    a = make_agent(spec).choose(state, iterations=3 if spec == "alphabeta" else 200, rng=seed)
    assert a == 1
    state.apply_action(a)
    assert make_agent(spec).choose(state, iterations=3 if spec == "alphabeta" else 200, rng=seed) == 1
