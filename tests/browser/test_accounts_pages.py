"""The account pages in Debian's Chromium: two people sign up in separate browsers, one challenges
the other, they play a rated game to its end, both see the rating change (the Glicko-2 formula),
the history and the leaderboard page; desktop and phone sizes, screenshots in test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tessera.server.accounts import glicko2
from tests.browser.moving import every_seat_moves

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


def sign_up(page: Any, base: str, name: str) -> None:
    page.goto(base + "/account")
    form = page.locator("#signup")
    form.wait_for()
    form.locator("input[name=username]").fill(name)
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#me-card:not([hidden])")
    assert page.locator("#me-name").text_content() == name


def resign_here(page: Any) -> None:
    """Resign from the game page: the seat token comes from the account (the session cookie)."""
    status = page.evaluate(
        """async () => {
            const id = location.pathname.split('/').pop();
            const seat = await (await fetch(`/api/account/games/${id}/seat`)).json();
            const r = await fetch(`/api/games/${id}/resign`, {method: 'POST',
                headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token: seat.token})});
            return r.status;
        }"""
    )
    assert status == 200


@pytest.mark.parametrize("size", [(1100, 800), (390, 844)], ids=["desktop", "phone"])
def test_two_people_sign_up_challenge_play_rated_and_see_their_ratings(
    server: str,
    browser: Any,
    artifacts: Path,
    size: tuple[int, int],
) -> None:
    w, h = size
    tag = f"{w}x{h}"
    a_name, b_name = f"Ann{w}", f"Ben{w}"
    ann = browser.new_context(viewport={"width": w, "height": h}).new_page()
    ben = browser.new_context(viewport={"width": w, "height": h}).new_page()
    sign_up(ann, server, a_name)
    sign_up(ben, server, b_name)
    ann.screenshot(path=str(artifacts / f"account-{tag}.png"), full_page=True)
    # Ann challenges Ben to a rated game from her account page, taking the first seat
    form = ann.locator("#challenge")
    form.locator("input[name=to]").fill(b_name)
    form.locator("select[name=game]").select_option("nibble")
    form.locator("select[name=seat]").select_option("0")
    form.locator("input[name=rated]").check()
    form.locator("button[type=submit]").click()
    ann.wait_for_selector(f"#outgoing li:has-text('{b_name}')")
    # Ben sees it and accepts: he is taken to the game
    ben.reload()
    ben.wait_for_selector(f"#incoming li:has-text('{a_name}')")
    ben.screenshot(path=str(artifacts / f"account-challenge-{tag}.png"), full_page=True)
    ben.locator("#incoming li button.primary").click()
    ben.wait_for_url(re.compile(r"/g/\w+#seat=1&t="))
    ben.wait_for_selector("svg.board")
    # Ann's page notices the acceptance and takes her to her seat of the same game
    ann.wait_for_url(re.compile(r"/g/\w+#seat=0&t="), timeout=30_000)
    assert ann.url.split("#")[0] == ben.url.split("#")[0]
    ann.wait_for_selector("svg.board")
    gid = ben.url.split("#")[0].rsplit("/", 1)[1]
    every_seat_moves(server, gid, {0: ann.url.split("&t=")[1], 1: ben.url.split("&t=")[1]})  # else an abort
    resign_here(ben)
    # both see the change on the profile; it is the Glicko-2 formula's
    want_a, want_b = glicko2.rate_game([glicko2.Rating(), glicko2.Rating()], [1.0, -1.0])
    for page, name, want in ((ann, a_name, want_a), (ben, b_name, want_b)):
        page.goto(f"{server}/u/{name}")
        page.wait_for_selector("#p-ratings td")
        assert f"{round(want.rating)}?" in page.locator("#p-ratings").inner_text()
        page.wait_for_selector("#history td a")
        text = page.locator("#history").inner_text()
        # the game by its title, not its id (issue 39, point 10: "untranslated … game ids")
        assert ("won" if name == a_name else "lost") in text and "Nibble" in text and "nibble" not in text
        page.wait_for_selector("#graph polyline")
        page.screenshot(path=str(artifacts / f"profile-{name}-{tag}.png"), full_page=True)
    # history filters: Ben's wins are none
    ben.locator("#f-result").select_option("win")
    ben.wait_for_function("document.querySelector('#history').innerText.includes('No games')")
    # the leaderboard page (nobody is settled after one game: it says so)
    ann.goto(f"{server}/leaderboard/nibble")
    ann.wait_for_selector("#board td")
    assert "settled" in ann.locator("#board").inner_text()
    ann.screenshot(path=str(artifacts / f"leaderboard-{tag}.png"), full_page=True)
    ann.context.close()
    ben.context.close()


def test_a_guest_signs_up_and_finds_the_games_played_as_a_guest(
    server: str,
    browser: Any,
    artifacts: Path,
) -> None:
    """'a guest signs up and finds the games played as a guest' (the seat tokens this browser holds)."""
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    page.goto(server + "/?game=nibble")
    page.wait_for_selector("#create-btn")
    page.locator("#create-btn").click()  # against the computer, the lobby's default
    page.wait_for_url(re.compile(r"/g/(\w+)"))
    page.wait_for_selector("svg.board")
    game_id = page.url.split("/g/")[1].split("#")[0]
    sign_up(page, server, "Guesty")
    page.goto(f"{server}/u/Guesty")
    page.wait_for_selector(f"#history a[href='/g/{game_id}']")
    page.screenshot(path=str(artifacts / "profile-guest-claimed.png"), full_page=True)
    page.context.close()
