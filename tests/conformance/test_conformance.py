"""The conformance suite: every registered game obeys the public API (docs/python-api.md).

Games join automatically: each test is parametrised over ``list_games()`` and
over the one-string forms a game lists in ``GameInfo.examples``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tessera
from tessera import SIMULTANEOUS, TERMINAL, IllegalMove, State
from tessera.core.registry import game_class

GAMES = tessera.list_games()
VARIANTS = [spec for name in GAMES for spec in (name, *game_class(name).info.examples)]
SEEDS = range(3)
MOVES_CHECKED = 40  # per position, a random sample of the legal moves


def step(state: State, rng: random.Random) -> None:
    """Play one random legal move (a joint one at a simultaneous node)."""
    cp = state.current_player()
    if cp == SIMULTANEOUS:
        state.play_joint([state.random_move(rng, p) for p in range(state.game.num_players)])
    else:
        state.play(state.random_move(rng))


def playout(spec: str, seed: int, every: int = 1) -> Iterator[State]:
    """The states of one seeded random game, every ``every``-th (and the last)."""
    game = tessera.load_game(spec)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    n = 0
    while True:
        if n % every == 0 or state.is_terminal():
            yield state
        if state.is_terminal():
            return
        step(state, rng)
        n += 1
        assert n <= game.max_game_length(), "the game outlived max_game_length()"


def movers(state: State) -> list[int]:
    cp = state.current_player()
    if cp == SIMULTANEOUS:
        return list(range(state.game.num_players))
    return [] if cp == TERMINAL else [cp]


@pytest.mark.parametrize("spec", VARIANTS)
def test_game_string_round_trips(spec: str) -> None:
    """docs/python-api.md: ``str(game)`` is the one-string form accepted by ``load_game``."""
    game = tessera.load_game(spec)
    again = tessera.load_game(str(game))
    assert again == game and again.params == game.params
    assert tessera.load_game(game.name, **game.params) == game


@pytest.mark.parametrize("name", GAMES)
def test_unknown_parameter_is_named(name: str) -> None:
    """docs/python-api.md: an unknown parameter raises ValueError naming it and the accepted ones."""
    with pytest.raises(ValueError, match="no_such_param"):
        tessera.load_game(name, no_such_param=1)


@pytest.mark.parametrize("spec", VARIANTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_playout_reaches_the_end(spec: str, seed: int) -> None:
    """Seeded random playouts end, with returns that are a win/loss/draw."""
    *_, last = playout(spec, seed, every=10**9)
    assert last.is_terminal() and last.current_player() == TERMINAL
    r = last.returns()
    n = last.game.num_players
    # a win is +1 for the winner and -1/(n-1) for every other player (-1 with two); a draw all 0
    assert len(r) == n and (r == [0.0] * n or sorted(r) == [-1.0 / (n - 1)] * (n - 1) + [1.0])
    w = last.winner()
    assert (w is None) == (r == [0.0] * n) and (w is None or r[w] == 1.0)
    assert last.legal_moves() == [] and last.legal_actions() == []
    with pytest.raises(IllegalMove):
        last.play("pass")


@pytest.mark.parametrize("spec", VARIANTS)
def test_same_seed_same_game(spec: str) -> None:
    """Randomness is injected: the same seeds give the same game."""
    a = [s.to_dict() for s in playout(spec, 7, every=5)]
    b = [s.to_dict() for s in playout(spec, 7, every=5)]
    assert a == b


@pytest.mark.parametrize("spec", VARIANTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_legal_moves_are_accepted_and_round_trip(spec: str, seed: int) -> None:
    """docs/python-api.md: every string in legal_moves() is accepted by play; notation round-trips."""
    rng = random.Random(seed + 100)
    for state in playout(spec, seed, every=3):
        for p in movers(state):
            moves = state.legal_moves(p)
            if state.current_player() == SIMULTANEOUS and not moves:
                continue  # orders not enumerated here (documented per game)
            assert moves == sorted(moves) and len(set(moves)) == len(moves)
            assert moves, "a player to move must have a legal move"
            for m in rng.sample(moves, min(MOVES_CHECKED, len(moves))):
                assert m == m.strip().lower(), "moves are normalised"
                assert state.is_legal(m, p), m
                if state.current_player() != SIMULTANEOUS:
                    a = state.string_to_action(m)
                    assert state.action_to_string(a) == m
                    child = state.clone()
                    child.play(m)
                    assert child.history()[-1] == (p, m)


@pytest.mark.parametrize("spec", VARIANTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_integer_api_equals_string_api(spec: str, seed: int) -> None:
    """docs/python-api.md: action_to_string(a) is the move string play takes; same results."""
    rng = random.Random(seed)
    for state in playout(spec, seed, every=4):
        cp = state.current_player()
        if cp < 0:
            continue
        actions = state.legal_actions()
        assert sorted(state.action_to_string(a) for a in actions) == state.legal_moves()
        assert all(0 <= a < state.game.num_distinct_actions() for a in actions)
        a = rng.choice(actions)
        by_int, by_str = state.clone(), state.clone()
        by_int.apply_action(a)
        by_str.play(state.action_to_string(a))
        assert by_int.to_dict() == by_str.to_dict()
        assert by_int.history() == by_str.history()


@pytest.mark.parametrize("spec", VARIANTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_position_dict_round_trips(spec: str, seed: int) -> None:
    """docs/python-api.md: to_dict / state_from_dict round-trip exactly: equal dicts, same legal moves."""
    for state in playout(spec, seed, every=2):
        d = state.to_dict()
        assert json.loads(json.dumps(d)) == d, "to_dict() must be JSON-able"
        again = state.game.state_from_dict(json.loads(json.dumps(d)))
        assert again.to_dict() == d
        assert again.current_player() == state.current_player()
        assert again.is_terminal() == state.is_terminal()
        assert again.returns() == state.returns()
        for p in movers(state):
            assert again.legal_moves(p) == state.legal_moves(p)


@pytest.mark.parametrize("spec", VARIANTS)
def test_clone_is_independent(spec: str) -> None:
    """docs/python-api.md: clone() is an independent deep copy."""
    rng = random.Random(5)
    for state in playout(spec, 5, every=3):
        if state.is_terminal():
            break
        before = state.to_dict()
        hist = state.history()
        copy = state.clone()
        assert copy.to_dict() == before
        step(copy, rng)
        assert state.to_dict() == before and state.history() == hist


@pytest.mark.parametrize("spec", VARIANTS)
def test_history_replays_to_the_same_position(spec: str) -> None:
    """A game is its seed plus its moves: replaying history() rebuilds the position."""
    *_, last = playout(spec, 11, every=10**9)
    again = last.game.new_initial_state(seed=11)
    for player, move in last.history():
        if player == SIMULTANEOUS:
            again.play_joint(move.split(" | "))
        else:
            assert again.current_player() == player
            again.play(move)
    assert again.to_dict() == last.to_dict() and again.returns() == last.returns()


@pytest.mark.parametrize("spec", VARIANTS)
def test_render_description_is_complete(spec: str) -> None:
    """Every state has a JSON-able render description whose actions are legal moves."""
    for state in playout(spec, 3, every=7):
        desc = state.render()
        json.dumps(desc)
        for key in ("game", "board", "pieces", "highlights", "players", "to_move", "status", "actions"):
            assert key in desc, key
        cells = {c["id"] for c in desc["board"]["cells"]}
        assert cells and all(p["cell"] in cells for p in desc["pieces"])
        for a in desc["actions"]:
            assert all(c in cells for c in a["path"])
            if "move" in a:
                assert state.is_legal(a["move"]), a
        assert str(state).strip()


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_illegal_strings_raise_and_leave_the_state_unchanged(name: str, data: st.DataObject) -> None:
    """docs/python-api.md: an illegal move raises IllegalMove with a reason and leaves the state exactly as it was."""
    seed = data.draw(st.integers(0, 3), label="seed")
    plies = data.draw(st.integers(0, 30), label="plies")
    state = tessera.load_game(name).new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        step(state, rng)
    legal = set()
    for p in movers(state):
        legal |= set(state.legal_moves(p))
    sample = sorted(legal)[:5]
    junk = data.draw(
        st.one_of(
            st.text(max_size=12),
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789=>@x,-. |", max_size=14),
            st.sampled_from(sample or ["pass"]).map(lambda m: m + "9"),
            st.sampled_from(sample or ["pass"]).map(lambda m: "z" + m),
        ),
        label="move",
    )
    before, hist = state.to_dict(), state.history()
    if state.current_player() == SIMULTANEOUS:
        if all(state.is_legal(junk, p) for p in movers(state)):
            return
        with pytest.raises(IllegalMove) as e:
            state.play_joint([junk] * state.game.num_players)
    else:
        if state.is_legal(junk):
            return
        with pytest.raises(IllegalMove) as e:
            state.play(junk)
    assert str(e.value).strip(), "the error must say why"
    assert state.to_dict() == before and state.history() == hist


@pytest.mark.parametrize("name", GAMES)
def test_non_string_moves_are_refused(name: str) -> None:
    state = tessera.load_game(name).new_initial_state(seed=0)
    before = state.to_dict()
    for bad in (None, 3, ["a1"]):
        with pytest.raises(IllegalMove):
            state.play(bad)  # type: ignore[arg-type]
    assert state.to_dict() == before


@pytest.mark.parametrize("spec", VARIANTS)
def test_random_action_refuses_a_player_not_to_move_and_a_finished_game(spec: str) -> None:
    """Samplers answer like play: IllegalMove, never an IndexError or a move after the end."""
    rng = random.Random(2)
    for state in playout(spec, 2, every=5):
        cp = state.current_player()
        if cp >= 0:
            assert state.random_action(rng) in state.legal_actions()
            with pytest.raises(IllegalMove):
                state.random_action(rng, (cp + 1) % state.game.num_players)
        elif cp == TERMINAL:
            with pytest.raises(IllegalMove):
                state.random_action(rng)


@pytest.mark.parametrize("spec", VARIANTS)
def test_rollouts_leave_the_state_unchanged_and_follow_their_seed(spec: str) -> None:
    """game.py, ``State.rollouts``: "the state itself is not changed", "same seed, same result";
    each rollout is scored by returns() or evaluate, so every total lies in [-n, n]."""
    rng = random.Random(7)
    for state in playout(spec, 0, every=7):
        before = json.dumps(state.to_dict(), sort_keys=True)
        moves = state.move_number()
        res = state.rollouts(3, 11, None if rng.random() < 0.5 else 4)
        assert json.dumps(state.to_dict(), sort_keys=True) == before and state.move_number() == moves
        assert res.n == 3 and len(res.totals) == state.game.num_players
        assert all(-3.0 <= t <= 3.0 for t in res.totals)
        if state.is_terminal():
            assert res.plies == 0 and list(res.totals) == [3 * r for r in state.returns()]
        again = state.rollouts(3, 11, None)
        assert again == state.rollouts(3, 11, None)
        if state.game.num_players == 2:
            assert again.totals[1] == -again.totals[0]


@pytest.mark.parametrize("name", GAMES)
def test_rollouts_refuse_a_negative_count(name: str) -> None:
    """game.py, ``State.rollouts``: n >= 0 and max_plies >= 0 (or None), else ValueError."""
    state = tessera.load_game(name).new_initial_state(seed=0)
    assert state.rollouts(0, 1).n == 0
    with pytest.raises(ValueError, match="n must be"):
        state.rollouts(-1, 1)
    with pytest.raises(ValueError, match="max_plies"):
        state.rollouts(1, 1, -2)
