"""Nelaxtam's rule diagrams 1–7 (the designer's pictures, as real positions) and lessons.

The designer draws White's troops as digits and Black's as letters (``A`` is Black's troop 1,
``B`` troop 2, …); a troop stands on its own territory, ``.`` is a destroyed square, and the
top line is rank 12.  :func:`picture` turns such a drawing into a position dictionary.
"""

from __future__ import annotations

from typing import Any

from tessera.core.kits.lessons import (
    Diagram,
    Goal,
    Lesson,
    Mark,
    Step,
    alive,
    at,
    illegal,
    legal,
    options,
    scores,
    troop,
    winner,
)

BLACK, WHITE = 0, 1
FILES = "abcdefghijklmnopqrst"


def picture(text: str, phase: str = "battle", turn: int = 2) -> dict[str, Any]:
    """A position from a drawing in the designer's notation (see the module docstring)."""
    rows = [line.split() for line in text.strip().splitlines()]
    size = len(rows)
    board: list[str] = []
    troops: list[dict[str, str]] = [{}, {}]
    for i, row in enumerate(rows):
        if len(row) != size:
            raise ValueError(f"row {i + 1} of the picture has {len(row)} squares, not {size}")
        line = ""
        for j, ch in enumerate(row):
            cell = f"{FILES[j]}{size - i}"
            if ch.isdigit():
                troops[WHITE][ch] = cell
                ch = "o"
            elif ch.isalpha() and ch.isupper() and ch not in "XO":
                troops[BLACK][str(ord(ch) - ord("A") + 1)] = cell
                ch = "x"
            line += ch.lower()
        board.append(line)
    return {"size": size, "phase": phase, "turn": turn, "idle": 0, "board": board, "troops": troops}


START = picture(
    """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
""",
    phase="invasion",
    turn=1,
)

INVASION = ("1@a8 2@f1 3@l7 4@f7 5@c10", "1@a9 2@e1 3@i1 4@f6 5@h8")
"""Diagram 2 (Black's order, White's order).  The designer's D stands on g7, a White square
where a Black troop may not land; here it lands on f7, the Black square beside it."""

ONE_TROOP = picture(
    """
x o x o x o x o x o A o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x 1 x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""
)
"""Diagrams 3 and 4: White's troop 1 on f4 (Black's troop A far away, on k12)."""

PROGRESS = picture(
    """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o . o x o x o x o x o
o x . x o x . x . E o x
x o x . . o x o x o x o
o x 1 x . x o x o x o x
x o x o . 4 x o x o . .
o x o A o x o x o . . x
x o x o . o x o x 2 x o
o x o x o . o x . x o x
x o x o x o B o . o x o
o x o x o x o x . x o x
""",
    turn=20,
)
"""Diagram 5, one turn earlier: each side has lost two troops; i4 still stands and links the
Black corner at the bottom right to Black's troop B (the engine removes an uncontrolled group
when the turn that cut it off resolves, so the corner cannot be drawn still standing)."""

DOUBLE = picture(
    """
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o A o x o x o x
x o x o x 1 x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o B o x o x o x o x 2 x
"""
)
"""Diagram 6: White's 1 on f6 and Black's A on f7 face each other (one more troop each, far away)."""

END = picture(
    """
