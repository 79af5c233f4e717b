"""The compiled search tree (docs/agents.md, *The compiled tree*): UCT in arrays inside compiled code, on
every game's kernel contract."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from tessera.agents import make_agent
from tessera.agents.compiled_mcts import CompiledMCTSAgent, CompiledSearch, contract_for, contract_position
from tessera.agents.spec import compiled_spec, parse_spec
from tessera.core.game import Game, State
from tessera.core.kernels import rng_state
from tessera.core.registry import list_games, load_game
from tests.sampling import sample_params, sampled

NIM_SOURCE = Path(__file__).resolve().parents[2] / "examples" / "tessera-nim"
"""The plugin example (docs/games.md)."""


def _nim(monkeypatch: pytest.MonkeyPatch, stones: int = 9, take: int = 3) -> Game:
    monkeypatch.syspath_prepend(str(NIM_SOURCE))
    from tessera_nim.game import NimGame

    return NimGame(stones=stones, take=take)


def _played(state: State, plies: int, seed: int) -> State:
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(state.random_action(rng))
    return state


GAMES = [
    "nume(size=3)",
    "nume(size=6)",
    "nibble",
    "ikabegama(board=hexhex:4)",
    "nymbat",
    "nymbat(players=4)",
]
"""A position of each registered game the contract holds (Ikabegamá: on a bounded board)."""


def test_every_registered_game_is_covered() -> None:
    """ "works for every registered game": the list above names each registered game."""
    assert {spec.split("(")[0] for spec in GAMES} >= set(list_games()) - {"nelaxtam"}


@pytest.mark.parametrize("spec", sample_params("compiled-legal", GAMES, 0.4))
def test_returns_only_legal_moves_from_the_compiled_tree(spec: str) -> None:
    """ "returns only legal moves", searched on the compiled tree (``stats['compiled']``), in the opening
    and after some random moves. A seeded sample of the games runs in the suite (each compiles the tree
    for its contract: 7–50 s on a cold cache); ``benchmarks/drills.py`` runs them all."""
    game = load_game(spec)
    for plies in (0, 7):
        state = _played(game.new_initial_state(seed=3), plies, seed=plies)
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        agent = CompiledMCTSAgent(c=1.4, seed=1)
        action = agent.choose(state, iterations=60)
        assert action in state.legal_actions()
        assert agent.stats["compiled"] is True
        assert agent.stats["iterations"] == 60 and agent.stats["root_visits"] == 60


@pytest.mark.parametrize("stones", [5, 6, 7, 9, 10, 11])
def test_plugin_game_nim_finds_the_forced_win(stones: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "on tiny positions it finds a forced win": in Nim (take 1–3) the mover wins only by leaving a
    multiple of 4 (take ``stones % 4``: action ``stones % 4 − 1``); the plugin example's contract drives
    the search."""
    state = _nim(monkeypatch, stones=stones).new_initial_state()
    agent = CompiledMCTSAgent(c=1.4, seed=stones)
    assert agent.choose(state, iterations=3000) == stones % 4 - 1
    assert agent.stats["compiled"] is True
    assert agent.stats["value"] > 0.3


def test_deterministic_for_a_seed() -> None:
    """ "deterministic for a seed": the same seed and number of simulations give the same move and the
    same tree (visits of every root child); another seed another tree."""

    def run(seed: int) -> tuple[int, list[tuple[int, int]]]:
        state = load_game("nume(size=4)").new_initial_state()
        agent = CompiledMCTSAgent(c=1.4, seed=seed)
        a = agent.choose(state, iterations=500)
        assert agent._search is not None
        tree = agent._search.tree
        return a, sorted((int(tree.action[ch]), int(tree.n[ch])) for ch in tree.children(0))

    assert run(5) == run(5)
    assert run(5)[1] != run(6)[1]


