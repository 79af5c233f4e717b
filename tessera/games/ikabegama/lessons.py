"""Ikabegamá's rule diagrams and lessons (the blog post's pictures, reconstructed as real positions)."""

from __future__ import annotations

from typing import Any

from tessera.core.kits.lessons import Diagram, Goal, Lesson, Step, at, count, illegal, no_win, owned, to_move, winner

LIGHT, DARK = 0, 1
GROWTH = r"-?\d+,-?\d+"
JUMP = r".*>.*"


def position(tokens: dict[str, int], to_move: int = LIGHT) -> dict[str, Any]:
    """Light's nest at 0,0 and Dark's at 6,0 (the default distance)."""
    return {"to_move": to_move, "light_nest": "0,0", "dark_nest": "6,0", "tokens": tokens, "ply": 0, "passes": 0}


START = position({"0,0": LIGHT, "6,0": DARK})
EXAMPLE = position({"0,0": LIGHT, "1,0": DARK, "0,-1": DARK, "-1,1": DARK, "-2,-1": DARK})
"""The post's example: one Light token with three Dark neighbours."""

DIAGRAMS = (
    Diagram(
        id="ikabegama-start",
        game="ikabegama",
        title="The nests",
        caption=(
            "The game starts with one Light token on the Light nest and one Dark token on the Dark nest "
            "(outlined). Light moves first: he may grow onto any of the 6 hexes next to his token or jump "
            "to any of the 12 hexes two steps away."
        ),
        position=START,
        checks=(count(0, GROWTH, 6), count(0, JUMP, 12), to_move(0, LIGHT)),
    ),
    Diagram(
        id="ikabegama-growths",
        game="ikabegama",
        title="Three growths",
        caption=(
            "A growth puts a new token on an empty hex next to one of your tokens. Here three of the Light "
            "token's neighbours hold Dark tokens, so Light has exactly three growths (outlined)."
        ),
        position=EXAMPLE,
        show=((0, GROWTH),),
        checks=(count(0, GROWTH, 3), illegal(0, "1,1", "adjacent")),
    ),
    Diagram(
        id="ikabegama-jumps",
        game="ikabegama",
        title="Twelve jumps",
        caption=(
            "A jump moves a token to an empty hex exactly two steps away, whatever lies between; the hex it "
            "leaves becomes empty. From the same position Light has twelve jumps (outlined)."
        ),
        position=EXAMPLE,
        show=((0, JUMP),),
        checks=(count(0, JUMP, 12), illegal(0, "0,0>3,0", "distance")),
    ),
    Diagram(
        id="ikabegama-flip",
        game="ikabegama",
        title="Flipping, and the reply",
        caption=(
            "Light grows onto the hex on the left: the two Dark tokens next to the new token turn Light. "
            "Dark replies with a jump downwards, and the two Light tokens next to where it lands turn Dark."
        ),
        position=EXAMPLE,
        steps=(
            Step("-1,0", "Light grows to the left and flips two Dark tokens."),
            Step("-2,-1>-2,1", "Dark jumps downwards and flips two Light tokens back."),
        ),
        checks=(
            at(1, "0,-1", LIGHT),
            at(1, "-1,1", LIGHT),
            at(1, "1,0", DARK),
            owned(1, DARK, 2),
            at(2, "-2,-1", None),
            at(2, "-1,0", DARK),
            at(2, "-1,1", DARK),
            owned(2, LIGHT, 2),
        ),
    ),
    Diagram(
        id="ikabegama-nest-flip",
        game="ikabegama",
        title="Winning by a flip",
        caption=(
            "A Dark token stands on the Dark nest. Light grows next to it: the token flips to Light, so a "
            "Light token now occupies the Dark nest, and Light wins at once."
        ),
        position=position({"0,0": LIGHT, "4,0": LIGHT, "6,0": DARK, "7,0": DARK}),
        steps=(Step("5,0", "Light grows next to the Dark nest; the token on the nest flips."),),
        checks=(at(1, "6,0", LIGHT), winner(1, LIGHT)),
    ),
)

LESSONS = (
    Lesson(
        id="ikabegama-flip-two",
        game="ikabegama",
        title="Flip two",
        task="You are Light. Make one move that turns two Dark tokens Light.",
        position=EXAMPLE,
        player=LIGHT,
        goals=(Goal(owned(0, DARK, 2), "That move did not flip two Dark tokens."),),
        solution=("-1,0",),
        hints=(
            "Every Dark token next to the hex you fill turns Light.",
            "Look for an empty hex that touches two Dark tokens.",
        ),
        wrong=((("0,0>0,2",), "That move did not flip two"),),
    ),
    Lesson(
        id="ikabegama-jump-three",
        game="ikabegama",
        title="Jump into the crowd",
        task="You are Light. Turn three Dark tokens Light with one move.",
        position=position({"0,0": LIGHT, "3,0": DARK, "2,1": DARK, "3,-1": DARK, "6,0": DARK}),
        player=LIGHT,
        goals=(Goal(owned(0, DARK, 1), "That move did not flip three Dark tokens."),),
        solution=("0,0>2,0",),
        hints=("No growth reaches them: your token must jump.", "A jump lands exactly two hexes away."),
        wrong=((("1,0",), "That move did not flip three"),),
    ),
    Lesson(
        id="ikabegama-enter-nest",
        game="ikabegama",
        title="Into the nest",
        task="You are Light. Win now.",
        position=position({"0,0": LIGHT, "4,0": LIGHT, "7,-1": DARK}),
        player=LIGHT,
        goals=(Goal(winner(0, LIGHT), "You did not win: a Light token must occupy the Dark nest (6,0)."),),
        solution=("4,0>6,0",),
        hints=("The Dark nest is empty.", "It is two hexes away from your token at 4,0."),
        wrong=((("5,0",), "You did not win"),),
    ),
    Lesson(
        id="ikabegama-flip-nest",
        game="ikabegama",
        title="Flip the nest",
        task="You are Light. Dark sits on his own nest. Win anyway.",
        position=position({"0,0": LIGHT, "4,0": LIGHT, "6,0": DARK, "7,0": DARK, "7,-1": DARK}),
        player=LIGHT,
        goals=(Goal(winner(0, LIGHT), "You did not win: the token on the Dark nest must become Light."),),
        solution=("5,0",),
        hints=("A token that flips onto a nest counts as occupying it.", "Fill a hex next to the Dark nest."),
        wrong=((("4,0>4,2",), "You did not win"),),
    ),
    Lesson(
        id="ikabegama-guard-nest",
        game="ikabegama",
        title="Guard your nest",
        task="You are Light. Dark's token at 2,-2 can jump into your empty nest. Stop every winning reply.",
        position=position({"1,0": LIGHT, "0,1": LIGHT, "-1,0": LIGHT, "2,-2": DARK, "6,0": DARK}),
        player=LIGHT,
        goals=(Goal(no_win(0, DARK), "Dark can still win next move: his token can reach your nest or flip it."),),
        solution=("1,-1",),
        hints=(
            "Filling your own nest is not enough: a Dark token landing next to it would flip it.",
            "Turn the Dark token Light instead.",
        ),
        wrong=((("0,0",), "Dark can still win next move"),),
    ),
)
