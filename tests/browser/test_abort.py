"""The Abort button (issue 37): shown while the game may be aborted — until every seat has moved —
in any game, and the game ends with no result when it is pressed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.moving import every_seat_moves
from tests.browser.test_experience import DESKTOP, open_game, post

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("game", ["nibble", "ikabegama"])
def test_the_abort_button_ends_a_game_nobody_has_moved_in_with_no_result(server: str, browser: Any, game: str) -> None:
    created = post(server, "/api/games", {"game": game, "mode": "ai", "seat": 1, "ai_level": 1})
    page = open_game(browser, server, created, DESKTOP)
    button = page.locator("#abort")
    button.wait_for()
    assert button.inner_text() == "Abort"
    button.click()
    page.wait_for_selector("#banner:not([hidden])")
    assert page.locator("#result-why").get_attribute("data-reason") == "abort"
    assert "aborted" in page.locator("#result-why").inner_text()
    assert page.locator("#abort").count() == 0
    assert not page.errors, page.errors
    page.close()


def test_no_abort_button_once_every_seat_has_moved(server: str, browser: Any) -> None:
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "hotseat"})
    page = open_game(browser, server, created, DESKTOP)
    page.locator("#abort").wait_for()
    every_seat_moves(server, created["id"], {int(s): t for s, t in created["tokens"].items()})
    page.wait_for_selector("#abort", state="detached")
    assert page.locator("#resign").count() == 1
    page.close()


def test_the_abort_button_speaks_the_players_language(server: str, browser: Any) -> None:
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "hotseat"})
    context = browser.new_context(locale="de-DE")
    page = context.new_page()
    page.goto(server + created["url"] + "#" + "&".join(f"t{s}={t}" for s, t in created["tokens"].items()))
    page.locator("#abort").wait_for()
    assert page.locator("#abort").inner_text() == "Abbrechen"
    context.close()
