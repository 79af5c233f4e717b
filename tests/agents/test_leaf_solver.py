"""Solvers at the compiled tree's leaves (issue 43, ``mcts_compiled(solve=N)``): where a game's contract
module has a compiled ``solve`` verb, a new leaf the solver decides within its budget gets the exact value.

Checked on positions of known value: Nim's (the heap modulo ``take + 1``), Nibble endgames, whose value the
endgame solver (:class:`tessera.games.nibble.solver.NibbleSolver`, itself checked against plain minimax in
test_endgame.py) proves, and Ikabegamá races the race solver proves."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tessera.agents import make_agent
from tessera.agents.compiled_mcts import (
    LEAF_TABLE_BITS,
    SOLVED_NONE,
    CompiledMCTSAgent,
    contract_for,
    contract_position,
)
from tessera.core.game import State
from tessera.core.registry import load_game
from tessera.games.ikabegama import contract as ikabegama_contract
from tessera.games.ikabegama.solver import IkabegamaSolver
from tessera.games.nibble import contract as nibble_contract
from tessera.games.nibble.solver import NibbleSolver
from tests.agents.test_compiled_mcts import _nim
from tests.agents.test_endgame import HEX, SQUARE, endgame


def _table(size: int) -> tuple[np.ndarray, ...]:
    """An empty transposition table for the leaf solver (keys, values, bounds, depths, moves)."""
    return (
        np.zeros(size, np.uint64),
        np.zeros(size, np.int32),
        np.zeros(size, np.int8),
        np.zeros(size, np.int8),
        np.zeros(size, np.int64),
    )


def _value_for_player0(state: State) -> float:
    """Player 0's exact return of a Nibble position (the endgame solver, or the rules at the end)."""
    if state.is_terminal():
        return float(state.returns()[0])
    sol = NibbleSolver().solve(state, exact=False)
    assert sol is not None
    return float(sol.value if state.current_player() == 0 else -sol.value)


@pytest.mark.parametrize("stones", [5, 8, 9, 13])
def test_nim_leaves_get_the_heap_modulo_take_plus_one_value(monkeypatch: pytest.MonkeyPatch, stones: int) -> None:
    """ "a leaf whose position the solver can decide ... gets the exact value": every child of the root is
    decided (Nim's verb decides every position), each holds +1 for its mover exactly when it leaves a
    multiple of ``take + 1``, and the move chosen after a few simulations is the theory's."""
    game = _nim(monkeypatch, stones=stones, take=3)
    state = game.new_initial_state()
    agent = CompiledMCTSAgent(solve=100, seed=3)
    move = agent.choose(state, iterations=24)
    search = agent._search
    assert search is not None and search.solve == 100
    tree = search.tree
    kids = tree.children(0)
    assert len(kids) == 3 and agent.stats["solved"] == 3
    for ch in kids:
        left = stones - (int(tree.action[ch]) + 1)
        mover_wins = left % 4 == 0  # the player to move next loses
        assert tree.pv[ch] == (1.0 if mover_wins else -1.0)  # player 0 moved into each child
    if stones % 4:
        assert int(move) == stones % 4 - 1, "takes the rest of the multiple of 4"


def test_nibble_contract_solver_agrees_with_the_endgame_solver() -> None:
    """The compiled ``solve`` verb of Nibble's contract (its endgame solver's search on the contract's
    position) gives every seeded endgame (square and hex, up to 12 blocks, some inside a turn) the value
    the endgame solver proves; more than ``LEAF_BLOCKS`` blocks, or too small a budget, decide nothing."""
    size = 1 << LEAF_TABLE_BITS
    checked = 0
    for game in (SQUARE, HEX):
        for seed in range(5):
            st = endgame(game, seed, 12)
            if st is None:
                continue
            contract = contract_for(st)
            assert contract is not None
            s = contract_position(contract, st)
            assert s is not None
            table = _table(size)
            out = np.zeros(2)
            keys = nibble_contract.solver_keys(contract)
            assert nibble_contract.solve(s, contract.tables, 10**6, out, keys, *table) == 1
            assert out[0] == _value_for_player0(st) and out[1] == -out[0]
            assert nibble_contract.solve(s, contract.tables, 1, out, keys, *table) in (0, 1)  # 1 only if stored
            checked += 1
    assert checked >= 6
    opening = SQUARE.new_initial_state(1)
    contract = contract_for(opening)
    assert contract is not None
    s = contract_position(contract, opening)
    assert s is not None
    keys = nibble_contract.solver_keys(contract)
    assert nibble_contract.solve(s, contract.tables, 10**6, np.zeros(2), keys, *_table(8)) == 0


