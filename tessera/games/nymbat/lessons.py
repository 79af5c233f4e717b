"""Nymbat's rule diagrams and lessons (the designer's pictures, reconstructed as real positions)."""

from __future__ import annotations

from typing import Any

from tessera.core.kits.lessons import (
    Diagram,
    Goal,
    Lesson,
    Mark,
    Step,
    at,
    count,
    illegal,
    legal,
    moves,
    owned,
    to_move,
    value,
    winner,
)

RED, BLUE = 0, 1


def position(
    pieces: dict[str, tuple[int, int]], to_move: int = RED, delays: tuple[int, int] = (0, 0)
) -> dict[str, Any]:
    """A middle-game position: both first turns done, 30 left in each reserve."""
    return {
        "to_move": to_move,
        "pieces": {cell: [owner, number] for cell, (owner, number) in pieces.items()},
        "reserves": [30, 30],
        "delays": list(delays),
        "first_turn_done": [True, True],
    }


START = {"to_move": RED, "pieces": {}, "reserves": [60, 60], "delays": [0, 0], "first_turn_done": [False, False]}

DIAGRAMS = (
    Diagram(
        id="nymbat-board",
        game="nymbat",
        title="The board and the first turn",
        caption=(
            "Red's home row is the bottom row, Blue's the top row; each side sets up on its home row (outlined) "
            "and the two rows in front of it (tinted). The first turn must bring in pieces there, at most 30 "
            "points of them: Red may put a 3 on n5, but not in the middle of the board, and may not pass."
        ),
        position=START,
        checks=(
            legal(0, "n5=3"),
            illegal(0, "h5=3", "setup area"),
            illegal(0, "pass", "must bring in reserves"),
        ),
    ),
    Diagram(
        id="nymbat-group-speed",
        game="nymbat",
        frame=True,
        title="Moving a group",
        caption=(
            "Red can move group A (the 1 and the 3 on the left) one hex, or group B (the 2 and the 4) two "
            "hexes: a group moves as fast as its lowest number. The outlined hexes are where the 1 of group "
            "A and the 2 of group B may go. Own pieces do not block the way, but no piece may end on one."
        ),
        position=position({"k4": (RED, 1), "k5": (RED, 3), "k9": (RED, 2), "k10": (RED, 4)}),
        show=((0, "k4-.*"), (0, "k9-.*")),
        checks=(
            moves(0, "k4-.*", ["k4-j4", "k4-j5", "k4-k3", "k4-l3", "k4-l4"]),
            illegal(0, "k4-i4", "speed 1"),
            legal(0, "k9-i9"),
            legal(0, "k9-k11"),
            illegal(0, "k9-k10", "own piece"),
            count(0, "k9-.*", 17),
        ),
    ),
    Diagram(
        id="nymbat-removal",
        game="nymbat",
        frame=True,
        title="Removal: an unsupported piece",
        caption=(
            "Blue's 4 moves onto the red 1. The red 1 is removed; it has no red neighbour, so it defends "
            "with 1 only, and Blue's 4 (higher) stays on the board."
        ),
        position=position({"g5": (BLUE, 4), "h3": (RED, 1), "h7": (RED, 2), "i6": (RED, 3), "i7": (RED, 3)}, BLUE),
        steps=(Step("g5-h3", "Blue 4 takes the red 1 and keeps his piece."),),
        checks=(legal(0, "g5-h3"), at(1, "h3", [BLUE, 4]), at(1, "g5", None), owned(1, RED, 3)),
    ),
    Diagram(
        id="nymbat-support",
        game="nymbat",
        frame=True,
        title="Removal: a supported piece",
        caption=(
            "Blue's 4 moves onto the red 2 instead. The red 2 is removed, but the two red 3s next to it "
            "support it: it defends with 2 + 3 + 3 = 8, not more than Blue's 4, so Blue's 4 is removed too."
        ),
        position=position({"g5": (BLUE, 4), "h3": (RED, 1), "h7": (RED, 2), "i6": (RED, 3), "i7": (RED, 3)}, BLUE),
        steps=(Step("g5-h7", "Blue 4 takes the red 2 and loses his piece."),),
        checks=(legal(0, "g5-h7"), at(1, "h7", None), at(1, "g5", None), owned(1, BLUE, 0), owned(1, RED, 3)),
    ),
    Diagram(
        id="nymbat-breakthrough",
        game="nymbat",
        frame=True,
        title="Breakthrough",
        caption=(
            "Blue's two 3s form a group (speed 3). The first takes a red 2 and is lost (the 2 defends with "
            "2 + 5 + 2 = 9). The second takes the red 5 and is lost too; but removing the 5 splits the red "
            "group in two: a breakthrough. Blue may now remove red pieces next to the 5's hex totalling at "
            "most 3, the number of his last piece: one red 2, not both (2 + 2 = 4 is more than 3)."
        ),
        position=position(
            {"f5": (BLUE, 3), "f6": (BLUE, 3), "h5": (RED, 2), "h6": (RED, 5), "h7": (RED, 2), "i5": (RED, 2)}, BLUE
        ),
        steps=(
            Step("f5-h5", "The first blue 3 takes the red 2 on h5 and is removed: no split yet."),
            Step("f6-h6", "The second blue 3 takes the red 5 and is removed; the red group falls apart."),
            Step("xh7", "Breakthrough: Blue removes one red 2. The other would make 4: the turn ends."),
        ),
        marks=(Mark(2, "h7", "warning", "may be removed"), Mark(2, "i5", "warning", "may be removed")),
        checks=(
            at(1, "h5", None),
            at(1, "f5", None),
            owned(1, RED, 3),
            at(2, "h6", None),
            owned(2, BLUE, 0),
            moves(2, "x.*", ["xh7", "xi5"]),
            at(3, "h7", None),
            at(3, "i5", [RED, 2]),
            to_move(3, RED),
        ),
    ),
    Diagram(
        id="nymbat-retreat",
        game="nymbat",
        frame=True,
        title="Retreat",
        caption=(
            "Red moves his group one row back, away from Blue's home row: a retreat. It costs 1 from his "
            "reserve (30 becomes 29)."
        ),
        position=position({"j5": (RED, 3), "j6": (RED, 3)}),
        steps=(Step("j5-k5", "The first 3 steps back."), Step("j6-k6", "The second 3 steps back: the turn ends.")),
        checks=(value(0, "reserves.0", 30), value(2, "reserves.0", 29), value(2, "delays.0", 0), to_move(2, BLUE)),
    ),
    Diagram(
        id="nymbat-delay",
        game="nymbat",
        frame=True,
        title="Delay",
        caption=(
            "Red moves one piece of his group backwards, but his most forward piece stays on its row: the "
            "group came no closer to Blue's home row, so the turn is a delay, not a retreat. Delays are "
            "counted; every 7th costs 1 from the reserve. Passing is a delay too."
        ),
        position=position({"j5": (RED, 3), "j6": (RED, 3)}),
        steps=(Step("j6-k6", "One 3 steps back."), Step("end", "Red ends his turn: a delay.")),
        checks=(value(2, "reserves.0", 30), value(2, "delays.0", 1), to_move(2, BLUE)),
    ),
    Diagram(
        id="nymbat-shield",
        game="nymbat",
        frame=True,
        title="The shield",
        caption=(
            "Three pieces that all touch one another cannot be broken through: taking any one of them "
            "leaves the other two together. Here Blue's 6 attacks a shield of red 3s; the 3 defends with "
            "3 + 3 + 3 = 9, Blue's 6 is lost, and there is no breakthrough."
        ),
        position=position({"f6": (BLUE, 6), "h6": (RED, 3), "h7": (RED, 3), "i6": (RED, 3)}, BLUE),
        steps=(Step("f6-h6", "Blue 6 takes one 3 and is lost; the shield holds."),),
        checks=(at(1, "h6", None), at(1, "f6", None), owned(1, BLUE, 0), owned(1, RED, 2), to_move(1, RED)),
    ),
    Diagram(
        id="nymbat-line",
        game="nymbat",
        frame=True,
        title="A line is weak",
        caption=(
            "The same three 3s in a line: Blue's 6 takes the middle one and is lost, but the line is split, "
            "and the breakthrough lets Blue remove both end pieces (3 + 3 = 6, not more than his 6)."
        ),
        position=position({"f6": (BLUE, 6), "h5": (RED, 3), "h6": (RED, 3), "h7": (RED, 3)}, BLUE),
        steps=(
            Step("f6-h6", "Blue 6 takes the middle 3: the line falls apart."),
            Step("xh5", "Breakthrough: one end piece…"),
            Step("xh7", "…and the other."),
        ),
        checks=(moves(1, "x.*", ["xh5", "xh7"]), owned(3, RED, 0), owned(3, BLUE, 0)),
    ),
    Diagram(
        id="nymbat-twins",
        game="nymbat",
        frame=True,
        title="The twins",
        caption=(
            "Two pieces side by side cannot be broken through either, and they support each other: Blue's "
            "6 takes a red 4 but meets 4 + 4 = 8 and is lost. In defence, twins beat any single piece."
        ),
        position=position({"f6": (BLUE, 6), "h6": (RED, 4), "h7": (RED, 4)}, BLUE),
        steps=(Step("f6-h6", "Blue 6 takes one 4 and is lost; no breakthrough."),),
        checks=(at(1, "f6", None), at(1, "h7", [RED, 4]), owned(1, BLUE, 0), to_move(1, RED)),
    ),
    Diagram(
        id="nymbat-beginner",
        game="nymbat",
        title="A set-up for beginners",
        caption=(
            "A first turn worth its full 30 points, following the designer's advice (his own picture is "
            "lost): two shields of 3s on the front row and twins of 6s. Each group is safe from breakthrough."
        ),
        position=START,
        steps=(
            Step("m2=3", "First shield…"),
            Step("m3=3", ""),
            Step("n2=3", "…complete."),
            Step("m5=3", "Second shield…"),
            Step("m6=3", ""),
            Step("n5=3", "…complete."),
            Step("m8=6", "Twins of 6s…"),
            Step("m9=6", "…30 points placed: the turn ends by itself."),
        ),
        checks=(value(8, "reserves.0", 30), to_move(8, BLUE), owned(8, RED, 8)),
    ),
    Diagram(
        id="nymbat-win",
        game="nymbat",
        title="Winning",
        caption=(
            "Red reaches Blue's home row and Blue has no piece there. If that is still so when Red's next "
            "turn begins, Red wins."
        ),
        position=position({"b3": (RED, 1), "e10": (BLUE, 2)}),
        steps=(Step("b3-a3", "Red's 1 reaches Blue's home row."), Step("pass", "Blue passes: Red wins.")),
        checks=(to_move(1, BLUE), winner(2, RED)),
    ),
)

