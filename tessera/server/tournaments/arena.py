"""The arena format (lichess's rules), as plain functions: who is paired, and the points.

**Pairing.**  Whoever is free (not in a game, not withdrawn) is paired, in waves.  Two-seat games:
a maximum matching of the free players (as many games as possible), among those the fewest
*immediate re-pairings* (two players whose last games were against each other), and among those
the smallest sum of rating gaps (:func:`pair_free`).  A re-pairing is only allowed at all between
players who both have waited :data:`REPAIR_AFTER` seconds; before that they wait for someone
else.  Games of more seats (four-player Nymbat): the free players by rating, in tables of that
size, the closest ratings together; the few left over wait for the next wave.

**Scoring** (:func:`score_games`).  Two seats: 2 points a win, 1 a draw, 0 a loss; more seats: the
table :data:`tessera.server.tournaments.places.ARENA_PLACE_POINTS` by finishing place.  After two
wins in a row a player is *on fire*: each game's points are doubled until one that is not a win.
A player who *berserked* (halved his own clock at the start) and wins gets one extra point (never
doubled) when he made at least :data:`BERSERK_MOVES` moves in the game (lichess).  A draw in which
fewer than :data:`QUICK_DRAW_MOVES` moves per seat were made scores 0 for everyone (lichess: "draws
within the first 10 moves give no points") and puts out the fire.  An aborted game scores nothing
and leaves the streak as it was.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from tessera.server.tournaments.places import arena_base, wins

REPAIR_AFTER = 10.0
"""Seconds two players who just met must both have waited before they may meet again."""

NEIGHBOURS = 24
"""Each free player is considered against at most this many of the closest ratings (the matching's size)."""

QUICK_DRAW_MOVES = 10
"""A draw before this many moves per seat (the game's turns under ``seats`` × this; lichess: 10 moves,
20 plies of chess) gives no points to anyone."""

BERSERK_MOVES = 7
"""A berserker's win is worth the extra point only when he made at least this many moves (lichess)."""

REPEAT_COST = 1e9
"""The cost of one immediate re-pairing: above any wave's sum of rating gaps (1,000 players, gaps
under 4,000: 2e6), so fewer repeats come first."""


@dataclass(frozen=True)
class Free:
    """A player waiting to be paired."""

    user_id: str
    """The account."""
    rating: float
    """Its rating in the tournament's pool."""
    last: frozenset[str] = frozenset()
    """The accounts of its last game's other seats (empty before its first game)."""
    waited: float = 0.0
    """Seconds since its last game ended (or since it joined)."""


def _repeat(a: Free, b: Free) -> bool:
    return b.user_id in a.last or a.user_id in b.last


def pair_free(
    free: Sequence[Free],
    seats: int = 2,
    *,
    repair_after: float = REPAIR_AFTER,
    apart: Collection[frozenset[str]] = frozenset(),
) -> list[tuple[str, ...]]:
    """The games to start now: tuples of account ids in seat order (the first seat is drawn later).
    ``apart``: pairs of accounts never seated together (one blocks the other).

    >>> pair_free([Free("a", 1500), Free("b", 1900), Free("c", 1510), Free("d", 1880)])
    [('a', 'c'), ('d', 'b')]
    >>> pair_free([Free("a", 1500, frozenset({"b"})), Free("b", 1500, frozenset({"a"}))])
    []
    """
    if seats != 2:
        return _tables(free, seats, apart)
    import networkx as nx

    order = sorted(free, key=lambda f: (f.rating, f.user_id))
    g = nx.Graph()
    for i, a in enumerate(order):
        for b in order[i + 1 : i + 1 + NEIGHBOURS]:
            if frozenset((a.user_id, b.user_id)) in apart:
                continue
            repeat = _repeat(a, b)
            if repeat and min(a.waited, b.waited) < repair_after:
                continue
            cost = abs(a.rating - b.rating) + (REPEAT_COST if repeat else 0.0)
            g.add_edge(a.user_id, b.user_id, weight=10.0 * REPEAT_COST - cost)
    matched = nx.max_weight_matching(g, maxcardinality=True)
    rank = {f.user_id: i for i, f in enumerate(order)}
    pairs = [tuple(sorted(p, key=lambda u: rank[u])) for p in matched]
    return sorted(pairs, key=lambda p: rank[p[0]])  # type: ignore[return-value]


def _tables(free: Sequence[Free], seats: int, apart: Collection[frozenset[str]] = frozenset()) -> list[tuple[str, ...]]:
    """By rating, ``seats`` at a time; a table takes the next player by rating who is apart from none
    of its players (the ones skipped stay for the next tables)."""
    queue = [f.user_id for f in sorted(free, key=lambda f: (f.rating, f.user_id))]
    out: list[tuple[str, ...]] = []
    while len(queue) >= seats:
        table = [queue.pop(0)]
        for u in list(queue):
            if len(table) == seats:
                break
            if not any(frozenset((u, v)) in apart for v in table):
                table.append(u)
                queue.remove(u)
        if len(table) == seats:
            out.append(tuple(table))
    return out


@dataclass(frozen=True)
class Played:
    """One finished tournament game as one player saw it, in the order the games ended."""

    places: tuple[int, ...] | None
    """Every seat's finishing place (None: aborted)."""
    seat: int
    """This player's seat."""
    berserk: bool = False
    """Whether this player berserked."""
    moves: tuple[int, ...] | None = None
    """The moves each seat made in the game (None: not known, a game recorded before they were: the
    quick-draw and berserk-moves rules are then not applied)."""

    def quick_draw(self) -> bool:
        """A draw (every seat sharing the first place) with fewer than :data:`QUICK_DRAW_MOVES` moves
        per seat."""
        if self.places is None or self.moves is None or any(p != 1 for p in self.places):
            return False
        return sum(self.moves) < QUICK_DRAW_MOVES * len(self.places)

    def berserk_counts(self) -> bool:
        """Whether this player berserked and made at least :data:`BERSERK_MOVES` moves."""
        return self.berserk and (self.moves is None or self.moves[self.seat] >= BERSERK_MOVES)


@dataclass
class ArenaScore:
    """A player's arena score."""

    points: float = 0.0
    """The total."""
    sheet: list[float] = field(default_factory=list)
    """Each game's points, in order (aborted games left out)."""
    fire: bool = False
    """On fire now: the next game's points are doubled."""
    streak: int = 0
    """Wins in a row now."""
    wins: int = 0
    games: int = 0
    berserks: int = 0
    """Games won after berserking that earned the extra point."""


def score_games(games: Iterable[Played]) -> ArenaScore:
    """One player's arena score from his finished games in the order they ended.

    >>> s = score_games([Played((1, 2), 0), Played((1, 2), 0), Played((1, 2), 0, True), Played((1, 1), 0)])
    >>> s.sheet, s.points, s.fire
    ([2.0, 2.0, 5.0, 2.0], 11.0, False)
    """
    out = ArenaScore()
    for g in games:
        if g.places is None:
            continue
        won = wins(g.places)[g.seat]
        extra = won and g.berserk_counts()
        if g.quick_draw():
            pts = 0.0
        else:
            pts = arena_base(g.places)[g.seat] * (2 if out.streak >= 2 else 1) + (1.0 if extra else 0.0)
        out.sheet.append(pts)
        out.points += pts
        out.games += 1
        out.streak = out.streak + 1 if won else 0
        out.wins += won
        out.berserks += extra
    out.fire = out.streak >= 2
    return out
