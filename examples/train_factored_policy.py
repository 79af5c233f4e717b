"""Train a small policy on factored actions: Nume (size 3), the cell and then the number, NumPy only.

A Nume move is ``cells × (cells + 2)`` wide when flat (1,444 actions at size 3); factored
(``actions="factored"``) it is two decisions of at most ``cells + 2`` choices each: first the cell,
then the number written there (0: the joining stone).  The policy is one two-layer network
(the ``uint8`` planes scaled back by ``obs_scale``, the first decision one-hot and the phase → 64
tanh units → ``cells + 2`` logits, masked by the current decision's mask), trained by REINFORCE
with a baseline against the random opponent in ``gymnasium.make_vec("tessera/Nume-v0",
actions="factored", obs_dtype="uint8")``, half the games in each seat; both decisions of a move
share its game's reward.  Every ``--eval-every`` updates it plays random decisions in the vector
engine (``tessera.vector.make(..., actions="factored")``) and prints its win rate.

Run: ``python examples/train_factored_policy.py --updates 60``
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import tessera.adapters.gymnasium  # noqa: F401  (registers tessera/Nume-v0 and its vector env)
from tessera.core.kernels import rng_state
from tessera.vector import make, random_legal

GAME = "nume(size=3)"


class Policy:
    """``logits = tanh(x·W1 + b1)·W2 + b2``, with Adam; ``x`` = planes, one-hot first decision, phase."""

    def __init__(self, n_in: int, n_out: int, hidden: int, rng: np.random.Generator) -> None:
        self.params = [
            rng.normal(0, 1 / np.sqrt(n_in), (n_in, hidden)).astype(np.float32),
            np.zeros(hidden, np.float32),
            np.zeros((hidden, n_out), np.float32),
            np.zeros(n_out, np.float32),
        ]
        self.moments = [(np.zeros_like(q), np.zeros_like(q)) for q in self.params]
        self.t = 0

    def forward(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w1, b1, w2, b2 = self.params
        h = np.tanh(x @ w1 + b1)
        logits = np.where(mask, h @ w2 + b2, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return h, p / p.sum(axis=1, keepdims=True)

    def update(self, x: np.ndarray, mask: np.ndarray, actions: np.ndarray, adv: np.ndarray, lr: float) -> None:
        """One Adam step on ``−mean(adv · log p(decision))``."""
        h, g = self.forward(x, mask)
        g[np.arange(len(actions)), actions] -= 1.0
        g *= (adv / len(actions))[:, None]
        dh = (g @ self.params[2].T) * (1.0 - h * h)
        grads = [x.T @ dh, dh.sum(0), h.T @ g, g.sum(0)]
        self.t += 1
        for q, d, (m, v) in zip(self.params, grads, self.moments, strict=True):
            m *= 0.9
            m += 0.1 * d
            v *= 0.999
            v += 0.001 * d * d
            q -= lr * (m / (1 - 0.9**self.t)) / (np.sqrt(v / (1 - 0.999**self.t)) + 1e-8)


def features(obs: np.ndarray, scale: np.ndarray, phase: np.ndarray, decided: np.ndarray, heads: int) -> np.ndarray:
    """The network's input: the planes (``uint8`` · ``obs_scale``), the first decision one-hot, the phase."""
    b = obs.shape[0]
    planes = (obs.astype(np.float32) * scale[None, :, None, None]).reshape(b, -1)
    first = np.zeros((b, heads), np.float32)
    rows = np.flatnonzero(decided >= 0)
    first[rows, decided[rows]] = 1.0
    return np.concatenate([planes, first, phase[:, None].astype(np.float32)], axis=1)


