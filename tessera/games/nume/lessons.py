"""Nume's rule diagrams and lessons: groups, sizes and prices on the smallest board (size 2, 18 cells)."""

from __future__ import annotations

from typing import Any

from tessera.core.kits.lessons import Diagram, Goal, Lesson, Step, at, illegal, legal, scores, winner

BLACK, WHITE = 0, 1
SMALL = {"size": 2}


def position(stones: dict[str, tuple[str, int | None]], to_move: int = BLACK) -> dict[str, Any]:
    """A position on the size-2 board (18 cells) with the default half-point komi for Black."""
    return {
        "size": 2,
        "variant": "hex",
        "to_move": to_move,
        "stones": {cell: [colour, number] for cell, (colour, number) in stones.items()},
        "komi": 0.5,
        "komi_to": "black",
        "colors": ["black", "white"],
    }


GROUPS = position(
    {
        "a1": ("b", 5),
        "a2": ("b", None),
        "a3": ("b", None),
        "d1": ("b", 1),
        "c2": ("w", 2),
        "c3": ("w", None),
        "c4": ("w", 4),
        "e1": ("w", 0),
    }
)

FULL_BUT_ONE = position(
    {
        **{c: ("w", None) for c in ("a2", "a3", "a4", "b1", "b2", "b3", "b4")},
        "a1": ("w", 8),
        **{c: ("b", None) for c in ("c1", "c2", "c3", "c4", "d1", "d2", "d3", "e1")},
        "b5": ("b", 9),
    },
    WHITE,
)
"""Every cell but e2 is full: White's group of 8 carries an 8, Black's group of 9 a 9."""

DIAGRAMS = (
    Diagram(
        id="nume-groups",
        game="nume",
        params=SMALL,
        title="Groups, sizes and prices",
        caption=(
            "A group is a set of stones of one colour connected through neighbours; its size is how many "
            "stones it has. Its price is the largest difference between a number written in it and its "
            "size. Black's group of 3 carries a 5: price 2; Black's lone 1 costs 0. White's group of 3 "
            "carries a 2 and a 4: price 1; White's lone 0 costs 1. With the half point of komi Black "
            "scores 2.5 and White 2; the lower score wins."
        ),
        position=GROUPS,
        checks=(scores(0, [2.5, 2.0]), at(0, "a2", ["b", None])),
    ),
    Diagram(
        id="nume-place",
        game="nume",
        params=SMALL,
        title="Placing a stone",
        caption=(
            "A stone that touches a stone of its colour joins that group and carries no number; a stone "
            "that starts a new group must carry a whole number. Black adds b3 to his group of 3: it now has "
            "4 stones and its 5 costs only 1."
        ),
        position=GROUPS,
        steps=(Step("b3", "Black's group grows to 4 stones: price |5 - 4| = 1."),),
        checks=(
            legal(0, "b3"),
            illegal(0, "b3=2", "carries no number"),
            illegal(0, "e2", "must carry a number"),
            legal(0, "e2=1"),
            scores(1, [1.5, 2.0]),
        ),
    ),
    Diagram(
        id="nume-merge",
        game="nume",
        params=SMALL,
        title="Merging groups",
        caption=(
            "A stone that touches two groups of its colour merges them. Black's 2 and 1 are each a group of "
            "one (prices 1 and 0). Black plays a2 between them: one group of 3 with a 2 and a 1, price "
            "|1 - 3| = 2."
        ),
        position=position({"a1": ("b", 2), "a3": ("b", 1), "c1": ("w", 1), "d3": ("w", 1)}),
        steps=(Step("a2", "One group of 3: its price is 2."),),
        checks=(scores(0, [1.5, 0.0]), scores(1, [2.5, 0.0])),
    ),
    Diagram(
        id="nume-end",
        game="nume",
        params=SMALL,
        title="The end",
        caption=(
            "The game ends when the board is full. White's last stone on e2 touches no White stone, so it "
            "starts a group of one and carries a 1: price 0. White scores 0, Black 0.5 (his komi): the "
            "lower score, White's, wins."
        ),
        position=FULL_BUT_ONE,
        steps=(Step("e2=1", "The board is full: White 0, Black 0.5."),),
        checks=(scores(1, [0.5, 0.0]), winner(1, WHITE)),
    ),
)

LESSONS = (
    Lesson(
        id="nume-new-group",
        game="nume",
        params=SMALL,
        title="A free new group",
        task="You are Black. Start a new group that adds nothing to your score.",
        position=GROUPS,
        player=BLACK,
        goals=(
            Goal(
                scores(0, [2.5, 2.0]),
                "Your score changed: a new group of one stone costs |number - 1|, so write a 1 on it.",
            ),
        ),
        solution=("e2=1",),
        hints=("A new group has one stone.", "Its price is the difference between its number and 1."),
        wrong=((("e2=4",), "Your score changed"),),
    ),
    Lesson(
        id="nume-grow",
        game="nume",
        params=SMALL,
        title="Grow to the number",
        task="You are Black. Your group of 3 carries a 4. Make its price 0 with one stone.",
        position=position({"a1": ("b", 4), "a2": ("b", None), "a3": ("b", None), "d1": ("w", 1), "d3": ("w", 1)}),
        player=BLACK,
        goals=(Goal(scores(0, [0.5, 0.0]), "Your group still costs something: it needs exactly 4 stones."),),
        solution=("a4",),
        hints=("A stone next to the group joins it.",),
        wrong=((("c1=1",), "Your group still costs something"),),
    ),
    Lesson(
        id="nume-merge",
        game="nume",
        params=SMALL,
        title="Merge for nothing",
        task="You are Black. Your two 3s are separate groups, each costing 2. Make your score 0.5 (komi only).",
        position=position({"a1": ("b", 3), "a3": ("b", 3), "d1": ("w", 1), "d3": ("w", 1)}),
        player=BLACK,
        goals=(Goal(scores(0, [0.5, 0.0]), "Your score is not 0.5: join both 3s into one group of 3."),),
        solution=("a2",),
        hints=("One stone can touch both groups.", "A group of 3 carrying only 3s costs 0."),
        wrong=((("b1",), "Your score is not 0.5"),),
    ),
    Lesson(
        id="nume-last-stone",
        game="nume",
        params=SMALL,
        title="The last stone",
        task="You are White. Place the last stone so that you win.",
        position=FULL_BUT_ONE,
        player=WHITE,
        goals=(Goal(winner(0, WHITE), "You lost: your last stone's group cost more than Black's half point."),),
        solution=("e2=1",),
        hints=("The stone on e2 starts a group of one.", "Black's score is 0.5: yours must be lower."),
        wrong=((("e2=3",), "You lost"),),
    ),
    Lesson(
        id="nume-join-or-start",
        game="nume",
        params=SMALL,
        title="Join or start?",
        task="You are Black. Your group of 2 carries a 4 (price 2). Lower your score by one.",
        position=position({"a1": ("b", 4), "a2": ("b", None), "d1": ("w", 1), "d3": ("w", 1)}),
        player=BLACK,
        goals=(
            Goal(scores(0, [1.5, 0.0]), "Your score is not 1.5: a third stone in the group brings its price to 1."),
        ),
        solution=("a3",),
        hints=("A new group with a 1 costs nothing, but it does not lower anything either.",),
        wrong=((("c2=1",), "Your score is not 1.5"),),
    ),
)
