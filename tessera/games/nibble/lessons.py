"""Nibble's rule diagrams and lessons: the corner rule, the no-split rule, the colour table, the two instant wins.

The positions are late in a game (a few blocks left on the 9 × 9 board) so that each rule stands out.
Colours are numbered 0–8 (red, green, yellow, blue, orange, purple, cyan, magenta, brown); the
colour table is written in that order, so colours with neighbouring numbers are adjacent on it.
"""

from __future__ import annotations

from typing import Any

from tessera.core.kits.lessons import Diagram, Goal, Lesson, Step, illegal, moves, to_move, value, winner

FIRST, SECOND = 0, 1
RED, GREEN, YELLOW, BLUE, ORANGE, PURPLE, CYAN, MAGENTA, BROWN = range(9)
TABLE = list(range(9))


def position(cells: dict[str, int], held: dict[int, int] | None = None, to_move: int = FIRST) -> dict[str, Any]:
    """``cells`` left on the board; of the blocks already taken of each colour the first player holds
    ``held[colour]`` (default: half, rounded down) and the second the rest."""
    held = held or {}
    taken: list[list[int]] = [[0] * 9, [0] * 9]
    for c in range(9):
        gone = 9 - sum(1 for v in cells.values() if v == c)
        taken[FIRST][c] = held.get(c, gone // 2)
        taken[SECOND][c] = gone - taken[FIRST][c]
    return {"colors": 9, "board": "square", "to_move": to_move, "cells": cells, "taken": taken, "table": TABLE}


CORNER = position(
    {"a1": RED, "b1": GREEN, "c1": MAGENTA, "a2": ORANGE, "b2": BLUE, "c2": CYAN, "a3": BROWN, "b3": PURPLE, "c3": RED}
)
"""Nine blocks in the corner: only the four corner blocks have two exposed sides that meet."""

STAIRS = position({"a1": RED, "a2": GREEN, "b2": MAGENTA, "b3": GREEN, "c3": ORANGE})
"""A staircase: every block is on a corner, but taking a2, b2 or b3 would split it."""

HEX_FLOWER = {
    "colors": 13,
    "board": "hex",
    "to_move": FIRST,
    "cells": {"h8": 0, "h7": 1, "h9": 2, "g7": 3, "g8": 4, "i7": 5, "i8": 6},
    "taken": [[6] * 13, [6] * 7 + [7] * 6],
    "table": list(range(13)),
}
"""The hexagonal variant (13 colours): a block and its six neighbours, every other block taken."""

DIAGRAMS = (
    Diagram(
        id="nibble-corner",
        game="nibble",
        title="The corner rule",
        caption=(
            "A block may be taken only when two of its sides that meet at a corner are exposed (facing an "
            "empty square or the board's edge). Of these nine blocks only the four corner blocks (outlined) "
            "qualify; b1 has one side exposed, b2 none. A turn takes blocks of one colour: the first player "
            "takes the red a1, then the other red block, c3, and his turn is over."
        ),
        position=CORNER,
        show=((0, ".*"),),
        steps=(Step("a1", "One red block…"), Step("c3", "…and the other: no red is left, the turn ends.")),
        checks=(
            moves(0, ".*", ["a1", "a3", "c1", "c3"]),
            illegal(0, "b1", "corner"),
            moves(1, ".*", ["c3", "end"]),
            to_move(2, SECOND),
            value(2, f"taken.0.{RED}", 5),
        ),
    ),
    Diagram(
        id="nibble-no-split",
        game="nibble",
        title="Never split the blocks",
        caption=(
            "The blocks left must stay one group connected through their sides. Every block of this "
            "staircase is on a corner, but taking a2, b2 or b3 would cut it in two: only a1 and c3 (outlined) "
            "may be taken."
        ),
        position=STAIRS,
        show=((0, ".*"),),
        checks=(
            moves(0, ".*", ["a1", "c3"]),
            illegal(0, "b2", "split"),
            illegal(0, "a2", "split"),
            illegal(0, "b3", "split"),
        ),
    ),
    Diagram(
        id="nibble-all-nine",
        game="nibble",
        title="Instant win: all of one colour",
        caption="The first player holds eight yellow blocks. He takes the ninth and wins at once.",
        position=position({"a1": YELLOW, "b1": RED, "c1": GREEN, "b2": BLUE}, {YELLOW: 8}),
        steps=(Step("a1", "The ninth yellow block: the game is won."),),
        checks=(value(0, f"taken.0.{YELLOW}", 8), winner(1, FIRST)),
    ),
    Diagram(
        id="nibble-three-adjacent",
        game="nibble",
        title="Instant win: three neighbours on the colour table",
        caption=(
            "The colour table is the row of colours beside the board; two colours are adjacent when they "
            "stand next to each other in it. The first player holds 7 blue, 7 orange and 6 purple: three "
            "neighbours on the table. A seventh purple wins at once. He also holds 7 red, but red is not "
            "next to blue, so red does not count with them."
        ),
        position=position(
            {"a1": PURPLE, "b1": RED, "c1": GREEN, "b2": PURPLE}, {BLUE: 7, ORANGE: 7, PURPLE: 6, RED: 7}
        ),
        steps=(Step("a1", "A seventh purple: blue, orange and purple are neighbours on the table."),),
        checks=(to_move(0, FIRST), winner(1, FIRST)),
    ),
    Diagram(
        id="nibble-hex",
        game="nibble",
        params={"board": "hex"},
        title="The hexagonal board",
        caption=(
            "On the hexagonal board a block needs three consecutive exposed sides. The block in the "
            "middle has none; each of the six around it has three (outlined) and may be taken."
        ),
        position=HEX_FLOWER,
        show=((0, ".*"),),
        checks=(
            moves(0, ".*", ["g7", "g8", "h7", "h9", "i7", "i8"]),
            illegal(0, "h8", "three consecutive exposed sides"),
        ),
    ),
)

LESSONS = (
    Lesson(
        id="nibble-take-corner",
        game="nibble",
        title="Take a red block",
        task="You are the first player. Take a red block.",
        position=position({"a1": GREEN, "b1": RED, "c1": MAGENTA, "a2": ORANGE, "b2": BLUE, "c2": RED}),
        player=FIRST,
        goals=(Goal(value(0, f"taken.0.{RED}", 4), "You did not take a red block."),),
        solution=("c2",),
        hints=("A block needs two exposed sides that meet at a corner.", "b1 has only one side free."),
        wrong=((("b1",), "corner"),),
    ),
    Lesson(
        id="nibble-no-split",
        game="nibble",
        title="Don't split",
        task="You are the first player. Take a green block.",
        position=position({"a1": RED, "a2": GREEN, "b2": MAGENTA, "b3": ORANGE, "c3": GREEN}),
        player=FIRST,
        goals=(Goal(value(0, f"taken.0.{GREEN}", 4), "You did not take a green block."),),
        solution=("c3",),
        hints=("The blocks left must stay connected.", "Taking a2 would leave a1 alone."),
        wrong=((("a2",), "split"),),
    ),
    Lesson(
        id="nibble-all-nine",
        game="nibble",
        title="All nine",
        task="You are the first player. Win at once.",
        position=position({"a1": RED, "b1": GREEN, "c1": YELLOW, "a2": BLUE, "b2": RED}, {YELLOW: 8}),
        player=FIRST,
        goals=(Goal(winner(0, FIRST), "You did not win: take the block of the colour you hold eight of."),),
        solution=("c1",),
        hints=("Look at your counts: one colour is almost complete.",),
        wrong=((("a1",), "You did not win"),),
    ),
    Lesson(
        id="nibble-table",
        game="nibble",
        title="Three neighbours",
        task=(
            "You are the first player. You hold 7 blue, 7 orange, 6 purple and 6 green. Win at once: a "
            "seventh of which colour completes three neighbours on the colour table?"
        ),
        position=position(
            {"a1": GREEN, "b1": RED, "c1": PURPLE, "a2": RED, "b2": GREEN},
            {BLUE: 7, ORANGE: 7, PURPLE: 6, GREEN: 6},
        ),
        player=FIRST,
        goals=(Goal(winner(0, FIRST), "You did not win: green is not next to blue and orange on the table."),),
        solution=("c1",),
        hints=("The table reads red, green, yellow, blue, orange, purple, …", "Which colour stands next to orange?"),
        wrong=((("a1",), "You did not win"),),
    ),
    Lesson(
        id="nibble-several",
        game="nibble",
        title="Several in one turn",
        task="You are the first player. Take both yellow blocks in one turn.",
        position=position({"a1": YELLOW, "b1": RED, "c1": GREEN, "a2": BLUE, "b2": ORANGE, "c2": YELLOW}),
        player=FIRST,
        goals=(Goal(value(0, f"taken.0.{YELLOW}", 5), "You took fewer than two yellow blocks this turn."),),
        solution=("a1", "c2"),
        hints=("After one block, you may take more of the same colour before ending the turn.",),
        wrong=((("a1", "end"), "You took fewer than two"),),
    ),
)
