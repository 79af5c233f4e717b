"""OpenSpiel with ``actions="factored"``: a move of Nume or Nymbat as successive decisions of one player.

Issue 38: "for ``actions="factored"`` a move is a short sequence of decisions (Nume: the cell, then the
number; Nymbat: the piece or group, then the destination …; single-decision games unchanged) …
Gymnasium ``make_vec`` and the adapters offer both action modes."  In OpenSpiel the first decision
leads to an intermediate decision node of the same player, whose legal actions are the second
decisions, and ``history()`` records each decision.
"""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

import tessera.adapters.openspiel  # noqa: E402, F401  (registers the games)
from tessera.adapters.core import FactoredMoves  # noqa: E402
from tessera.core.game import IllegalMove  # noqa: E402

FACTORED = ["tessera_nume(size=3,actions=factored)", "tessera_nymbat(max_turns=12,actions=factored)"]


@pytest.mark.parametrize("spec", FACTORED)
def test_openspiel_random_simulation_test_passes_on_factored_moves(spec: str) -> None:
    """OpenSpiel's own checks (``pyspiel.random_sim_test`` with serialisation, ``games_sim_test.sim_game``:
    pickling, clones, returns) pass on the factored games."""
    from open_spiel.python.tests import games_sim_test

    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    games_sim_test.GamesSimTest("test_breakthrough").sim_game(game)


@pytest.mark.parametrize("spec", FACTORED)
def test_a_move_is_two_decisions_of_the_same_player_recorded_in_the_history(spec: str) -> None:
    """ "A move is a short sequence of decisions": at the intermediate node the same player decides, his
    legal actions are the second decisions legal after the first (the factoring's tails), the mask
    agrees with them, and ``history()`` records each decision."""
    game = pyspiel.load_game(spec)
    factoring = game.moves.factoring
    state = game.new_initial_state()
    rng = random.Random(1)
    seconds = 0
    while not state.is_terminal():
        player, flat = state.current_player(), state.adapted.legal_actions()
        legal = state.legal_actions()
        assert [a for a, m in enumerate(state.legal_actions_mask()) if m] == legal
        assert state.decided() == -1 and legal == sorted({int(factoring.head[a]) for a in flat})
        head = rng.choice(legal)
        before = len(state.history())
        state.apply_action(head)
        if not factoring.single[head]:
            seconds += 1
            assert state.current_player() == player and state.decided() == head
            assert state.adapted.legal_actions() == flat  # nothing played yet
            tails = state.legal_actions()
            assert tails == sorted(int(factoring.tail[a]) for a in flat if factoring.head[a] == head)
            assert "chosen" in state.observation_string(player)
            tail = rng.choice(tails)
            state.apply_action(tail)
            assert state.history()[before:] == [head, tail]
            assert state.adapted.history[-1] == int(factoring.flat[head, tail])
    assert seconds > 5 and sum(state.returns()) == 0


@pytest.mark.parametrize("spec", FACTORED)
def test_the_decisions_of_a_flat_move_play_the_same_game(spec: str) -> None:
    """ "A factored sequence gives the same game as the flat action": a random flat game replayed as the
    decisions its moves split into reaches the same positions and returns."""
    flat_game = pyspiel.load_game(spec.replace(",actions=factored", ""))
    game = pyspiel.load_game(spec)
    f = game.moves.factoring
    flat, fact = flat_game.new_initial_state(), game.new_initial_state()
    rng = random.Random(2)
    while not flat.is_terminal():
        a = rng.choice(flat.legal_actions())
        head, tail = int(f.head[a]), int(f.tail[a])
        assert fact.legal_actions()  # the move's decisions are offered
        fact.apply_action(head)
        if not f.single[head]:
            fact.apply_action(tail)
        flat.apply_action(a)
        assert str(fact) == str(flat) and fact.current_player() == flat.current_player()
    assert fact.is_terminal() and fact.returns() == flat.returns()
    assert fact.adapted.history == flat.adapted.history


def test_illegal_decisions_are_refused_and_change_nothing() -> None:
    """ "Bad input gets a clear error … never corrupts state": a first decision that starts no legal move
    and a second one no legal move ends with are refused (the state and its history are unchanged)."""
    game = pyspiel.load_game("tessera_nume(size=3,actions=factored)")
    state = game.new_initial_state()
    width = game.num_distinct_actions()
    bad_first = next(d for d in range(width) if d not in state.legal_actions())
    with pytest.raises(IllegalMove, match="not a legal decision"):
        state.apply_action(bad_first)
    assert state.history() == [] and state.decided() == -1
    head = state.legal_actions()[0]
    state.apply_action(head)
    bad_second = next(d for d in range(width) if d not in state.legal_actions())
    snapshot = str(state)
    with pytest.raises(IllegalMove, match="not a legal decision"):
        state.apply_action(bad_second)
    assert str(state) == snapshot and state.history() == [head] and state.decided() == head


def test_the_actions_parameter_is_checked_and_single_decision_games_are_unchanged() -> None:
    """Every game takes ``actions``; a value other than ``flat``/``factored`` is a clear error, and so is
    Nume's komi bidding with factored actions (the bids have no factoring); a game whose move is one
    decision (Nibble) keeps its actions; Nume's decisions are its cells, then its
    numbers (``cells + 2`` of them at most)."""
    with pytest.raises(Exception, match="actions must be"):
        pyspiel.load_game("tessera_nume(size=3,actions=tree)")
    with pytest.raises(ValueError, match="komi_bidding"):  # the bids have no factoring
        pyspiel.load_game("tessera_nume(size=3,komi_bidding=true,actions=factored)")
    assert pyspiel.load_game("tessera_nume(size=3,komi_bidding=true)").num_distinct_actions() > 0
    nib = pyspiel.load_game("tessera_nibble(actions=factored)")
    assert nib.num_distinct_actions() == pyspiel.load_game("tessera_nibble").num_distinct_actions()
    assert nib.moves is None
    nume = pyspiel.load_game("tessera_nume(size=3,actions=factored)")
    assert nume.num_distinct_actions() == FactoredMoves(nume.adapted).width == 36 + 2
    assert nume.get_parameters()["actions"] == "factored"


@pytest.mark.parametrize("spec", FACTORED)
def test_openspiel_mcts_searches_through_the_intermediate_nodes(spec: str) -> None:
    """OpenSpiel's Python ``MCTSBot`` (random rollouts) plays the factored games: each of its choices is
    a legal decision, and a first decision is followed by the same player's second one."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(spec)
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    state = game.new_initial_state()
    for _ in range(6):
        player = state.current_player()
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        if state.decided() >= 0:
            assert state.current_player() == player
    assert len(state.history()) == 6
