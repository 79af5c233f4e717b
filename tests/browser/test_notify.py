"""Notifications in Debian's Chromium: the waiting player's tab title and header badge change when
the other player moves (two browser contexts: guests on the game page, accounts on the lobby), the
settings panel switches them off, and a push delivered to the service worker (DevTools Protocol
``ServiceWorker.deliverPushMessage``) shows a notification."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_accounts_pages import PASSWORD

pytestmark = pytest.mark.browser


def call(server: str, method: str, path: str, body: dict[str, Any] | None = None, seat: str | None = None) -> Any:
    """``seat``: a seat token, sent as the ``X-Seat-Token`` header (never in the URL)."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    headers |= {"X-Seat-Token": seat} if seat else {}
    req = urllib.request.Request(
        server + path, method=method, data=None if body is None else json.dumps(body).encode(), headers=headers
    )
    with urllib.request.urlopen(req, timeout=300) as r:  # a fresh server compiles kernels first
        return json.loads(r.read() or b"null")


def play_first(server: str, gid: str, token: str) -> None:
    """The seat of ``token`` plays its first legal move."""
    v = call(server, "GET", f"/api/games/{gid}", seat=token)
    a = v["render"]["actions"][0]
    mv = a["move"] if "move" in a else a["template"].replace("{n}", str(a.get("choices", [1])[0]))
    call(server, "POST", f"/api/games/{gid}/moves", {"token": token, "move": mv, "expected": v["move_number"]})


def account_page(browser: Any, server: str, name: str, source: str) -> Any:
    """A browser context logged in to a new account.  The account is made from the loopback address
    ``source`` (not the browser's 127.0.0.1), so that it does not count against the sign-ups the
    server allows one address (the other browser tests' accounts come from 127.0.0.1)."""
    import http.client
    from urllib.parse import urlsplit

    host = urlsplit(server)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=60, source_address=(source, 0))
    body = json.dumps({"username": name, "password": PASSWORD})
    conn.request("POST", "/api/account/signup", body, {"Content-Type": "application/json", "Origin": server})
    r = conn.getresponse()
    assert r.status == 201, r.read()
    cookie = r.getheader("set-cookie", "").split(";", 1)[0].split("=", 1)
    conn.close()
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    context.add_cookies([{"name": cookie[0], "value": cookie[1], "url": server}])
    return context.new_page()


def badge(page: Any) -> str | None:
    """The header badge's count, or None when it is hidden."""
    return page.evaluate(
        "() => { const c = document.getElementById('notify-count'); return c && !c.hidden ? c.textContent : null; }"
    )


def test_the_waiting_guests_title_and_badge_change_when_the_other_moves(
    server: str, browser: Any, artifacts: Path
) -> None:
    """'Notifications, each opt-in and each with an off switch': 'the tab title counts games waiting
    for you ("(2) tessera") … a badge in the header', in a correspondence game, updated live by the
    game page's WebSocket; off until the player turns them on in the bell's panel."""
    game = {"game": "nume", "params": {"size": 3}, "mode": "online", "clock": {"days": 2}}
    g = call(server, "POST", "/api/games", game)
    gid, t0 = g["id"], g["tokens"]["0"]
    mover = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    waiter = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    mover.goto(f"{server}/g/{gid}#seat=0&t={t0}")
    waiter.goto(server + g["invites"]["1"])
    for page in (mover, waiter):
        page.wait_for_selector("svg.board")
        page.wait_for_selector("#notify-bell")
    # opt-in: nothing in the title or on the bell until the switches are on
    mover.wait_for_function("document.documentElement.dataset.waiting === '1'")
    assert not mover.title().startswith("(") and badge(mover) is None
    for page in (mover, waiter):
        page.click("#notify-bell")
        page.locator("#notify-panel #notify-title").check()
        page.locator("#notify-panel #notify-badge").check()
        page.click("#notify-bell")
    t1 = waiter.evaluate(f"() => JSON.parse(localStorage.getItem('tessera:game:{gid}')).tokens['1']")
    # seat 0 is to move: the mover's title counts one game, the waiter's none
    mover.wait_for_function("document.title.startsWith('(1) ') && document.documentElement.dataset.waiting === '1'")
    assert badge(mover) == "1"
    assert not waiter.title().startswith("(") and badge(waiter) is None
    play_first(server, gid, t0)
    waiter.wait_for_function("document.title.startsWith('(1) ')", timeout=15_000)
    waiter.wait_for_function("document.getElementById('notify-count').textContent === '1'")
    assert badge(waiter) == "1" and waiter.title().endswith("tessera")
    assert waiter.evaluate("document.documentElement.dataset.lastSound") == "turn"
    mover.wait_for_function("!document.title.startsWith('(') && document.documentElement.dataset.waiting === '0'")
    assert badge(mover) is None
    # the panel: the game listed, and the switches
    waiter.click("#notify-bell")
    panel = waiter.locator("#notify-panel")
    panel.wait_for()
    assert panel.locator(f"li[data-game='{gid}']").count() == 1
    waiter.screenshot(path=str(artifacts / "notify-panel-guest.png"))
    panel.locator("#notify-title").uncheck()
    waiter.wait_for_function("!document.title.startsWith('(')")
    panel.locator("#notify-badge").uncheck()
    assert badge(waiter) is None
    assert waiter.evaluate("localStorage.getItem('tessera:pref:notifyTitle')") == "false"
    panel.locator("#notify-title").check()
    waiter.wait_for_function("document.title.startsWith('(1) ')")
    # the waiter moves: nothing waits any more
    play_first(server, gid, t1)
    waiter.wait_for_function("!document.title.startsWith('(')", timeout=15_000)
    for page in (mover, waiter):
        page.context.close()


