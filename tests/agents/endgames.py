"""What the endgame tests of every game share: playing a level out from a forced win."""

from __future__ import annotations

from collections.abc import Callable

from tessera import State
from tessera.agents import make_agent
from tessera.agents.endgame import Solution


def assert_level_plays_the_win_out(
    start: State, n: int, judge: Callable[[State], Solution | None], *, iterations: int, seed: int
) -> None:
    """Level ``n`` (its solver first) against level 3 from ``start``, where the player to move has a forced
    win: every move of the level is the solver's, the win is still forced after it (``judge`` proves it
    again, for whoever moves next) and the level wins the game."""
    game = start.game.name
    me = start.current_player()
    agent = make_agent(f"level{n}", game=game)
    other = make_agent("level3", game=game)
    st = start.clone()
    while not st.is_terminal():
        mine = st.current_player() == me
        st.apply_action((agent if mine else other).choose(st, iterations=iterations, rng=seed))
        if mine:
            assert agent.stats["solver"] == "win"
            if not st.is_terminal():
                after = judge(st)
                assert after is not None and after.value == (1 if st.current_player() == me else -1)
    assert st.returns()[me] > 0, start.to_dict()
