"""The statistics page in Debian's Chromium: a game's first-seat win rate from people's rated games
(with its Wilson interval) beside the balance lab's self-play figures for the same variants, reached
from the rules page and the leaderboard; desktop and phone sizes, screenshots in test-artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.moving import every_seat_moves
from tests.browser.test_accounts_pages import PASSWORD
from tests.server.test_processes import serve

pytestmark = pytest.mark.browser


def call(page: Any, server: str, method: str, path: str, body: Any = None) -> Any:
    """A request with this browser's cookies, as the site's own page sends it."""
    r = page.request.fetch(server + path, method=method, data=body, headers={"Origin": server})
    assert r.ok, r.text()
    return r.json()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[str]:
    """A server of this module's own (a fresh database: the figures are exactly this module's games,
    and its sign-ups do not count against the shared server's per-address sign-up limit), with
    three rated nume games between two people: the first seat won two."""
    db = tmp_path_factory.mktemp("stats") / "tessera.db"
    with serve(f"sqlite:///{db}") as (base, _):
        rated_games(base, browser, ("Sa", "Sb"), [True, True, False])
        yield base


def rated_games(server: str, browser: Any, names: tuple[str, str], results: list[bool]) -> None:
    """Rated nume games between two new accounts, the first named always on the first seat; the first
    seat wins the games marked True (the other resigns)."""
    a = browser.new_context().new_page()
    b = browser.new_context().new_page()
    for page, name in ((a, names[0]), (b, names[1])):
        call(page, server, "POST", "/api/account/signup", {"username": name, "password": PASSWORD})
    for first_wins in results:
        c = call(a, server, "POST", "/api/challenges", {"to": names[1], "game": "nume", "rated": True, "seat": 0})
        got = call(b, server, "POST", f"/api/challenges/{c['id']}/accept")
        gid = got["game_id"]
        loser = b if first_wins else a
        first = call(a, server, "GET", f"/api/account/games/{gid}/seat")["token"]
        every_seat_moves(server, gid, {0: first, 1: got["token"]})  # before that a resignation aborts
        token = got["token"] if first_wins else first
        call(loser, server, "POST", f"/api/games/{gid}/resign", {"token": token})
    a.context.close()
    b.context.close()


@pytest.mark.parametrize("size", [(1100, 800), (390, 844)], ids=["desktop", "phone"])
def test_the_stats_page_shows_people_beside_the_balance_lab(
    site: str, browser: Any, artifacts: Path, size: tuple[int, int]
) -> None:
    """'per game … first-seat win rate with a 95 % interval, draw rate … (GET /api/stats/{game} and a
    page) — beside the balance lab's self-play figures for the same variant'."""
    w, h = size
    server = site
    page = browser.new_context(viewport={"width": w, "height": h}).new_page()
    # from the rules page
    page.goto(f"{server}/rules/nume")
    page.locator("#stats[href='/stats/nume']").wait_for()  # (set by the page's script)
    page.locator("#stats").click()
    page.wait_for_url(f"{server}/stats/nume")
    page.wait_for_selector("body[data-ready='1']")
    api = call(page, server, "GET", "/api/stats/nume")
    assert api["games"] == 3 and api["first_seat"]["wins"] == 2 and api["self_play"]
    people = page.locator("#people").inner_text()
    assert "3" in people and "66.7 %" in people
    f = api["first_seat"]
    assert f"[{round(100 * f['low'])}–{round(100 * f['high'])} %]" in people  # the Wilson interval
    # the variant people played, with the lab's studies of it in the same row
    row = page.locator("#variants tr[data-variant='nume']").first
    text = row.inner_text()
    lab = [x for x in api["self_play"] if x["variant"] == "nume"]
    assert lab, "the repository's nume studies cover the default variant"
    assert str(api["by_variant"]["nume"]["games"]) in text and (lab[0]["agent"] or "") in text
    assert f"[{round(100 * lab[0]['first_seat']['low'])}–{round(100 * lab[0]['first_seat']['high'])} %]" in text
    assert page.locator("#variants tr[data-variant]").count() >= len({x["variant"] for x in api["self_play"]})
    page.screenshot(path=str(artifacts / f"stats-nume-{w}x{h}.png"), full_page=True)
    # from the leaderboard, and in another language
    page.goto(f"{server}/leaderboard/nume")
    page.locator("#board-stats[href='/stats/nume']").click()
    page.wait_for_selector("body[data-ready='1']")
    page.goto(f"{server}/stats/nume?lang=fr")
    page.wait_for_selector("body[data-ready='1']")
    assert "Victoires de la première place" in page.locator("#people").inner_text()
    page.context.close()


def test_an_unknown_game_says_so(server: str, browser: Any) -> None:
    page = browser.new_context().new_page()
    page.goto(f"{server}/stats/chess")
    page.wait_for_selector("body[data-ready='error']")
    assert "chess" in page.locator("#stats-error").inner_text()
    page.context.close()
