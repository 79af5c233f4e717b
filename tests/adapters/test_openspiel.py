"""OpenSpiel: every tessera game registered with pyspiel, passing OpenSpiel's own checks and algorithms."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import cfr, get_all_states, mcts  # noqa: E402

import tessera  # noqa: E402
import tessera.adapters.openspiel  # noqa: E402  (registers the games)

SMALL = [
    "tessera_nume(size=3)",
    "tessera_ikabegama(distance=4,max_plies=60)",
    "tessera_nibble",
    "tessera_nymbat(max_turns=12)",
    "tessera_nelaxtam(size=8,variant=quiet,max_idle_turns=3)",
    "tessera_nelaxtam(size=10,troops=3,by_sea=2,max_idle_turns=3)",
]


def test_every_game_is_registered() -> None:
    """Issue 17: import tessera.adapters.openspiel registers tessera_<name> for every game."""
    names = pyspiel.registered_names()
    for name in tessera.list_games():
        assert f"tessera_{name}" in names


def test_three_ways_of_giving_parameters_load_the_same_game() -> None:
    """pyspiel.load_game with defaults, a dict and the one-string form."""
    default = pyspiel.load_game("tessera_nume")
    assert default.num_distinct_actions() == tessera.load_game("nume").num_distinct_actions()
    a = pyspiel.load_game("tessera_nume", {"size": 4})
    b = pyspiel.load_game("tessera_nume(size=4)")
    n = tessera.load_game("nume(size=4)").num_distinct_actions()
    assert a.num_distinct_actions() == b.num_distinct_actions() == n
    assert a.max_game_length() == 60 and a.get_parameters()["size"] == 4


def test_bad_parameter_is_a_clear_error() -> None:
    """docs/rules/nume.md: size 2–12; the tessera error reaches the OpenSpiel caller."""
    with pytest.raises(Exception, match="size"):
        pyspiel.load_game("tessera_nume(size=40)")


def test_game_type_declares_dynamics_chance_and_information() -> None:
    """Nibble is dealt (explicit chance), Nelaxtam hides pending orders (imperfect information)."""
    nib = pyspiel.load_game("tessera_nibble").get_type()
    assert nib.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert nib.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    nel = pyspiel.load_game("tessera_nelaxtam").get_type()
    assert nel.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert nel.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    nume = pyspiel.load_game("tessera_nume")
    assert nume.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert nume.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert (nume.min_utility(), nume.max_utility(), nume.utility_sum()) == (-1.0, 1.0, 0.0)


def test_nibble_with_a_fixed_deal_has_no_chance_node() -> None:
    """tessera_nibble(deal=K) starts from seed K's deal."""
    g = pyspiel.load_game("tessera_nibble(deal=7)")
    s = g.new_initial_state()
    assert not s.is_chance_node()
    assert s.adapted.state.to_dict() == tessera.load_game("nibble").new_initial_state(seed=7).to_dict()


@pytest.mark.parametrize("spec", SMALL)
def test_openspiel_random_simulation_test_with_serialization(spec: str) -> None:
    """OpenSpiel's own check (pyspiel.random_sim_test): random games, with serialize/deserialize round trips."""
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("spec", [*SMALL, "tessera_nymbat(players=4,max_turns=12)"])
def test_openspiel_games_sim_test_sim_game(spec: str) -> None:
    """OpenSpiel's own games_sim_test.sim_game: pickled game and type, serialize_game_and_state, clones, returns."""
    from open_spiel.python.tests import games_sim_test

    games_sim_test.GamesSimTest("test_breakthrough").sim_game(pyspiel.load_game(spec))


