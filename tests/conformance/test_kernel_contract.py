"""The kernel contract (docs/engine.md, *The kernel contract*): every game's compiled verbs have the
same signatures, are deterministic under the same ``rs``, and agree with the game's per-step ``State``."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from tessera.core.game import TERMINAL, Game, State
from tessera.core.kernels import rng_state
from tessera.core.kits.contract import OVER, REFUSED, VERBS, ContractGame, KernelContract, signature_problems
from tessera.core.registry import load_game

NIM_SOURCE = Path(__file__).resolve().parents[2] / "examples" / "tessera-nim"
"""The plugin example (docs/games.md): its contract is checked like a built-in game's."""

SPECS = [
    "nim(stones=9,take=3)",
    "nume(size=2)",
    "nume(size=3,komi=2,komi_to=white)",
    "nibble",
    "ikabegama",
    "nymbat",
    "nymbat(players=4)",
    "nelaxtam",
    "nelaxtam(variant=quiet)",
]
"""Every game with kernels, and the parameters that change what the kernels read."""


def _nim(spec: str, monkeypatch: pytest.MonkeyPatch) -> Game:
    monkeypatch.syspath_prepend(str(NIM_SOURCE))  # the example package, from the source tree
    from tessera_nim.game import NimGame

    return NimGame(stones=9, take=3)


def _contract(spec: str, monkeypatch: pytest.MonkeyPatch) -> KernelContract:
    game = _nim(spec, monkeypatch) if spec.startswith("nim") else load_game(spec)
    if spec.startswith("ikabegama"):
        game, _ = game.bounded(0)
    contract = game.kernel_contract()
    assert contract is not None, f"{spec} declares no kernel contract"
    return contract


def _initial_state(contract: KernelContract, s: np.ndarray) -> State:
    """The per-step State of the position ``init`` wrote (a dealt game: the same deal)."""
    game = contract.game
    seed = None if contract.initial_seed is None else contract.initial_seed(s)
    return game.new_initial_state(seed)


