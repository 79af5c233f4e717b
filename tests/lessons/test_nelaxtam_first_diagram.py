"""Nelaxtam's first rules diagram names only what it draws (issue 39, point 10: "Nelaxtam's first
diagram names marks it does not draw")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tessera import lessons
from tessera.core.kits.lessons import diagram_views

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "de", "es", "fr", "ko")
MARK = re.compile(r"\(\s*([A-Za-z])\s*\)")
"""A one-letter mark in brackets, such as "(x)": a symbol the reader is to look for on the board."""


def drawn_marks() -> set[str]:
    """The letters diagram 1 draws: piece labels and glyphs (a cell's fill is a colour, not a mark)."""
    out: set[str] = set()
    for view in diagram_views(lessons.diagram("nelaxtam-start")):
        for piece in view.get("pieces", []):
            for key in ("label", "glyph", "text"):
                if isinstance(piece.get(key), str):
                    out.add(piece[key])
    return out


def rules_paragraph(lang: str) -> str:
    """The rules' paragraph that introduces diagram 1 (the text before ``::diagram nelaxtam-start``)."""
    text = (ROOT / "tessera" / "games" / "nelaxtam" / "rules" / f"{lang}.md").read_text(encoding="utf-8")
    before = text.split("::diagram nelaxtam-start")[0]
    return before.rsplit("\n## ", 1)[-1]


@pytest.mark.parametrize("lang", LANGS)
def test_nelaxtam_first_diagram_names_no_mark_it_does_not_draw(lang: str) -> None:
    """The caption of Nelaxtam's diagram 1 (every language) and the rules' paragraph above it name no
    mark ("(x)", "(o)") that the diagram does not draw: it draws Black's and White's territory as
    dark and light squares, so the texts name those."""
    drawn = drawn_marks()
    catalogue = json.loads((ROOT / "tessera" / "web" / "locales" / lang / "learn.json").read_text(encoding="utf-8"))
    caption = catalogue["diagram"]["nelaxtam-start"]["caption"]
    for text in (caption, rules_paragraph(lang)):
        named = set(MARK.findall(text))
        assert named <= drawn, f"{lang}: names {sorted(named - drawn)} which diagram 1 does not draw: {text!r}"


def test_nelaxtam_first_diagram_draws_two_territory_colours_dark_and_light() -> None:
    """What the texts say instead is true: diagram 1 fills every square with one of two colours, a
    dark one (Black's) and a light one (White's), the bottom-left square a1 light."""
    view = diagram_views(lessons.diagram("nelaxtam-start"))[0]
    fills = {c["id"]: c["fill"] for c in view["board"]["cells"]}
    assert len(set(fills.values())) == 2

    def lightness(hex_colour: str) -> float:
        r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255

    assert lightness(fills["a1"]) > 0.6 > 0.5 > lightness(fills["b1"])
