"""Ikabegamá's short races: the solver against a plain search, the levels keeping a forced win, the verdict.

"As soon as a Light token stands on the Dark nest, Light wins, and the other way round; a token
that changes colour on a nest counts" (docs/rules/ikabegama.md).  The solver proves a forced win
(or loss) within a horizon of plies; it must agree with a plain alpha-beta over the State API
(no table, no bound, no move order) on every position of a seeded sample, on the plane and on a
bounded board; a level that proves a win must keep it to the end.
"""

from __future__ import annotations

import random

import pytest

import tessera
from tessera import State
from tessera.agents import make_agent
from tessera.agents.endgame import EndgameAgent, endgame_verdict, within_reach
from tessera.games.ikabegama.solver import WIN, IkabegamaSolver, moves_needed, solve, winning_move
from tests.agents.endgames import assert_level_plays_the_win_out

NEAR = tessera.load_game("ikabegama(distance=4)")
DEFAULT = tessera.load_game("ikabegama")
BOUNDED = tessera.load_game("ikabegama(distance=4,board=hexhex:3)")


def plain(state: State, depth: int, ply: int = 0, alpha: int = -WIN - 1, beta: int = WIN + 1) -> int:
    """Negamax over the State API: ``WIN − d`` for a win ``d`` plies from the root, ``−(WIN − d)`` for a loss, 0."""
    assert not state.is_terminal()  # terminal children are scored by their parent
    if depth == 0:
        return 0
    me = state.current_player()
    best = -WIN - 1
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.is_terminal():
            ret = child.returns()[me]
            v = WIN - ply - 1 if ret > 0 else -(WIN - ply - 1) if ret < 0 else 0
        else:
            v = -plain(child, depth - 1, ply + 1, -beta, -alpha)
        if v > best:
            best = v
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    return best


