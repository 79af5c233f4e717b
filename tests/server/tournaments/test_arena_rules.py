"""The arena format (lichess's rules): pairing whoever is free, and the points
(tessera.server.tournaments.arena, tessera.server.tournaments.places)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tessera.server.tournaments.arena import (
    BERSERK_MOVES,
    QUICK_DRAW_MOVES,
    REPAIR_AFTER,
    Free,
    Played,
    pair_free,
    score_games,
)
from tessera.server.tournaments.places import arena_base, places

pytest.importorskip("networkx", reason="the server extras are not installed: pip install -e '.[server]'")


@st.composite
def free_players(draw: st.DrawFn, most: int = 9) -> list[Free]:
    n = draw(st.integers(0, most))
    ids = [f"u{i}" for i in range(n)]
    last: dict[str, str] = {}
    for a, b in draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=n)) if n else []:
        if a != b and a not in last and b not in last:
            last[a], last[b] = b, a
    return [
        Free(
            u,
            draw(st.integers(800, 2400)),
            frozenset({last[u]}) if u in last else frozenset(),
            draw(st.sampled_from([0.0, REPAIR_AFTER + 1.0])),
        )
        for u in ids
    ]


def _repeat(a: Free, b: Free) -> bool:
    return b.user_id in a.last or a.user_id in b.last


def _allowed(a: Free, b: Free) -> bool:
    return not _repeat(a, b) or min(a.waited, b.waited) >= REPAIR_AFTER


def _best(free: list[Free]) -> tuple[int, int]:
    """By brute force: the most games any pairing allows, and the fewest repeats among those."""
    by = {f.user_id: f for f in free}
    best = (0, 0)

    def walk(left: list[str], games: int, repeats: int) -> None:
        nonlocal best
        if (games, -repeats) > (best[0], -best[1]):
            best = (games, repeats)
        if len(left) < 2:
            return
        a, rest = left[0], left[1:]
        walk(rest, games, repeats)  # a waits
        for b in rest:
            if _allowed(by[a], by[b]):
                walk([x for x in rest if x != b], games + 1, repeats + _repeat(by[a], by[b]))

    walk(sorted(by), 0, 0)
    return best


@settings(max_examples=150, deadline=None)
@given(free_players())
def test_no_one_is_paired_twice_at_once_and_only_free_players_are_paired(free: list[Free]) -> None:
    pairs = pair_free(free)
    seated = [u for p in pairs for u in p]
    assert len(seated) == len(set(seated))
    assert set(seated) <= {f.user_id for f in free}
    assert all(len(p) == 2 for p in pairs)


@settings(max_examples=150, deadline=None)
@given(free_players(most=8))
def test_as_many_games_as_possible_and_no_repeated_pairing_when_avoidable(free: list[Free]) -> None:
    """lichess: whoever is free is paired; an immediate re-pairing only when no other pairing makes
    as many games, and never before both waited REPAIR_AFTER seconds."""
    by = {f.user_id: f for f in free}
    pairs = pair_free(free)
    assert all(_allowed(by[a], by[b]) for a, b in pairs)
    games, repeats = _best(free)
    assert len(pairs) == games
    assert sum(_repeat(by[a], by[b]) for a, b in pairs) == repeats


def test_close_ratings_are_preferred() -> None:
    free = [Free("a", 1500), Free("b", 2000), Free("c", 1520), Free("d", 1990)]
    assert {frozenset(p) for p in pair_free(free)} == {frozenset("ac"), frozenset("bd")}


def test_four_seat_tables_take_close_ratings_and_leave_the_rest_waiting() -> None:
    free = [Free(f"u{i}", 1000 + 100 * i) for i in range(10)]
    tables = pair_free(free, 4)
    assert tables == [("u0", "u1", "u2", "u3"), ("u4", "u5", "u6", "u7")]


WIN, LOSS, DRAW = (1, 2), (2, 1), (1, 1)


def test_two_points_a_win_one_a_draw() -> None:
    s = score_games([Played(WIN, 0), Played(DRAW, 1), Played(LOSS, 0)])
    assert s.sheet == [2.0, 1.0, 0.0] and s.points == 3.0


def test_streak_doubles_points_after_two_wins_until_a_game_is_not_won() -> None:
    """lichess: after two wins in a row, each game counts double until one is not a win (a draw on
    fire: 2 points, and the fire is out)."""
    s = score_games([Played(WIN, 0)] * 4 + [Played(DRAW, 0), Played(WIN, 0)])
    assert s.sheet == [2.0, 2.0, 4.0, 4.0, 2.0, 2.0]
    assert not s.fire
    assert score_games([Played(WIN, 0)] * 2).fire


def test_berserk_adds_one_point_to_a_win_only() -> None:
    assert score_games([Played(WIN, 0, True)]).points == 3.0
    assert score_games([Played(DRAW, 0, True)]).points == 1.0
    assert score_games([Played(WIN, 0)] * 2 + [Played(WIN, 0, True)]).sheet == [2.0, 2.0, 5.0]


def test_an_aborted_game_scores_nothing_and_keeps_the_streak() -> None:
    s = score_games([Played(WIN, 0), Played(WIN, 0), Played(None, 0), Played(WIN, 0)])
    assert s.sheet == [2.0, 2.0, 4.0] and s.games == 3


def test_four_player_points_by_finishing_place() -> None:
    """Four-player Nymbat: 4, 2, 1, 0 by place; seats sharing a place share its points."""
    assert arena_base(places([3.0, 1.0, 0.0, -1.0])) == [4.0, 2.0, 1.0, 0.0]
    assert arena_base(places([1.0, 0.0, 0.0, -1.0])) == [4.0, 1.5, 1.5, 0.0]


@st.composite
def game_logs(draw: st.DrawFn) -> list[tuple[tuple[int, ...] | None, list[bool]]]:
    n = draw(st.sampled_from([2, 4]))
    out: list[tuple[tuple[int, ...] | None, list[bool]]] = []
    for _ in range(draw(st.integers(0, 25))):
        if draw(st.integers(0, 9)) == 0:
            out.append((None, [False] * n))
            continue
        returns = draw(st.lists(st.integers(-1, 1), min_size=n, max_size=n))
        out.append((tuple(places(returns)), draw(st.lists(st.booleans(), min_size=n, max_size=n))))
    return out


@settings(max_examples=200, deadline=None)
@given(game_logs())
def test_points_sum_as_the_rules_say(log: list[tuple[tuple[int, ...] | None, list[bool]]]) -> None:
    """All players' points together: each game's place points (2 a two-seat game, 7 a four-seat one),
    doubled for each seat on fire, plus one per berserked win."""
    if not log:
        return
    n = len(log[0][1])
    sheets = [score_games(Played(pl, seat, bz[seat]) for pl, bz in log) for seat in range(n)]
    expected = 0.0
    streak = [0] * n
    for pl, bz in log:
        if pl is None:
            continue
        base = arena_base(pl)
        assert sum(base) == pytest.approx({2: 2, 4: 7}[n])
        for seat in range(n):
            won = pl[seat] == 1 and pl.count(1) == 1
            expected += base[seat] * (2 if streak[seat] >= 2 else 1) + (1 if won and bz[seat] else 0)
            streak[seat] = streak[seat] + 1 if won else 0
    assert sum(s.points for s in sheets) == pytest.approx(expected)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30), st.booleans(), st.integers(0, 3))
def test_a_draw_within_the_first_ten_moves_gives_no_points(a: int, b: int, berserk: bool, wins_before: int) -> None:
    """lichess: "draws within the first 10 moves give no points" — a draw with fewer than 10 moves
    per seat (20 plies of chess) is 0 for both, on fire or not, and is no win (the fire goes out);
    from 10 moves per seat on it is 1 (2 on fire)."""
    log = [Played(WIN, 0, moves=(20, 20))] * wins_before
    quick = a + b < QUICK_DRAW_MOVES * 2
    s = score_games([*log, Played(DRAW, 0, berserk, moves=(a, b))])
    on_fire = wins_before >= 2
    assert s.sheet[-1] == (0.0 if quick else 2.0 if on_fire else 1.0)
    assert not s.fire and s.games == wins_before + 1
    other = score_games([Played(DRAW, 1, moves=(a, b))])
    assert other.sheet == [0.0 if quick else 1.0]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 20), st.integers(0, 20), st.sampled_from([WIN, LOSS, DRAW]), st.integers(0, 3))
def test_berserk_gives_its_extra_point_only_for_a_win_after_seven_moves(
    mine: int, theirs: int, places_: tuple[int, int], wins_before: int
) -> None:
    """lichess: berserk's extra point "only if you play at least 7 moves in the game", and only for a
    win; never doubled by the streak."""
    log = [Played(WIN, 0, moves=(20, 20))] * wins_before
    plain = score_games([*log, Played(places_, 0, False, moves=(mine, theirs))])
    berserked = score_games([*log, Played(places_, 0, True, moves=(mine, theirs))])
    extra = 1.0 if places_ == WIN and mine >= BERSERK_MOVES else 0.0
    assert berserked.sheet[-1] - plain.sheet[-1] == extra
    assert berserked.berserks == (extra == 1.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=0, max_size=12))
def test_the_streak_doubles_after_two_wins_in_a_row_until_a_game_is_not_won(results: list[bool]) -> None:
    """lichess: "after two consecutive wins every further win counts double … until a game is not won"
    (a win is 2, on fire 4; a loss 0)."""
    s = score_games(Played(WIN if w else LOSS, 0) for w in results)
    streak = 0
    for w, pts in zip(results, s.sheet, strict=True):
        assert pts == (0.0 if not w else 4.0 if streak >= 2 else 2.0)
        streak = streak + 1 if w else 0
    assert s.fire == (streak >= 2)


@settings(max_examples=150, deadline=None)
@given(free_players(), st.data())
def test_players_of_whom_one_blocks_the_other_are_never_paired(free: list[Free], data: st.DataObject) -> None:
    """Moderation blocks: "a user who blocked another is never paired with them" — in an arena always
    avoidable (they wait for someone else); everyone else is paired as without the blocks."""
    ids = [f.user_id for f in free]
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=6)) if ids else []
    apart = {frozenset(p) for p in pairs if p[0] != p[1]}
    made = pair_free(free, apart=apart)
    assert not any(frozenset(p) in apart for p in made)
    seated = [u for p in made for u in p]
    assert len(seated) == len(set(seated))
    tables = pair_free(free, 4, apart=apart)
    assert not any(frozenset((u, v)) in apart for t in tables for u in t for v in t if u != v)
