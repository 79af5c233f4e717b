"""Nim's rule diagram and lessons (``NimGame.lessons()``): data the engine checks, as every game's.

The texts are English here; a site translates them in its catalogue where it has the keys, and shows
these where it has not — a package game needs nothing outside its own folder.
"""

from __future__ import annotations

from tessera.core.kits.lessons import Diagram, Goal, Lesson, Step, count, illegal, value, winner

FIRST, SECOND = 0, 1

DIAGRAMS = (
    Diagram(
        id="nim-take",
        game="nim",
        title="Taking stones",
        caption=(
            "Five stones are left and a move takes one to three of them: the first player has three moves. "
            "He takes two, and three stones are left for the second player."
        ),
        position={"stones": 5, "to_move": FIRST},
        params={"stones": 15, "take": 3},
        steps=(Step("2", "The first player takes two stones."),),
        checks=(count(0, r"\d+", 3), illegal(0, "4", "1 to 3"), value(1, "stones", 3)),
    ),
    Diagram(
        id="nim-last",
        game="nim",
        title="The last stone",
        caption="Who takes the last stone wins: with two stones left, the first player takes both and wins.",
        position={"stones": 2, "to_move": FIRST},
        params={"stones": 15, "take": 3},
        steps=(Step("2", "The first player takes the last two stones."),),
        checks=(winner(1, FIRST),),
    ),
)

LESSONS = (
    Lesson(
        id="nim-leave-four",
        game="nim",
        title="Leave four",
        task="You are the first player, six stones are left and a move takes one to three. Leave four stones.",
        position={"stones": 6, "to_move": FIRST},
        params={"stones": 15, "take": 3},
        player=FIRST,
        goals=(
            Goal(value(0, "stones", 4), "Four stones must be left: whatever your opponent takes, you take the rest."),
        ),
        solution=("2",),
        hints=("Four stones cannot be won by the player to move.", "Six minus four is two."),
        wrong=((("1",), "Four stones must be left"),),
    ),
)

__all__ = ["DIAGRAMS", "LESSONS"]