LESSONS = (
    Lesson(
        id="nymbat-break-through",
        game="nymbat",
        title="Break through",
        task="You are Blue. Capture the red 2 and break the group through: remove as much of the line as you can.",
        position=position({"f6": (BLUE, 5), "h5": (RED, 3), "h6": (RED, 2), "h7": (RED, 3)}, BLUE),
        player=BLUE,
        goals=(
            Goal(at(0, "h6", None), "The red 2 on h6 is still there: your 5 must end its move on it."),
            Goal(owned(0, RED, 1), "After the split you may remove one more red piece next to h6: the breakthrough."),
        ),
        solution=("f6-h6", "xh5"),
        hints=(
            "Taking a piece in the middle of a line splits the line.",
            "Your 5 may then remove pieces next to h6 totalling at most 5.",
        ),
        wrong=(
            (("f6-h5",), "does not split it"),
            (("f6-h6", "end"), "After the split you may remove"),
        ),
        explain=(
            (
                ("f6-h5",),
                "Taking the end of the line does not split it: there is no breakthrough. Attack the middle piece.",
            ),
        ),
    ),
    Lesson(
        id="nymbat-keep-attacker",
        game="nymbat",
        title="Attack where there is no support",
        task="You are Blue. Remove a red piece with your 4 and keep your 4 on the board.",
        position=position({"g5": (BLUE, 4), "h3": (RED, 1), "h7": (RED, 2), "i6": (RED, 3), "i7": (RED, 3)}, BLUE),
        player=BLUE,
        goals=(
            Goal(owned(0, RED, 3), "No red piece was removed: end your move on one."),
            Goal(owned(0, BLUE, 1), "Your 4 was lost: the piece you took was supported."),
        ),
        solution=("g5-h3",),
        hints=(
            "A piece defends with its number plus the numbers of its own neighbours.",
            "Which red piece stands alone?",
        ),
        wrong=((("g5-h7",), "supported by the two 3s"),),
        explain=(
            (
                ("g5-h7",),
                "The red 2 is supported by the two 3s next to it: it defends with 2 + 3 + 3 = 8, and your 4 is lost.",
            ),
        ),
    ),
    Lesson(
        id="nymbat-advance",
        game="nymbat",
        title="Avoid the delay penalty",
        task=(
            "You are Red and have delayed six times: a seventh delay costs 1 from your reserve. Move your "
            "group so that the turn is not a delay."
        ),
        position=position({"j5": (RED, 3), "j6": (RED, 3), "c4": (BLUE, 2)}, RED, delays=(6, 0)),
        player=RED,
        goals=(
            Goal(value(0, "reserves.0", 30), "Your reserve went down: that turn was a delay or a retreat."),
            Goal(
                value(0, "delays.0", 6), "That turn was a delay: your group's front came no closer to Blue's home row."
            ),
        ),
        solution=("j5-i5", "end"),
        hints=("A turn advances when the group's closest piece gets closer to Blue's home row (the top row).",),
        wrong=((("j5-j4", "end"), "Your reserve went down"),),
    ),
    Lesson(
        id="nymbat-reach-home",
        game="nymbat",
        title="Reach the home row",
        task="You are Red. Make sure that you win at the start of your next turn.",
        position=position({"c4": (RED, 2), "a4": (BLUE, 1), "e10": (BLUE, 2)}),
        player=RED,
        goals=(
            Goal(at(0, "a4", [RED, 2]), "Blue still has a piece on his home row: you win only when he has none there."),
        ),
        solution=("c4-a4",),
        hints=("You win when you stand on Blue's home row and Blue has no piece there.", "Your 2 beats a lone 1."),
        wrong=((("c4-a3",), "Blue still has a piece on his home row"),),
    ),
    Lesson(
        id="nymbat-clear-line",
        game="nymbat",
        title="Punish a line",
        task="You are Blue. Red's three 3s stand in a line. Remove all three this turn.",
        position=position({"f6": (BLUE, 6), "h5": (RED, 3), "h6": (RED, 3), "h7": (RED, 3)}, BLUE),
        player=BLUE,
        goals=(Goal(owned(0, RED, 0), "Some red 3 is left: after the split your 6 may remove pieces totalling 6."),),
        solution=("f6-h6", "xh5", "xh7"),
        hints=("Attack the middle of the line.", "After the split your 6 may remove pieces totalling up to 6."),
        wrong=((("f6-h6", "xh5", "end"), "Some red 3 is left"),),
    ),
)