def test_budget_by_simulations_and_by_cpu_seconds() -> None:
    """ "budget by simulations and by CPU seconds": ``iterations=N`` runs exactly N simulations; a time
    budget on the CPU clock stops the search (batches between clock readings)."""
    from tessera.agents.base import using_clock

    state = load_game("nibble").new_initial_state(seed=2)
    agent = CompiledMCTSAgent(seed=0, reuse=False)
    for n in (1, 37, 1000):
        agent.choose(state, iterations=n)
        assert agent.stats["iterations"] == n
    with using_clock("cpu"):
        agent.choose(state, seconds=0.2)
    assert agent.stats["iterations"] > 1
    assert 0.2 <= agent.stats["seconds"] < 1.5  # stopped by the budget, not by a count of simulations


def test_tree_reuse_keeps_the_subtree_after_the_reply() -> None:
    """ "tree reuse": after our move and the opponent's reply the next search starts from the stored
    subtree (its visits count as ``reused``); with ``reuse=false`` nothing is kept."""
    state = load_game("nume(size=3)").new_initial_state()
    agent = CompiledMCTSAgent(seed=1)
    a = agent.choose(state, iterations=3000)
    state.apply_action(a)
    reply = state.legal_actions()[0]
    state.apply_action(reply)
    agent.choose(state, iterations=100)
    assert agent.stats["reused"] > 0 and agent.stats["root_visits"] == agent.stats["reused"] + 100
    fresh = CompiledMCTSAgent(seed=1, reuse=False)
    fresh.choose(state, iterations=100)
    assert fresh.stats["reused"] == 0


def test_positions_the_contract_cannot_hold_use_the_python_tree() -> None:
    """ "a position the contract cannot hold is searched by level 5's Python tree": Nume's komi bidding and
    Nelaxtam's simultaneous orders (``stats['compiled']`` false), still legal choices."""
    state = load_game("nume(size=3,komi_bidding=true)").new_initial_state()
    agent = CompiledMCTSAgent(seed=0)
    a = agent.choose(state, iterations=30)
    assert a in state.legal_actions() and agent.stats["compiled"] is False
    nx = load_game("nelaxtam").new_initial_state(seed=0)
    order = agent.choose(nx, iterations=10, player=0)
    assert nx.is_legal(order, 0) and agent.stats["compiled"] is False


def test_contract_position_replays_the_history() -> None:
    """The position handed to the compiled loop is the state's: ``init`` with the state's deal (Nibble: a
    contract dealing exactly its seed), then its history through ``apply`` — same player, same legal list."""
    state = _played(load_game("nibble").new_initial_state(seed=987654), 9, seed=1)
    contract = contract_for(state)
    assert contract is not None
    s = contract_position(contract, state)
    assert s is not None
    buf = np.zeros(contract.num_actions, np.int64)
    n = contract.legal(s, contract.tables, buf)
    assert buf[:n].tolist() == state.legal_actions()
    other = load_game("nibble").new_initial_state(seed=987655)
    assert contract_position(contract, other) is None  # another deal: not this contract's game


def test_nume_rollout_verb_plays_the_games_of_random_action_and_apply() -> None:
    """Nume's ``rollout`` verb "the same game as ``random_action`` then ``apply``, in one loop": from the
    same ``rs`` both end in the same position with the same returns."""
    import tessera.games.nume.contract as nc

    game = load_game("nume(size=4)")
    contract = game.kernel_contract()
    s0 = contract_position(contract, _played(game.new_initial_state(), 3, seed=0))
    assert s0 is not None
    for seed in range(5):
        a, b = s0.copy(), s0.copy()
        ra, rb = rng_state(seed), rng_state(seed)
        out = np.zeros(2)
        steps = nc.rollout(a, contract.tables, ra, -1, out)
        played = 0
        while contract.current(b, contract.tables) >= 0:
            x = nc.random_action(b, contract.tables, rb)
            assert contract.apply(b, contract.tables, x, rb) >= 0
            played += 1
        ret = np.zeros(2)
        contract.returns(b, contract.tables, ret)
        assert steps == played and np.array_equal(a, b) and out.tolist() == ret.tolist()


