"""Nume's last empty cells: the solver against a plain search over every number, the levels keeping a win.

"The game ends when the board is full. A player's score is the sum of the prices of his groups,
plus the komi if his colour receives it. The lower score wins" and "a group's price is the
largest |number − size| over the numbered stones in it" (docs/rules/nume.md).  The solver tries
only the numbers 1 … (the largest size the new group can reach); a plain alpha-beta over the
State API tries every number 0 … N, and both must find the same result on every position of a
seeded sample, draws included.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import tessera
from tessera import State
from tessera.agents import make_agent
from tessera.agents.endgame import EndgameAgent, endgame_verdict, within_reach
from tessera.games.nume import kernels as nk
from tessera.games.nume.solver import MAX_EMPTY, NumeSolver, number_bound, solve
from tests.agents.endgames import assert_level_plays_the_win_out


def sensible_move(state: State, rng: random.Random) -> int:
    """A random placement whose new group (if any) carries 1, 2 or 3: random numbers decide a game at once."""
    action = state.random_action(rng)
    c, k = divmod(action, state.game.K)  # type: ignore[attr-defined]
    return c * state.game.K + (1 + rng.randint(1, 3) if k else 0)  # type: ignore[attr-defined]


def ending(game: tessera.Game, seed: int, empty: int) -> State:
    """A seeded game of sensible random placements played until ``empty`` cells are left."""
    rng = random.Random(seed)
    st = game.new_initial_state()
    while st._nempty() > empty:  # type: ignore[attr-defined]
        st.apply_action(sensible_move(st, rng))
    return st


def plain(state: State, alpha: int = -2, beta: int = 2) -> int:
    """Alpha-beta over the State API and every legal action (every number 0 … N): +1 / 0 / −1 for the mover."""
    me = state.current_player()
    best = -2
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.is_terminal():
            r = child.returns()[me]
            v = 1 if r > 0 else -1 if r < 0 else 0
        else:
            v = -plain(child, -beta, -alpha)
        best = max(best, v)
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


@pytest.mark.parametrize(
    ("spec", "empty", "count"),
    [("nume(size=2)", 5, 80), ("nume(size=2,komi=1)", 6, 40), ("nume(variant=square,size=4,komi=1)", 6, 12)],
)
def test_solver_finds_the_result_a_search_over_every_number_finds(spec: str, empty: int, count: int) -> None:
    """Same result with best play (win, draw, loss), and the solver's placement achieves it."""
    game = tessera.load_game(spec)
    solver = NumeSolver(16)
    results = set()
    for seed in range(count):
        st = ending(game, seed, empty)
        got = solver.solve(st)
        assert got is not None and got.plies == empty
        want = plain(st)
        assert got.value == want, st.to_dict()
        child = st.clone()
        child.apply_action(got.best_move)
        me = st.current_player()
        if child.is_terminal():
            r = child.returns()[me]
            after = 1 if r > 0 else -1 if r < 0 else 0
        else:
            after = -plain(child)
        assert after == want
        results.add(want)
    assert results >= {1, -1}
    if "komi=1" in spec:
        assert 0 in results  # a whole-number komi allows equal scores


def test_a_new_group_never_ends_larger_than_its_number_bound() -> None:
    """The bound: 1 + min(empty cells reachable, the mover's placements left) + his stones reachable."""
    game = tessera.load_game("nume(size=3)")
    rng = random.Random(4)
    seen = np.zeros(game.cells, np.int64)  # type: ignore[attr-defined]
    checked = 0
    for seed in range(160):
        st = ending(game, seed, rng.randint(3, 9))
        col = st._col  # type: ignore[attr-defined]
        cells = [c for c in range(game.cells) if nk.status(st._a, game.nbr, c, col) == nk.STARTS]  # type: ignore[attr-defined]
        if not cells:
            continue
        c = rng.choice(cells)
        left = (st._nempty() - 1) // 2  # type: ignore[attr-defined]
        bound = int(number_bound(st._a, game.nbr, c, col, left, seen))  # type: ignore[attr-defined]
        st.apply_action(c * game.K + 1 + 1)  # type: ignore[attr-defined]
        n = game.cells  # type: ignore[attr-defined]
        while not st.is_terminal():  # a completion that grows the group as it can: its owner joins it when he can
            a = st._a  # type: ignore[attr-defined]
            gid = a[nk.GID * n + c]
            grow = [
                x * game.K  # type: ignore[attr-defined]
                for x in range(n)
                if a[x] < 0 and any(m >= 0 and a[m] == col and a[nk.GID * n + m] == gid for m in game.nbr[x])  # type: ignore[attr-defined]
            ]
            mine = st._col == col  # type: ignore[attr-defined]
            st.apply_action(rng.choice(grow) if mine and grow else sensible_move(st, rng))
        size = int(st._a[nk.GSIZE * n + st._a[nk.GID * n + c]])  # type: ignore[attr-defined]
        assert size <= bound, (size, bound)
        checked += 1
    assert checked >= 40


