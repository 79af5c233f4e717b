"""The reference rate of the OpenSpiel comparisons: C++ ``MCTSBot`` simulations per CPU second.

OpenSpiel (PyPI ``open-spiel``, the ``bench`` extra) runs its C++ ``MCTSBot``
with a ``RandomRolloutEvaluator`` doing one random rollout to the end of the game
per simulation, UCT c = 1.4, on ``hex(board_size=11)`` (121 cells) from the
initial position: one ``bot.step`` call, entirely in C++.  Timed on this
process's CPU time (``time.process_time``).  Used by ``nume_vs_openspiel.py``
and ``mcts_vs_openspiel.py``.
"""

from __future__ import annotations

import time


def openspiel_mcts_rate(seconds: float, board_size: int = 11) -> float:
    """C++ MCTSBot(1 random rollout) simulations per CPU second on hex, one search of about ``seconds``."""
    import pyspiel

    game = pyspiel.load_game("hex", {"board_size": board_size})
    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    sims = 200
    while True:
        bot = pyspiel.MCTSBot(game, evaluator, 1.4, sims, 1000, False, 0, False)
        state = game.new_initial_state()
        t0 = time.process_time()
        bot.step(state)
        dt = time.process_time() - t0
        if dt >= seconds * 0.8 or sims > 10**7:
            return sims / dt
        sims = int(sims * min(10.0, max(2.0, seconds / max(dt, 1e-3))))


def have_openspiel() -> bool:
    """Whether ``pyspiel`` can be imported."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True