def test_tree_grows_past_its_first_capacity() -> None:
    """The arrays are preallocated and doubled between batches: a search of more simulations than the first
    capacity keeps every node (one per simulation)."""
    state = load_game("nume(size=5)").new_initial_state()
    contract = contract_for(state)
    assert contract is not None
    s0 = contract_position(contract, state)
    search = CompiledSearch(contract, capacity=64)
    done = search.run(0, s0, rng_state(1), 500, c=1.4, cutoff=-1, wide=True, pw_k=2.0, pw_alpha=0.5)
    assert done == 500 and search.tree.capacity >= 501
    assert int(search.tree.size[0]) == 501 and int(search.tree.n[0]) == 500


def test_level5c_is_level_5_on_the_compiled_tree() -> None:
    """ "level 5 on it as an agent spec": ``level5c`` is ``level5(tree=compiled)``, the game's level-5 UCT
    options with random rollouts to the end, the endgame solver first, level 5's time."""
    assert parse_spec("level5c") == ("level", {"tree": "compiled", "n": 5})
    assert compiled_spec("mcts(c=0.7,rollout_cutoff=-1)") == "mcts_compiled(c=0.7,rollout_cutoff=-1)"
    agent = make_agent("level5c", game="nibble")
    assert agent.name == "level5(game=nibble,tree=compiled)"
    inner = agent._agent_for("nibble")
    assert type(inner).__name__ == "EndgameAgent" and inner.inner.name == "mcts_compiled(c=0.7,rollout_cutoff=-1)"
    assert agent.default_seconds == 3.0
    with pytest.raises(ValueError, match="tree must be"):
        make_agent("level5(tree=numpy)")
    with pytest.raises(ValueError, match="no option"):
        make_agent("mcts_compiled(sample=8)")


