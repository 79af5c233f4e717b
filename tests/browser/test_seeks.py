"""The seek pool and correspondence clocks in Debian's Chromium, two browser contexts: 'two seeks
are paired and both pages open the game'; 'a correspondence game shows the deadline' in the
player's time zone."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.browser.test_accounts_pages import sign_up

pytestmark = pytest.mark.browser


def game_of(page: Any) -> str:
    return str(page.url.split("/g/")[1].split("#")[0])


def play_now(page: Any, server: str, game: str, clock: str) -> None:
    page.goto(server + "/")
    page.wait_for_selector("#play-now[data-ready='1']")
    page.locator("#seek-game").select_option(game)
    page.locator("#seek-clock").select_option(clock)
    page.locator("#seek-go").click()


def test_two_seeks_are_paired_and_both_pages_open_the_game(server: str, browser: Any, artifacts: Path) -> None:
    """'Play now': two players seeking the same game and time control are paired within a few waves;
    both lobby pages go to the game, each on its own seat."""
    ann = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    ben = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    sign_up(ann, server, "SeekAnn")
    sign_up(ben, server, "SeekBen")
    play_now(ann, server, "nibble", "600+5")
    ann.wait_for_selector(".my-seek .seeking")
    # Ben's lobby lists Ann's standing seek (the list refreshes on its own)
    ben.goto(server + "/")
    ben.wait_for_selector("#play-now[data-ready='1']")
    ben.wait_for_selector("#seek-list li:has-text('SeekAnn')", timeout=15_000)
    ann.screenshot(path=str(artifacts / "play-now-seeking-desktop.png"), full_page=True)
    ben.screenshot(path=str(artifacts / "play-now-list-phone.png"), full_page=True)
    play_now(ben, server, "nibble", "600+5")
    ann.wait_for_url(re.compile(r"/g/\w+#seat=[01]&t="), timeout=30_000)
    ben.wait_for_url(re.compile(r"/g/\w+#seat=[01]&t="), timeout=30_000)
    assert game_of(ann) == game_of(ben)
    seats = {page.url.split("#seat=")[1][0] for page in (ann, ben)}
    assert seats == {"0", "1"}, "each page has its own seat"
    for page in (ann, ben):
        page.wait_for_selector("svg.board")
        for name in ("SeekAnn", "SeekBen"):  # the seats carry the two accounts' names
            page.wait_for_selector(f"#seats .seat .name:has-text('{name}')", timeout=10_000)
    ann.screenshot(path=str(artifacts / "play-now-paired-game-desktop.png"), full_page=True)
    ben.screenshot(path=str(artifacts / "play-now-paired-game-phone.png"), full_page=True)


def test_a_correspondence_game_shows_the_deadline_in_the_players_time_zone(
    server: str, browser: Any, artifacts: Path
) -> None:
    """'the deadline … shown by the client as a deadline in the player's time zone ("Move by Fri 28
    Nov, 18:04")': a game with 3 days per move made from the lobby's form, seen from Seoul."""
    page = browser.new_context(locale="en-GB", timezone_id="Asia/Seoul").new_page()
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("#game").select_option("nume")
    page.locator("input[name=mode][value=hotseat]").check()
    page.locator("#clock-days").select_option("3")
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/\w+"))
    page.wait_for_selector(".seat .deadline")
    view = page.evaluate("async () => (await fetch(location.pathname.replace('/g/', '/api/games/'))).json()")
    assert view["clock"]["kind"] == "correspondence" and view["clock"]["days"] == 3
    deadline = view["clock"]["deadline"][view["to_move"]]
    local = datetime.fromtimestamp(deadline, ZoneInfo("Asia/Seoul"))
    text = page.locator(".seat .deadline").inner_text()
    assert text.startswith("Move by ")
    assert local.strftime("%H:%M") in text and str(local.day) in text and local.strftime("%b") in text, text
    others = page.locator(".seat .days-per-move").all_inner_texts()
    assert others == ["3 days per move"]
    page.screenshot(path=str(artifacts / "correspondence-deadline.png"), full_page=True)
