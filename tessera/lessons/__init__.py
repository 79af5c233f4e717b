"""Learning to play: the rules pages' diagrams and the interactive lessons, as data the engine checks.

Each game declares them (``Game.lessons()``, a :class:`LessonBook` from its module
``games/<game>/lessons.py``): ``DIAGRAMS`` (the pictures of its rules page, each a real
position, optional steps, a caption and the checks that prove the caption) and ``LESSONS``
(a position, a task, hints and goals); the model is the kit :mod:`tessera.core.kits.lessons`.
This package sits on top of the games, beside the server: the server's ``/api/learn`` routes
serve it, the tests play every diagram and lesson.

Adding a picture or a lesson
    1. Add a :class:`Diagram` (a position dictionary, optional steps, a caption and a check for
       every claim of the caption) or a :class:`Lesson` (task, hints, goals with the sentence a
       miss gets, a solution and a wrong answer) to the game's ``lessons.py``.
    2. Place a diagram on the rules page with a line ``::diagram <id>`` — in ``rules/<game>.md``
       and, at the same place, in every translation ``rules/<lang>/<game>.md``.
    3. Rewrite the English catalogue (``python -m tessera.lessons.catalogue >
       tessera/web/locales/en/learn.json``) and translate the new keys in the other languages'
       ``learn.json``.  ``tests/lessons`` fails until all three agree.

>>> [d.id for d in diagrams("ikabegama")][:2]
['ikabegama-start', 'ikabegama-growths']
>>> judge(lesson("nume", "nume-grow"), ["a4"]).correct
True
"""

from __future__ import annotations

from tessera.core.kits.lessons import (
    Check,
    Diagram,
    Goal,
    Lesson,
    LessonBook,
    Mark,
    Step,
    Verdict,
    diagram_failures,
    diagram_focus,
    diagram_views,
    judge,
)
from tessera.core.registry import game_class, list_games

__all__ = [
    "Check",
    "Diagram",
    "Goal",
    "Lesson",
    "LessonBook",
    "Mark",
    "Step",
    "Verdict",
    "diagram",
    "diagram_failures",
    "diagram_focus",
    "diagram_views",
    "diagrams",
    "games",
    "judge",
    "lesson",
    "lessons",
]


def games() -> list[str]:
    """The registered games that teach (declare diagrams and lessons), sorted."""
    return [name for name in list_games() if game_class(name).lessons() is not None]


def _book(game: str) -> LessonBook:
    book = game_class(game).lessons() if game in list_games() else None
    if book is None:
        raise ValueError(f"no lessons for game {game!r}; known: {', '.join(games())}")
    return book


def diagrams(game: str) -> tuple[Diagram, ...]:
    """The rule diagrams of ``game``, in the order of its rules page."""
    return _book(game).diagrams


def diagram(diagram_id: str) -> Diagram:
    """One diagram by id (``nymbat-breakthrough``)."""
    for game in games():
        for d in diagrams(game):
            if d.id == diagram_id:
                return d
    raise ValueError(f"no diagram {diagram_id!r}")


def lessons(game: str) -> tuple[Lesson, ...]:
    """The lessons of ``game``, easiest first."""
    return _book(game).lessons


def lesson(game: str, lesson_id: str) -> Lesson:
    """One lesson of ``game`` by id."""
    for item in lessons(game):
        if item.id == lesson_id:
            return item
    raise ValueError(f"{game} has no lesson {lesson_id!r}; known: {', '.join(x.id for x in lessons(game))}")
