"""The adapter layer: finite actions, masks, observation planes, Nelaxtam's hidden per-troop decisions."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tessera
from tessera.adapters.core import CHANCE, TERMINAL, adapt

SPECS = [
    "nume(size=3)",
    "nume(size=2,komi_bidding=true)",
    "nume(variant=square,size=4)",
    "ikabegama(distance=4)",
    "ikabegama(board=hexhex:5)",
    "nibble",
    "nibble(colors=13,board=hex)",
    "nymbat(max_turns=40)",
    "nelaxtam(size=8,variant=quiet,max_idle_turns=4)",
    "nelaxtam(size=10,troops=3,by_sea=2,max_idle_turns=4)",
]


def _walk(spec: str, seed: int, steps: int = 400):
    """Random decisions from the initial state; yields every state on the way."""
    game = adapt(spec)
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        yield state
        if state.is_terminal():
            return
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("spec", SPECS)
def test_every_legal_move_is_one_action_and_back(spec: str) -> None:
    """docs/python-api.md:
    action_to_string(a) equals the move string play takes; the adapter numbers each legal move once."""
    for state in _walk(spec, 1, 150):
        if state.current_player() in (CHANCE, TERMINAL) or state.game.simultaneous:
            continue
        acts = state.legal_actions()
        moves = [state.action_to_string(a) for a in acts]
        assert sorted(moves) == state.state.legal_moves()
        assert [state.string_to_action(m) for m in moves] == acts
        assert all(0 <= a < state.game.num_distinct_actions for a in acts)


@pytest.mark.parametrize("spec", SPECS)
def test_action_mask_equals_the_legal_actions(spec: str) -> None:
    """The mask has a 1 exactly at each legal action of the player to decide, 0 for everyone else."""
    for state in _walk(spec, 2, 150):
        cp = state.current_player()
        if cp < 0:
            continue
        mask = state.legal_mask(cp)
        assert mask.shape == (state.game.num_distinct_actions,)
        assert np.flatnonzero(mask).tolist() == state.legal_actions()
        other = (cp + 1) % state.game.num_players
        assert not state.legal_mask(other).any()


@pytest.mark.parametrize("spec", SPECS)
def test_observation_shape_is_stable_all_game_long(spec: str) -> None:
    """Observations are float32 planes of the declared shape for every player at every step, values in [0, 1]."""
    game = adapt(spec)
    for state in _walk(spec, 3, 200):
        for p in range(game.num_players):
            obs = state.observation(p)
            assert obs.shape == game.observation_shape
            assert obs.dtype == np.float32
            assert obs.min() >= 0.0 and obs.max() <= 1.0
    assert len(game.obs.planes) == game.observation_shape[0]


def test_nume_planes_show_stones_from_the_observers_side() -> None:
    """Nume: 'my stones' of Black are 'opponent's stones' of White; the written number is on the numbered stone."""
    game = adapt("nume(size=3)")
    state = game.new_initial_state()
    state.apply(state.string_to_action("c3=5"))
    r, c = game.obs.layout.index["c3"]
    black, white = state.observation(0), state.observation(1)
    assert black[0, r, c] == 1 and white[1, r, c] == 1 and black[1, r, c] == 0
    assert black[2, r, c] == pytest.approx(5 / 36)


def test_ikabegama_is_played_on_the_declared_window() -> None:
    """docs/rules/ikabegama.md:
    the plane is unbounded; the adapter plays it on a hexagon of side distance//2+4 (the midpoint's)."""
    game = adapt("ikabegama")
    assert game.game.params["board"] == "hexhex:7"
    assert game.window is not None and game.window.cells == 127
    assert game.num_distinct_actions == 13 * 127 + 1
    state = game.new_initial_state()
    assert state.action_to_string(game.num_distinct_actions - 1) == "pass"


def test_nibble_deal_is_a_chance_event_over_seeds() -> None:
    """docs/rules/nibble.md: the set-up is dealt at random from the seed; chance outcome K is the deal of seed K."""
    game = adapt("nibble", deals=5)
    state = game.new_initial_state()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(k, 0.2) for k in range(5)]
    state.apply(3)
    assert state.state.to_dict() == tessera.load_game("nibble").new_initial_state(seed=3).to_dict()


def _nelaxtam_after_invasion(spec: str, seed: int):
    game = adapt(spec)
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.state.to_dict()["phase"] == "invasion":
        state.apply(rng.choice(state.legal_actions()))
    return game, state, rng


def test_nelaxtam_pending_order_is_hidden_from_the_other_player() -> None:
    """docs/rules/nelaxtam.md:
    turns are simultaneous — states differing only in Black's pending decision look alike to White."""
    _, state, _ = _nelaxtam_after_invasion("nelaxtam(size=10,troops=3,by_sea=1)", 4)
    assert state.current_player() == 0
    choices = state.legal_actions()
    assert len(choices) >= 2
    a, b = state.clone(), state.clone()
    a.apply(choices[0])
    b.apply(choices[-1])
    assert a.pending(0) != b.pending(0)
    assert np.array_equal(a.observation(1), b.observation(1))
    assert a.observation_string(1) == b.observation_string(1)
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.information_state_string(0) != b.information_state_string(0)
    assert not np.array_equal(a.observation(0), b.observation(0))


