"""Accounts live in Debian's Chromium: a challenge appears on the challenged player's lobby without a
reload, and a rematch between two accounts takes both pages to the new game (seats swapped)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.moving import every_seat_moves
from tests.browser.test_accounts_pages import sign_up

pytestmark = pytest.mark.browser


def game_of(page: Any) -> str:
    return str(page.url.split("/g/")[1].split("#")[0])


@pytest.mark.parametrize("size", [(1100, 800), (390, 844)], ids=["desktop", "phone"])
def test_a_live_challenge_and_an_account_rematch_take_both_pages_to_the_game(
    server: str,
    browser: Any,
    artifacts: Path,
    size: tuple[int, int],
) -> None:
    """'incoming challenges appear live with Accept/Decline'; 'Rematch becomes a challenge to the same
    opponent with seats swapped, shown live on their page, and both are taken to the new game when it
    is accepted'."""
    w, h = size
    tag = f"{w}x{h}"
    a_name, b_name = f"Liv{w}", f"Mo{w}"
    ann = browser.new_context(viewport={"width": w, "height": h}).new_page()
    ben = browser.new_context(viewport={"width": w, "height": h}).new_page()
    sign_up(ann, server, a_name)
    sign_up(ben, server, b_name)
    # Ben waits in the lobby; its header names him
    ben.goto(server + "/")
    ben.wait_for_function(f"document.querySelector('#who').textContent === '{b_name}'")
    assert ben.locator("header a[href='/leaderboard']").count() == 1
    # Ann challenges him from her account page; his lobby shows it without a reload
    form = ann.locator("#challenge")
    form.locator("input[name=to]").fill(b_name)
    form.locator("select[name=game]").select_option("nibble")
    form.locator("select[name=seat]").select_option("0")
    form.locator("input[name=rated]").check()
    form.locator("button[type=submit]").click()
    ben.wait_for_selector(f"#live-challenges:not([hidden]) li:has-text('{a_name}')", timeout=15_000)
    ben.screenshot(path=str(artifacts / f"lobby-live-challenge-{tag}.png"), full_page=True)
    ben.locator("#live-challenges li button.primary").click()
    ben.wait_for_url(re.compile(r"/g/\w+#seat=1&t="))
    ann.wait_for_url(re.compile(r"/g/\w+#seat=0&t="), timeout=30_000)
    first = game_of(ben)
    assert game_of(ann) == first
    ben.wait_for_selector("svg.board")
    ann.wait_for_selector("svg.board")
    # a move by each (before that a resignation aborts the game), then
    every_seat_moves(server, first, {0: ann.url.split("&t=")[1], 1: ben.url.split("&t=")[1]})
    # Ben resigns through his session (no seat token): both banners show the rating changes
    status = ben.evaluate(
        """async () => (await fetch(location.pathname.replace('/g/', '/api/games/') + '/resign',
                {method: 'POST'})).status"""
    )
    assert status == 200
    for page in (ann, ben):
        page.wait_for_selector("#rating-change", timeout=15_000)
        text = page.locator("#rating-change").inner_text()
        assert a_name in text and b_name in text and "1500 →" in text
    ann.screenshot(path=str(artifacts / f"game-end-ratings-{tag}.png"), full_page=True)
    # Ann asks for a rematch: Ben's game page shows it live; he accepts; both go to the new game
    ann.locator("#rematch").click()
    ann.wait_for_function("document.querySelector('#rematch').textContent.includes('waiting')")
    ben.wait_for_selector(f"#live-challenges:not([hidden]) li:has-text('{a_name}')", timeout=15_000)
    ben.screenshot(path=str(artifacts / f"game-rematch-offer-{tag}.png"), full_page=True)
    ben.locator("#live-challenges li button.primary").click()
    ben.wait_for_url(re.compile(r"/g/\w+#seat=0&t="), timeout=15_000)  # seats swapped
    ann.wait_for_url(re.compile(r"/g/\w+#seat=1&t="), timeout=30_000)
    second = game_of(ben)
    assert second != first and game_of(ann) == second
    ann.wait_for_selector("svg.board")
    ann.screenshot(path=str(artifacts / f"rematch-game-{tag}.png"), full_page=True)
    # the rematch is private: not in the lobby
    listed = ann.evaluate("async () => (await (await fetch('/api/games?status=all')).json()).games.map(g => g.id)")
    assert second not in listed
    ann.context.close()
    ben.context.close()
