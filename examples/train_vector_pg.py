"""Train a small policy-gradient agent on Nume (size 3) from the vector engine, NumPy only.

The agent is a two-layer network (the observation planes → 64 tanh units → one logit per
action, illegal actions masked out) trained by REINFORCE with a baseline against the random
opponent, in ``gymnasium.make_vec("tessera/Nume-v0", num_envs=B)`` — the Gymnasium vector env
on :mod:`tessera.vector` — half the games in each seat.  Every ``--eval-every`` updates it
plays the ``random`` agent (in the vector engine) and the ``greedy`` agent (one-step lookahead,
tessera's ``State`` API) with actions sampled from it, and writes the learning curve (win rate
against both over training) as a PNG.

Run: ``python examples/train_vector_pg.py --updates 150 --png studies/benchmarks/vector/train_vector_pg.png``
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import gymnasium
import numpy as np

import tessera.adapters.gymnasium  # noqa: F401  (registers tessera/Nume-v0 and its vector env)
from tessera.adapters.core import adapt
from tessera.agents import make_agent
from tessera.core.kernels import rng_state
from tessera.vector import make, random_legal

GAME = "nume(size=3)"


@dataclass
class Policy:
    """``logits = tanh(x·W1 + b1)·W2 + b2`` over the flattened planes ``x``; Adam state alongside."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    moments: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    t: int = 0

    @classmethod
    def new(cls, n_in: int, n_actions: int, hidden: int, rng: np.random.Generator) -> Policy:
        return cls(
            rng.normal(0, 1 / np.sqrt(n_in), (n_in, hidden)).astype(np.float32),
            np.zeros(hidden, np.float32),
            np.zeros((hidden, n_actions), np.float32),
            np.zeros(n_actions, np.float32),
        )

    def params(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.w2, self.b2]

    def forward(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hidden units and action probabilities (0 on illegal actions)."""
        h = np.tanh(x @ self.w1 + self.b1)
        logits = h @ self.w2 + self.b2
        logits = np.where(mask, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        return h, p

    def update(self, x: np.ndarray, mask: np.ndarray, actions: np.ndarray, adv: np.ndarray, lr: float) -> None:
        """One Adam step on ``−mean(adv · log p(action))``."""
        h, p = self.forward(x, mask)
        g = p
        g[np.arange(len(actions)), actions] -= 1.0
        g *= (adv / len(actions))[:, None]  # d loss / d logits
        dh = (g @ self.w2.T) * (1.0 - h * h)
        grads = [x.T @ dh, dh.sum(0), h.T @ g, g.sum(0)]
        if not self.moments:
            self.moments = [(np.zeros_like(q), np.zeros_like(q)) for q in self.params()]
        self.t += 1
        for q, d, (m, v) in zip(self.params(), grads, self.moments, strict=True):
            m *= 0.9
            m += 0.1 * d
            v *= 0.999
            v += 0.001 * d * d
            q -= lr * (m / (1 - 0.9**self.t)) / (np.sqrt(v / (1 - 0.999**self.t)) + 1e-8)


def sample(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of the probabilities ``p`` (only actions of positive probability: ``u`` is in
    ``(0, total]``, so the first cumulative sum reaching it belongs to such an action)."""
    c = p.cumsum(axis=1)
    u = (1.0 - rng.random((p.shape[0], 1))) * c[:, -1:]
    return (c < u).sum(axis=1)


def collect(envs: list, obs: list, masks: list, policy: Policy, steps: int, rng: np.random.Generator):
    """``steps`` decisions in every game of every env; the decisions of the games that ended,
    each with its game's final reward (unfinished games are dropped)."""
    xs, ms, acts, rets = [], [], [], []
    for k, env in enumerate(envs):
        b = env.num_envs
        pending: list[list[int]] = [[] for _ in range(b)]
        ep_x, ep_m, ep_a = [], [], []
        got: list[tuple[int, float]] = []
        for _ in range(steps):
            x = obs[k].reshape(b, -1)
            _, p = policy.forward(x, masks[k])
            a = sample(p, rng)
            base = len(ep_a) * b
            ep_x.append(x)
            ep_m.append(masks[k])
            ep_a.append(a)
            for i in range(b):
                pending[i].append(base + i)
            obs[k], reward, term, _, info = env.step(a)
            masks[k] = info["action_mask"]
            for i in np.flatnonzero(term):
                got += [(j, float(reward[i])) for j in pending[i]]
                pending[i] = []
        if got:
            idx = np.array([j for j, _ in got])
            xs.append(np.concatenate(ep_x)[idx])
            ms.append(np.concatenate(ep_m)[idx])
            acts.append(np.concatenate(ep_a)[idx])
            rets.append(np.array([r for _, r in got], np.float32))
    return np.concatenate(xs), np.concatenate(ms), np.concatenate(acts), np.concatenate(rets)


def win_rate_vs_random(policy: Policy, games: int, seed: int) -> float:
    """Win rate (draws half) of the policy (actions sampled from it) against random moves, both seats."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for seat in (0, 1):
        env = make(GAME, batch=games // 2, seed=seed + seat, obs_dtype="float32")  # the planes it trained on
        bt = env.reset()
        rs = rng_state(seed + 10 + seat)
        opp = np.empty(env.batch, np.int64)
        done = np.zeros(env.batch, np.bool_)
        score = np.zeros(env.batch)
        while not done.all():
            _, p = policy.forward(bt.obs.reshape(env.batch, -1), bt.mask)
            mine = sample(p, rng)
            random_legal(bt.mask, rs, opp)
            acts = np.where(bt.player == seat, mine, opp)
            acts[done] = -1  # a finished slot waits
            env._step_some(acts)
            new = bt.terminated & ~done
            score[new] = (bt.rewards[new, seat] + 1) / 2
            done |= bt.terminated
        total += score.sum()
    return float(total / (2 * (games // 2)))


def win_rate_vs_greedy(policy: Policy, games: int, seed: int) -> float:
    """Win rate (draws half) of the policy (actions sampled from it) against tessera's ``greedy`` agent
    through the adapters' State API, both seats."""
    ad = adapt(GAME)
    greedy = make_agent("greedy", game="nume")
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    score = 0.0
    for g in range(games):
        seat = g % 2
        st = ad.new_initial_state()
        while not st.is_terminal():
            cp = st.current_player()
            if cp == seat:
                x = st.observation(cp).reshape(1, -1)
                _, p = policy.forward(x, st.legal_mask().astype(bool)[None])
                st.apply(int(sample(p, nrng)[0]))
            else:
                assert st.state is not None
                st.apply(ad.from_tessera(greedy.choose(st.state, rng=rng)))
        score += (st.returns()[seat] + 1) / 2
    return score / games


def train(
    updates: int = 150,
    batch: int = 64,
    steps: int = 40,
    lr: float = 0.003,
    eval_every: int = 25,
    eval_games: int = 200,
    greedy_games: int = 40,
    seed: int = 0,
    log: bool = True,
    png: Path | None = None,
) -> dict[str, list[float]]:
    """Train and return the learning curve (written with :func:`plot` to ``png`` after every evaluation)."""
    rng = np.random.default_rng(seed)
    envs = [gymnasium.make_vec("tessera/Nume-v0", num_envs=batch, size=3, seat=s, seed=seed + s) for s in (0, 1)]
    first = [e.reset(seed=seed + s) for s, e in enumerate(envs)]
    obs = [o for o, _ in first]
    masks = [i["action_mask"] for _, i in first]
    shape = envs[0].single_observation_space.shape
    policy = Policy.new(int(np.prod(shape)), int(envs[0].single_action_space.n), 64, rng)
    curve: dict[str, list[float]] = {"update": [], "random": [], "greedy": [], "cpu_seconds": []}
    t0 = time.process_time()
    for u in range(updates + 1):
        if u % eval_every == 0:
            curve["update"].append(u)
            curve["random"].append(win_rate_vs_random(policy, eval_games, seed=1000 + u))
            curve["greedy"].append(win_rate_vs_greedy(policy, greedy_games, seed=2000 + u) if greedy_games else 0.0)
            curve["cpu_seconds"].append(time.process_time() - t0)
            if log:
                print(
                    f"update {u:4d}  win rate vs random {curve['random'][-1]:.2f}  vs greedy {curve['greedy'][-1]:.2f}"
                    f"  ({curve['cpu_seconds'][-1]:.0f} CPU s)",
                    flush=True,
                )
            if png is not None:
                plot(curve, png)
                png.with_suffix(".json").write_text(json.dumps(curve, indent=1))
        if u == updates:
            break
        x, m, a, ret = collect(envs, obs, masks, policy, steps, rng)
        policy.update(x, m, a, ret - ret.mean(), lr)
    return curve


def plot(curve: dict[str, list[float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(curve["update"], curve["random"], marker="o", label="against random")
    ax.plot(curve["update"], curve["greedy"], marker="s", label="against greedy")
    ax.axhline(0.5, color="grey", linestyle=":")
    ax.set_ylim(0, 1)
    ax.set_xlabel("policy-gradient updates")
    ax.set_ylabel("win rate (draws count half)")
    ax.set_title(f"REINFORCE on Nume size 3 from the vector engine ({curve['cpu_seconds'][-1]:.0f} CPU s)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--updates", type=int, default=150)
    ap.add_argument("--batch", type=int, default=64, help="games per seat")
    ap.add_argument("--steps", type=int, default=40, help="decisions per game and update")
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--eval-every", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--png", type=Path, default=Path("train_vector_pg.png"))
    args = ap.parse_args()
    train(args.updates, args.batch, args.steps, args.lr, args.eval_every, seed=args.seed, png=args.png)
    print(f"learning curve: {args.png}")


if __name__ == "__main__":
    main()
