"""The generic vector engine (:class:`tessera.core.kits.stepper.ContractVector`): one batched loop on a
game's kernel contract plays the same games as the game's own engine, step for step.

docs/engine.md: "one generic batched stepping loop that calls the game's verbs"; a game keeps its
own engine only where a benchmark shows the generic one costs more (the figure at the top of its
``vector.py``), so each such game is checked here against it: the same observations, masks,
players, rewards and ends at every step, from the same seed and the same actions.  A game played
by the generic engine itself (the plugin example) is checked against the adapters by ``test_agreement.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tessera.core.kernels import rng_state
from tessera.core.kits.stepper import ContractVector
from tessera.vector import make, random_legal

CASES = [
    ("nume(size=2)", 16, 300),
    ("nume(size=3,komi=2,komi_to=white)", 8, 200),
    ("nibble", 16, 300),
    ("ikabegama(distance=2,max_plies=40)", 16, 300),
    ("nelaxtam(size=8,variant=quiet,max_idle_turns=3)", 8, 300),
    ("nelaxtam(size=10,troops=3,by_sea=2,max_idle_turns=2)", 8, 300),
    ("nymbat", 16, 300),
    ("nymbat(players=4,max_turns=40)", 16, 300),
]

NIM_SOURCE = Path(__file__).resolve().parents[2] / "examples" / "tessera-nim"


@pytest.mark.parametrize(("spec", "batch", "steps"), CASES)
def test_the_generic_engine_plays_the_games_own_engine_step_for_step(spec: str, batch: int, steps: int) -> None:
    """ "the vector engine built generically on the contract": from the same seed and the same random
    legal actions, the generic loop's batches equal the game's own engine's at every step."""
    own = make(spec, batch=batch, seed=3)
    assert not isinstance(own, ContractVector), f"{spec} is played by the generic engine: test_agreement covers it"
    gen = ContractVector(own.adapted, batch, 3)
    a, b = own.reset(), gen.reset()
    rs = rng_state(9)
    ended = 0
    for _ in range(steps):
        for name in ("obs", "mask", "player", "rewards", "terminated", "truncated"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        acts = random_legal(a.mask, rs)
        a, b = own.step(acts), gen.step(acts.copy())
        ended += int(a.terminated.sum())
    assert ended > 0, "no game ended: the comparison never crossed a reset"


def test_a_plugin_game_gets_a_vector_engine_from_its_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin example (Nim) declares only its contract: ``tessera.vector.make`` plays it with the
    generic engine, and its games agree with the adapters' (who wins, on which step)."""
    monkeypatch.syspath_prepend(str(NIM_SOURCE))
    from tessera_nim.game import NimGame

    from tessera.adapters.core import adapt

    game = NimGame(stones=7, take=3)
    env = make(game, batch=4, seed=0)
    assert isinstance(env, ContractVector)
    bt = env.reset()
    ad = adapt(game)
    states = [ad.new_initial_state() for _ in range(4)]
    rs = rng_state(1)
    ended = 0
    for _ in range(60):
        for k, st in enumerate(states):
            assert bt.player[k] == st.current_player()
            assert np.flatnonzero(bt.mask[k]).tolist() == st.legal_actions()
            np.testing.assert_array_equal(bt.obs[k], st.observation(int(bt.player[k])))
        acts = random_legal(bt.mask, rs)
        bt = env.step(acts)
        for k, st in enumerate(states):
            st.apply(int(acts[k]))
            if st.is_terminal():
                assert bt.terminated[k] and bt.rewards[k].tolist() == st.returns()
                states[k] = ad.new_initial_state()
                ended += 1
            else:
                assert not bt.terminated[k]
    assert ended > 10