x . x . . o . o . . x .
. A . . o . o . o . . E
x . . o . o . o . o . .
. x . . o . o . . . o .
x . . . . . . . . 4 . o
. x . x . x . . . . . .
. . x . x . x . B . x .
. . . . . x . x . x . x
. o . . . . . . . . x .
o . 1 . o . o . . . . x
. o . o . o . o . o . .
o . o . o . o . 2 . o .
""",
    phase="over",
    turn=40,
)
"""Diagram 7: the end of the game."""

DIAGRAMS = (
    Diagram(
        id="nelaxtam-start",
        game="nelaxtam",
        title="Diagram 1: the virgin island",
        caption=(
            "Every square starts with a territory piece of its own colour: 72 Black (the dark squares) "
            "and 72 White (the light squares). "
            "The bottom-left square a1 is White. Pieces of one colour touch only at their corners, so a "
            "group of territory is connected diagonally."
        ),
        position=START,
        checks=(at(0, "a1", "o"), at(0, "b1", "x"), at(0, "a12", "x"), at(0, "l12", "o")),
    ),
    Diagram(
        id="nelaxtam-invasion",
        game="nelaxtam",
        title="Diagram 2: the invasion",
        caption=(
            "Both players secretly place their five troops on their own territory; three come by sea and "
            "must land on an edge square, two come by air and may land anywhere on their own colour. White's "
            "troops 1, 2 and 3 and Black's 1, 2 and 3 (A, B, C in the designer's drawing) come by sea. "
            "(The original drawing puts Black's D on a White square, which the rules forbid: here it lands "
            "one square to the left.)"
        ),
        position=START,
        steps=(Step(INVASION, "Both orders are revealed and the troops land."),),
        checks=(
            troop(1, WHITE, 1, "a9"),
            troop(1, WHITE, 5, "h8"),
            troop(1, BLACK, 3, "l7"),
            troop(1, BLACK, 4, "f7"),
            illegal(0, "1@a9 2@e1 3@f6 4@h8 5@d6", "must land on the edge", WHITE),
        ),
    ),
    Diagram(
        id="nelaxtam-move",
        game="nelaxtam",
        title="Diagram 3: moving",
        caption=(
            "A troop moves one square diagonally, onto a piece of its own territory: White's troop 1 may "
            "go to any of the four outlined squares."
        ),
        position=ONE_TROOP,
        marks=tuple(Mark(0, c, "target", "1 may move here") for c in ("e5", "g5", "e3", "g3")),
        checks=(options(0, WHITE, 1, ["1>e5", "1>g5", "1>e3", "1>g3", "1xf5", "1xe4", "1xg4", "1xf3"]),),
    ),
    Diagram(
        id="nelaxtam-destroy",
        game="nelaxtam",
        title="Diagram 4: destroying",
        caption=(
            "Instead a troop may destroy one of the four opponent pieces that touch its square's sides. "
            "White's troop 1 destroys the Black piece below it: the square f3 is empty from now on."
        ),
        position=ONE_TROOP,
        marks=tuple(Mark(0, c, "warning", "1 may destroy this") for c in ("f5", "e4", "g4", "f3")),
        steps=(Step(("1=", "1xf3"), "Black holds; White's 1 destroys f3."),),
        checks=(at(0, "f3", "x"), at(1, "f3", "."), troop(1, WHITE, 1, "f4")),
    ),
    Diagram(
        id="nelaxtam-progress",
        game="nelaxtam",
        title="Diagram 5: the game goes on",
        caption=(
            "Each side has lost two troops. White's 1 (on c7) cannot move north-east: that square has "
            "been destroyed. White's 2 destroys i4, the last Black piece linking the bottom-right corner "
            "to a Black troop: the corner is no longer controlled by any Black troop and is removed when "
            "the turn resolves."
        ),
        position=PROGRESS,
        steps=(Step(("1= 2= 5=", "1= 2xi4 4="), "White's 2 cuts the corner off; it disappears."),),
        marks=(Mark(0, "i4", "warning", "White's 2 destroys this"),),
        checks=(
            at(0, "d8", "."),
            illegal(0, "1>d8 2= 4=", "has been removed", WHITE),
            at(0, "k4", "x"),
            at(1, "i4", "."),
            at(1, "k4", "."),
            at(1, "l1", "."),
            at(1, "h1", "x"),
        ),
    ),
    Diagram(
        id="nelaxtam-double",
        game="nelaxtam",
        title="Diagram 6: double destruction",
        caption=(
            "White's 1 destroys the square to its north, where Black's A stands; at the same time A destroys "
            "the square to its south, under White's 1. Both destructions happen, and both troops die with "
            "their squares."
        ),
        position=DOUBLE,
        steps=(Step(("1xf6 2=", "1xf7 2="), "Both troops destroy each other's square."),),
        checks=(
            legal(0, "1xf7 2=", WHITE),
            at(1, "f6", "."),
            at(1, "f7", "."),
            troop(1, WHITE, 1, None),
            troop(1, BLACK, 1, None),
        ),
    ),
    Diagram(
        id="nelaxtam-end",
        game="nelaxtam",
        title="Diagram 7: the end of the game",
        caption=(
            "No troop can destroy any more: no piece touches a piece of the other colour along a side. Each "
            "player counts the pieces he controls: Black has 22, White 30, and White wins by 8. (The "
            "designer's text says \u201cby 7\u201d; the count is 8.)"
        ),
        position=END,
        steps=(),
        checks=(scores(0, [22, 30]), winner(0, WHITE)),
    ),
)

TWO_TROOPS = picture(
    """
