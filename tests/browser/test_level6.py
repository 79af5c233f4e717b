"""The lobby lists AI level 6 only for a game whose stored SPRT accepted it against level 5 (issue 43).

The browser tests' server reads a fixture directory of SPRT runs (tests/browser/conftest.py) in which
two-player Nymbat's level 6 was accepted and no other game has one."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_learn_ui import DESKTOP, open_lobby

pytestmark = pytest.mark.browser

FIVE = ["1 · beginner", "2 · casual", "3 · club", "4 · strong", "5 · expert"]


def test_the_lobby_lists_level6_only_for_a_game_that_has_it(server: str, browser: Any) -> None:
    """ "it is offered (... lobby list read from the catalog ...) only for games whose stored SPRT result
    ... says it beats level 5. A game without it keeps level 5 as top and the lobby text says so":
    Nibble lists levels 1-5 and says level 5 is the top; two-player Nymbat lists level 6 with the test's
    figures (in the form and the seat plan); four-player Nymbat lists 1-5 again."""
    page = open_lobby(browser, server, DESKTOP, "?game=nibble")
    about = page.locator("#level-about")
    options = page.locator("#ai-level option")
    assert options.all_inner_texts() == FIVE
    page.locator("#ai-level").select_option("5")
    assert "Level 5 is the top level for this game" in about.inner_text()

    page.locator("#game").select_option("nymbat")
    page.wait_for_function("document.querySelectorAll('#ai-level option').length === 6")
    assert options.all_inner_texts() == [*FIVE, "6 · master"]
    assert "Level 5 is the top level" not in about.inner_text(), "level 5 is no longer the top here"
    page.locator("#ai-level").select_option("6")
    text = about.inner_text()
    assert "sequential test (SPRT) against level 5" in text and "20 won, 0 drawn, 0 lost in 20 games" in text, text
    assert "at least 150 Elo stronger" in text and "Level 6 is the top level for this game." in text, text
    seat_plan = page.locator("#seat-plan .seat-kind").first.locator("option")
    assert "ai:6" in [seat_plan.nth(i).get_attribute("value") for i in range(seat_plan.count())]

    page.locator("#param-players").select_option("4")
    page.wait_for_function("document.querySelectorAll('#ai-level option').length === 5")
    assert options.all_inner_texts() == FIVE
    assert page.locator("#ai-level").input_value() == "5", "a level no longer offered falls back to the top"
    assert not page.errors, page.errors
    page.context.close()


def test_level6_is_named_in_the_players_language(server: str, browser: Any) -> None:
    """ "Texts in five languages": in German the lobby's level 6 is "6 · Meister" with the test's figures."""
    page = open_lobby(browser, server, DESKTOP, "?game=nymbat", locale="de-DE")
    page.wait_for_function("document.querySelectorAll('#ai-level option').length === 6")
    assert page.locator("#ai-level option").all_inner_texts()[-1] == "6 · Meister"
    page.locator("#ai-level").select_option("6")
    assert "sequenziellen Test (SPRT) gegen Stufe 5" in page.locator("#level-about").inner_text()
    page.context.close()
