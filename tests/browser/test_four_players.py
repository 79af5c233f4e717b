"""Four-player Nymbat in Chromium (issue 16): one person and three AI seats play a whole game."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_play import finished, my_turn, play_to_the_end

pytestmark = pytest.mark.browser


def test_one_person_and_three_ai_seats_play_four_player_nymbat_to_the_end(
    server: str, browser: Any, artifacts: Path
) -> None:
    """'Browser test: one human and three AI seats play a full game to the end' — the seats are chosen
    one by one in the lobby (any mix), the board shows four colours and four home rows."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(server + "/?game=nymbat")
    page.wait_for_selector("#param-players")
    page.locator("#param-players").select_option("4")
    for key, value in {"reserve": 6, "first_limit": 6, "max_turns": 24}.items():
        page.locator(f"#param-{key}").fill(str(value))
    page.locator("input[name=mode][value=seats]").check()
    kinds = page.locator("#seat-plan .seat-kind")
    assert kinds.count() == 4
    assert "Yellow" in page.locator("#seat-plan").inner_text()
    kinds.nth(0).select_option("here")
    for i, level in ((1, "ai:1"), (2, "ai:2"), (3, "ai:1")):
        kinds.nth(i).select_option(level)
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/"))
    page.wait_for_selector("svg.board .cell")
    assert page.locator(".seat").count() == 4
    seats = page.locator("#seats").inner_text()
    assert "AI level 2" in seats and "(you)" in seats
    # four colours of home rows on the board, the shared corners titled with both owners
    assert page.locator("svg.board .hl-home").count() == 32
    assert "shared" in page.locator('svg.board .cell[data-cell="o1"] title').text_content()
    rng = random.Random(16)
    for _ in range(300):
        if finished(page) or page.locator("#moves li").count() >= 12:
            break
        if my_turn(page):
            from tests.browser.test_play import act

            act(page, rng)
        page.wait_for_timeout(100)
    page.screenshot(path=str(artifacts / "nymbat4-playing.png"))
    play_to_the_end(page, rng, limit=240.0)
    banner = page.locator("#banner").inner_text()
    assert re.search(r"(Red|Green|Blue|Yellow) wins|Draw", banner), banner
    page.screenshot(path=str(artifacts / "nymbat4-finished.png"))
    assert not errors, errors


def test_resigning_in_a_four_player_hot_seat_game_lets_the_others_play_on(server: str, browser: Any) -> None:
    """'resign (a resigned player's pieces leave the board, he passes from then on, and the game goes on
    among the others; the last one left wins)' — by clicking Resign on the game page."""
    from tests.browser.test_play import api_create

    g = api_create(
        server,
        {"game": "nymbat", "params": {"players": 4, "reserve": 6, "first_limit": 6}, "seats": [{"kind": "here"}] * 4},
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    tokens = "&".join(f"t{s}={t}" for s, t in g["tokens"].items())
    page.goto(f"{server}{g['url']}#{tokens}")
    page.wait_for_selector("svg.board .cell")
    for nxt in ("Green", "Blue", None):  # Red, then Green, then Blue resign
        page.locator("#resign").click()  # arm
        page.locator("#resign").click()  # confirm
        if nxt is not None:  # the game goes on: the next player is to move
            page.wait_for_function(f"document.querySelector('#status').textContent.startsWith('{nxt} to move')")
            assert not finished(page)
    page.wait_for_selector("#banner", state="visible")
    assert "Yellow wins" in page.locator("#banner").inner_text()
    assert page.locator("#seats").inner_text().count("(resigned)") == 3
    assert not errors, errors