def test_ikabegama_contract_solver_agrees_with_the_race_solver() -> None:
    """Ikabegamá's compiled ``solve`` verb (its race solver's search on the contract position of a bounded
    board) proves a forced win or loss exactly where the race solver does, with the same value, and
    leaves undecided what that solver cannot prove within the same node budget."""
    game = load_game("ikabegama(board=hexhex:4)")
    decided = undecided = 0
    for seed in range(10):
        rng = random.Random(seed)
        st = game.new_initial_state(seed)
        for _ in range(rng.randrange(4, 14)):
            if st.is_terminal():
                break
            st.apply_action(st.random_action(rng))
        if st.is_terminal():
            continue
        contract = contract_for(st)
        assert contract is not None
        s = contract_position(contract, st)
        assert s is not None
        out = np.zeros(2)
        got = ikabegama_contract.solve(s, contract.tables, 200_000, out, np.zeros(1, np.uint64), *_table(1 << 16))
        sol = IkabegamaSolver().solve(st, nodes=200_000)
        if got:
            assert sol is not None and out[st.current_player()] == sol.value and out[1] == -out[0]
            decided += 1
        else:
            undecided += 1
    assert decided >= 5 and undecided >= 1


def test_nibble_tree_leaves_hold_the_endgame_solvers_values() -> None:
    """In the compiled tree searched with ``solve=N`` from Nibble endgames, every node the leaf solver
    decided holds player 0's exact return (checked again by the endgame solver from the node's position),
    and a position with a forced win is played so that the win stays forced."""
    decided = 0
    for seed in (101, 104):
        st = endgame(SQUARE, seed, nibble_contract.LEAF_BLOCKS)
        assert st is not None
        me = st.current_player()
        agent = CompiledMCTSAgent(solve=20000, seed=seed)
        move = agent.choose(st, iterations=300)
        search = agent._search
        assert search is not None
        tree = search.tree
        for ch in tree.children(0):
            if tree.pv[ch] != SOLVED_NONE:
                child = st.clone()
                child.apply_action(int(tree.action[ch]))
                assert tree.pv[ch] == _value_for_player0(child)
                decided += 1
        if NibbleSolver().solve(st, exact=False).value == 1:  # type: ignore[union-attr]
            after = st.clone()
            after.apply_action(move)
            v = _value_for_player0(after)
            assert v == (1.0 if me == 0 else -1.0), "the chosen step keeps the forced win"
    assert decided >= 4


def test_a_game_without_a_leaf_solver_searches_as_without_the_option() -> None:
    """ "where the game has a numba solver": Nume's contract has no ``solve`` verb (its solver is not a
    compiled search on a contract position), so ``solve=N`` changes
    nothing there (same seed, same simulations: the same move and tree)."""
    game = load_game("nume(size=3)")
    state = game.new_initial_state(seed=2)
    a = make_agent("mcts_compiled(solve=500,seed=4)")
    b = make_agent("mcts_compiled(seed=4)")
    ma, mb = a.choose(state, iterations=200, rng=7), b.choose(state, iterations=200, rng=7)
    assert ma == mb and "solved" not in a.stats and a.stats["nodes"] == b.stats["nodes"]
    with pytest.raises(ValueError, match="solve must be"):
        make_agent("mcts_compiled(solve=-1)")