def test_mast_rollouts_gather_move_averages_and_stay_legal(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "MAST (move-average sampling) rollouts": with ``mast=ε`` every simulation adds its return to the
    statistics of each (player, action) it played, the moves chosen are legal, the forced win is found;
    ``mast`` outside 0–1 is refused."""
    state = _nim(monkeypatch, stones=10).new_initial_state()
    agent = CompiledMCTSAgent(c=1.4, seed=0, mast=0.2)
    assert agent.choose(state, iterations=3000) == 1
    search = agent._search
    assert search is not None
    assert search.mcnt.shape == (2, 3) and search.mcnt.sum() >= 3000  # at least one move a simulation
    assert np.all(np.abs(search.msum) <= search.mcnt)  # returns are within [-1, 1]
    nibble = _played(load_game("nibble").new_initial_state(seed=4), 5, seed=2)
    a = make_agent("mcts_compiled(mast=0.1,seed=3)").choose(nibble, iterations=200)
    assert a in nibble.legal_actions()
    gibbs = CompiledMCTSAgent(c=1.4, seed=0, gibbs=1.0)  # Gibbs sampling, MAST's first form
    assert gibbs.choose(state, iterations=3000) == 1
    assert gibbs._search is not None and gibbs._search.mcnt.sum() >= 3000
    assert make_agent("mcts_compiled(gibbs=1,seed=3)").choose(nibble, iterations=200) in nibble.legal_actions()
    with pytest.raises(ValueError, match="mast must be"):
        make_agent("mcts_compiled(mast=2)")
    with pytest.raises(ValueError, match="gibbs must be"):
        make_agent("mcts_compiled(gibbs=-1)")


def test_nibble_rollout_verb_plays_legal_games_to_the_end_or_the_cut_off() -> None:
    """Nibble's ``rollout`` verb "uniformly random steps until the game ends or ``max_plies`` steps": to the
    end it leaves a finished game with its returns (±1 or 0 each, zero-sum); with a cut-off of 3 it plays
    exactly 3 steps of a longer game, which goes on; the same ``rs`` plays the same game."""
    import tessera.games.nibble.contract as bc

    state = _played(load_game("nibble").new_initial_state(seed=77), 4, seed=0)
    contract = contract_for(state)
    assert contract is not None
    s0 = contract_position(contract, state)
    assert s0 is not None
    ends = []
    for seed in range(6):
        s, out = s0.copy(), np.zeros(2)
        steps = bc.rollout(s, contract.tables, rng_state(seed), -1, out)
        assert contract.current(s, contract.tables) < 0 and steps > 3
        assert out[0] == -out[1] and abs(out[0]) in (0.0, 1.0)
        ends.append(s.tobytes())
        again = s0.copy()
        bc.rollout(again, contract.tables, rng_state(seed), -1, np.zeros(2))
        assert again.tobytes() == s.tobytes()
        cut, out = s0.copy(), np.zeros(2)
        assert bc.rollout(cut, contract.tables, rng_state(seed), 3, out) == 3
        assert contract.current(cut, contract.tables) >= 0 and out.tolist() == [0.0, 0.0]
    assert len(set(ends)) > 1


@pytest.mark.parametrize("spec", ["ikabegama(board=hexhex:5)", "nymbat", "nymbat(players=4)", "nume(size=4)"])
def test_own_random_action_and_rollout_verbs_play_legal_games(spec: str) -> None:
    """A game's optional ``random_action`` verb "a random legal action" (the contract's ``apply`` accepts
    every draw, to the end of a game) and its ``rollout`` verb "until the game ends or ``max_plies``":
    a finished game with the contract's returns, or exactly ``max_plies`` steps of a game that goes on."""
    game = load_game(spec)
    contract = game.kernel_contract()
    module = __import__(contract.init.py_func.__module__, fromlist=["rollout"])
    s0 = contract_position(contract, game.new_initial_state())
    assert s0 is not None
    for seed in range(3):
        s, rs = s0.copy(), rng_state(seed)
        plies = 0
        while contract.current(s, contract.tables) >= 0 and plies < 3000:
            a = module.random_action(s, contract.tables, rs)
            assert contract.apply(s, contract.tables, a, rs) >= 0, f"{spec}: drawn action {a} refused"
            plies += 1
        assert module.random_action(s, contract.tables, rs) == -1 or plies == 3000
        s, out, ret = s0.copy(), np.zeros(contract.num_players), np.zeros(contract.num_players)
        steps = module.rollout(s, contract.tables, rng_state(seed), -1, out)
        assert contract.current(s, contract.tables) < 0 and steps > 0
        contract.returns(s, contract.tables, ret)
        assert out.tolist() == ret.tolist()
        cut = s0.copy()
        assert module.rollout(cut, contract.tables, rng_state(seed), 2, out) == 2
        assert contract.current(cut, contract.tables) >= 0


@sampled("compiled-nelaxtam", 0.5)
def test_nelaxtam_contract_runs_in_the_compiled_loop() -> None:
    """Nelaxtam's contract (one decision at a time, as the adapters split a turn) runs in the compiled loop
    too: from ``init`` the root's children are legal decisions and every simulation is counted; the agent
    itself answers Nelaxtam's simultaneous nodes with level 5's decoupled UCT (the test above)."""
    contract = load_game("nelaxtam").kernel_contract()
    s0 = contract.new_position()
    contract.init(s0, contract.tables, rng_state(1))
    search = CompiledSearch(contract)
    assert search.run(0, s0, rng_state(2), 200, c=1.0, cutoff=40, wide=False, pw_k=2.0, pw_alpha=0.5) == 200
    buf = np.zeros(contract.num_actions, np.int64)
    legal = set(buf[: contract.legal(s0, contract.tables, buf)].tolist())
    kids = search.tree.children(0)
    assert kids and {int(search.tree.action[ch]) for ch in kids} <= legal
    assert int(search.tree.n[0]) == 200 == sum(int(search.tree.n[ch]) for ch in kids)
