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


def _player(server: str, name: str) -> Any:
    import httpx

    c = httpx.Client(base_url=server, headers={"Origin": server}, timeout=30)
    r = c.post("/api/account/signup", json={"username": name, "password": "correct horse battery"})
    assert r.status_code == 201, r.text
    return c


def _move(c: Any, gid: str) -> bool:
    """One move of this player's seat if it is his turn; whether the game goes on."""
    v = c.get(f"/api/games/{gid}").json()
    if v["status"] != "active":
        return False
    if v["to_move"] != v["you"]:
        return True
    a = v["render"]["actions"][0]
    mv = a["move"] if "move" in a else a["template"].replace("{n}", str((a.get("choices") or a["number"])[0]))
    r = c.post(f"/api/games/{gid}/moves", json={"move": mv, "expected": v["move_number"]})
    assert r.status_code == 200, r.text
    return True


def test_a_winners_profile_shows_the_tournament_with_a_trophy(server: str, browser: Any, artifacts: Path) -> None:
    """Results and trophies on profiles: after a one-round Swiss event, the winner's profile lists it
    with his rank and the trophy, the other player's with his rank and no trophy."""
    import time

    ann, bob = _player(server, "TrophyAnn"), _player(server, "TrophyBob")
    body = {"kind": "swiss", "game": "nume(size=2)", "clock": {"initial": 300, "increment": 0}, "rounds": 1}
    tid = ann.post("/api/tournaments", json={**body, "name": "Trophy Swiss"}).json()["id"]
    for c in (ann, bob):
        assert c.post(f"/api/tournaments/{tid}/join").status_code == 200
    deadline = time.time() + 30
    while not (game := ann.get(f"/api/tournaments/{tid}").json()["me"]["game"]):
        assert time.time() < deadline, "round 1 was not paired"
        time.sleep(0.3)
    gid = game["game_id"]
    for _ in range(2):  # every seat moves once: a resignation then loses (before, it aborts)
        for c in (ann, bob):
            _move(c, gid)
    assert bob.post(f"/api/games/{gid}/resign").status_code == 200
    while ann.get(f"/api/tournaments/{tid}").json()["status"] != "finished":
        assert time.time() < deadline + 30, "the event did not finish"
        time.sleep(0.3)
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    page.goto(server + "/u/TrophyAnn")
    card = page.locator("#tournaments-card")
    card.locator(f"a[href='/tournament/{tid}']:has-text('Trophy Swiss')").wait_for(timeout=15_000)
    assert "🏆" in card.inner_text() and "1 of 2" in card.inner_text()
    page.screenshot(path=str(artifacts / "profile-trophy-desktop.png"), full_page=True)
    page.goto(server + "/u/TrophyBob")
    card.locator(f"a[href='/tournament/{tid}']").wait_for(timeout=15_000)
    assert "🏆" not in card.inner_text() and "2 of 2" in card.inner_text()
