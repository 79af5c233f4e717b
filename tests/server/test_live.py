"""The games in memory (``server/match/live.py``): a move is prepared on a copy of the cached row."""

from __future__ import annotations

from dataclasses import fields

from tessera.server.match.live import copy_row
from tessera.server.match.tables import GameRow, SeatRow


def row() -> GameRow:
    seats = [SeatRow(s, f"token{s}", f"Player {s}", "human", None, s == 0) for s in range(2)]
    clock = {"base": 300.0, "increment": 2.0, "remaining": [300.0, 298.5], "running": 1, "since": 10.0}
    result = {"winner": 0, "returns": [1.0, -1.0], "reason": {"key": "result.score", "args": {"n": 3}}}
    return GameRow(
        "g1", "nume", "nume", {"size": 5}, 7, "online", "active", True, result, clock, None, 4, 1.0, 2.0, seats, 1, 0
    )


def test_a_copied_row_equals_its_original_field_by_field() -> None:
    """``copy_row``: "a copy of ``row``" — every field equal, of the same class, seats included."""
    original = row()
    copied = copy_row(original)
    assert type(copied) is GameRow and copied == original
    assert [f.name for f in fields(copied)] == [f.name for f in fields(original)]
    assert all(type(s) is SeatRow for s in copied.seats)
    bare = row()
    bare.clock = bare.result = None
    assert copy_row(bare) == bare


def test_a_copied_rows_clock_result_and_seats_may_be_changed_freely() -> None:
    """``copy_row``: "whose clock, result and seats may be changed freely" — a change to the copy
    (as a prepared move makes) never reaches the cached original."""
    original = row()
    copied = copy_row(original)
    assert copied.clock is not None and copied.result is not None
    copied.clock["remaining"][1] = 0.0
    copied.result["reason"]["args"]["n"] = 9
    copied.seats[1].claimed = True
    copied.seats.append(SeatRow(2, "t", "n", "ai", 3, True))
    copied.status = "finished"
    assert original == row()
