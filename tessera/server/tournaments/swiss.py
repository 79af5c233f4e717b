"""The Swiss format, as plain functions: a round's pairings, the scores and the tie-breaks.

**Two seats**: the FIDE Dutch system (Handbook C.04.3), computed by the ``caissify-pairings``
library (checked by its authors against the FIDE-endorsed bbpPairings on 70,000 rounds).  Seat 0
plays as "white".  Each round the library is told every player's score, starting number (by
rating when the tournament started), seats so far, floats and byes, and who met whom; it pairs
score groups top half against bottom half with no repeated pairing, alternating seats, and gives
the bye (one point, at most one per player) to a player at the bottom.

**More seats** (four-player Nymbat): the players by score, then rating, seated in tables of that
size; a table takes the next player who has met none of its players so far when there is one;
the players left over (fewer than a table) sit out with a bye, the lowest-ranked without a bye
first.

**Points**: 1 for the best place, 0 for the worst, evenly between (two seats: 1, ½, 0); a bye is
1; an aborted game 0 for every seat; a game still running when its round's deadline passed
counts as a draw.  **Blocks** (tessera.server.moderation): two players of whom one blocks the
other are kept apart — from round 2 the library is told they met already (it then never pairs
them when a pairing without repeats exists; when none does, a repeated pairing comes before a
blocked one), and any table that still seats them (round 1's top-against-bottom split, four-seat
tables) is mended by exchanging one of them with a player of the nearest table whose exchange
seats no blocked pair and no repeated pairing.  **Tie-breaks**: Buchholz (the sum of the final
scores of every opponent met)
and Sonneborn–Berger (the sum of each opponent's final score times one's own result against
him: 1 ahead of him, ½ level, 0 behind).  Byes count in neither.  A withdrawn player is paired no
more; his games stay in the table.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from tessera.server.tournaments.places import swiss_points

BYE_POINTS = 1.0
"""What a bye is worth."""


@dataclass(frozen=True)
class Entrant:
    """A player of a Swiss tournament."""

    user_id: str
    rating: float
    """Rating when the tournament started (orders the starting numbers)."""
    active: bool = True
    """False once withdrawn: paired no more."""


@dataclass(frozen=True)
class Table:
    """One game of a round (or a bye: one player, ``places`` None)."""

    users: tuple[str, ...]
    """The accounts in seat order."""
    places: tuple[int, ...] | None = None
    """Finishing places once over; None while running, or for a bye."""
    bye: bool = False
    aborted: bool = False
    """Over without a result: 0 for every seat."""
    lapsed: bool = False
    """Still running when the round's deadline passed: a draw."""


@dataclass
class Line:
    """A player's line in the Swiss table."""

    user_id: str
    points: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    byes: int = 0
    games: int = 0
    seats: list[int | None] = field(default_factory=list)
    """Per round: the seat played (None: no game)."""
    floats: list[str] = field(default_factory=list)
    """Per round: ``up``, ``down`` or ``none``."""
    met: list[tuple[str, float]] = field(default_factory=list)
    """Every (opponent, own result against him)."""


def table_points(t: Table) -> list[float]:
    """Points per seat of one finished table (a bye: :data:`BYE_POINTS`)."""
    if t.bye:
        return [BYE_POINTS]
    if t.aborted:
        return [0.0] * len(t.users)
    if t.lapsed:
        return swiss_points([1] * len(t.users))
    if t.places is None:
        return [0.0] * len(t.users)
    return swiss_points(t.places)


def _against(t: Table, i: int, j: int) -> float:
    if t.aborted or t.places is None:
        return 0.5 if t.lapsed else 0.0
    a, b = t.places[i], t.places[j]
    return 1.0 if a < b else 0.5 if a == b else 0.0


