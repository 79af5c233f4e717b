"""The per-step API (``legal_actions``/``apply_action``/``clone``/``is_terminal``/``returns``/
``current_player``) plays the same games as the move strings (``legal_moves``/``play``).

The loop a search or training program writes, ``s.apply_action(rng.choice(s.legal_actions()))``
until the end, is run beside a twin that plays the same moves as strings; at every step both
must list the same moves, name the same player, and reach the same position and result.
"""

from __future__ import annotations

import random

import pytest

import tessera
from tessera import TERMINAL

SEQUENTIAL = ["nume", "nume(size=6)", "nibble", "ikabegama", "nymbat", "nymbat(players=4)"]


@pytest.mark.parametrize("spec", SEQUENTIAL)
@pytest.mark.parametrize("seed", range(3))
def test_per_step_loop_agrees_with_legal_moves_and_play(spec: str, seed: int) -> None:
    """docs/python-api.md: integer actions, "with action_to_string(a) equal to the move string that play takes"."""
    game = tessera.load_game(spec)
    rng = random.Random(seed)
    fast, twin = game.new_initial_state(seed=seed), game.new_initial_state(seed=seed)
    steps = 0
    while not fast.is_terminal():
        assert not twin.is_terminal()
        assert fast.current_player() == twin.current_player() >= 0
        actions = fast.legal_actions()
        assert sorted(fast.action_to_string(a) for a in actions) == twin.legal_moves()
        a = rng.choice(actions)
        before = fast.clone()
        fast.apply_action(a)
        twin.play(before.action_to_string(a))
        # the clone taken before the step is untouched by it and replays it alike
        before.apply_action(a)
        assert before.to_dict() == fast.to_dict() == twin.to_dict()
        assert fast.returns() == twin.returns()
        steps += 1
        assert steps <= game.max_game_length()
    assert twin.is_terminal()
    assert fast.current_player() == twin.current_player() == TERMINAL
    assert fast.legal_actions() == [] and twin.legal_moves() == []
    assert fast.returns() == twin.returns()
    assert fast.history() == twin.history()
