"""Agents only return legal moves, respect their budgets, reproduce seeded runs and reuse trees.

Every test runs over every registered game (small variants where the game has
them), so games join as they land.
"""

from __future__ import annotations

import random
import time

import pytest

import tessera
from tessera import SIMULTANEOUS, State
from tessera.agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, level, make_agent, parse_spec

SMALL = {
    "ikabegama": "ikabegama(distance=3)",
    "nume": "nume(size=2)",
    "nelaxtam": "nelaxtam(size=10)",
}
GAMES = [SMALL.get(name, name) for name in tessera.list_games()]
AGENTS = ["random", "greedy", "greedy(noise=0.5)", "mcts", "mcts(rollout_cutoff=0,widen=on)", "alphabeta", "level3"]


def advance(state: State, plies: int, rng: random.Random) -> State:
    """Play ``plies`` random moves (joint ones at simultaneous nodes)."""
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.current_player() == SIMULTANEOUS:
            state.play_joint([state.random_move(rng, p) for p in range(state.game.num_players)])
        else:
            state.apply_action(state.random_action(rng))
    return state


def positions(spec: str, seed: int, count: int = 3) -> list[State]:
    """A few non-terminal positions of a seeded random game, early, middle and late."""
    game = tessera.load_game(spec)
    rng = random.Random(seed)
    out = []
    state = game.new_initial_state(seed=seed)
    for plies in (0, 7, 25)[:count]:
        state = advance(state.clone(), plies, rng)
        if not state.is_terminal():
            out.append(state.clone())
    return out


def assert_legal_choice(state: State, agent_spec: str, seed: int) -> None:
    agent = make_agent(agent_spec)
    before = state.to_dict()
    if state.current_player() == SIMULTANEOUS:
        for p in range(state.game.num_players):
            order = agent.choose(state, iterations=4, seconds=0.3, rng=seed, player=p)
            assert isinstance(order, str) and state.is_legal(order, p), (agent_spec, order)
    else:
        a = agent.choose(state, iterations=12, seconds=0.3, rng=seed)
        assert a in state.legal_actions(), (agent_spec, a)
    assert state.to_dict() == before, "choose() must not change the state"


@pytest.mark.parametrize("agent_spec", AGENTS)
@pytest.mark.parametrize("spec", GAMES)
def test_agents_only_return_legal_moves(spec: str, agent_spec: str) -> None:
    """docs/python-api.md:
    an agent's choice is a legal action (an order legal for that player at a simultaneous node)."""
    for seed in (1, 2):
        for state in positions(spec, seed, count=2 if agent_spec == "alphabeta" else 3):
            assert_legal_choice(state, agent_spec, seed)


@pytest.mark.parametrize("spec", GAMES)
def test_mcts_plays_whole_games_legally(spec: str) -> None:
    """A whole game of tiny-budget MCTS against greedy stays legal through multi-step turns and tree reuse."""
    game = tessera.load_game(spec)
    state = game.new_initial_state(seed=3)
    agents = [make_agent("mcts(seed=3)"), make_agent("greedy(seed=3)")]
    plies = 0
    while not state.is_terminal() and plies < 60:
        cp = state.current_player()
        if cp == SIMULTANEOUS:
            orders = [agents[p].choose(state, iterations=3, player=p) for p in range(2)]
            state.play_joint(orders)
        else:
            a = agents[cp].choose(state, iterations=8)
            state.apply_action(a)  # raises IllegalMove if the agent were wrong
        plies += 1


@pytest.mark.parametrize("agent_spec", ["mcts", "alphabeta", "smmcts", "alphabeta(width=3)"])
def test_time_budget_is_respected(agent_spec: str) -> None:
    """Ludii-style budget: a search stops at its time limit (generous bound: 3 × budget + 0.5 s)."""
    spec = GAMES[0] if "ikabegama" not in tessera.list_games() else "ikabegama"
    state = advance(tessera.load_game(spec).new_initial_state(seed=0), 6, random.Random(0))
    agent = make_agent(agent_spec)
    budget = 0.15
    t0 = time.perf_counter()
    agent.choose(state, seconds=budget, rng=0)
    assert time.perf_counter() - t0 < 3 * budget + 0.5


@pytest.mark.parametrize("agent_spec", ["random", "greedy", "mcts", "mcts(widen=on)", "alphabeta", "smmcts"])
@pytest.mark.parametrize("spec", GAMES)
def test_seeded_runs_with_iteration_budgets_are_reproducible(spec: str, agent_spec: str) -> None:
    """Randomness is injected: the same seed and iteration budget give the same choice."""
    state = positions(spec, 4, count=2)[-1]
    kw: dict = {"iterations": 2 if agent_spec == "alphabeta" else 30}
    if state.current_player() == SIMULTANEOUS:
        kw["player"] = 1
        kw["iterations"] = 6
    choices = [make_agent(agent_spec).choose(state, rng=11, **kw) for _ in range(2)]
    assert choices[0] == choices[1]


def test_mcts_reuses_its_tree_after_the_opponents_reply() -> None:
    """Tree reuse: the subtree under (our move, their reply) keeps its visits."""
    state = tessera.load_game("ikabegama(distance=4)").new_initial_state()
    agent = MCTSAgent(seed=0)
    a = agent.choose(state, iterations=400)
    state.apply_action(a)
    root = agent._root
    assert root is not None
    reply, child = max(root.children[a].children.items(), key=lambda kv: kv[1].n)
    visits = child.n
    state.apply_action(reply)
    agent.choose(state, iterations=50)
    assert agent.stats["reused"] == visits > 0
    assert agent._root is child and child.n == visits + 50


