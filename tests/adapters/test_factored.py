"""The adapters' factored actions: Gymnasium's ``gymnasium.make`` and PettingZoo's ``env`` with
``actions="factored"``.

"Gymnasium ``make_vec`` and the adapters offer both action modes" (issue 38): a move is a short sequence
of decisions (Nume: the cell, then the number; Nymbat: the piece or group, then the destination; the
other games one decision a move), the mask is the current decision's.
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest

import tessera.adapters.gymnasium  # noqa: F401  (registers the ids)
from tessera.adapters.core import FactoredMoves, adapt
from tessera.adapters.pettingzoo import env as aec_env


@pytest.mark.parametrize("spec", ["nume(size=3)", "nymbat(reserve=6,first_limit=3,max_turns=40)", "nibble"])
def test_the_decisions_of_a_move_are_exactly_its_legal_moves(spec: str):
    """Over random games: the first decisions offered are the heads of the legal moves, the second ones
    the tails legal after the chosen head, and the move two decisions make is the legal move they split."""
    game = adapt(spec, deal=3) if spec == "nibble" else adapt(spec)
    moves = FactoredMoves(game)
    f = moves.factoring
    assert (f is None) == (spec == "nibble")
    rng = random.Random(0)
    checked = 0
    for _ in range(3):
        st = game.new_initial_state()
        while not st.is_terminal() and checked < 400:
            legal = st.legal_actions()
            move = rng.choice(legal)
            if f is None:
                assert np.flatnonzero(moves.mask(st)).tolist() == legal
                assert moves.decide(st, move) == move
            else:
                heads = {int(f.head[a]) for a in legal}
                assert set(np.flatnonzero(moves.mask(st)).tolist()) == heads
                played = moves.decide(st, int(f.head[move]))
                if played is None:
                    tails = {int(f.tail[a]) for a in legal if f.head[a] == f.head[move]}
                    assert moves.phase == 1 and set(np.flatnonzero(moves.mask(st)).tolist()) == tails
                    played = moves.decide(st, int(f.tail[move]))
                assert played == move and moves.phase == 0
            st.apply(move)
            checked += 1
    assert checked >= 100


def test_gymnasium_make_plays_factored_decisions_to_the_end_of_games():
    """``gymnasium.make(…, actions="factored")``: the action space is the decisions (Nume: cells, then
    numbers), a first decision returns reward 0 and ``info["phase"] == 1``, games end with ±1 or 0, and
    an illegal decision ends the episode with −1."""
    env = gymnasium.make("tessera/Nume-v0", size=2, actions="factored")
    n_cells = env.unwrapped.game.game.cells
    assert env.action_space.n == n_cells + 2
    rng = np.random.default_rng(0)
    episodes = 0
    _, info = env.reset(seed=0)
    while episodes < 5:
        assert info["action_mask"].shape == (n_cells + 2,)
        phase = info["phase"]
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, done, _, info = env.step(a)
        if phase == 0 and not done:
            assert info["phase"] in (0, 1)
        if done:
            assert reward in (-1.0, 0.0, 1.0) and "illegal_move" not in info
            episodes += 1
            _, info = env.reset()
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(bad)
    assert done and reward == -1.0 and "illegal_move" in info


def test_pettingzoo_keeps_a_player_selected_until_his_factored_move_is_complete():
    """PettingZoo ``env(…, actions="factored")``: the player stays selected between his two decisions and
    the game goes on to its end with the game's returns."""
    e = aec_env("nume(size=2)", actions="factored")
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    finals = []
    for agent in e.agent_iter(max_iter=500):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert "illegal_move" not in info
            finals.append(reward)
            e.step(None)
            continue
        before = agent
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if e.moves.phase == 1:
            assert e.agent_selection == before
        steps += 1
    assert steps > 10 and sorted(finals) in ([-1.0, 1.0], [0.0, 0.0])
