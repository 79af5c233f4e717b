"""Tournaments in Debian's Chromium, two browser contexts: an arena announced from the form, joined
by two players from its page, and each page opening the player's game by itself (lichess); the
lobby lists the tournament and the finished table stays."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_accounts_pages import sign_up

pytestmark = pytest.mark.browser


def test_an_arena_announced_and_joined_in_the_browser_opens_each_players_game(
    server: str, browser: Any, artifacts: Path
) -> None:
    ann = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    ben = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    sign_up(ann, server, "TourAnn")
    sign_up(ben, server, "TourBen")
    ann.goto(server + "/tournaments")
    ann.wait_for_selector("body[data-ready='1']")
    form = ann.locator("#new-tournament")
    form.locator("select[name=game]").select_option("nume")
    form.locator("input[name=starts_in]").fill("0")
    form.locator("input[name=minutes]").fill("20")
    form.locator("input[name=name]").fill("Browser arena")
    form.locator("button[type=submit]").click()
    ann.wait_for_url(re.compile(r"/tournament/\w+$"))
    tid = ann.url.rsplit("/", 1)[1]
    ann.wait_for_selector("#tour-name:has-text('Browser arena')")
    ann.locator("#join").click()
    ann.wait_for_selector("#standings td:has-text('TourAnn')")
    ann.screenshot(path=str(artifacts / "tournament-waiting-desktop.png"), full_page=True)
    ben.goto(server + "/")
    ben.wait_for_selector(f"#tournaments-card a[href='/tournament/{tid}']", timeout=15_000)
    ben.goto(server + f"/tournament/{tid}")
    ben.locator("#join").click()
    ann.wait_for_url(re.compile(r"/g/\w+#seat=[01]&t="), timeout=30_000)
    ben.wait_for_url(re.compile(r"/g/\w+#seat=[01]&t="), timeout=30_000)
    game = ann.url.split("/g/")[1].split("#")[0]
    assert ben.url.split("/g/")[1].split("#")[0] == game
    assert ann.url.split("seat=")[1][0] != ben.url.split("seat=")[1][0]
    ann.goto(server + f"/tournament/{tid}")  # back on the page: the game is not opened a second time
    ann.wait_for_selector(f"#pairings a[href='/g/{game}']")
    ann.wait_for_selector(f"#my-game[href^='/g/{game}#seat=']", state="attached")  # set once the seat is read
    assert "/tournament/" in ann.url
    ann.screenshot(path=str(artifacts / "tournament-playing-desktop.png"), full_page=True)