def test_mcts_does_not_reuse_a_tree_from_another_position() -> None:
    """Tree reuse only when the history matches: a new game starts a fresh tree."""
    game = tessera.load_game("ikabegama(distance=4)")
    agent = MCTSAgent(seed=0)
    agent.choose(game.new_initial_state(), iterations=100)
    other = game.state_from_dict({"to_move": 0, "tokens": {"0,0": 0, "1,0": 0, "4,0": 1}})
    agent.choose(other, iterations=10)
    assert agent.stats["reused"] == 0


def test_greedy_takes_an_immediate_win() -> None:
    """Greedy is a one-step lookahead: a move that wins at once scores +1 and is played."""
    game = tessera.load_game("ikabegama(distance=4)")
    state = game.state_from_dict({"to_move": 0, "tokens": {"0,0": 0, "2,0": 0, "3,0": 0, "4,0": 1, "6,0": 1}})
    a = GreedyAgent().choose(state, rng=0)
    child = state.clone()
    child.apply_action(a)
    assert child.winner() == 0


def test_alphabeta_sees_a_two_ply_threat() -> None:
    """Alpha-beta (depth ≥ 2) avoids a move after which the opponent wins at once, and takes a win in one."""
    game = tessera.load_game("ikabegama(distance=4)")
    state = game.state_from_dict({"to_move": 0, "tokens": {"0,0": 0, "2,0": 0, "3,0": 0, "4,0": 1}})
    a = AlphaBetaAgent().choose(state, iterations=2, rng=0)
    child = state.clone()
    child.apply_action(a)
    assert child.winner() == 0


def test_mcts_finds_the_winning_move() -> None:
    """MCTS with enough iterations plays a move that wins at once."""
    game = tessera.load_game("ikabegama(distance=4)")
    state = game.state_from_dict({"to_move": 0, "tokens": {"0,0": 0, "2,0": 0, "3,0": 0, "4,0": 1, "6,0": 1}})
    a = MCTSAgent(seed=1).choose(state, iterations=1500)
    child = state.clone()
    child.apply_action(a)
    assert child.winner() == 0


def test_simultaneous_node_needs_a_player() -> None:
    """At a simultaneous node choose() must be told whose order to give."""
    if "nelaxtam" not in tessera.list_games():
        pytest.skip("nelaxtam not registered yet")
    state = tessera.load_game(SMALL["nelaxtam"]).new_initial_state()
    assert state.current_player() == SIMULTANEOUS
    with pytest.raises(ValueError, match="player"):
        make_agent("mcts").choose(state, iterations=2)


def test_choose_refuses_a_finished_game_and_bad_budgets() -> None:
    """Bad input gets a clear error."""
    state = tessera.load_game("ikabegama(distance=2)").new_initial_state()
    with pytest.raises(ValueError, match="iterations"):
        make_agent("mcts").choose(state, iterations=0)
    with pytest.raises(ValueError, match="seconds"):
        make_agent("mcts").choose(state, seconds=-1)
    with pytest.raises(ValueError, match="turn"):
        make_agent("random").choose(state, player=1)
    while not state.is_terminal():
        state.apply_action(state.random_action(random.Random(0)))
    with pytest.raises(ValueError, match="over"):
        make_agent("random").choose(state)


def test_agent_specs_parse_and_name_themselves() -> None:
    """make_agent builds agents from spec strings; agent.name rebuilds the same agent."""
    assert parse_spec("mcts(c=1.4,rollout_cutoff=20)") == ("mcts", {"c": 1.4, "rollout_cutoff": 20})
    assert parse_spec("level3") == ("level", {"n": 3}) == parse_spec("level(3)")
    a = make_agent("mcts(c=1.4,rollout_cutoff=20)")
    assert isinstance(a, MCTSAgent) and a.c == 1.4 and a.rollout_cutoff == 20
    assert a.name == "mcts(c=1.4,rollout_cutoff=20)" and make_agent(a.name).name == a.name
    for spec in ("random", "greedy", "alphabeta", "smmcts", "level1", "level5"):
        assert make_agent(spec).name == spec
    for bad, why in (("minimax", "unknown agent"), ("mcts(depth=3)", "no option 'depth'"), ("mcts(c)", "key=value")):
        with pytest.raises(ValueError, match=why):
            make_agent(bad)
    with pytest.raises(ValueError, match="1 to 6"):
        make_agent("level7")


def test_levels_have_increasing_time() -> None:
    """Strength levels 1–5: greedy with noise, greedy, then search at 0.3 s, 1 s and about 3 s."""
    for game in [*tessera.list_games(), None]:
        lv = [level(n, game) for n in range(1, 6)]
        assert lv[0].spec.startswith("greedy(noise") and lv[1].spec == "greedy"
        assert [x.seconds for x in lv[2:]] == [0.3, 1.0, 3.0]
        for x in lv:
            make_agent(x.spec)


@pytest.mark.parametrize("agent_spec", ["smmcts", "mcts", "greedy", "level3"])
def test_simultaneous_agents_never_read_the_opponents_sealed_order(agent_spec: str) -> None:
    """Nelaxtam orders are secret: with the same seed, an agent's order is the same whether or
    not the opponent has already sealed his order."""
    if "nelaxtam" not in tessera.list_games():
        pytest.skip("nelaxtam not registered yet")
    rng = random.Random(2)
    state = advance(tessera.load_game(SMALL["nelaxtam"]).new_initial_state(), 2, rng)
    sealed = state.clone()
    sealed.submit(sealed.random_move(random.Random(9), 1), 1)  # type: ignore[attr-defined]
    assert sealed.pending(1) is not None  # type: ignore[attr-defined]
    a = make_agent(agent_spec).choose(state, iterations=40, rng=5, player=0)
    b = make_agent(agent_spec).choose(sealed, iterations=40, rng=5, player=0)
    assert a == b and state.is_legal(a, 0)
