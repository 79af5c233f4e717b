"""A rematch between two guests in Debian's Chromium: the friend is taken along.  Rematch on one page
shows the offer live on the other (through the game's WebSocket), and accepting takes **both**
pages to the new game with the seats swapped, each holding its own new seat token."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.moving import every_seat_moves

pytestmark = pytest.mark.browser


def game_of(page: Any) -> str:
    return str(page.url.split("/g/")[1].split("#")[0])


def my_seat(page: Any) -> int:
    """The seat this page plays, as the server sees it (the token in its address)."""
    seat = page.evaluate(
        """async () => {
            const id = location.pathname.split('/').pop();
            const m = /#t(\\d+)=([^&]+)/.exec(location.hash) || /#seat=(\\d+)&t=([^&]+)/.exec(location.hash);
            const r = await fetch(`/api/games/${id}`, { headers: { "X-Seat-Token": decodeURIComponent(m[2]) } });
            return (await r.json()).you;
        }"""
    )
    return int(seat)


@pytest.mark.parametrize("size", [(1100, 800), (390, 844)], ids=["desktop", "phone"])
def test_a_guest_rematch_takes_both_guests_to_the_new_game_seats_swapped(
    server: str, browser: Any, artifacts: Path, size: tuple[int, int]
) -> None:
    """'Online rematch leaves the friend behind' no more: 'a guest can rematch a guest', 'shown live on
    their page, and both are taken to the new game when it is accepted'."""
    w, h = size
    tag = f"{w}x{h}"
    host = browser.new_context(viewport={"width": w, "height": h}).new_page()
    friend = browser.new_context(viewport={"width": w, "height": h}).new_page()
    host.goto(server + "/")
    made = host.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({game: 'nibble', mode: 'online', seat: 0})})).json()"""
    )
    host.goto(f"{server}/g/{made['id']}#t0={made['tokens']['0']}")
    friend.goto(server + made["invites"]["1"])
    for page in (host, friend):
        page.wait_for_selector("svg.board")
    assert my_seat(host) == 0 and my_seat(friend) == 1
    every_seat_moves(server, made["id"], {0: made["tokens"]["0"], 1: made["invites"]["1"].rsplit("&t=", 1)[1]})
    # the friend resigns; both see the end
    status = friend.evaluate(
        """async () => {
            const id = location.pathname.split('/').pop();
            const token = /#seat=1&t=([^&]+)/.exec(location.hash)[1];
            return (await fetch(`/api/games/${id}/resign`, {method: 'POST',
                headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token})})).status;
        }"""
    )
    assert status == 200
    host.wait_for_selector("#rematch")
    friend.wait_for_selector("#rematch")
    first = game_of(host)
    # the host asks; the friend's page shows the offer without a reload
    host.locator("#rematch").click()
    host.wait_for_selector("#rematch-offer[data-status=pending]")
    assert "waiting" in host.locator("#rematch-text").inner_text()
    friend.wait_for_selector("#rematch-offer[data-status=pending] button.primary", timeout=15_000)
    assert "offers a rematch" in friend.locator("#rematch-text").inner_text()
    friend.screenshot(path=str(artifacts / f"guest-rematch-offer-{tag}.png"), full_page=True)
    host.screenshot(path=str(artifacts / f"guest-rematch-waiting-{tag}.png"), full_page=True)
    friend.locator("#rematch-offer button.primary").click()
    friend.wait_for_url(re.compile(r"/g/\w+#t0="), timeout=15_000)  # seats swapped
    host.wait_for_url(re.compile(r"/g/\w+#t1="), timeout=15_000)  # pushed its own token
    second = game_of(host)
    assert second != first and game_of(friend) == second
    for page in (host, friend):
        page.wait_for_selector("svg.board")
    assert my_seat(host) == 1 and my_seat(friend) == 0
    host.screenshot(path=str(artifacts / f"guest-rematch-game-{tag}.png"), full_page=True)


def test_a_declined_guest_rematch_says_who_declined(server: str, browser: Any, artifacts: Path) -> None:
    host = browser.new_context().new_page()
    friend = browser.new_context().new_page()
    host.goto(server + "/")
    made = host.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({game: 'nume', mode: 'online', seat: 1})})).json()"""
    )
    host.goto(f"{server}/g/{made['id']}#t1={made['tokens']['1']}")
    friend.goto(server + made["invites"]["0"])
    friend.wait_for_selector("svg.board")
    host.wait_for_selector("svg.board")
    every_seat_moves(server, made["id"], {1: made["tokens"]["1"], 0: made["invites"]["0"].rsplit("&t=", 1)[1]})
    host.evaluate(
        """async ([id, token]) => fetch(`/api/games/${id}/resign`, {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token})})""",
        [made["id"], made["tokens"]["1"]],
    )
    friend.wait_for_selector("#rematch")
    friend.locator("#rematch").click()
    host.wait_for_selector("#rematch-offer[data-status=pending] button.primary", timeout=15_000)
    host.locator("#rematch-offer button:not(.primary)").click()
    friend.wait_for_selector("#rematch-offer[data-status=declined]", timeout=15_000)
    assert "declined" in friend.locator("#rematch-text").inner_text()
    friend.screenshot(path=str(artifacts / "guest-rematch-declined.png"), full_page=True)
    assert game_of(friend) == made["id"]  # nobody moved
