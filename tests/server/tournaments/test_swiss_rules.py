"""The Swiss format: FIDE Dutch pairings checked against published ones, byes, withdrawals, the
Buchholz and Sonneborn–Berger tie-breaks, tables of four (tessera.server.tournaments.swiss).

The published pairings in ``data/`` are two tournaments paired by bbpPairings (a FIDE-endorsed
Dutch program) in FIDE's Tournament Report File format, from the caissify-pairings repository's
``tests/fixtures/fide_official/`` (Apache-2.0): every round of ours must be theirs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tessera.server.tournaments import swiss
from tessera.server.tournaments.swiss import Entrant, Table

pytest.importorskip("caissify_pairings", reason="the server extras are not installed: pip install -e '.[server]'")

DATA = Path(__file__).parent / "data"

RESULT_PLACES = {"1": (1, 2), "0": (2, 1), "=": (1, 1)}


def read_trf(path: Path) -> tuple[list[Entrant], list[list[Table]]]:
    """Players and rounds of a FIDE TRF file (player lines ``001``: number, rating, then per round
    opponent, colour and result; ``0000 - U`` a bye)."""
    ratings: dict[str, int] = {}
    games: dict[str, list[tuple[str, str, str]]] = {}
    for line in path.read_text().splitlines():
        if not line.startswith("001"):
            continue
        me = f"p{int(line[4:8]):02d}"
        ratings[me] = int(line[48:52])
        games[me] = re.findall(r"\s+(\d{1,4}) ([wb-]) ([10=U])", line[89:])
    n_rounds = len(next(iter(games.values())))
    rounds: list[list[Table]] = []
    for k in range(n_rounds):
        tables = []
        for me, rs in games.items():
            opp, colour, res = rs[k]
            if res == "U":
                tables.append(Table((me,), bye=True))
            elif colour == "w":
                tables.append(Table((me, f"p{int(opp):02d}"), places=RESULT_PLACES[res]))
        rounds.append(tables)
    return [Entrant(u, r) for u, r in ratings.items()], rounds


@pytest.mark.parametrize("name", ["bbp_10p5r_s42.trf", "bbp_11p5r_s42.trf"])
def test_every_round_is_the_published_dutch_pairing(name: str) -> None:
    """FIDE C.04.3: each round, paired from the results before it, is exactly the endorsed program's
    (who meets whom, who has seat 0 — white — and who gets the bye)."""
    entrants, rounds = read_trf(DATA / name)
    first = "white" if any(t.users[0] == "p01" for t in rounds[0] if not t.bye) else "black"  # drawn by lot
    for k, published in enumerate(rounds):
        ours = swiss.pair_round(entrants, rounds[:k], len(rounds), first_seat=first)
        assert {(t.users, t.bye) for t in ours} == {(t.users, t.bye) for t in published}, f"round {k + 1}"


def test_round_one_pairs_the_top_half_against_the_bottom_half() -> None:
    """FIDE C.04.3: in round 1 the first of the top half meets the first of the bottom half, and so
    on, the seats alternating down the boards."""
    entrants = [Entrant(f"p{i}", 2000 - 10 * i) for i in range(1, 9)]
    tables = swiss.pair_round(entrants, [], 5)
    assert [t.users for t in tables] == [("p1", "p5"), ("p6", "p2"), ("p3", "p7"), ("p8", "p4")]


def test_the_bye_is_one_point_and_goes_to_the_bottom() -> None:
    """An odd number of players: the lowest-ranked player sits out with one point."""
    entrants = [Entrant(f"p{i}", 2000 - 10 * i) for i in range(1, 6)]
    tables = swiss.pair_round(entrants, [], 3)
    byes = [t for t in tables if t.bye]
    assert [t.users for t in byes] == [("p5",)]
    assert swiss.lines(entrants, [tables])["p5"].points == swiss.BYE_POINTS == 1.0


def test_a_withdrawn_player_is_paired_no_more_but_keeps_his_games() -> None:
    entrants = [Entrant(f"p{i}", 2000 - 10 * i) for i in range(1, 5)]
    r1 = [Table(("p1", "p3"), places=(1, 2)), Table(("p4", "p2"), places=(2, 1))]
    gone = [Entrant(e.user_id, e.rating, e.user_id != "p3") for e in entrants]
    r2 = swiss.pair_round(gone, [r1], 3)
    assert all("p3" not in t.users for t in r2)
    assert sorted(u for t in r2 for u in t.users) == ["p1", "p2", "p4"]
    assert swiss.lines(gone, [r1])["p3"].games == 1


def test_buchholz_and_sonneborn_berger_by_hand() -> None:
    """Buchholz: the sum of the opponents' scores; Sonneborn–Berger: the scores of the opponents beaten,
    and half of those drawn with."""
    e = [Entrant(u, 1500) for u in "abcd"]
    r1 = [Table(("a", "b"), places=(1, 2)), Table(("c", "d"), places=(1, 1))]
    r2 = [Table(("a", "c"), places=(1, 1)), Table(("b", "d"), places=(2, 1))]
    ln = swiss.lines(e, [r1, r2])
    assert {u: ln[u].points for u in "abcd"} == {"a": 1.5, "b": 0.0, "c": 1.0, "d": 1.5}
    assert ln["a"].buchholz == 0.0 + 1.0
    assert ln["a"].sonneborn_berger == 0.0 * 1 + 1.0 * 0.5
    assert ln["d"].buchholz == 1.0 + 0.0 and ln["d"].sonneborn_berger == 0.5 * 1.0 + 0.0


def test_a_game_that_ran_past_the_round_deadline_counts_as_a_draw() -> None:
    assert swiss.table_points(Table(("a", "b"), lapsed=True)) == [0.5, 0.5]
    assert swiss.table_points(Table(("a", "b"), aborted=True)) == [0.0, 0.0]


def _play(tables: list[Table], draw: Callable[[st.SearchStrategy[float]], float]) -> list[Table]:
    out = []
    for t in tables:
        if t.bye:
            out.append(t)
            continue
        returns = [draw(st.sampled_from([-1.0, 0.0, 1.0])) for _ in t.users]
        out.append(Table(t.users, places=tuple(1 + sum(r > m for r in returns) for m in returns)))
    return out


@st.composite
def tournaments(draw: st.DrawFn, seats: int = 2) -> tuple[list[Entrant], list[list[Table]]]:
    n = draw(st.integers(2 * seats if seats > 2 else 3, 12))
    n_rounds = draw(st.integers(1, min(5, n - 1) if seats == 2 else 3))
    entrants = [Entrant(f"p{i:02d}", draw(st.integers(1000, 2500))) for i in range(n)]
    rounds: list[list[Table]] = []
    for _ in range(n_rounds):
        rounds.append(_play(swiss.pair_round(entrants, rounds, n_rounds, seats), draw))
    return entrants, rounds


def _pairable(players: list[str], met: set[frozenset[str]]) -> bool:
    """Whether ``players`` can all be paired with no pairing repeated (brute force)."""
    if not players:
        return True
    a, rest = players[0], players[1:]
    return any(_pairable([x for x in rest if x != b], met) for b in rest if frozenset((a, b)) not in met)


@settings(max_examples=40, deadline=None)
@given(tournaments())
def test_each_round_seats_every_active_player_once_and_never_repeats_a_pairing(
    t: tuple[list[Entrant], list[list[Table]]],
) -> None:
    """No one is paired twice in a round, no pairing is repeated (FIDE C.04.3 C1: absolute, in
    tournaments of fewer rounds than half the players … and more, here up to n - 1), at most one bye
    each while a pairing without repeats can give the bye to a player without one (C2; with as many
    rounds as players less one, both cannot always hold), and the points add up: one a game, one a
    bye."""
    entrants, rounds = t
    met: set[frozenset[str]] = set()
    had_bye: set[str] = set()
    for rnd in rounds:
        seated = [u for tb in rnd for u in tb.users]
        assert sorted(seated) == sorted(e.user_id for e in entrants)
        for tb in rnd:
            if tb.bye and tb.users[0] in had_bye:  # a second bye: only when no one without one could have it
                others = [u for u in seated if u not in had_bye]
                assert not any(_pairable([v for v in seated if v != u], met) for u in others)
        for tb in rnd:
            if not tb.bye:
                pair = frozenset(tb.users)
                assert pair not in met
                met.add(pair)
            else:
                had_bye.add(tb.users[0])
    ln = swiss.lines(entrants, rounds)
    games = sum(1 for rnd in rounds for tb in rnd if not tb.bye)
    byes = sum(1 for rnd in rounds for tb in rnd if tb.bye)
    assert sum(x.points for x in ln.values()) == pytest.approx(games + byes)


@settings(max_examples=30, deadline=None)
@given(tournaments(seats=4))
def test_four_seat_rounds_seat_everyone_once_and_give_points_by_place(
    t: tuple[list[Entrant], list[list[Table]]],
) -> None:
    """Tables of four: each player once a round, the few left over sit out with a bye; a table's
    points are 1, ⅔, ⅓, 0 by place (2 in all)."""
    entrants, rounds = t
    for rnd in rounds:
        assert sorted(u for tb in rnd for u in tb.users) == sorted(e.user_id for e in entrants)
        assert all(len(tb.users) == 4 for tb in rnd if not tb.bye)
        assert sum(1 for tb in rnd if tb.bye) == len(entrants) % 4
    ln = swiss.lines(entrants, rounds)
    tables = sum(1 for rnd in rounds for tb in rnd if not tb.bye)
    byes = sum(1 for rnd in rounds for tb in rnd if tb.bye)
    assert sum(x.points for x in ln.values()) == pytest.approx(2 * tables + byes)


def test_four_seat_tables_avoid_players_who_met_when_they_can() -> None:
    e = [Entrant(f"p{i}", 2000 - i) for i in range(8)]
    r1 = swiss.pair_round(e, [], 2, 4)
    r1 = [Table(tb.users, places=(1, 2, 3, 4)) for tb in r1]
    r2 = swiss.pair_round(e, [r1], 2, 4)
    met = {frozenset(p) for tb in r1 for p in combinations(tb.users, 2)}
    again = [frozenset(p) for tb in r2 for p in combinations(tb.users, 2) if frozenset(p) in met]
    assert len(again) <= 4  # two tables of four from two tables of four: each new table mixes both
    assert {frozenset(tb.users) for tb in r2}.isdisjoint({frozenset(tb.users) for tb in r1})


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_players_of_whom_one_blocks_the_other_are_paired_only_when_unavoidable(data: st.DataObject) -> None:
    """Moderation blocks: "a user who blocked another is never paired with them when avoidable" — a
    round seats a blocked pair only when no pairing of its players (the same bye) avoids every blocked
    pair, and repeats a pairing only when no pairing avoids both the blocked and the repeated ones."""
    n = data.draw(st.integers(3, 8))
    entrants = [Entrant(f"p{i:02d}", data.draw(st.integers(1000, 2500))) for i in range(n)]
    ids = [e.user_id for e in entrants]
    blocks = data.draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), min_size=1, max_size=4))
    apart = {frozenset(b) for b in blocks if b[0] != b[1]}
    rounds: list[list[Table]] = []
    met: set[frozenset[str]] = set()
    for _ in range(data.draw(st.integers(1, min(4, n - 1)))):
        tables = swiss.pair_round(entrants, rounds, 4, apart=apart)
        players = [u for tb in tables if not tb.bye for u in tb.users]
        seated_blocked = [tb for tb in tables if not tb.bye and frozenset(tb.users) in apart]
        if seated_blocked:
            assert not _pairable(players, apart)
        for tb in tables:
            if not tb.bye:
                assert frozenset(tb.users) not in met or not _pairable(players, met | apart)
                met.add(frozenset(tb.users))
        rounds.append(_play(tables, data.draw))


def test_four_seat_tables_keep_blocked_players_apart() -> None:
    entrants = [Entrant(f"p{i}", 2000 - i) for i in range(8)]
    tables = swiss.pair_round(entrants, [], 3, 4, apart={frozenset(("p0", "p1"))})
    assert sorted(u for t in tables for u in t.users) == sorted(e.user_id for e in entrants)
    assert not any({"p0", "p1"} <= set(t.users) for t in tables)