def lines(entrants: Sequence[Entrant], rounds: Sequence[Sequence[Table]]) -> dict[str, Line]:
    """Every player's line after ``rounds`` (each a list of tables; running tables score nothing)."""
    out = {e.user_id: Line(e.user_id) for e in entrants}
    for rnd in rounds:
        before = {u: ln.points for u, ln in out.items()}
        seen: set[str] = set()
        for t in rnd:
            pts = table_points(t)
            for i, u in enumerate(t.users):
                ln = out.setdefault(u, Line(u))
                seen.add(u)
                ln.points += pts[i]
                if t.bye:
                    ln.byes += 1
                    ln.seats.append(None)
                    ln.floats.append("down")
                    continue
                ln.games += 1
                ln.seats.append(i)
                others = [before.get(v, 0.0) for k, v in enumerate(t.users) if k != i]
                mine = before.get(u, 0.0)
                ln.floats.append(
                    "down" if all(mine > o for o in others) else "up" if all(mine < o for o in others) else "none"
                )
                for j, v in enumerate(t.users):
                    if j != i:
                        ln.met.append((v, _against(t, i, j)))
        for u, ln in out.items():
            if u not in seen:
                ln.seats.append(None)
                ln.floats.append("none")
    for ln in out.values():
        ln.buchholz = sum(out[v].points for v, _ in ln.met if v in out)
        ln.sonneborn_berger = sum(out[v].points * r for v, r in ln.met if v in out)
    return out


def starting_numbers(entrants: Sequence[Entrant]) -> dict[str, int]:
    """Starting numbers 1…n: the highest rating first (ties: by account id)."""
    order = sorted(entrants, key=lambda e: (-e.rating, e.user_id))
    return {e.user_id: i + 1 for i, e in enumerate(order)}


def pair_round(
    entrants: Sequence[Entrant],
    rounds: Sequence[Sequence[Table]],
    total_rounds: int,
    seats: int = 2,
    *,
    first_seat: str = "white",
    apart: Collection[frozenset[str]] = frozenset(),
) -> list[Table]:
    """The next round's tables (byes as one-player tables with ``bye`` set) for the active players;
    ``first_seat``: the seat (``white``: seat 0, ``black``: seat 1) of the first starting number in
    round 1 (FIDE draws it by lot; the tournament's id decides it here); ``apart``: pairs of
    accounts seated together only when no other pairing exists (one blocks the other)."""
    active = [e for e in entrants if e.active]
    if len(active) < 2:
        return [Table((e.user_id,), bye=True) for e in active]
    ln = lines(entrants, rounds)
    met = {u: {v for v, _ in ln[u].met} for u in ln}
    if seats != 2:
        return mend(_tables(active, ln, seats, apart), apart, met)
    from caissify_pairings import generate_pairings

    numbers = starting_numbers(entrants)
    by_number = {n: u for u, n in numbers.items()}
    previous = {
        (numbers[a], numbers[b]) for rnd in rounds for t in rnd if not t.bye for a in t.users for b in t.users if a < b
    }
    colour = {0: "white", 1: "black", None: "none"}
    players = [
        {
            "id": numbers[e.user_id],
            "name": e.user_id,
            "score": ln[e.user_id].points,
            "rating": round(e.rating),
            "starting_number": numbers[e.user_id],
            "color_hist": [colour[s] for s in ln[e.user_id].seats if s is not None],
            "float_history": list(ln[e.user_id].floats),
            "bye_count": ln[e.user_id].byes,
        }
        for e in active
    ]

    def dutch(forbidden: set[tuple[int, int]]) -> list[dict[str, Any]]:
        made: list[dict[str, Any]] = generate_pairings(
            system="dutch",
            players=players,
            previous_pairings=forbidden,
            round_number=len(rounds) + 1,
            total_rounds=max(total_rounds, len(rounds) + 1),
            bye_value=BYE_POINTS,
            max_byes_per_player=1,
            initial_color=first_seat,
        )
        return made

    blocked = {
        (numbers[a], numbers[b]) for a, b in (sorted(p) for p in apart if len(p) == 2) if a in numbers and b in numbers
    }
    made = None
    # blocked pairs as pairings already played: avoided whenever a pairing without them exists; when
    # none does, a repeated pairing comes before a blocked one; with neither, the round is paired as
    # if no one blocked anyone
    for forbidden in [previous | blocked, blocked] if blocked and rounds else []:
        try:
            made = dutch(forbidden)
        except Exception:
            made = None
        if made is not None and sum(1 for p in made if p.get("bye") or p.get("black_id") is None) > len(active) % 2:
            made = None  # more byes than an odd number of players needs: no such pairing
        if made is not None and not any(
            frozenset((p["white_id"], p.get("black_id"))) in {frozenset(b) for b in blocked} for p in made
        ):
            break
        made = None
    if made is None:
        made = dutch(previous)
    out = []
    for p in sorted(made, key=lambda p: p["table"]):
        if p.get("bye") or p.get("black_id") is None:
            out.append(Table((by_number[p["white_id"]],), bye=True))
        else:
            out.append(Table((by_number[p["white_id"]], by_number[p["black_id"]])))
    return mend(out, apart, met)


