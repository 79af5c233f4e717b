"""Every rule diagram is a real position whose caption the engine confirms, check by check."""

from __future__ import annotations

import pytest

import tessera
from tessera import lessons
from tessera.core.kits.lessons import at, diagram_failures, diagram_states, diagram_views, failure, legal, owned

ALL = [d for g in tessera.list_games() for d in lessons.diagrams(g)]


@pytest.mark.parametrize("diagram", ALL, ids=[d.id for d in ALL])
def test_the_caption_of_every_diagram_holds_when_the_engine_plays_it(diagram: lessons.Diagram) -> None:
    """Issue 26: "each checked by a test that plays the position through the engine and asserts what
    the caption says" — every check of the diagram holds at its step."""
    assert diagram.checks, "a diagram without checks asserts nothing"
    assert diagram_failures(diagram) == []


@pytest.mark.parametrize("diagram", [d for d in ALL if d.steps], ids=[d.id for d in ALL if d.steps])
def test_a_steppable_diagram_checks_where_its_sequence_ends(diagram: lessons.Diagram) -> None:
    """A sequence is shown step by step; its checks reach the step the caption ends on."""
    assert max(c.step for c in diagram.checks) >= 1
    assert len(diagram_views(diagram)) == len(diagram.steps) + 1


def test_a_false_claim_is_reported_not_passed() -> None:
    """The checks can fail: a wrong claim about the supported removal is caught."""
    d = lessons.diagram("nymbat-support")
    state = diagram_states(d)[1]
    assert failure(state, owned(1, 1, 1)) is not None, "Blue's 4 was lost"
    assert failure(state, at(1, "g5", [1, 4])) is not None
    assert failure(state, legal(1, "h5-h6")) is not None


def test_every_picture_the_designers_texts_name_is_drawn() -> None:
    """Issue 26's list: Nymbat's group moves, supported removal, breakthrough, retreat and delay,
    shield and twins, a beginner's set-up; Ikabegamá's three growths, twelve jumps, the flip and the
    reply jump; Nelaxtam's diagrams 1-7; Nume's groups; Nibble's corner, no-split, table and wins."""
    ids = {d.id for d in ALL}
    wanted = {
        "nymbat-group-speed", "nymbat-removal", "nymbat-support", "nymbat-breakthrough", "nymbat-retreat",
        "nymbat-delay", "nymbat-shield", "nymbat-twins", "nymbat-beginner",
        "ikabegama-growths", "ikabegama-jumps", "ikabegama-flip",
        "nelaxtam-start", "nelaxtam-invasion", "nelaxtam-move", "nelaxtam-destroy", "nelaxtam-progress",
        "nelaxtam-double", "nelaxtam-end",
        "nume-groups", "nibble-corner", "nibble-no-split", "nibble-all-nine", "nibble-three-adjacent",
    }  # fmt: skip
    assert wanted <= ids


def test_supported_removal_totals_eight() -> None:
    """Seed (Nymbat): "The two red 3s are supporting the red 2 for a total of 8" — Blue's 4 is lost
    attacking the 2, and keeps his piece attacking the lone 1."""
    supported = diagram_states(lessons.diagram("nymbat-support"))
    alone = diagram_states(lessons.diagram("nymbat-removal"))
    pieces = supported[0].to_dict()["pieces"]
    assert pieces["h7"][1] + pieces["i6"][1] + pieces["i7"][1] == 8
    assert "g5" not in supported[1].to_dict()["pieces"] and "h7" not in supported[1].to_dict()["pieces"]
    assert alone[1].to_dict()["pieces"]["h3"] == [1, 4]


def test_breakthrough_takes_one_red_2_but_not_both() -> None:
    """Seed (Nymbat): "blue can remove one other red 2 piece of his choice. He cannot remove both
    remaining red 2s because their total is 4 which is greater than 3. Blue loses both his pieces." """
    states = diagram_states(lessons.diagram("nymbat-breakthrough"))
    opened = states[2]
    assert sorted(m for m in opened.legal_moves() if m.startswith("x")) == ["xh7", "xi5"]
    after_one = states[3]
    assert after_one.current_player() == 0, "the turn is over: the second 2 would make 4 > 3"
    assert not [v for v in after_one.to_dict()["pieces"].values() if v[0] == 1], "both blue pieces are lost"


def test_the_diagram_views_outline_the_moves_they_show() -> None:
    """Ikabegamá's "three growths" picture outlines exactly the engine's three growths."""
    view = diagram_views(lessons.diagram("ikabegama-growths"))[0]
    targets = sorted(h["cell"] for h in view["highlights"] if h["kind"] == "target")
    assert targets == ["-1,0", "0,1", "1,-1"]
    assert view["actions"] == [], "a diagram is a picture: nothing to click"


def test_nelaxtams_final_count_is_22_to_30() -> None:
    """Seed (Nelaxtam, diagram 7): "X has 22 points and O has 30" — the engine counts the same
    (the text's "won by 7" is a slip: 30 - 22 = 8)."""
    state = diagram_states(lessons.diagram("nelaxtam-end"))[0]
    assert state.is_terminal() and state.scores() == [22, 30] and state.winner() == 1


def test_unknown_diagram_and_game_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no diagram 'nope'"):
        lessons.diagram("nope")
    with pytest.raises(ValueError, match="known: ikabegama"):
        lessons.diagrams("chess")