def sample(game: tessera.Game, count: int, seed: int, plies: tuple[int, int]) -> list[State]:
    """Seeded positions after a random number of random moves in ``plies`` (games that ended skipped)."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        st = game.new_initial_state()
        for _ in range(rng.randint(*plies)):
            if st.is_terminal():
                break
            st.apply_action(st.random_action(rng))
        if not st.is_terminal():
            out.append(st)
    return out


def verdict_of(value: int) -> tuple[int, int] | None:
    """(+1 / −1, plies) of a search value, None when nothing is proved."""
    if value > WIN - 1000:
        return 1, WIN - value
    if value < -(WIN - 1000):
        return -1, WIN + value
    return None


@pytest.mark.parametrize(
    ("game", "horizon", "count"), [(NEAR, 3, 60), (NEAR, 5, 10), (DEFAULT, 5, 8), (BOUNDED, 3, 12)]
)
def test_solver_proves_exactly_what_a_plain_search_proves(game: tessera.Game, horizon: int, count: int) -> None:
    """A forced win within the horizon (fastest), a loss (longest resistance), or nothing: as a plain search says."""
    solver = IkabegamaSolver(16)
    proved = {1: 0, -1: 0, None: 0}
    for st in sample(game, count, 7 + horizon, (2, 9)):
        solver.clear()
        got = solver.solve(st, horizon=horizon)
        want = verdict_of(plain(st, horizon))
        assert (None if got is None else (got.value, got.plies)) == want, st.to_dict()
        proved[None if got is None else got.value] += 1
        if got is not None:
            after = st.clone()
            after.apply_action(got.best_move)  # the proof's move is legal and keeps the verdict
            if not after.is_terminal():
                again = verdict_of(-plain(after, horizon - 1, 0))
                assert again is not None and again[0] == got.value
    assert proved[1] and proved[None], proved  # the sample has wins and unproved races


def test_the_moves_needed_bound_never_exceeds_a_real_win() -> None:
    """A token comes at most 3 hexes nearer the enemy nest a move (a jump of 2, then a flip next to it)."""
    solver = IkabegamaSolver(16)
    for st in sample(NEAR, 60, 3, (1, 12)):
        got = solver.solve(st, horizon=5)
        if got is not None and got.value > 0:
            own_moves = (got.plies + 1) // 2
            assert moves_needed(st._a, NEAR.kconst, st.current_player()) <= own_moves, st.to_dict()


def test_an_immediate_win_is_found_without_a_search() -> None:
    """Onto the empty enemy nest, or next to it while an enemy token stands on it (the token flips)."""
    onto = NEAR.state_from_dict(
        {"to_move": 0, "light_nest": "0,0", "dark_nest": "4,0", "tokens": {"0,0": 0, "2,0": 0, "4,-2": 1}, "ply": 4}
    )
    m = int(winning_move(onto._a, NEAR.kconst, NEAR.allowed_mask))
    assert onto.action_to_string(m) == "2,0>4,0"
    flip = NEAR.state_from_dict(
        {"to_move": 0, "light_nest": "0,0", "dark_nest": "4,0", "tokens": {"0,0": 0, "2,0": 0, "4,0": 1}, "ply": 4}
    )
    m = int(winning_move(flip._a, NEAR.kconst, NEAR.allowed_mask))
    flip.apply_action(m)
    assert flip.is_terminal() and flip.returns()[0] > 0
    got = solve(onto, horizon=1)
    assert got is not None and got[0] == 1 and got[2] == 1


def test_solver_refuses_bad_input_and_the_safeguard() -> None:
    solver = IkabegamaSolver(12)
    with pytest.raises(ValueError, match="Ikabegamá positions, not nibble"):
        solver.solve(tessera.load_game("nibble").new_initial_state(1))
    with pytest.raises(ValueError, match="horizon must be an integer from 1 to 40"):
        solver.solve(NEAR.new_initial_state(), horizon=0)
    with pytest.raises(ValueError, match="seconds must be a number >= 0"):
        solver.solve(NEAR.new_initial_state(), seconds=-1)
    with pytest.raises(ValueError, match="tt_bits must be an integer from 10 to 28"):
        IkabegamaSolver(4)
    won = NEAR.new_initial_state()
    for move in ("1,0", "3,0", "2,0", "4,1", "4,-1"):
        won.play(move)
    with pytest.raises(ValueError, match="the game is over"):
        solver.solve(won)
    # the safeguard's draw depends on the ply count: a position at its edge is not taken
    short = tessera.load_game("ikabegama(distance=4,max_plies=5)")
    st = short.state_from_dict({**NEAR.new_initial_state().to_dict(), "dark_nest": "4,0", "ply": 4})
    assert solver.solve(st) is None


def won_races(count: int) -> list[State]:
    """Seeded positions of the default game where the player to move has a forced win within 7 plies."""
    solver = IkabegamaSolver(18)
    out: list[State] = []
    for st in sample(DEFAULT, 400, 11, (4, 16)):
        got = solver.solve(st, horizon=7, nodes=400_000)
        if got is not None and got.value > 0 and got.plies >= 3:
            out.append(st)
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("n", [4, 5])
def test_level_with_a_forced_win_plays_it_out(n: int) -> None:
    """A level that sees a forced win within its time never gives it away: it wins every game from there."""
    judge = IkabegamaSolver(18)
    starts = won_races(4)
    assert len(starts) == 4
    for i, start in enumerate(starts):
        assert_level_plays_the_win_out(start, n, lambda st: judge.solve(st, horizon=9), iterations=3, seed=i)


def test_levels_4_and_up_ask_the_solver_first_and_levels_1_to_3_do_not() -> None:
    for n in (1, 2, 3):
        inner = make_agent(f"level{n}", game="ikabegama")._agent_for("ikabegama")  # type: ignore[attr-defined]
        assert not isinstance(inner, EndgameAgent)
    for n in (4, 5):
        assert isinstance(make_agent(f"level{n}", game="ikabegama")._agent_for("ikabegama"), EndgameAgent)  # type: ignore[attr-defined]
    far = tessera.load_game("ikabegama(distance=30)").new_initial_state()
    assert not within_reach(far)  # nobody can win within 3 moves: the search plays alone
    wrapped = EndgameAgent(make_agent("alphabeta"))
    alone = make_agent("alphabeta").choose(far, iterations=2, rng=3)
    assert wrapped.choose(far, iterations=2, rng=3) == alone and "solver" not in wrapped.stats


def test_endgame_verdict_says_forced_win_or_lost_in_ikabegama() -> None:
    """The analysis board's line for a race: "Forced win in N steps for Light" or "… is lost with best play"."""
    seen = set()
    for st in sample(NEAR, 16, 5, (3, 10)):
        v = endgame_verdict(st, 0.3)
        if v is None:
            continue
        names = NEAR.info.player_names
        p = st.current_player()
        assert v.plies is not None
        if v.winner == p:
            assert v.text.startswith(f"Forced win in {v.plies} step") and names[p] in v.text
        else:
            assert "is lost with best play" in v.text
        assert st.string_to_action(v.best_move) in st.legal_actions()
        seen.add(v.winner == p)
    assert seen == {True, False}