def test_an_accounts_lobby_lists_the_game_and_counts_it_when_the_opponent_moves(
    server: str, browser: Any, artifacts: Path
) -> None:
    """'the lobby's … "games waiting for you" list across devices for accounts', live by the account's
    events (GET /api/account/events)."""
    ann = account_page(browser, server, "NotifyAnn", "127.0.0.2")
    bob = account_page(browser, server, "NotifyBob", "127.0.0.2")
    for page in (ann, bob):
        page.goto(server + "/account")
        page.wait_for_selector("#me-card:not([hidden])")
    made = ann.evaluate(
        """async () => (await fetch('/api/challenges', {method: 'POST', headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({to: 'NotifyBob', game: 'nume(size=3)', seat: 0})})).json()"""
    )
    accept = f"/api/challenges/{made['id']}/accept"
    gid = bob.evaluate(f"async () => (await (await fetch('{accept}', {{method: 'POST'}})).json()).game_id")
    bob.evaluate(
        "() => { localStorage.setItem('tessera:pref:notifyTitle', 'true'); "
        "localStorage.setItem('tessera:pref:notifyBadge', 'true'); }"
    )  # turned on earlier
    bob.goto(server + "/")
    bob.wait_for_selector("#notify-bell")
    bob.wait_for_function("document.documentElement.dataset.waiting === '0'")
    assert bob.locator("#waiting-card").is_hidden()
    seat = ann.evaluate(f"async () => (await fetch('/api/account/games/{gid}/seat')).json()")
    play_first(server, gid, seat["token"])
    bob.wait_for_function("document.title.startsWith('(1) ')", timeout=15_000)
    bob.wait_for_selector(f"#waiting-card:not([hidden]) li[data-game='{gid}']")
    assert badge(bob) == "1"
    bob.screenshot(path=str(artifacts / "notify-lobby-account.png"), full_page=True)
    # the list's link takes Bob to his seat (found through his account)
    bob.locator(f"#waiting-list li[data-game='{gid}'] a").click()
    bob.wait_for_url(f"**/g/{gid}#seat=1&t=*")
    bob.wait_for_selector("svg.board")
    bob.wait_for_function("document.title.startsWith('(1) ')")
    # the account page: the settings section, e-mail included
    bob.goto(server + "/account")
    bob.wait_for_selector("#notify-settings:not([hidden]) #notify-title")
    assert bob.locator("#notify-email").count() == 1
    bob.screenshot(path=str(artifacts / "notify-account-settings.png"), full_page=True)
    for page in (ann, bob):
        page.context.close()


def test_a_push_delivered_to_the_service_worker_shows_a_notification(
    server: str, browser: Any, artifacts: Path
) -> None:
    """'a push delivered to the service worker shows a notification' (DevTools Protocol)."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    context.grant_permissions(["notifications"], origin=server)
    page = context.new_page()
    page.goto(server + "/")
    page.wait_for_selector("#notify-bell")
    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda p: registrations.extend(p["registrations"]))
    cdp.send("ServiceWorker.enable")
    scope = page.evaluate(
        """async () => { const m = await import('/static/js/notify.js'); const reg = await m.registerWorker();
                         return reg.scope; }"""
    )
    assert scope == server + "/"
    page.wait_for_function("navigator.serviceWorker.controller !== null || true")
    deadline_ok = page.evaluate("async () => !!(await navigator.serviceWorker.ready).active")
    assert deadline_ok
    reg = next(r for r in registrations if r["scopeURL"] == server + "/")
    payload = {
        "kind": "turn",
        "game_id": "abc123",
        "url": "/g/abc123",
        "title": "Your turn",
        "body": "Nume: it is your move.",
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": server, "registrationId": reg["registrationId"], "data": json.dumps(payload)},
    )
    # polled from here: a predicate returning a promise would count as shown at once, and the push
    # reaches the worker later on a loaded machine
    shown: list[dict[str, Any]] = []
    deadline = time.monotonic() + 20
    while not shown and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        shown = page.evaluate(
            """async () => (await (await navigator.serviceWorker.ready).getNotifications())
                 .map(n => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}))"""
        )
    assert shown == [
        {"title": "Your turn", "body": "Nume: it is your move.", "tag": "tessera-game-abc123", "url": "/g/abc123"}
    ]
    context.close()
