"""Training data that plays games with agents: the self-play and search labels of the learned values.

These live apart from the values themselves (each game's ``learned.py``, reached through its kit,
:meth:`tessera.core.game.Game.learned`) because they use the agents that use the values: the agent
specs (:func:`~tessera.agents.spec.make_agent`) and the learned search
(:class:`~tessera.agents.learned.agent.LearnedMCTSAgent`); kept here, no import returns to a module
it left, and nothing here names a game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from tessera.agents.learned.agent import LearnedMCTSAgent
from tessera.agents.learned.model import hand_weights, kit
from tessera.agents.mcts import MCTSAgent
from tessera.agents.spec import make_agent
from tessera.core.kits.learned import Leaf


def mcts_guide(iterations: int) -> Callable[[int], Callable[[Any], int]]:
    """``guide(seed)``: the chooser of a position sampler's guided steps, UCT with random games to the end
    (c = 0.7) at ``iterations`` simulations a step, one agent per sampled position."""

    def guide(seed: int) -> Callable[[Any], int]:
        agent = MCTSAgent(c=0.7, rollout_cutoff=-1, seed=seed)
        return lambda state: agent.choose(state, iterations=iterations)

    return guide


def sample_position(game: Any, rng: random.Random, reach: int, guided: int, iterations: int) -> Any:
    """A position as the leaves of ``game``'s search meet it (its kit's ``sample_at``), the guided steps
    chosen by UCT at ``iterations`` simulations (:func:`mcts_guide`); ValueError when the game's kit
    samples no positions."""
    sample_at = kit(game.name).sample_at
    if sample_at is None:
        raise ValueError(f"{game.name}: its learned evaluation is not trained from sampled leaf positions")
    return sample_at(game, rng, reach, guided, mcts_guide(iterations))


# -- positions at ``reach`` labelled by a search over the stage below (a game with a leaf) -----------


def search_dataset(
    game: Any,
    count: int,
    rng: random.Random,
    leaf: Leaf,
    reach: int,
    iterations: int = 300,
    guided: int = 30,
    guide_iterations: int = 50,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``count`` positions of ``reach`` (:func:`sample_position`) labelled by a search's value: player 0's
    value of the best root step of UCT (c = 0.7) at ``iterations`` simulations whose leaves are scored by
    ``leaf`` (the stages below ``reach``) — the value one stage up is learned from the search over the
    stage below (positions with a single legal step are skipped)."""
    declared = kit(game.name)
    xs: list[np.ndarray] = []
    ys: list[float] = []
    rollout_sq = 0.0
    while len(ys) < count:
        st = sample_position(game, rng, reach, guided, guide_iterations)
        if st is None or len(st.legal_actions()) < 2:
            continue
        agent = LearnedMCTSAgent(game.name, hand_weights(game.name), seed=rng.randrange(2**31), reuse=False)
        agent.leaf = leaf
        agent.choose(st, iterations=iterations)
        v = float(agent.stats["value"])
        y0 = v if st.current_player() == 0 else -v
        xs.append(declared.features_of(st, 0))
        ys.append(y0)
        rollout_sq += (st.rollouts(1, rng.randrange(2**62)).totals[0] - y0) ** 2
    info = {"positions": len(ys), "iterations": iterations, "reach": reach, "rollout_mse": rollout_sq / len(ys)}
    return np.array(xs), np.array(ys), info


# -- self-play games of a cheap player -----------------------------------------------------------------


def _seeded(spec: str, seed: int) -> str:
    """``spec`` with ``seed=seed`` added to its options."""
    return f"{spec[:-1]},seed={seed})" if spec.endswith(")") else f"{spec}(seed={seed})"


def self_play(game: Any, rng: random.Random, spec: str, opening: int, iterations: int | None) -> tuple[list[Any], Any]:
    """One self-play game: ``opening`` uniformly random steps, then ``spec`` for both sides (``iterations`` per
    step, ``None``: the agent's own budget); the positions met after the opening and the final state."""
    state = game.new_initial_state(seed=rng.randrange(2**31))
    agents = [make_agent(_seeded(spec, rng.randrange(2**31))) for _ in range(game.num_players)]
    for _ in range(opening):
        if state.is_terminal():
            break
        state.apply_legal(state.random_action(rng))
    seen: list[Any] = []
    while not state.is_terminal():
        seen.append(state.clone())
        p = state.current_player()
        state.apply_legal(agents[p].choose(state, iterations=iterations))
    return seen, state


def self_play_dataset(
    game: Any,
    games: int,
    rng: random.Random,
    spec: str = "greedy(noise=0.1)",
    opening: int = 20,
    per_game: int = 12,
    iterations: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """``per_game`` positions of each of ``games`` self-play games (:func:`self_play`), their features for the
    player to move and his result (+1/−1/0); also each position's game index (to split by game)."""
    declared = kit(game.name)
    xs: list[np.ndarray] = []
    ys: list[float] = []
    gid: list[int] = []
    steps = 0
    for g in range(games):
        seen, end = self_play(game, rng, spec, opening, iterations)
        steps += len(seen)
        ret = end.returns()
        picks = rng.sample(range(len(seen)), min(per_game, len(seen)))
        for i in picks:
            st = seen[i]
            p = st.current_player()
            xs.append(declared.features_of(st, p))
            ys.append(float(ret[p]))
            gid.append(g)
    info = {"games": games, "positions": len(ys), "steps": steps, "spec": spec, "opening": opening}
    return np.array(xs), np.array(ys), np.array(gid), info


__all__ = ["mcts_guide", "sample_position", "search_dataset", "self_play", "self_play_dataset"]
