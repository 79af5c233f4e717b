"""Restricted armies (agent option ``army=``): the agent brings in only the given numbers."""

from __future__ import annotations

import random
import re

import pytest

import tessera
from tessera.agents import make_agent


@pytest.mark.parametrize(
    ("spec", "army"), [("greedy(army=3)", {3}), ("mcts(army=1+4)", {1, 4}), ("random(army=6)", {6})]
)
def test_an_army_agent_brings_in_only_its_numbers(spec: str, army: set[int]) -> None:
    """'An agent option that only brings in one number, or a given mix': every bring-in step of the restricted
    seat (written cell=N) uses a number of its army; the opponent is not restricted."""
    agent = make_agent(spec)
    state = tessera.load_game("nymbat").new_initial_state()
    rng = random.Random(4)
    mine: list[int] = []
    theirs: set[int] = set()
    for _ in range(60):
        if state.is_terminal():
            break
        cp = state.current_player()
        move = agent.choose_move(state, iterations=20, rng=rng) if cp == 0 else state.random_move(rng)
        m = re.search(r"=(\d)$", move)
        if m:
            (mine.append(int(m.group(1))) if cp == 0 else theirs.add(int(m.group(1))))
        state.play(move)
    assert mine and set(mine) <= army
    assert theirs - army  # the random opponent brought in other numbers


def test_an_army_option_must_be_numbers() -> None:
    with pytest.raises(ValueError, match="army"):
        make_agent("greedy(army=tanks)")
    with pytest.raises(ValueError, match="no option 'army'"):
        make_agent("smmcts(army=3)")
    assert make_agent("greedy(army=1+4)").name == "greedy(army=1+4)"
