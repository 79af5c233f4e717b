"""Train a tiny masked policy for a few seconds (Gymnasium, REINFORCE, NumPy only).

A linear softmax policy over the observation planes plays ``tessera/Nume-v0``
(size 3) against the random opponent; illegal actions are masked out with
``info["action_mask"]``.  It prints the win rate before and after training.

Run: ``python examples/train_masked_agent.py [seconds]``
"""

from __future__ import annotations

import sys
import time

import gymnasium
import numpy as np

import tessera.adapters.gymnasium  # noqa: F401  (registers tessera/Nume-v0, …)


def policy(weights: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Action probabilities: softmax of ``obs · W`` over the legal actions only."""
    logits = obs.reshape(-1) @ weights
    logits = np.where(mask.astype(bool), logits, -np.inf)
    logits -= logits.max()
    p = np.exp(logits)
    return p / p.sum()


def episode(env: gymnasium.Env, weights: np.ndarray, rng: np.random.Generator, seed: int) -> tuple[list, float]:
    """One game; returns ``[(obs, mask, action), …]`` and the final reward."""
    obs, info = env.reset(seed=seed)
    steps, done, reward = [], False, 0.0
    while not done:
        mask = info["action_mask"]
        a = int(rng.choice(len(mask), p=policy(weights, obs, mask)))
        steps.append((obs, mask, a))
        obs, reward, done, _, info = env.step(a)
    return steps, float(reward)


def win_rate(env: gymnasium.Env, weights: np.ndarray, games: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    return float(np.mean([episode(env, weights, rng, seed + i)[1] > 0 for i in range(games)]))


def main(seconds: float = 5.0, eval_games: int = 40) -> None:
    env = gymnasium.make("tessera/Nume-v0", size=3, opponent="random", seat="random")
    n_obs = int(np.prod(env.observation_space.shape))
    weights = np.zeros((n_obs, env.action_space.n))
    print(f"before: win rate {win_rate(env, weights, eval_games, 10_000):.2f} against random")
    rng = np.random.default_rng(0)
    lr, baseline, games = 0.05, 0.0, 0
    end = time.process_time() + seconds
    while time.process_time() < end:
        steps, reward = episode(env, weights, rng, games)
        baseline += 0.05 * (reward - baseline)
        for obs, mask, a in steps:  # REINFORCE: grad log pi(a) = x (onehot(a) - pi)
            x = obs.reshape(-1)
            grad = -policy(weights, obs, mask)
            grad[a] += 1.0
            weights += lr * (reward - baseline) * np.outer(x, grad)
        games += 1
    print(f"trained on {games} games in {seconds:g} s of CPU")
    print(f"after:  win rate {win_rate(env, weights, eval_games, 10_000):.2f} against random")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