def mend(tables: list[Table], apart: Collection[frozenset[str]], met: dict[str, set[str]]) -> list[Table]:
    """Tables without a blocked pair where possible: a table seating two players of a pair in
    ``apart`` exchanges one of its players (the later seat first) with a player of the nearest table
    (by table order) for which neither table then seats a blocked pair or two players who ``met``
    already; each takes the other's seat, the same seat first; a table no exchange mends is left as it is.

    >>> t = mend([Table(("a", "b")), Table(("c", "d"))], {frozenset("ab")}, {})
    >>> [x.users for x in t]
    [('a', 'd'), ('c', 'b')]
    """
    if not apart:
        return tables
    out = list(tables)

    def fine(users: Sequence[str]) -> bool:
        return not any(
            frozenset((u, v)) in apart or v in met.get(u, ()) for i, u in enumerate(users) for v in users[i + 1 :]
        )

    def blocked(users: Sequence[str]) -> bool:
        return any(frozenset((u, v)) in apart for i, u in enumerate(users) for v in users[i + 1 :])

    for k, t in enumerate(out):
        if t.bye or not blocked(t.users):
            continue
        order = sorted((j for j in range(len(out)) if j != k and not out[j].bye), key=lambda j: abs(j - k))
        swaps = (  # the same seat first: the colours stay
            (i, j, s)
            for i in range(len(t.users) - 1, -1, -1)
            for j in order
            for s in sorted(range(len(out[j].users)), key=lambda s: s != i)
        )
        for i, j, s in swaps:
            mine, theirs = list(out[k].users), list(out[j].users)
            mine[i], theirs[s] = theirs[s], mine[i]
            if fine(mine) and fine(theirs):
                out[k], out[j] = Table(tuple(mine)), Table(tuple(theirs))
                break
    return out


def _tables(
    active: Sequence[Entrant], ln: dict[str, Line], seats: int, apart: Collection[frozenset[str]] = frozenset()
) -> list[Table]:
    order = sorted(active, key=lambda e: (-ln[e.user_id].points, -e.rating, e.user_id))
    left = len(order) % seats
    byes: list[Entrant] = []
    if left:
        for e in reversed(order):  # the lowest-ranked without a bye first
            if len(byes) < left and ln[e.user_id].byes == 0:
                byes.append(e)
        for e in reversed(order):
            if len(byes) < left and e not in byes:
                byes.append(e)
    queue = [e.user_id for e in order if e not in byes]
    met = {u: {v for v, _ in ln[u].met} for u in queue}
    out = []
    while queue:
        table = [queue.pop(0)]
        while len(table) < seats:
            free = [u for u in queue if not any(frozenset((u, t)) in apart for t in table)] or queue
            pick = next((u for u in free if not any(u in met[t] for t in table)), free[0])
            queue.remove(pick)
            table.append(pick)
        out.append(Table(tuple(table)))
    return out + [Table((e.user_id,), bye=True) for e in byes]