@pytest.mark.parametrize("spec", SMALL)
def test_serialize_round_trips_and_observations_have_the_declared_shape(spec: str) -> None:
    """state.serialize() / game.deserialize_state(); observation_tensor has observation_tensor_shape()."""
    game = pyspiel.load_game(spec)
    rng = random.Random(0)
    state = game.new_initial_state()
    for _ in range(30):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        p = state.current_player()
        obs = np.asarray(state.observation_tensor(p))
        assert obs.size == int(np.prod(game.observation_tensor_shape()))
        assert isinstance(state.observation_string(p), str)
        assert isinstance(state.information_state_string(p), str)
        state.apply_action(rng.choice(state.legal_actions()))
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state) and again.history() == state.history()
    assert pickle.loads(pickle.dumps(state)).history() == state.history()


@pytest.mark.parametrize("spec", SMALL)
def test_openspiel_python_mcts_plays_every_game(spec: str) -> None:
    """OpenSpiel's Python MCTSBot with a random-rollout evaluator picks legal moves in every game."""
    game = pyspiel.load_game(spec)
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rs), random_state=rs, solve=True)
    state = game.new_initial_state()
    for _ in range(3):
        if state.is_chance_node():
            state.apply_action(0)
        if state.is_terminal():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def test_openspiel_cfr_solves_a_tiny_ikabegama() -> None:
    """OpenSpiel's CFR runs on a tiny bounded Ikabegamá (hexhex:2, three plies) and gives a policy over legal moves."""
    game = pyspiel.load_game("tessera_ikabegama(distance=2,board=hexhex:2,max_plies=3)")
    states = get_all_states.get_all_states(game, include_terminals=False, include_chance_states=False)
    assert 0 < len(states) < 5000
    solver = cfr.CFRSolver(game)
    for _ in range(3):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    root = game.new_initial_state()
    probs = policy.action_probabilities(root)
    assert set(probs) == set(root.legal_actions()) and sum(probs.values()) == pytest.approx(1.0)


def test_the_observer_of_nelaxtam_hides_the_opponents_pending_decision() -> None:
    """OpenSpiel states differing only in Black's pending decision give White the same observation and info state."""
    game = pyspiel.load_game("tessera_nelaxtam(size=10,troops=3,by_sea=1)")
    rng = random.Random(5)
    state = game.new_initial_state()
    while state.adapted.state.to_dict()["phase"] == "invasion":
        state.apply_action(rng.choice(state.legal_actions()))
    acts = state.legal_actions()
    a, b = state.clone(), state.clone()
    a.apply_action(acts[0])
    b.apply_action(acts[-1])
    assert a.observation_tensor(1) == b.observation_tensor(1)
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.information_state_string(0) != b.information_state_string(0)


def test_openspiel_mcts_agent_plays_a_match_through_the_arena() -> None:
    """tessera match GAME level5 openspiel-mcts: the OpenSpiel agent plays legal moves within its simulation budget."""
    from tessera.arena.match import play_match

    res = play_match("nume(size=2)", "greedy", "openspiel-mcts(uct_c=1.5,seed=3)", games=2, iterations=12)
    assert [r.error for r in res.records] == [None, None]
    assert all(r.plies == 18 for r in res.records)


def test_openspiel_mcts_agent_stops_at_the_deadline() -> None:
    """The time budget: the search stops between simulations once the deadline has passed."""
    from tessera.adapters.openspiel_agents import make_openspiel_agent

    agent = make_openspiel_agent("openspiel-mcts(seed=1)")
    state = tessera.load_game("ikabegama").new_initial_state()
    action = agent.choose(state, seconds=0.05)
    assert action in state.legal_actions()
    assert agent.stats["simulations"] >= 2
    # a deadline already passed: the root is still expanded, so the bot has a move to give
    action = agent.choose(state, seconds=0.0)
    assert action in state.legal_actions() and agent.stats["simulations"] == 2


def test_openspiel_mcts_spec_rejects_unknown_options() -> None:
    """A bad agent spec is a ValueError naming the accepted options."""
    from tessera.adapters.openspiel_agents import make_openspiel_agent

    with pytest.raises(ValueError, match="uct_c"):
        make_openspiel_agent("openspiel-mcts(depth=3)")


