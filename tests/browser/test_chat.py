"""Chat in a game, in Chromium (issue 24): 'chat both ways and mute' between two players' browsers,
and a spectator's room that a player of the live game never sees."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser


def post(server: str, path: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        server + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def open_page(browser: Any, url: str, viewport: dict[str, int]) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("svg.board .cell")
    page.wait_for_selector(".chat-form", state="attached")
    page.wait_for_function("document.body.dataset.conn === 'online'")
    return page


def write(page: Any, text: str) -> None:
    page.locator(".chat-input").fill(text)
    page.locator(".chat-send").click()
    page.wait_for_function("() => document.querySelector('.chat-input').value === ''")


def wait_text(page: Any, text: str) -> None:
    """Wait until a chat message with exactly ``text`` shows on ``page``."""
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.chat-list .chat-text')].some(n => n.textContent === t)", arg=text
    )


def messages(page: Any) -> list[str]:
    return [t.strip() for t in page.locator(".chat-list .chat-text").all_inner_texts()]


def test_two_players_chat_both_ways_and_one_mutes_the_other(server: str, browser: Any, artifacts: Path) -> None:
    """'chat both ways and mute' in two browser contexts (a desktop and a phone), live by the socket;
    the spectator writes in his own room, which the players of the live game never see; the
    character counter and the mute button; screenshots of both pages."""
    g = post(server, "/api/games", {"game": "nibble", "mode": "online", "public": True})
    gid = g["id"]
    host = open_page(browser, server + g["links"]["0"], {"width": 1200, "height": 820})
    guest = open_page(browser, server + g["invites"]["1"], {"width": 390, "height": 844})
    watcher = open_page(browser, server + f"/g/{gid}", {"width": 1000, "height": 760})

    assert host.locator(".chat-tabs").is_hidden()  # a player of a live game has one room
    host.locator(".chat-input").fill("good luck!")
    assert host.locator(".chat-counter").inner_text() == "10/200"
    host.locator(".chat-send").click()
    wait_text(guest, "good luck!")
    write(guest, "thanks, you too")
    host.wait_for_function("() => document.querySelectorAll('.chat-list .chat-text').length === 2")
    assert messages(host) == ["good luck!", "thanks, you too"]
    assert messages(guest) == ["good luck!", "thanks, you too"]

    write(watcher, "the spectators are here")
    assert messages(watcher) == ["the spectators are here"]  # never the players' room
    watcher.wait_for_timeout(300)
    assert "the spectators are here" not in host.locator("#chat").inner_text()
    assert "the spectators are here" not in guest.locator("#chat").inner_text()
    watcher.screenshot(path=str(artifacts / "chat-spectator.png"))

    # the host mutes the guest: the guest's old and new messages leave the host's page only
    host.locator(".chat-msg", has_text="thanks, you too").locator(".chat-mute").click()
    host.wait_for_selector(".chat-unmute")
    assert messages(host) == ["good luck!"]
    write(guest, "are you there?")
    write(host, "still here")
    wait_text(guest, "still here")
    assert messages(guest) == ["good luck!", "thanks, you too", "are you there?", "still here"]
    assert messages(host) == ["good luck!", "still here"]
    host.screenshot(path=str(artifacts / "chat-host-muted.png"))
    guest.locator("#chat").scroll_into_view_if_needed()
    guest.screenshot(path=str(artifacts / "chat-guest-phone.png"))
    # the mute is kept on the server for the host's seat: a reload keeps it
    host.reload()
    host.wait_for_selector(".chat-unmute")
    host.wait_for_function("() => document.querySelectorAll('.chat-list .chat-text').length === 2")
    assert messages(host) == ["good luck!", "still here"]
    host.locator(".chat-unmute").click()
    host.wait_for_function("() => document.querySelectorAll('.chat-list .chat-text').length === 4")

    # the game ends: the players may read the spectators' room too, in a tab of its own
    post(server, f"/api/games/{gid}/resign", {"token": g["invites"]["1"].rsplit("&t=", 1)[1]})
    host.wait_for_selector(".chat-tab[data-room=spectator]")
    host.locator(".chat-tab[data-room=spectator]").click()
    wait_text(host, "the spectators are here")
    assert host.locator(".chat-form").is_hidden()  # players write only in their own room
    host.screenshot(path=str(artifacts / "chat-host-after-the-end.png"))
    for page in (host, guest, watcher):
        assert page.errors == []


def test_a_player_against_the_ai_has_no_chat_but_its_spectators_do(server: str, browser: Any) -> None:
    """A player with no one to talk to (against the AI) sees no chat panel while the game lasts; a
    spectator of the same game chats in the spectators' room."""
    g = post(server, "/api/games", {"game": "nibble", "mode": "ai", "ai_level": 1})
    page = browser.new_context(viewport={"width": 1000, "height": 760}).new_page()
    with page.expect_response(lambda r: "/chat" in r.url and r.status == 200):
        page.goto(server + g["links"]["0"])
    page.wait_for_selector("svg.board .cell")
    page.wait_for_timeout(200)
    assert page.locator("#chat").is_hidden()
    watcher = open_page(browser, server + f"/g/{g['id']}", {"width": 1000, "height": 760})
    watcher.wait_for_selector("#chat", state="visible")  # shown once its history has come
    assert watcher.locator(".chat-input").get_attribute("placeholder") == "To the spectators…"
    assert watcher.errors == []
