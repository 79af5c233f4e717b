"""The English "learn" catalogue of the web client (``web/locales/en/learn.json``), built from the data.

Every string a player reads on the rules and lessons pages has a key here: the pages' own words
(``ui.*``), each diagram's title, caption and step notes (``diagram.<id>.*``), each lesson's
title, task, hints, goal explanations and wrong-answer explanations (``lesson.<id>.*``).  The
other languages' catalogues have the same keys; the tests compare them with this one.
"""

from __future__ import annotations

from typing import Any

from tessera import lessons

LANGUAGES = ("en", "ko", "es", "de", "fr")
"""English first: it is the fallback of every other catalogue."""

UI = {
    "back": "back",
    "forward": "forward",
    "goes-on": "Your turn goes on: make the next step on the board, or end it.",
    "hint": "Hint",
    "learn": "Learn",
    "lessons": "Lessons",
    "lessons-of": "{{game}} lessons",
    "next": "Next lesson",
    "number": "number from {{lo}} to {{hi}}",
    "offer": "First game of {{game}}? Learn it in five short lessons.",
    "place": "Place",
    "play": "Play",
    "progress": "{{done}} of {{count}} solved",
    "reset": "Start again",
    "retry": "Try again",
    "right": "Right! {{moves}}",
    "rules": "Rules",
    "start": "The position: use ▶ to play the steps.",
    "stats": "Statistics",
    "step": "step {{n}} of {{count}}",
    "submit": "Submit the order",
    "table": "colour table",
    "wrong": "Not yet: {{why}}",
}
"""The pages' own words (keys ``ui.<name>``; ``{{name}}`` is filled in by the page)."""


def catalogue() -> dict[str, Any]:
    """The English catalogue, nested as i18next reads it (``diagram.<id>.caption`` …)."""
    diagrams: dict[str, Any] = {}
    texts: dict[str, Any] = {}
    for game in lessons.games():
        for d in lessons.diagrams(game):
            entry: dict[str, Any] = {"title": d.title, "caption": d.caption}
            notes = {str(i): s.note for i, s in enumerate(d.steps, start=1) if s.note}
            if notes:
                entry["steps"] = notes
            diagrams[d.id] = entry
        for item in lessons.lessons(game):
            lesson: dict[str, Any] = {"title": item.title, "task": item.task}
            lesson["hints"] = {str(i): h for i, h in enumerate(item.hints)}
            if item.goals:
                lesson["goals"] = {str(i): g.why for i, g in enumerate(item.goals)}
            if item.explain:
                lesson["explain"] = {str(i): text for i, (_, text) in enumerate(item.explain)}
            texts[item.id] = lesson
    return {"ui": dict(sorted(UI.items())), "diagram": diagrams, "lesson": texts}


def flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """``{"a": {"b": "x"}}`` → ``{"a.b": "x"}``."""
    out: dict[str, str] = {}
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


if __name__ == "__main__":  # python -m tessera.lessons.catalogue > tessera/web/locales/en/learn.json
    import json

    print(json.dumps(catalogue(), ensure_ascii=False, indent=1))