@pytest.mark.parametrize("spec", ["tessera_nibble", "tessera_nibble(deals=3)", "tessera_nume(size=2)"])
def test_every_player_argument_is_answered_as_openspiel_builtin_games_do(spec: str) -> None:
    """Issue 37: at Nibble's deal (1,000 outcomes, 82 actions) ``legal_actions(0)`` gave the deals and
    ``legal_actions_mask(0)`` wrote them past the end of its mask (SIGSEGV).  OpenSpiel's C++ games
    (``kuhn_poker`` at its deal, ``tic_tac_toe``) answer ``legal_actions(p)`` with the node's actions
    only for the player at it — the chance player at a chance node — and ``[]`` for every other id,
    and a mask of ``max_chance_outcomes`` entries for the chance player, ``num_distinct_actions`` for
    any other; at a terminal node nothing is legal."""
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    rng = random.Random(0)
    ids = range(-5, game.num_players() + 3)
    seen = set()
    while True:
        cp = state.current_player()
        seen.add("chance" if cp == pyspiel.PlayerId.CHANCE else "terminal" if state.is_terminal() else "player")
        for p in ids:
            legal = state.legal_actions(p)
            mask = state.legal_actions_mask(p)
            width = game.max_chance_outcomes() if p == pyspiel.PlayerId.CHANCE else game.num_distinct_actions()
            assert len(mask) == width, (p, cp)
            if p == cp and not state.is_terminal():
                assert legal == state.legal_actions() and legal
            else:
                assert legal == [], (p, cp)
            assert [a for a, m in enumerate(mask) if m] == legal
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert seen >= {"player", "terminal"}
    if game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
        assert "chance" in seen


def test_chance_node_answers_like_kuhn_poker() -> None:
    """The reference itself: the chance node of OpenSpiel's C++ ``kuhn_poker`` and of ``tessera_nibble``
    answer each player id alike (outcomes for the chance player, nothing for the others)."""
    for name in ("kuhn_poker", "tessera_nibble"):
        game = pyspiel.load_game(name)
        state = game.new_initial_state()
        assert state.is_chance_node()
        outcomes = [a for a, _ in state.chance_outcomes()]
        assert state.legal_actions(pyspiel.PlayerId.CHANCE) == outcomes == state.legal_actions()
        assert [state.legal_actions(p) for p in range(game.num_players())] == [[]] * game.num_players()
        assert sum(state.legal_actions_mask(0)) == 0 and sum(state.legal_actions_mask(-1)) == len(outcomes)


def test_observer_refuses_a_state_of_another_game_object() -> None:
    """Issue 37: an adapter's observer given a state of another game (here the plane game, whose
    arrays the window's kernel tables do not fit) crashed the interpreter; it raises ValueError."""
    ad = tessera.adapters.adapt("ikabegama(distance=3)")
    with pytest.raises(ValueError, match="not a state of ikabegama"):
        ad.obs.observe(tessera.load_game("ikabegama(distance=3)").new_initial_state(), 0)
    with pytest.raises(ValueError, match="not a state of"):
        ad.obs.observe(tessera.load_game("nume(size=3)").new_initial_state(), 0)
    st = ad.new_initial_state().state
    assert st is not None
    for bad in (-1, 2, 99, True, "0"):
        with pytest.raises(ValueError, match="player must be"):
            ad.obs.observe(st, bad)  # type: ignore[arg-type]
    assert ad.obs.observe(st, 1).shape == ad.observation_shape


def test_openspiel_observer_refuses_a_state_of_another_game() -> None:
    """OpenSpiel's observer API (``make_py_observer().set_from``) reaches the same compiled planes: a
    state of a game with other parameters (same plane shape) is a ValueError, not a crash."""
    a = pyspiel.load_game("tessera_ikabegama(distance=3,window=5)")
    b = pyspiel.load_game("tessera_ikabegama(distance=4,window=5)")
    assert a.observation_tensor_shape() == b.observation_tensor_shape()
    observer = a.make_py_observer()
    observer.set_from(a.new_initial_state(), 0)
    with pytest.raises(ValueError, match="not a state of"):
        observer.set_from(b.new_initial_state(), 0)