@pytest.mark.parametrize("seed", range(4))
def test_nelaxtam_every_legal_order_is_a_sequence_of_legal_decisions(seed: int) -> None:
    """docs/rules/nelaxtam.md:
    an order lists every living troop with one action; each legal order is decided troop by troop."""
    _, state, rng = _nelaxtam_after_invasion("nelaxtam(size=10,troops=4,by_sea=2,max_idle_turns=6)", seed)
    for _ in range(6):
        if state.is_terminal():
            break
        orders = [state.state.random_actions(rng, p) for p in (0, 1)]
        for p in (0, 1):
            for a in orders[p]:
                assert state.current_player() == p
                assert a in state.legal_actions(), state.action_to_string(a)
                state.apply(a)


@pytest.mark.parametrize("seed", range(4))
def test_nelaxtam_decisions_always_complete_to_a_legal_order(seed: int) -> None:
    """docs/rules/nelaxtam.md ruling:
    an order is illegal if two troops end on the same square — the decisions never lead there."""
    game = adapt("nelaxtam(size=10,troops=5,by_sea=3,max_idle_turns=5)")
    rng = random.Random(seed)
    state = game.new_initial_state()
    turns = 0
    while not state.is_terminal() and turns < 30:
        start = state.state.move_number()
        while state.state.move_number() == start and not state.is_terminal():
            acts = state.legal_actions()
            assert acts, "a decision with no legal choice"
            state.apply(rng.choice(acts))
        turns += 1


def test_adapter_rejects_an_illegal_decision_and_keeps_the_state() -> None:
    """docs/python-api.md: an illegal move raises IllegalMove and leaves the state exactly as it was."""
    game = adapt("nume(size=2)")
    state = game.new_initial_state()
    before = state.state.to_dict()
    with pytest.raises(tessera.IllegalMove):
        state.apply(game.num_distinct_actions + 5)
    assert state.state.to_dict() == before and state.history == []


def test_nelaxtam_sealed_order_never_reaches_the_other_players_observation() -> None:
    """docs/rules/nelaxtam.md: orders are secret until both are given — a tessera state with Black's sealed order X or Y
    looks the same to White through the adapter (planes and text)."""
    from tessera.adapters.core import AdaptedState

    game = adapt("nelaxtam(size=10,troops=3,by_sea=1)")
    rng = random.Random(0)
    base = game.game.new_initial_state()
    base.play_joint([base.random_move(rng, 0), base.random_move(rng, 1)])
    views = []
    orders = set()
    while len(orders) < 2:
        orders.add(base.random_move(rng, 0))
    for order in sorted(orders):
        st = base.clone()
        st.submit(order, 0)
        views.append(AdaptedState(game, st))
    assert np.array_equal(views[0].observation(1), views[1].observation(1))
    assert views[0].observation_string(1) == views[1].observation_string(1)


def test_core_games_and_agents_never_import_an_adapter() -> None:
    """Issue 17: the adapters are optional extras; nothing in core, games or agents imports them."""
    from pathlib import Path

    root = Path(tessera.__file__).resolve().parent
    for package in ("core", "games", "agents"):
        for path in (root / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "tessera.adapters" not in text and "from tessera import adapters" not in text, path


def test_nymbat_placed_plane_stays_in_range_on_a_later_bring_turn() -> None:
    """Nymbat: "the total placed this turn may not exceed the reserve, nor 30 on the player's first turn
    (first_limit)" — a later turn may place more than first_limit, and the plane still stays in [0, 1]."""
    game = adapt("nymbat(first_limit=2)")
    state = game.new_initial_state()
    for move in ["o1=1", "o2=1", "a1=1", "a2=1", "o3=1", "o4=1", "o5=1"]:  # a full first turn ends by itself
        state.apply(state.string_to_action(move))
    obs = state.observation(0)
    assert obs.min() >= 0.0 and obs.max() <= 1.0
    placed = game.obs.planes.index("bring phase: placed this turn / reserve parameter (constant)")
    assert obs[placed].max() == pytest.approx(3 / 60)


def test_nelaxtam_planes_refuse_decisions_that_are_no_troop_or_token() -> None:
    """Compiled code checks its arguments at the boundary: the plane kernel indexes the board with the
    deciding troop and the pending tokens, so anything else is a ValueError, never a stray write."""
    from tessera.core.observation import Decisions

    ad = adapt("nelaxtam(size=8,variant=quiet)")
    st = ad.new_initial_state().state
    assert st is not None
    n = ad.num_distinct_actions
    for bad in (
        Decisions((), 0),
        Decisions((), 6),
        Decisions((-1,), 1),
        Decisions((n,), 1),
        Decisions(tuple(range(6)), 1),
    ):
        with pytest.raises(ValueError, match="decisions"):
            ad.obs.observe(st, 0, bad)
    legal = st.decision_choices(0, 1, [])
    assert ad.obs.observe(st, 0, Decisions((legal[0],), None)).shape == ad.observation_shape