@pytest.mark.parametrize("spec", SPECS)
def test_every_verb_has_the_contract_signature(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "the same verbs with the same signatures in every game": init(s, g, rs), current(s, g),
    legal(s, g, out), apply(s, g, action, rs), observe(s, g, player, out), returns(s, g, out)."""
    contract = _contract(spec, monkeypatch)
    assert signature_problems(contract) == []
    assert set(contract.verbs()) == set(VERBS)
    assert contract.num_players == contract.game.num_players
    assert contract.obs_shape == contract.game.observation_spec().shape


@pytest.mark.parametrize("spec", SPECS)
def test_same_rs_same_game(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "one way of passing randomness": a game played from the same ``rs`` seed is the same game
    (positions, legal lists, returns), and the verbs write the documented dtypes."""
    contract = _contract(spec, monkeypatch)
    runs = []
    for _ in range(2):
        cg = ContractGame(contract, seed=11)
        assert cg.s.dtype == np.int32 and cg.s.shape == (contract.state_size,)
        picker = random.Random(5)
        trace = [cg.s.copy()]
        for _ply in range(60):
            legal = cg.legal()
            assert legal.dtype == np.int64
            if cg.is_terminal():
                break
            cg.apply(int(legal[picker.randrange(len(legal))]))
            trace.append(cg.s.copy())
        runs.append((trace, cg.returns()))
    (t0, r0), (t1, r1) = runs
    assert len(t0) == len(t1) and all(np.array_equal(a, b) for a, b in zip(t0, t1, strict=True))
    assert r0 == r1


TURN_BASED = [s for s in SPECS if not s.startswith("nelaxtam")]
SEQUENCED = [s for s in SPECS if s.startswith("nelaxtam")]
"""Simultaneous games: the contract steps one decision at a time, as the adapters split a turn."""


@pytest.mark.parametrize("spec", TURN_BASED)
def test_random_playouts_agree_with_the_state(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "agreement with the per-step State (random playouts: same legal sets, same results)": at every
    step the contract's player to move, legal list, observation planes and returns are the State's,
    an illegal action is refused without a change, and the game ends when the State's does."""
    contract = _contract(spec, monkeypatch)
    game: Game = contract.game
    planes = game.observation_spec()
    limit = 400
    for seed in range(3):
        cg = ContractGame(contract, seed=seed)
        st = _initial_state(contract, cg.s)
        rng = random.Random(seed)
        for _ply in range(limit):
            assert cg.current() == st.current_player()
            assert cg.legal().tolist() == st.legal_actions()
            assert cg.returns() == pytest.approx(st.returns())
            p = rng.randrange(contract.num_players)
            np.testing.assert_array_equal(cg.observe(p), planes.observe(st, p))
            if st.is_terminal():
                assert cg.is_terminal() and cg.legal().size == 0
                before = cg.s.copy()
                assert cg.apply(0) == REFUSED and np.array_equal(cg.s, before)  # nothing is legal once over
                break
            legal = st.legal_actions()
            illegal = next(a for a in range(contract.num_actions + 1) if a not in set(legal))
            before = cg.s.copy()
            for bad in (illegal, -1, contract.num_actions, 2**40):  # not legal now, or no action at all
                assert cg.apply(bad) == REFUSED
                assert np.array_equal(cg.s, before)
            a = legal[rng.randrange(len(legal))]
            status = cg.apply(a)
            st.apply_action(a)
            assert status == (OVER if st.is_terminal() else 0)
        assert cg.current() == TERMINAL or _ply == limit - 1


def test_contract_verbs_are_driven_by_rs(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "randomness arrives as an ``rs`` array": ``init`` of a dealt game (Nibble) draws its deal from
    ``rs``, so two seeds give two deals and the same seed the same one."""
    from tessera.adapters.core import DEFAULT_DEALS

    contract = _contract("nibble", monkeypatch)
    assert contract.tables[1].shape[0] == DEFAULT_DEALS  # the adapters' chance node: the same seeds
    deals = set()
    for seed in range(6):
        s = contract.new_position()
        contract.init(s, contract.tables, rng_state(seed))
        deals.add(s.tobytes())
    assert len(deals) > 1
    a, b = contract.new_position(), contract.new_position()
    contract.init(a, contract.tables, rng_state(3))
    contract.init(b, contract.tables, rng_state(3))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("spec", SEQUENCED)
def test_simultaneous_turns_agree_with_the_adapters_decisions(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A simultaneous game's contract "agrees with the per-step State" through the adapters' split of a
    turn into per-troop decisions (the State's ``decision_choices``): at every decision the same
    player decides among the same tokens, sees the same planes, and the games end with the same returns."""
    from tessera.adapters.core import adapt

    contract = _contract(spec, monkeypatch)
    adapted = adapt(contract.game)
    for seed in range(3):
        cg = ContractGame(contract, seed=seed)
        st = adapted.new_initial_state()
        rng = random.Random(seed)
        for _step in range(3000):
            assert cg.current() == st.current_player()
            assert cg.returns() == pytest.approx(st.returns())
            for p in range(2):
                np.testing.assert_array_equal(cg.observe(p), st.observation(p))
            if st.is_terminal():
                assert cg.is_terminal() and cg.legal().size == 0
                break
            legal = st.legal_actions()
            assert cg.legal().tolist() == legal
            illegal = next(a for a in range(contract.num_actions) if a not in set(legal))
            before = cg.s.copy()
            assert cg.apply(illegal) == REFUSED and np.array_equal(cg.s, before)
            a = legal[rng.randrange(len(legal))]
            status = cg.apply(a)
            st.apply(a)
            assert status == (OVER if st.is_terminal() else 0)


@pytest.mark.parametrize("spec", [*TURN_BASED, "nume(size=2,komi_bidding=true)"])
def test_legal_actions_array_is_legal_actions_read_only(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "``legal_actions()`` stays a ``list[int]``; add ``state.legal_actions_array()`` (a read-only numpy
    view, no copy)": at every step of random games it holds the same actions in the same order,
    is an integer array, and refuses writes (for the other player and once over: empty)."""
    game = _nim(spec, monkeypatch) if spec.startswith("nim") else load_game(spec)
    if spec.startswith("ikabegama"):
        game, _ = game.bounded(0)
    for seed in range(2):
        st = game.new_initial_state(seed)
        rng = random.Random(seed)
        for _ply in range(150):
            arr = st.legal_actions_array()
            assert arr.ndim == 1 and arr.dtype.kind == "i" and not arr.flags.writeable
            assert arr.tolist() == st.legal_actions()
            if st.is_terminal():
                break
            other = (st.current_player() + 1) % game.num_players
            assert st.legal_actions_array(other).tolist() == st.legal_actions(other) == []
            with pytest.raises(ValueError, match="read-only"):
                arr[:1] = 0
            st.apply_action(st.legal_actions()[rng.randrange(arr.shape[0])])
        assert st.legal_actions_array().tolist() == st.legal_actions()


@pytest.mark.parametrize("spec", SPECS)
def test_rollouts_on_the_contract_are_the_verbs_played_at_random(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random playouts written once on the verbs (the generic rollout loop) play exactly the games the
    verbs give one step at a time from the same ``rs`` (a uniform legal action, drawn by
    ``rand_below(rs, n)``), and every finished game's returns sum to 0 (each game here is zero-sum)."""
    from tessera.core.kernels import rand_below

    contract = _contract(spec, monkeypatch)
    cg = ContractGame(contract, seed=4)
    start = cg.s.copy()
    totals, plies = cg.rollouts(5, max_plies=300)
    assert np.array_equal(cg.s, start) and plies > 0
    assert sum(totals) == pytest.approx(0.0, abs=1e-9)
    # the same five games, one verb call at a time from Python
    ref = ContractGame(contract, seed=4)
    expected = [0.0] * contract.num_players
    steps = 0
    for _ in range(5):
        ref.s[:] = start
        k = 0
        while not ref.is_terminal() and k < 300:
            legal = ref.legal()
            ref.apply(int(legal[rand_below(ref.rs, len(legal))]))
            k += 1
        steps += k
        expected = [a + b for a, b in zip(expected, ref.returns(), strict=True)]
    assert (totals, plies) == (pytest.approx(expected), steps)