x o x o x o x o x o A o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
x o x o x 1 x 2 x o x o
o x o x o x o x o x o x
x o x o x o x o x o x o
o x o x o x o x o x o x
"""
)

LESSONS = (
    Lesson(
        id="nelaxtam-land",
        game="nelaxtam",
        title="Land your troops",
        task=(
            "You are White. Place your five troops on White (light) squares; three of them come by sea and must "
            "stand on an edge square. Click a troop's button, then its square."
        ),
        position=START,
        player=WHITE,
        opponent=INVASION[BLACK],
        goals=(),
        solution=(INVASION[WHITE],),
        hints=("Edge squares are those of the outer ring.", "Two troops may land anywhere on your colour."),
        wrong=((("1@a9 2@e1 3@f6 4@h8 5@d6",), "only 2 troops stand on edge squares"),),
    ),
    Lesson(
        id="nelaxtam-destroy",
        game="nelaxtam",
        title="Destroy",
        task="You are White. Destroy the Black square just below your troop 1.",
        position=ONE_TROOP,
        player=WHITE,
        opponent="1=",
        goals=(Goal(at(0, "f3", "."), "f3 still stands: your troop must destroy the square below it."),),
        solution=("1xf3",),
        hints=("A troop destroys a piece that touches a side of its own square.", "Below f4 is f3."),
        wrong=((("1xf5",), "f3 still stands"),),
    ),
    Lesson(
        id="nelaxtam-dodge",
        game="nelaxtam",
        title="Step aside",
        task=(
            "You are White. Black's troop A (troop 1) will destroy f6, the square under your troop 1, this "
            "turn. Keep your troop 1 alive."
        ),
        position=DOUBLE,
        player=WHITE,
        opponent="1xf6 2=",
        goals=(
            Goal(
                alive(0, WHITE, 1),
                "Your troop 1 died with its square. All moves happen before the destructions: move it off.",
            ),
        ),
        solution=("1>e5 2=",),
        hints=("Moves are carried out first, destructions after.", "A troop moves diagonally onto its own colour."),
        wrong=((("1xf7 2=",), "Your troop 1 died with its square"),),
    ),
    Lesson(
        id="nelaxtam-cut-off",
        game="nelaxtam",
        title="Cut a group off",
        task=(
            "You are White. With one destruction, cut the Black corner at the bottom right off from every "
            "Black troop, so that it is removed."
        ),
        position=PROGRESS,
        player=WHITE,
        opponent="1= 2= 5=",
        goals=(Goal(at(0, "l1", "."), "The Black corner is still linked to a Black troop."),),
        solution=("1= 2xi4 4=",),
        hints=(
            "Black pieces are connected through their corners.",
            "Which Black square links the corner to the rest? Your troop 2 touches it.",
        ),
        wrong=((("1= 2xk4 4=",), "The Black corner is still linked"),),
    ),
    Lesson(
        id="nelaxtam-two-at-once",
        game="nelaxtam",
        title="Two destructions",
        task="You are White. Destroy two Black squares this turn.",
        position=TWO_TROOPS,
        player=WHITE,
        opponent="1=",
        goals=(Goal(scores(0, [70, 72]), "Only one Black square was destroyed: give each troop its own target."),),
        solution=("1xf3 2xh3",),
        hints=("Every troop acts every turn.", "Two troops may aim at the same square, but it falls only once."),
        wrong=((("1xg4 2xg4",), "Only one Black square was destroyed"),),
    ),
)
