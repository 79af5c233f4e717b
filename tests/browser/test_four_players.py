"""Four-player Nymbat in Chromium (issue 16): one person and three AI seats play a whole game."""

from __future__ import annotations

import json
import random
import re
import urllib.request
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
    page.evaluate("document.getElementById('advanced').open = true")  # the safeguard limit is folded
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


def _post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return dict(json.loads(urllib.request.urlopen(req, timeout=10).read()))


def test_an_undo_request_in_a_four_seat_online_game_waits_for_every_other_player(server: str, browser: Any) -> None:
    """'Online, an undo is a request: the move is taken back once every other human seat still in
    the game has accepted it' — asked and answered on the game pages (Red asks, Green accepts on
    his page and sees whom it still waits for, Blue and Yellow accept)."""
    from tests.browser.test_play import api_create

    seats = [{"kind": "here"}, {"kind": "invite"}, {"kind": "invite"}, {"kind": "invite"}]
    g = api_create(
        server,
        {"game": "nymbat", "params": {"players": 4, "reserve": 6, "first_limit": 6}, "seats": seats, "public": True},
    )
    gid = g["id"]
    t = {0: g["tokens"]["0"]}
    for _ in range(3):
        joined = _post(server, f"/api/games/{gid}/join", {})
        t[joined["seat"]] = joined["token"]
    _post(server, f"/api/games/{gid}/moves", {"token": t[0], "move": "o4=1", "expected": 0})
    errors: list[str] = []
    red = browser.new_page(viewport={"width": 1280, "height": 900})
    green = browser.new_page(viewport={"width": 1280, "height": 900})
    for page in (red, green):
        page.on("pageerror", lambda e: errors.append(str(e)))
    red.goto(f"{server}/g/{gid}#t0={t[0]}")
    green.goto(f"{server}/g/{gid}#seat=1&t={t[1]}")
    red.wait_for_selector("#undo")
    red.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert red.locator("#undo").inner_text() == "Ask to undo"
    red.locator("#undo").click()
    red.wait_for_selector("#undo-request")
    assert "waiting for Green, Blue, Yellow" in red.locator("#undo-request").inner_text()
    green.wait_for_selector("#undo-accept")
    assert "Red asks to take back a move" in green.locator("#undo-request").inner_text()
    green.locator("#undo-accept").click()
    green.wait_for_function(
        "() => (document.querySelector('#undo-request') || {}).textContent?.includes('waiting for Blue, Yellow')"
    )
    assert green.locator("#undo-accept").count() == 0
    for seat in (2, 3):
        _post(server, f"/api/games/{gid}/undo/accept", {"token": t[seat]})
    red.wait_for_function("() => !document.querySelector('#undo-request')")
    red.wait_for_function("() => document.querySelectorAll('#moves li').length === 0")
    assert not errors, errors
