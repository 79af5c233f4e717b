"""A finished game as finishing places, and the points a place is worth.

A game's stored result carries ``returns``, one per seat; a seat's *place* is 1 plus the number of
seats whose return is higher (equal returns share a place).  Two seats: a win is place 1 against
place 2, a draw is place 1 for both.  An aborted game (no returns) has no places.
"""

from __future__ import annotations

from collections.abc import Sequence

ARENA_PLACE_POINTS: dict[int, tuple[int, ...]] = {2: (2, 0), 3: (3, 1, 0), 4: (4, 2, 1, 0)}
"""Arena points by finishing place for each number of seats (lichess's 2 for a win, 0 for a loss;
four-player Nymbat: 4, 2, 1, 0).  Seats sharing places share their points (a two-seat draw: 1 each)."""


def places(returns: Sequence[float]) -> list[int]:
    """Each seat's finishing place (1 = best; equal returns share the better place).

    >>> places([1.0, -1.0]), places([0.0, 0.0]), places([1.0, -1.0, 0.0, 0.0])
    ([1, 2], [1, 1], [1, 4, 2, 2])
    """
    return [1 + sum(1 for other in returns if other > mine) for mine in returns]


def shared_points(table: Sequence[float], seat_places: Sequence[int]) -> list[float]:
    """Points per seat from a table by place: seats sharing a place share the points of the places
    they fill (two seats sharing place 1 of ``(2, 0)`` get 1 each).

    >>> shared_points((2, 0), [1, 1]), shared_points((4, 2, 1, 0), [1, 2, 2, 4])
    ([1.0, 1.0], [4.0, 1.5, 1.5, 0.0])
    """
    out = []
    for p in seat_places:
        tied = sum(1 for q in seat_places if q == p)
        out.append(sum(table[p - 1 : p - 1 + tied]) / tied)
    return out


def arena_base(seat_places: Sequence[int]) -> list[float]:
    """Arena points before streaks and berserk for one game's places."""
    return shared_points(ARENA_PLACE_POINTS[len(seat_places)], seat_places)


def swiss_points(seat_places: Sequence[int]) -> list[float]:
    """Swiss points: 1 for the best place, 0 for the worst, evenly between (two seats: 1, ½, 0).

    >>> swiss_points([1, 2]), swiss_points([1, 1]), swiss_points([1, 2, 3, 4])
    ([1.0, 0.0], [0.5, 0.5], [1.0, 0.6666666666666666, 0.3333333333333333, 0.0])
    """
    n = len(seat_places)
    return shared_points([(n - i) / (n - 1) for i in range(1, n + 1)], seat_places)


def wins(seat_places: Sequence[int]) -> list[bool]:
    """Whether each seat won: place 1 alone."""
    return [p == 1 and sum(1 for q in seat_places if q == 1) == 1 for p in seat_places]
