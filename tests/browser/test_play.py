"""A person plays every game in Chromium by clicking (docs: the web app issue).

Each test quotes the requirement it checks.  Small variants and AI level 1
keep the games short.
"""

from __future__ import annotations

import json
import random
import re
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

SMALL = {
    "ikabegama": {"distance": 2, "board": "hexhex:3", "max_plies": 24},
    "nume": {"size": 2},
    "nibble": {},
    "nymbat": {"reserve": 4, "first_limit": 4, "max_turns": 6},
    "nelaxtam": {"size": 10, "troops": 2, "by_sea": 1, "max_idle_turns": 2},
}


def set_param(page: Any, key: str, value: Any) -> None:
    """Sets a field of the new-game form: a list by its value, a number or text by typing; the
    safeguard limits sit in the "advanced" fold, opened first."""
    field = page.locator(f"#param-{key}")
    if page.locator(f"#params-advanced #param-{key}").count():
        page.evaluate("document.getElementById('advanced').open = true")
    if field.evaluate("e => e.tagName") == "SELECT":
        field.select_option(str(value))
    else:
        field.fill(str(value))
        field.dispatch_event("change")


def api_create(base: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + "/api/games", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return dict(json.loads(urllib.request.urlopen(req, timeout=10).read()))


def finished(page: Any) -> bool:
    return bool(page.locator("#banner").is_visible())


def my_turn(page: Any) -> bool:
    return page.locator('#status[data-turn="yours"]').count() > 0


def act(page: Any, rng: random.Random) -> bool:
    """Make one click a person would make on his turn; False if there was nothing to click."""
    if page.locator("#submit-order").count():
        return build_order(page, rng)
    if page.locator("#number-ok").count():
        inp = page.locator("#number-input")
        lo, hi = int(inp.get_attribute("min")), int(inp.get_attribute("max"))
        inp.fill(str(rng.randint(lo, min(hi, lo + 4))))
        page.locator("#number-ok").click()
        return True
    # count once: the page may redraw between two counts (a pushed view)
    n_choices = page.locator(".choice-btn").count()
    n_dots = page.locator("svg.board .target-dot").count()
    n_buttons = page.locator("#prompt .action-btn").count()
    try:
        if n_choices:
            page.locator(".choice-btn").nth(rng.randrange(n_choices)).click(timeout=5000)
            return True
        if n_dots and (not n_buttons or rng.random() < 0.6):
            page.locator("svg.board .target-dot").nth(rng.randrange(n_dots)).click(timeout=5000)
            return True
        if n_buttons:
            page.locator("#prompt .action-btn").nth(rng.randrange(n_buttons)).click(timeout=5000)
            return True
    except Exception as e:  # Playwright's TimeoutError: it vanished under the click, the caller looks again
        if type(e).__name__ != "TimeoutError":
            raise
    return False


def build_order(page: Any, rng: random.Random) -> bool:
    """Nelaxtam: give every troop an action by clicking, then submit the order."""
    submit = page.locator("#submit-order")
    for _ in range(40):
        if submit.is_enabled() and rng.random() < 0.5:
            break
        dots = page.locator("svg.board .target-dot")
        if dots.count():
            dots.nth(rng.randrange(dots.count())).click()
        if page.locator("#submit-order").count() == 0:
            return True
    if not submit.is_enabled():
        return False
    submit.click()
    time.sleep(0.3)
    if page.locator("#error").is_visible() and page.locator("#submit-order").count():
        page.get_by_role("button", name="Clear").click()  # a refused order: start again
    return True


def play_to_the_end(page: Any, rng: random.Random, limit: float = 150.0) -> int:
    """Click until the result banner shows; returns how many clicks it took."""
    clicks = 0
    deadline = time.time() + limit
    while not finished(page):
        assert time.time() < deadline, (
            f"the game did not end in {limit} s: {page.locator('#status').inner_text()}; "
            f"page errors: {getattr(page, 'errors', [])}"
        )
        if my_turn(page) and act(page, rng):
            clicks += 1
            page.wait_for_timeout(60)
        else:
            page.wait_for_timeout(120)
    return clicks


@pytest.mark.parametrize("name", ["ikabegama", "nume", "nibble", "nymbat", "nelaxtam"])
def test_play_a_whole_game_against_the_ai_by_clicking(server: str, browser: Any, artifacts: Path, name: str) -> None:
    """For each of the five games a person creates a game vs the AI and plays it to the end by clicking;
    a reload resumes the game."""
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(server + f"/?game={name}")
    page.wait_for_selector("#param-" + next(iter(SMALL[name]), "colors"))
    for key, value in SMALL[name].items():
        set_param(page, key, value)
    page.locator("input[name=mode][value=ai]").check()
    page.locator("#ai-level").select_option("1")
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/"))
    page.wait_for_selector("svg.board .cell")
    rng = random.Random(zlib.crc32(name.encode()))
    # play a little, then reload: the game resumes from the stored state
    for _ in range(200):
        if finished(page) or page.locator("#moves li").count() >= 2:
            break
        if my_turn(page):
            act(page, rng)
        page.wait_for_timeout(100)
    moves_before = page.locator("#moves li").count()
    page.screenshot(path=str(artifacts / f"{name}-playing.png"))
    page.reload()
    page.wait_for_selector("svg.board .cell")
    page.wait_for_function(f"document.querySelectorAll('#moves li').length >= {moves_before}")
    assert page.locator(".seat").count() == 2
    play_to_the_end(page, rng)
    banner = page.locator("#banner").inner_text()
    # the result names the rule that decided (e.g. "Second took all 9 red blocks") and carries its reason
    assert page.locator("#result-why").get_attribute("data-reason"), banner
    assert page.locator("#result-why").inner_text().strip(), banner
    page.screenshot(path=str(artifacts / f"{name}.png"))
    # the replay browser steps through the finished game
    page.locator("#rp-first").click()
    page.wait_for_function("document.getElementById('replay-pos').textContent.startsWith('0 /')")
    page.locator("#rp-next").click()
    page.wait_for_function("document.getElementById('replay-pos').textContent.startsWith('1 /')")
    assert not errors, errors
    page.close()


def test_online_nelaxtam_never_shows_the_other_players_pending_order(
    server: str, browser: Any, artifacts: Path
) -> None:
    """Two browser contexts play an online Nelaxtam game and neither page ever shows the other's pending orders."""
    created = api_create(server, {"game": "nelaxtam", "params": SMALL["nelaxtam"], "mode": "online", "seat": 0})
    pages = []
    frames: list[list[str]] = [[], []]
    for seat, link in ((0, created["links"]["0"]), (1, created["invites"]["1"])):
        ctx = browser.new_context(viewport={"width": 390, "height": 844} if seat else {"width": 1200, "height": 800})
        page = ctx.new_page()
        page.on("websocket", lambda ws, s=seat: ws.on("framereceived", lambda data, s=s: frames[s].append(str(data))))
        page.goto(server + link)
        page.wait_for_selector("svg.board .cell")
        pages.append(page)
    # each sees the other connected
    for page in pages:
        page.wait_for_function("document.querySelectorAll('.seat .dot-on').length === 2")
    rng = random.Random(7)
    own: list[str | None] = [None, None]
    deadline = time.time() + 150
    turns = 0
    while not (pages[0].locator("#banner").is_visible() and pages[1].locator("#banner").is_visible()):
        assert time.time() < deadline, "the online game did not end"
        for me in (0, 1):
            page, other = pages[me], pages[1 - me]
            if page.locator("#submit-order").count() and not page.locator("#banner").is_visible():
                own[me] = None
                build_order(page, rng)
                sealed = page.locator(".sealed-order code")
                if sealed.count():
                    order = sealed.inner_text()
                    own[me] = order
                    # nothing outside the other player's own order builder shows it
                    for sel in ("#status", "#seats", "#panel-table", "#board", ".sealed-order"):
                        node = other.locator(sel)
                        if node.count() and own[1 - me] != order:
                            assert order not in node.first.inner_text()
                    for li in other.locator("#moves li").all_inner_texts():  # resolved turns only
                        assert li.startswith("both") and " | " in li
                    # and no message pushed to the other browser carries it
                    for f in frames[1 - me]:
                        msg = json.loads(f)
                        if msg.get("type") != "state":
                            continue
                        view = msg["view"]
                        pending = (view["render"].get("order") or {}).get("pending")
                        assert pending in (None, own[1 - me]), (pending, order)
                        assert all(m["player"] == -2 for m in view["moves"])
        turns += 1
        pages[0].wait_for_timeout(150)
        if turns == 3:
            pages[1].reload()  # a reload resumes the game
            pages[1].wait_for_selector("svg.board .cell")
    pages[0].screenshot(path=str(artifacts / "nelaxtam-online-black.png"))
    pages[1].screenshot(path=str(artifacts / "nelaxtam-online-white-phone.png"), full_page=True)
    results = [p.locator("#banner").inner_text().split(" — ")[0] for p in pages]
    assert results[0] == results[1], results
    for page in pages:
        page.context.close()


def test_hot_seat_hands_over_the_screen_for_secret_orders_and_undo_takes_back(
    server: str, browser: Any, artifacts: Path
) -> None:
    """Modes: hot-seat (one screen for both players); Nelaxtam order builder for every troop, then submit;
    undo is free in hot-seat."""
    created = api_create(server, {"game": "nelaxtam", "params": SMALL["nelaxtam"], "mode": "hotseat"})
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    hash_ = "&".join(f"t{s}={t}" for s, t in created["tokens"].items())
    page.goto(server + created["url"] + "#" + hash_)
    page.wait_for_selector("svg.board .cell")
    rng = random.Random(11)
    for seat_name in ("Black", "White"):
        reveal = page.locator("#reveal")
        reveal.wait_for()
        assert seat_name in reveal.inner_text()
        assert page.locator("svg.board .target-dot").count() == 0  # nothing to see before the hand-over
        reveal.click()
        while page.locator("#submit-order").count():
            build_order(page, rng)
            page.wait_for_timeout(100)
    page.wait_for_function("document.querySelectorAll('#moves li').length === 1")
    page.screenshot(path=str(artifacts / "nelaxtam-hotseat.png"))
    page.locator("#undo").click()
    page.wait_for_function("document.querySelectorAll('#moves li').length === 0")
    page.locator("#reveal").wait_for()
    page.close()


def test_the_unbounded_plane_pans_and_zooms_and_still_plays_by_clicking(
    server: str, browser: Any, artifacts: Path
) -> None:
    """One generic SVG renderer: the unbounded plane (pan/zoom); coordinates shown; last move marked."""
    created = api_create(server, {"game": "ikabegama", "mode": "ai", "ai_level": 1})
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    page.goto(server + created["links"]["0"])
    page.wait_for_selector("svg.board .target-dot")
    assert page.locator("svg.board").get_attribute("data-kind") == "hexplane"
    assert page.locator("svg.board text.coord", has_text="0,0").count() == 1

    def box() -> list[float]:
        return [float(x) for x in page.locator("svg.board").get_attribute("viewBox").split()]

    before = box()
    page.locator("#zoom-in").click()
    zoomed = box()
    assert zoomed[2] < before[2]
    bb = page.locator("svg.board").bounding_box()
    page.mouse.move(bb["x"] + 200, bb["y"] + 200)
    page.mouse.down()
    page.mouse.move(bb["x"] + 300, bb["y"] + 250, steps=5)
    page.mouse.up()
    panned = box()
    assert panned[0] < zoomed[0] and panned[2] == zoomed[2]
    page.locator("#coords").uncheck()
    assert page.locator("svg.board text.coord").count() == 0
    page.locator("#zoom-fit").click()
    page.locator("svg.board .target-dot").first.click()
    if page.locator("svg.board .selected-ring").count():  # a jump: the token was picked, now its target
        page.locator("svg.board .target-dot").first.click()
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 2")  # the AI answered
    assert page.locator("svg.board .last-move").count() >= 1
    page.screenshot(path=str(artifacts / "ikabegama-plane.png"))
    page.close()


def test_a_friend_joins_from_the_invite_link_and_sees_the_move_live(server: str, browser: Any) -> None:
    """Online between two browsers: create → invite link per seat → live updates over WebSocket;
    a player's connection status is shown to the other."""
    host = browser.new_context(viewport={"width": 1100, "height": 800})
    page = host.new_page()
    page.goto(server + "/?game=nume")
    page.wait_for_selector("#param-size")
    page.locator("#param-size").fill("2")
    page.locator("input[name=mode][value=online]").check()
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/"))
    invite = page.locator("#invite-1")
    invite.wait_for()
    link = invite.input_value()
    assert "#seat=1&t=" in link
    assert page.locator(".seat[data-seat='1'] .dot-off").count() == 1  # the friend is not here yet
    friend = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    friend.goto(link)
    friend.wait_for_selector("svg.board .cell")
    page.wait_for_selector(".seat[data-seat='1'] .dot-on")
    assert page.locator("#invite-1").count() == 0  # the seat is taken now
    page.locator("svg.board .target-dot").first.click()
    page.locator("#number-input").fill("3")
    page.locator("#number-ok").click()
    friend.wait_for_function("document.querySelectorAll('#moves li').length === 1")
    assert friend.locator('#status[data-turn="yours"]').count() == 1
    friend.context.close()
    page.wait_for_selector(".seat[data-seat='1'] .dot-off")  # the friend left
    host.close()
