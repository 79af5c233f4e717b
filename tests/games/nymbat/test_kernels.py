"""Nymbat's compiled kernels (issue 13) against the rules they implement: random playouts of two
and four players where every listed step is accepted, every drawn step is listed, refused steps
change nothing, and batch rollouts agree with the games' returns."""

from __future__ import annotations

import random

import pytest

import tessera
from tessera import IllegalMove
from tessera.games.nymbat import END, NUM_ACTIONS, PASS, PLACE_BASE, NymbatState
from tessera.games.nymbat import kernels as _k

SMALL = ("nymbat(reserve=14,first_limit=9,max_turns=120)", "nymbat(players=4,reserve=12,first_limit=8,max_turns=160)")


@pytest.mark.parametrize("spec", SMALL)
@pytest.mark.parametrize("seed", range(4))
def test_listed_steps_are_accepted_and_drawn_steps_are_listed(spec: str, seed: int) -> None:
    """A turn is made of steps ("bring in", "move a group", "pass", breakthrough removals, "lose"):
    along random games every step ``legal_actions`` lists is accepted by the check, every step
    ``random_action`` draws is one of them, and a step not listed is refused with a sentence and
    leaves the position as it was."""
    game = tessera.load_game(spec)
    st = game.new_initial_state()
    rng = random.Random(seed)
    while not st.is_terminal():
        legal = st.legal_actions()
        assert legal == sorted(set(legal), key=legal.index)  # no step twice
        listed = set(legal)
        assert all(st.why_illegal(st.action_to_string(a)) is None for a in rng.sample(legal, min(8, len(legal))))
        drawn = st.random_action(rng)
        assert drawn in listed
        for a in (rng.randrange(NUM_ACTIONS) for _ in range(6)):
            if a in listed:
                continue
            before = st.to_dict()
            with pytest.raises(IllegalMove) as err:
                st.apply_action(a)
            assert str(err.value) and st.to_dict() == before
        st.apply_action(drawn)
    assert st.returns() in ([0.0] * game.num_players, *_wins(game.num_players))


def _wins(n: int) -> list[list[float]]:
    """Every vector of returns with a winner (docs/rules/nymbat.md: winner +1, every other player −1/(n−1))."""
    out = []
    for w in range(n):
        r = [-1.0 / (n - 1)] * n
        r[w] = 1.0
        out.append(r)
    return out


@pytest.mark.parametrize("spec", ("nymbat", "nymbat(players=4)"))
def test_rollouts_to_the_end_sum_the_returns_of_finished_games(spec: str) -> None:
    """``State.rollouts`` without a cut-off plays games to their end: each game adds its returns
    (winner +1, the others −1/(n−1), a safeguard draw 0), so the totals are a sum of such vectors;
    the state itself does not change and the same seed gives the same result."""
    game = tessera.load_game(spec)
    st = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(40):  # from a position a few turns in
        st.apply_action(st.random_action(rng))
    before = st.to_dict()
    n = game.num_players
    for seed in range(5):
        one = st.rollouts(1, seed)
        assert list(one.totals) in ([0.0] * n, *_wins(n)) and one.plies > 0
    many = st.rollouts(12, 99)
    assert many == st.rollouts(12, 99) and st.to_dict() == before
    assert abs(sum(many.totals)) < 1e-9  # every game's returns sum to 0
    assert all(abs(t * (n - 1) - round(t * (n - 1))) < 1e-9 and -12 <= t <= 12 for t in many.totals)


def test_rollouts_cut_off_score_by_the_evaluation() -> None:
    """A rollout cut off after ``max_plies`` steps is scored by ``evaluate`` (two players: player 1
    gets minus player 0's value); ``max_plies=0`` scores the position itself."""
    for spec in ("nymbat", "nymbat(players=4)"):
        game = tessera.load_game(spec)
        st = game.new_initial_state()
        rng = random.Random(5)
        for _ in range(60):
            st.apply_action(st.random_action(rng))
        res = st.rollouts(3, 1, max_plies=0)
        assert res.plies == 0
        want = [3 * st.evaluate(p) for p in range(game.num_players)]
        if game.num_players == 2:
            want[1] = -want[0]
        assert res.totals == pytest.approx(want)
        cut = st.rollouts(4, 2, max_plies=7)
        assert cut.plies <= 28 and all(-4 <= t <= 4 for t in cut.totals)


def test_random_action_draws_the_kinds_of_step_at_the_documented_rates() -> None:
    """``random_action`` at the start of a turn with nothing to bring in: a group move 97%, a pass 3%
    (module docstring); while moving, ``end`` about 1/6 of the draws with no breakthrough open."""
    st = tessera.load_game("nymbat").state_from_dict(
        {
            "to_move": 0,
            "pieces": {"h5": [0, 3], "h6": [0, 2], "c4": [1, 1]},
            "reserves": [0, 5],
            "first_turn_done": [True, True],
        }
    )
    assert isinstance(st, NymbatState)
    rng = random.Random(8)
    draws = [st.random_action(rng) for _ in range(4000)]
    passes = draws.count(PASS) / len(draws)
    assert 0.015 < passes < 0.05 and all(a < PASS for a in draws if a != PASS)
    st.apply_action(next(a for a in st.legal_actions() if a < PLACE_BASE))
    assert st.to_dict()["in_turn"]["phase"] == "move"
    draws = [st.random_action(rng) for _ in range(4000)]
    ends = draws.count(END) / len(draws)
    assert 0.12 < ends < 0.22