def test_solver_refuses_bad_input() -> None:
    solver = NumeSolver(12)
    with pytest.raises(ValueError, match="Nume positions, not nibble"):
        solver.solve(tessera.load_game("nibble").new_initial_state(1))
    with pytest.raises(ValueError, match="komi bidding"):
        solver.solve(tessera.load_game("nume(size=2,komi_bidding=true)").new_initial_state())
    with pytest.raises(ValueError, match=f"at most {MAX_EMPTY} empty cells"):
        solver.solve(tessera.load_game("nume").new_initial_state())
    with pytest.raises(ValueError, match="tt_bits must be an integer from 10 to 28"):
        NumeSolver(40)
    st = ending(tessera.load_game("nume(size=2)"), 1, 0)
    with pytest.raises(ValueError, match="the game is over"):
        solver.solve(st)
    assert solver.solve(ending(tessera.load_game("nume(size=3)"), 2, 14), nodes=5) is None  # out of budget


def won_endings(count: int, empty: int) -> list[State]:
    game = tessera.load_game("nume(size=3)")
    out: list[State] = []
    for seed in range(200):
        st = ending(game, 500 + seed, empty)
        got = solve(st)
        if got is not None and got[0] > 0:
            out.append(st)
            if len(out) == count:
                break
    return out


@pytest.mark.parametrize("n", [4, 5])
def test_level_with_a_forced_win_plays_it_out(n: int) -> None:
    """A level that sees a forced win within its time never gives it away: it wins every game from there."""
    judge = NumeSolver(18)
    for i, start in enumerate(won_endings(4, 10)):
        assert_level_plays_the_win_out(start, n, judge.solve, iterations=20, seed=i)


def test_levels_4_and_up_ask_the_solver_near_the_end_only() -> None:
    assert isinstance(make_agent("level5", game="nume")._agent_for("nume"), EndgameAgent)  # type: ignore[attr-defined]
    assert not isinstance(make_agent("level3", game="nume")._agent_for("nume"), EndgameAgent)  # type: ignore[attr-defined]
    opening = tessera.load_game("nume(size=3)").new_initial_state()
    assert not within_reach(opening)
    wrapped = EndgameAgent(make_agent("mcts(c=0.7,rollout_cutoff=0,sample=8)"))
    alone = make_agent("mcts(c=0.7,rollout_cutoff=0,sample=8)").choose(opening, iterations=40, rng=2)
    assert wrapped.choose(opening, iterations=40, rng=2) == alone and "solver" not in wrapped.stats


def test_endgame_verdict_names_the_winner_of_a_nume_ending() -> None:
    game = tessera.load_game("nume(size=3)")
    names = game.info.player_names
    seen = set()
    for seed in range(12):
        st = ending(game, 900 + seed, 8)
        v = endgame_verdict(st, 2.0)
        assert v is not None and v.plies == 8
        p = st.current_player()
        if v.winner == p:
            assert v.text.startswith(f"Forced win in 8 steps for {names[p]}")
        else:
            assert "is lost with best play" in v.text
        assert st.string_to_action(v.best_move) in st.legal_actions()
        seen.add(v.winner == p)
    assert seen == {True, False}
