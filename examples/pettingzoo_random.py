"""PettingZoo quick start: masked random play in the AEC env and in Nelaxtam's parallel env.

Run: ``python examples/pettingzoo_random.py``
"""

from __future__ import annotations

import numpy as np

from tessera.adapters.pettingzoo import env, parallel_env


def main() -> None:
    rng = np.random.default_rng(0)
    aec = env("nume(size=4)")
    aec.reset(seed=0)
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            print(agent, "final reward", reward)
            aec.step(None)
            continue
        aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    par = parallel_env("nelaxtam(size=8,variant=quiet)")
    observations, _ = par.reset(seed=0)
    turns = 0
    while par.agents:
        actions = {
            agent: par.action_space(agent).sample(mask=observations[agent]["action_mask"]) for agent in par.agents
        }
        observations, rewards, _, _, _ = par.step(actions)
        turns += 1
    print(f"nelaxtam (parallel): {turns} steps (decision rounds), rewards {rewards}")


if __name__ == "__main__":
    main()
