"""Training data that plays games with agents: the self-play and search labels of the learned values.

These live apart from the values themselves (:mod:`tessera.agents.learned.nibble`,
:mod:`tessera.agents.learned.nymbat`) because they use the agents that use the values:
the agent specs (:func:`~tessera.agents.spec.make_agent`) and the learned search
(:class:`~tessera.agents.learned.agent.LearnedMCTSAgent`); kept here, no import returns to
a module it left.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from tessera.agents.learned import nibble as nb
from tessera.agents.learned import nymbat as ny
from tessera.agents.learned.agent import LearnedMCTSAgent
from tessera.agents.learned.model import Weights
from tessera.agents.spec import make_agent

# -- Nibble: positions at ``reach`` blocks labelled by a search over the stage below -----------------


def nibble_search_dataset(
    game: Any,
    count: int,
    rng: random.Random,
    leaf: nb.NibbleLeaf,
    reach: int,
    iterations: int = 300,
    guided: int = 30,
    guide_iterations: int = 50,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """``count`` positions of ``reach`` blocks (:func:`~tessera.agents.learned.nibble.sample_position`)
    labelled by a search's value: player 0's value of the best root step of UCT (c = 0.7) at
    ``iterations`` simulations whose leaves are scored by ``leaf`` (the stages below ``reach``) — the value
    one stage up is learned from the search over the stage below (positions with a single legal step are
    skipped)."""
    xs: list[np.ndarray] = []
    ys: list[float] = []
    rollout_sq = 0.0
    while len(ys) < count:
        st = nb.sample_position(game, rng, reach, guided, guide_iterations)
        if st is None or len(st.legal_actions()) < 2:
            continue
        agent = LearnedMCTSAgent(nb.GAME, _placeholder_weights(), seed=rng.randrange(2**31), reuse=False)
        agent.leaf = leaf
        agent.choose(st, iterations=iterations)
        v = float(agent.stats["value"])
        y0 = v if st.current_player() == 0 else -v
        xs.append(nb.features(st))
        ys.append(y0)
        rollout_sq += (st.rollouts(1, rng.randrange(2**62)).totals[0] - y0) ** 2
    info = {"positions": len(ys), "iterations": iterations, "reach": reach, "rollout_mse": rollout_sq / len(ys)}
    return np.array(xs), np.array(ys), info


def _placeholder_weights() -> Any:
    """Placeholder weights for an agent whose leaf is set by hand (:func:`nibble_search_dataset`)."""
    w = np.zeros(len(nb.NIBBLE_FEATURES))
    w[0] = 1.0
    return Weights(nb.GAME, w)


# -- Nymbat: self-play games of a cheap player ---------------------------------------------------------


def _seeded(spec: str, seed: int) -> str:
    """``spec`` with ``seed=seed`` added to its options."""
    return f"{spec[:-1]},seed={seed})" if spec.endswith(")") else f"{spec}(seed={seed})"


def nymbat_self_play(
    game: Any, rng: random.Random, spec: str, opening: int, iterations: int | None
) -> tuple[list[Any], Any]:
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


def nymbat_dataset(
    game: Any,
    games: int,
    rng: random.Random,
    spec: str = "greedy(noise=0.1)",
    opening: int = 20,
    per_game: int = 12,
    iterations: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """``per_game`` positions of each of ``games`` self-play games (:func:`nymbat_self_play`), their features for the
    player to move and his result (+1/−1/0); also each position's game index (to split by game)."""
    xs: list[np.ndarray] = []
    ys: list[float] = []
    gid: list[int] = []
    steps = 0
    for g in range(games):
        seen, end = nymbat_self_play(game, rng, spec, opening, iterations)
        steps += len(seen)
        ret = end.returns()
        picks = rng.sample(range(len(seen)), min(per_game, len(seen)))
        for i in picks:
            st = seen[i]
            p = st.current_player()
            xs.append(ny.features(st, p))
            ys.append(float(ret[p]))
            gid.append(g)
    info = {"games": games, "positions": len(ys), "steps": steps, "spec": spec, "opening": opening}
    return np.array(xs), np.array(ys), np.array(gid), info


__all__ = ["nibble_search_dataset", "nymbat_dataset", "nymbat_self_play"]
