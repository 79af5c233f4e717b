"""The players' rules pages: every diagram placed, no parameter code names, translations in step."""

from __future__ import annotations

import re

import pytest

import tessera
from tessera import lessons
from tessera.core.registry import game_class

LANGS = ("ko", "es", "de", "fr")


def page(game: str, lang: str = "en") -> str:
    """The game's rules page in ``lang`` (``rules/<lang>.md`` in its folder), which must exist."""
    text = game_class(game).rules_page(lang)
    assert text is not None, f"{game} has no rules page in {lang}"
    return text


def diagram_ids(text: str) -> list[str]:
    return re.findall(r"^::diagram (\S+)\s*$", text, re.M)


@pytest.mark.parametrize("game", tessera.list_games())
def test_every_diagram_of_a_game_is_on_its_rules_page_once(game: str) -> None:
    """Issue 26: "every rule with a diagram" — the page places each of the game's diagrams once."""
    placed = diagram_ids(page(game))
    assert sorted(placed) == sorted(d.id for d in lessons.diagrams(game))


@pytest.mark.parametrize("game", tessera.list_games())
def test_the_players_text_names_no_parameter_code(game: str) -> None:
    """Issue 26: "Variant options explained in a separate section (no parameter code names in the
    players' text)" — no parameter with an underscore and nothing in code font."""
    text = page(game)
    codes = [p for p in tessera.load_game(game).params if "_" in p]
    assert not [p for p in codes if p in text]
    assert "`" not in text
    assert re.search(r"^## Variants and options$", text, re.M)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", tessera.list_games())
def test_a_translated_rules_page_places_the_same_diagrams(game: str, lang: str) -> None:
    """Translations of the rules pages: English, Korean, Spanish, German, French."""
    text = page(game, lang)
    assert diagram_ids(text) == diagram_ids(page(game))
    assert "`" not in text
