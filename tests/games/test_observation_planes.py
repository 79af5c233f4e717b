"""Every game's observation planes, written by its compiled kernel, equal a second reading in Python.

docs/research.md: "the PettingZoo/OpenSpiel adapters use the same kernels for their
observations" as the vector engine — one implementation of the planes, in
``tessera/games/<name>/observation.py``.  Here that kernel is checked, plane by plane and
for every player (the player to move and the others; Nelaxtam with each player's pending
decisions of a turn played one troop at a time), against the plain-Python encoders of
``observation_reference.py`` over whole random games of every game and variant.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tessera.adapters.core import AdaptedState, adapt
from tessera.core.observation import Decisions
from tests.games.observation_reference import ENCODERS

CASES = [
    ("nume(size=3)", 30),
    ("nume(size=4,komi=2,komi_to=white)", 10),
    ("nume(variant=square,size=4,komi=0)", 10),
    ("nume(size=3,komi_bidding=true)", 10),
    ("nibble", 10),
    ("nibble(colors=13,board=hex)", 4),
    ("nibble(colors=13)", 4),
    ("ikabegama", 10),
    ("ikabegama(distance=2,max_plies=40)", 20),
    ("nymbat(reserve=6,first_limit=3,max_turns=40)", 8),
    ("nymbat(players=4,reserve=3,first_limit=3,max_turns=60)", 8),
    ("nelaxtam(size=8,variant=quiet,max_idle_turns=3)", 8),
    ("nelaxtam(size=10,troops=3,by_sea=2,max_idle_turns=2)", 6),
]


def _compare(st: AdaptedState, reference: object) -> int:
    """Compare every player's planes of ``st`` with the reference's; return how many were compared."""
    if st.state is None:
        return 0
    game = st.game
    for player in range(game.num_players):
        got = st.observation(player)
        decisions = Decisions()
        if game.simultaneous:
            decisions = Decisions(tuple(st._pending[player]), st.deciding_troop_of(player))
        want = reference(st.state.view(player), player, decisions)  # type: ignore[operator]
        assert got.dtype == np.float32 and got.shape == want.shape
        if not np.array_equal(got, want):
            diff = [game.obs.planes[i] for i in range(want.shape[0]) if not np.array_equal(got[i], want[i])]
            raise AssertionError(f"{game.game}: player {player}'s planes differ: {diff}")
    return game.num_players


@pytest.mark.parametrize(("spec", "games"), CASES)
def test_the_kernel_writes_the_planes_the_reference_reads(spec: str, games: int) -> None:
    """Same planes from the kernel as from the plain-Python reading, every step of random games."""
    adapted = adapt(spec)
    reference = ENCODERS[adapted.game.name](adapted.game)
    rng = random.Random(spec)
    compared = 0
    for _ in range(games):
        st = adapted.new_initial_state()
        if st.chance_outcomes():
            st.apply(rng.choice([a for a, _ in st.chance_outcomes()]))
        while not st.is_terminal():
            compared += _compare(st, reference)
            st.apply(rng.choice(st.legal_actions()))
        compared += _compare(st, reference)
    assert compared > games * 10