def test_a_clone_is_independent() -> None:
    """Cloning copies the position: steps on the clone leave the original as it was."""
    st = tessera.load_game("nymbat(players=4)").new_initial_state()
    rng = random.Random(1)
    for _ in range(30):
        st.apply_action(st.random_action(rng))
    before = st.to_dict()
    twin = st.clone()
    for _ in range(30):
        if twin.is_terminal():
            break
        twin.apply_action(twin.random_action(rng))
    assert st.to_dict() == before and twin.to_dict() != before


def test_a_position_dict_with_a_huge_count_placed_is_refused() -> None:
    """docs/rules/nymbat.md: "The total placed this turn may not exceed the reserve" (reserves reach 10**6 in a position
    dict): a bring-in turn that claims more is a ValueError naming the field, not an overflow."""
    game = tessera.load_game("nymbat")
    d = {
        "to_move": 0,
        "pieces": {},
        "reserves": [60, 60],
        "first_turn_done": [True, True],
        "in_turn": {"phase": "bring", "placed": 10**12},
    }
    with pytest.raises(ValueError, match="in_turn placed"):
        game.state_from_dict(d)


@pytest.mark.parametrize("spec", ("nymbat", "nymbat(players=4)"))
def test_evaluate_refuses_a_seat_that_is_not_in_the_game(spec: str) -> None:
    """The evaluation is per seat (0 to players − 1); another number is an error, not a value."""
    st = tessera.load_game(spec).new_initial_state()
    n = st.game.num_players
    assert all(-1 <= st.evaluate(p) <= 1 for p in range(n))
    for bad in (-1, n, 7):
        with pytest.raises(IndexError):
            st.evaluate(bad)


def _moves_by_reading(st: NymbatState) -> list[int]:
    """The move steps of ``st`` read off the rules with a plain breadth-first search (the test's oracle).

    docs/rules/nymbat.md: "Each piece of the group may then move once, one after another, to a hex
    at most `speed` steps away, stepping only through empty hexes or hexes holding the player's own
    pieces (of the group or not). A piece may not stop on one of its own side's pieces and may
    never pass through an enemy piece, but its last step may enter one: an *attack*."  The order is
    :func:`~tessera.games.nymbat.kernels.legal`'s: groups in the order of their lowest hex, pieces
    ascending within a group, destinations ascending.
    """
    s, geo, p = st.s, st.game.geo, st.to_move
    owner = [int(x) for x in s[_k.OWNER : _k.OWNER + _k.N]]
    nbs = [[int(x) for x in geo[c, :6] if x >= 0] for c in range(_k.N)]

    def reach(src: int, speed: int) -> list[int]:
        seen, level, ends = {src}, [src], set()
        for _ in range(speed):
            nxt = []
            for c in level:
                for nb in nbs[c]:
                    if nb in seen:
                        continue
                    seen.add(nb)
                    if owner[nb] != p:  # empty, or an enemy piece: an attack
                        ends.add(nb)
                    if owner[nb] < 0 or owner[nb] == p:  # passed through: empty or own
                        nxt.append(nb)
            level = nxt
        return sorted(ends)

    def group(c: int) -> list[int]:
        found, todo = {c}, [c]
        while todo:
            for nb in nbs[todo.pop()]:
                if nb not in found and owner[nb] == p:
                    found.add(nb)
                    todo.append(nb)
        return sorted(found)

    phase = int(s[_k.H + _k.PHASE])
    movers: list[tuple[int, int]] = []  # (piece, speed) in the listing's order
    if phase == _k.MOVE:
        speed = int(s[_k.H + _k.SPEED])
        movers = [(c, speed) for c in range(_k.N) if s[_k.FLAG + c] & _k.UNMOVED]
    elif phase == _k.START and s[_k.H + _k.FIRST + p]:
        done: set[int] = set()
        for c in range(_k.N):
            if owner[c] == p and c not in done:
                g = group(c)
                done.update(g)
                speed = min(int(s[_k.NUM + m]) for m in g)
                movers += [(m, speed) for m in g]
    return [src * _k.N + dst for src, speed in movers for dst in reach(src, speed)]


@pytest.mark.parametrize("spec", ("nymbat", "nymbat(players=4)", "nymbat(reserve=150,first_limit=80)"))
def test_a_piece_moves_at_most_speed_steps_through_empty_or_own_hexes_and_may_end_on_an_enemy(spec: str) -> None:
    """The moves ``legal_actions`` lists (computed a level at a time on bit boards of the hexes) are
    exactly, and in the same order, those of a plain breadth-first reading of the rule (quoted in
    :func:`_moves_by_reading`), on a few hundred positions of random games, in the start and the move
    phase of a turn."""
    game = tessera.load_game(spec)
    rng = random.Random(11)
    checked = moving = 0
    while checked < 300:
        st = game.new_initial_state()
        while not st.is_terminal() and checked < 300:
            assert isinstance(st, NymbatState)
            if rng.random() < 0.3:
                listed = [a for a in st.legal_actions() if a < PLACE_BASE]
                assert listed == _moves_by_reading(st)
                checked += 1
                moving += st.phase == _k.MOVE
            st.apply_action(st.random_action(rng))
    assert moving > 50