def sample(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One decision per row of positive probability."""
    c = p.cumsum(axis=1)
    u = (1.0 - rng.random((p.shape[0], 1))) * c[:, -1:]
    return (c < u).sum(axis=1)


def win_rate_vs_random(policy: Policy, games: int, seed: int) -> float:
    """Win rate (draws half) against random decisions, both seats, in the factored vector engine."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for seat in (0, 1):
        env = make(GAME, batch=games // 2, seed=seed + seat, actions="factored")
        assert env.factoring is not None
        heads = env.factoring.flat.shape[0]
        bt = env.reset()
        rs = rng_state(seed + 10 + seat)
        opp = np.empty(env.batch, np.int64)
        done = np.zeros(env.batch, np.bool_)
        score = np.zeros(env.batch)
        while not done.all():
            _, p = policy.forward(features(bt.obs, env.obs_scale, bt.phase, bt.decided, heads), bt.mask)
            random_legal(bt.mask, rs, opp)
            acts = np.where(bt.player == seat, sample(p, rng), opp)
            acts[done] = -1  # a finished slot waits
            env._step_some(acts)
            new = bt.terminated & ~done
            score[new] = (bt.rewards[new, seat] + 1) / 2
            done |= bt.terminated
        total += float(score.sum())
    return float(total / (2 * (games // 2)))


def train(
    updates: int = 60,
    batch: int = 64,
    steps: int = 80,
    lr: float = 0.003,
    eval_every: int = 20,
    eval_games: int = 200,
    seed: int = 0,
    log: bool = True,
) -> dict[str, list[float]]:
    """Train; return the learning curve (``update``, ``random``: win rate, ``cpu_seconds``)."""
    rng = np.random.default_rng(seed)
    envs = [
        gymnasium.make_vec(
            "tessera/Nume-v0", num_envs=batch, size=3, seat=s, seed=seed + s, actions="factored", obs_dtype="uint8"
        )
        for s in (0, 1)
    ]
    engine = envs[0].unwrapped.engine
    assert engine.factoring is not None
    heads, width = engine.factoring.flat.shape[0], engine.num_actions
    scale = engine.obs_scale
    state = [e.reset(seed=seed + s) for s, e in enumerate(envs)]
    policy = Policy(int(np.prod(engine.observation_shape)) + heads + 1, width, 64, rng)
    curve: dict[str, list[float]] = {"update": [], "random": [], "cpu_seconds": []}
    t0 = time.process_time()
    for u in range(updates + 1):
        if u % eval_every == 0 or u == updates:
            curve["update"].append(u)
            curve["random"].append(win_rate_vs_random(policy, eval_games, seed=1000 + u))
            curve["cpu_seconds"].append(time.process_time() - t0)
            if log:
                rate, cpu = curve["random"][-1], curve["cpu_seconds"][-1]
                print(f"update {u:4d}  win rate vs random {rate:.2f}  ({cpu:.0f} CPU s)")
        if u == updates:
            break
        xs, ms, acts, rets = [], [], [], []
        for k, env in enumerate(envs):
            obs, info = state[k]
            pending: list[list[int]] = [[] for _ in range(batch)]
            ep_x: list[np.ndarray] = []
            ep_m: list[np.ndarray] = []
            ep_a: list[np.ndarray] = []
            got: list[tuple[int, float]] = []
            for _ in range(steps):
                x = features(obs, scale, info["phase"], info["decided"], heads)
                _, p = policy.forward(x, info["action_mask"])
                a = sample(p, rng)
                base = len(ep_a) * batch
                ep_x.append(x)
                ep_m.append(info["action_mask"])
                ep_a.append(a)
                for i in range(batch):
                    pending[i].append(base + i)
                obs, reward, term, _, info = env.step(a)
                for i in np.flatnonzero(term):
                    got += [(j, float(reward[i])) for j in pending[i]]
                    pending[i] = []
            state[k] = (obs, info)
            if got:
                idx = np.array([j for j, _ in got])
                xs.append(np.concatenate(ep_x)[idx])
                ms.append(np.concatenate(ep_m)[idx])
                acts.append(np.concatenate(ep_a)[idx])
                rets.append(np.array([r for _, r in got], np.float32))
        ret = np.concatenate(rets)
        policy.update(np.concatenate(xs), np.concatenate(ms), np.concatenate(acts), ret - ret.mean(), lr)
    return curve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--updates", type=int, default=60)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=80, help="decisions per game and update")
    ap.add_argument("--eval-every", type=int, default=20)
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    train(args.updates, args.batch, args.steps, eval_every=args.eval_every, eval_games=args.eval_games, seed=args.seed)


if __name__ == "__main__":
    main()
