"""OpenSpiel quick start: load a tessera game, play it at random, then let OpenSpiel's MCTS play it.

Run: ``python examples/openspiel_quickstart.py``
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import tessera.adapters.openspiel  # noqa: F401  (registers tessera_nume, tessera_ikabegama, …)


def random_game(name: str, seed: int = 0) -> pyspiel.State:
    """One random game of ``name`` (chance outcomes sampled from their probabilities)."""
    rng = np.random.default_rng(seed)
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def main() -> None:
    for name in ("tessera_nume(size=3)", "tessera_nibble", "tessera_ikabegama(distance=4)"):
        state = random_game(name)
        print(f"{name}: random game over after {len(state.history())} actions, returns {state.returns()}")
    game = pyspiel.load_game("tessera_nume(size=3)")
    print("observation tensor shape", game.observation_tensor_shape())
    rs = np.random.RandomState(0)
    bots = [mcts.MCTSBot(game, 2.0, 50, mcts.RandomRolloutEvaluator(1, rs), random_state=rs) for _ in range(2)]
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    print(state)
    print("MCTS vs MCTS:", state.returns())


if __name__ == "__main__":
    main()
