"""Lessons: the intended solution is judged right, a wrong answer is explained, by the engine."""

from __future__ import annotations

import pytest

import tessera
from tessera import lessons
from tessera.core.kits.lessons import failure, new_state

ALL = [x for g in tessera.list_games() for x in lessons.lessons(g)]


def test_every_game_has_at_least_five_lessons() -> None:
    """Issue 26: "Interactive lessons per game (at least five each)"."""
    for game in tessera.list_games():
        assert len(lessons.lessons(game)) >= 5, game


@pytest.mark.parametrize("lesson", ALL, ids=[x.id for x in ALL])
def test_the_intended_solution_is_right(lesson: lessons.Lesson) -> None:
    verdict = lessons.judge(lesson, list(lesson.solution))
    assert verdict.done and verdict.correct, verdict.explanation


@pytest.mark.parametrize("lesson", ALL, ids=[x.id for x in ALL])
def test_a_wrong_answer_is_explained(lesson: lessons.Lesson) -> None:
    """Issue 26: "the engine checks the answer and explains a wrong one"."""
    assert lesson.wrong, "every lesson names at least one wrong answer"
    for moves, text in lesson.wrong:
        verdict = lessons.judge(lesson, list(moves))
        assert verdict.done and not verdict.correct
        assert text in verdict.explanation


@pytest.mark.parametrize("lesson", [x for x in ALL if x.goals], ids=[x.id for x in ALL if x.goals])
def test_the_goals_can_fail(lesson: lessons.Lesson) -> None:
    """Goals that hold whatever the player does would pass any answer: they fail at the start, or a
    legal wrong answer misses them."""
    start = new_state(lesson.game, lesson.params, lesson.position)
    fails_at_start = any(failure(start, g.check) is not None for g in lesson.goals)
    missed = [m for m, _ in lesson.wrong if lessons.judge(lesson, list(m)).key is not None]
    assert fails_at_start or missed


def test_an_unfinished_turn_is_not_judged_yet() -> None:
    """Nymbat's breakthrough lesson: after the attack the turn goes on (the breakthrough is open)."""
    lesson = lessons.lesson("nymbat", "nymbat-break-through")
    verdict = lessons.judge(lesson, ["f6-h6"])
    assert not verdict.done
    assert sorted(a["move"] for a in verdict.state.render(1)["actions"] if "move" in a) == ["end", "xh5", "xh7"]


def test_an_illegal_move_is_explained_by_the_rule_it_breaks() -> None:
    lesson = lessons.lesson("nibble", "nibble-take-corner")
    verdict = lessons.judge(lesson, ["b1"])
    assert verdict.done and not verdict.correct and verdict.key is None
    assert "corner" in verdict.explanation


def test_an_explanation_carries_its_catalogue_key() -> None:
    lesson = lessons.lesson("nymbat", "nymbat-keep-attacker")
    assert lessons.judge(lesson, ["g5-h7"]).key == "explain.0"
    assert lessons.judge(lesson, ["pass"]).key == "goals.0"


def test_bad_answers_are_refused_and_change_nothing() -> None:
    lesson = lessons.lesson("ikabegama", "ikabegama-enter-nest")
    with pytest.raises(ValueError, match="list of move strings"):
        lessons.judge(lesson, "4,0>6,0")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="after the player's turn is over"):
        lessons.judge(lesson, ["4,0>6,0", "5,0"])
    with pytest.raises(ValueError, match="one order"):
        lessons.judge(lessons.lesson("nelaxtam", "nelaxtam-destroy"), ["1xf3", "1xf3"])
    assert lessons.judge(lesson, ["4,0>6,0"]).correct, "the lesson itself is untouched"


def test_unknown_lesson_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="known: nume-new-group"):
        lessons.lesson("nume", "nope")
