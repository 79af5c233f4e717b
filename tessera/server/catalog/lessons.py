"""Learning routes: the rules pages in the player's language, their diagrams, and the lessons.

``GET /api/learn/{game}/rules?lang=ko``
    The rules page as Markdown (``rules/<lang>.md`` in the game's folder, English when there is none).
``GET /api/learn/{game}/diagrams`` and ``GET /api/learn/diagrams/{id}``
    Each diagram with its caption and one render description per step (a step whose board
    cells are the first step's leaves ``board`` out: the client takes the first step's).
``GET /api/learn/{game}/lessons``
    The lessons: task, hints, and the starting position as the player sees it (with his actions).
``POST /api/learn/{game}/lessons/{id}`` with ``{"moves": ["f6-h6", "xh5"]}``
    Plays the answer through the engine: ``done`` (the player's turn is over), ``correct``, the
    ``explanation`` of a wrong answer, and the position reached (with the actions left, while
    the turn goes on).
``GET /learn/{game}``
    The lessons page.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from tessera import lessons
from tessera.core.registry import game_class

router = APIRouter()

WEB = Path(__file__).resolve().parent.parent.parent / "web"
LANGUAGES = ("en", "ko", "es", "de", "fr")
"""The languages the rules pages and lessons are written in; English is the fallback."""


class AnswerIn(BaseModel):
    """``POST /api/learn/{game}/lessons/{id}``: the player's moves so far (at a simultaneous node, his order)."""

    moves: list[str] = Field(max_length=200, description="move strings, as the game page submits them")


def _game(game: str) -> str:
    try:
        lessons.diagrams(game)
    except ValueError as e:
        raise HTTPException(404, str(e)) from None
    return game


def _language(lang: str | None) -> str:
    """The first supported language of ``lang`` (``"ko-KR"`` → ``"ko"``), else English."""
    code = (lang or "en").lower()[:2]
    return code if code in LANGUAGES else "en"


@router.get("/api/learn/{game}/rules")
def rules(game: str, lang: str | None = Query(None, max_length=20)) -> dict[str, str]:
    """A game's rules page for players, in ``lang`` when it is translated (else English)."""
    try:
        cls = game_class(game)  # every game has a rules page (its own, else its summary), lessons or not
    except ValueError as e:
        raise HTTPException(404, str(e)) from None
    code = _language(lang)
    text = cls.rules_page(code)
    if text is None:
        code, text = "en", cls.rules_page("en") or f"# {cls.info.title}\n\n```\n{cls.info.summary}\n```\n"
    return {"game": game, "title": cls.info.title, "lang": code, "markdown": text}


@cache
def _diagram_json(diagram_id: str) -> dict[str, Any]:
    d = lessons.diagram(diagram_id)
    views = lessons.diagram_views(d)
    focus = lessons.diagram_focus(d, views)  # before a step's repeated board is left out
    for view in views:
        view.pop("setups", None)  # a diagram offers no ready-made set-ups
    steps = [{"note": "", "move": None, "view": views[0]}]
    for step, view in zip(d.steps, views[1:], strict=True):
        if view["board"] == views[0]["board"]:
            del view["board"]  # the same cells as the first step's: sent once (the client copies them)
        steps.append({"note": step.note, "move": view.get("step_move"), "view": view})
    return {"id": d.id, "game": d.game, "title": d.title, "caption": d.caption, "focus": focus, "steps": steps}


@router.get("/api/learn/{game}/diagrams")
def game_diagrams(game: str) -> dict[str, Any]:
    """Every diagram of a game's rules page, each step as a render description."""
    _game(game)
    return {"game": game, "diagrams": [_diagram_json(d.id) for d in lessons.diagrams(game)]}


@router.get("/api/learn/diagrams/{diagram_id}")
def one_diagram(diagram_id: str) -> dict[str, Any]:
    """One diagram by id."""
    if not re.fullmatch(r"[a-z0-9-]{1,60}", diagram_id):
        raise HTTPException(404, f"no diagram {diagram_id[:60]!r}")
    try:
        return _diagram_json(diagram_id)
    except ValueError as e:
        raise HTTPException(404, str(e)) from None


def _lesson(game: str, lesson_id: str) -> lessons.Lesson:
    _game(game)
    try:
        return lessons.lesson(game, lesson_id)
    except ValueError as e:
        raise HTTPException(404, str(e)) from None


def _lesson_json(item: lessons.Lesson) -> dict[str, Any]:
    start = lessons.judge(item, []).state
    return {
        "id": item.id,
        "game": item.game,
        "title": item.title,
        "task": item.task,
        "hints": list(item.hints),
        "player": item.player,
        "view": start.render(item.player),
    }


@router.get("/api/learn/{game}/lessons")
def game_lessons(game: str) -> dict[str, Any]:
    """A game's lessons, each with its starting position as the player sees it."""
    _game(game)
    return {"game": game, "lessons": [_lesson_json(x) for x in lessons.lessons(game)]}


@router.post("/api/learn/{game}/lessons/{lesson_id}")
def answer(game: str, lesson_id: str, body: AnswerIn) -> dict[str, Any]:
    """Judge an answer (complete or not yet) to a lesson through the engine."""
    item = _lesson(game, lesson_id)
    try:
        verdict = lessons.judge(item, body.moves)
    except ValueError as e:
        raise HTTPException(400, str(e)) from None
    return {
        "lesson": item.id,
        "moves": body.moves,
        "done": verdict.done,
        "correct": verdict.correct,
        "explanation": verdict.explanation,
        "explanation_key": verdict.key,
        "view": verdict.state.render(item.player),
    }


@router.get("/learn/{game}", include_in_schema=False)
def learn_page(game: str) -> FileResponse:
    """The lessons page of a game."""
    return FileResponse(WEB / "learn.html")
