"""A four-player challenge in Debian's Chromium: Red names Green, Blue and an open seat from his
account page; Green accepts in the lobby and waits; when Blue accepts, all three pages go to their
seats of the new game, and Red's account page holds the open seat's invite link."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_accounts_pages import sign_up
from tests.server.test_processes import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[str]:
    """A server of this module's own: its sign-ups do not count against the shared server's
    per-address sign-up limit."""
    db = tmp_path_factory.mktemp("four") / "tessera.db"
    with serve(f"sqlite:///{db}") as (base, _):
        yield base


def test_a_four_player_challenge_starts_when_everyone_named_has_accepted(
    site: str, browser: Any, artifacts: Path
) -> None:
    red, green, blue = (browser.new_context().new_page() for _ in range(3))
    for page, name in ((red, "Red"), (green, "Green"), (blue, "Blue")):
        sign_up(page, site, name)
    form = red.locator("#challenge")
    form.locator("input[name=to]").fill("Green, Blue, open")
    form.locator("select[name=game]").select_option("nymbat(players=4)")
    form.locator("select[name=seat]").select_option("0")
    form.locator("button[type=submit]").click()
    red.wait_for_selector("#outgoing li:has-text('open seat')")
    green.goto(site + "/")
    green.wait_for_selector("#live-challenges:not([hidden]) li:has-text('Red')", timeout=15_000)
    green.locator("#live-challenges li button.primary").click()
    green.wait_for_selector("#live-challenges li:has-text('waiting for the others')", timeout=15_000)
    green.screenshot(path=str(artifacts / "four-challenge-waiting.png"), full_page=True)
    blue.reload()
    blue.wait_for_selector("#incoming li:has-text('Green ✓')")
    blue.locator("#incoming li button.primary").click()
    blue.wait_for_url(re.compile(r"/g/\w+#seat=2&t="), timeout=15_000)
    green.wait_for_url(re.compile(r"/g/\w+#seat=1&t="), timeout=15_000)
    red.wait_for_url(re.compile(r"/g/\w+#seat=0&t="), timeout=15_000)
    game = blue.url.split("#")[0]
    assert green.url.split("#")[0] == game and red.url.split("#")[0] == game
    red.wait_for_selector("svg.board")
    red.screenshot(path=str(artifacts / "four-challenge-game.png"), full_page=True)
    red.goto(site + "/account")
    link = red.locator("#accepted a.open-link")  # an accepted challenge is listed with its game, not under "Outgoing"
    link.wait_for()
    assert (link.get_attribute("href") or "").startswith(game.split(site, 1)[1] + "#seat=3&t=")
    for page in (red, green, blue):
        page.context.close()
