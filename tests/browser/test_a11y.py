"""A board for everyone (issue 39, WCAG 2.2 AA): axe-core run on every page of the site in both
themes — "no serious or critical violation" — with the pinned copy the PyPI package
``axe-playwright-python`` ships (axe-core 4.x, from the ``test`` extra)."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_accounts_pages import sign_up
from tests.browser.test_play import SMALL, api_create

pytestmark = pytest.mark.browser

BLOCKING = ("serious", "critical")


def axe_problems(page: Any) -> list[str]:
    """The serious and critical violations axe-core finds in the page as it is now: one line per
    rule, with the first nodes' selectors and axe's summary of the failure."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, options={"resultTypes": ["violations"]})
    out = []
    for v in results.response["violations"]:
        if v["impact"] not in BLOCKING:
            continue
        nodes = "; ".join(
            f"{n['target']} {n.get('failureSummary', '').splitlines()[-1].strip()}" for n in v["nodes"][:4]
        )
        out.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {nodes}")
    return out


def check_both_themes(page: Any, what: str, problems: dict[str, list[str]]) -> None:
    """axe in the light theme and in the dark one (the system's, followed by the automatic choice)."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.wait_for_timeout(50)
        found = axe_problems(page)
        if found:
            problems[f"{what} [{scheme}]"] = found
    page.emulate_media(color_scheme="light")


def seat_view(base: str, gid: str, token: str) -> dict[str, Any]:
    """The view of the seat whose token is ``token`` (given in the ``X-Seat-Token`` header: never in a URL)."""
    req = urllib.request.Request(f"{base}/api/games/{gid}", headers={"X-Seat-Token": token})
    return dict(json.loads(urllib.request.urlopen(req, timeout=10).read()))


def finished_game(base: str) -> str:
    """A hot-seat Nume game played to its end through the API (the analysis page opens it)."""
    created = api_create(base, {"game": "nume", "params": {"size": 2}, "mode": "hotseat"})
    gid, tokens = created["id"], created["tokens"]
    for _ in range(60):
        view = seat_view(base, gid, tokens["0"])
        if view["status"] != "active":
            break
        seat = str(view["to_move"])
        v = seat_view(base, gid, tokens[seat])
        acts = [a for a in v["render"]["actions"] if a.get("move") or a.get("template")]
        a = acts[0]
        move = a["move"] if a.get("move") else a["template"].replace("{n}", str(a["number"][0]))
        body = json.dumps({"token": tokens[seat], "move": move, "expected": v["move_number"]}).encode()
        req = urllib.request.Request(
            f"{base}/api/games/{gid}/moves", data=body, headers={"Content-Type": "application/json"}
        )
        urllib.request.urlopen(req, timeout=10).read()
    return str(gid)


def test_axe_finds_no_serious_or_critical_violation_on_any_page(server: str, browser: Any, artifacts: Path) -> None:
    """'axe-core … run in the browser tests on the lobby, a game page of each game (both themes), the
    rules, lessons, account, profile, leaderboard, stats and analysis pages: no serious or critical
    violation' — and the tournaments list, a tournament page and the puzzles page (issues 40, 41)."""
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    problems: dict[str, list[str]] = {}
    sign_up(page, server, "AxeReader")
    check_both_themes(page, "account", problems)
    tour = page.evaluate(
        """async () => (await (await fetch('/api/tournaments', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({kind: 'arena',
            game: 'nume', clock: {initial: 60, increment: 0}, minutes: 30, name: 'Axe arena',
            starts_at: Date.now() / 1000 + 3600})})).json()).id"""
    )
    gid = finished_game(server)
    pages = [
        ("lobby", "/", "body[data-ready='1']"),
        ("rules", "/rules/nume", "#rules svg.board"),
        ("lessons", "/learn/nume", "#lesson-list li"),
        ("profile", "/u/AxeReader", "#profile-card:not([hidden])"),
        ("leaderboard", "/leaderboard/nume", "#board-card:not([hidden])"),
        ("stats", "/stats/nume", "body[data-ready]"),
        ("analysis", f"/analysis?game={gid}", "svg.board .cell"),
        ("tournaments", "/tournaments", "body[data-ready='1']"),
        ("tournament", f"/tournament/{tour}", "body[data-ready='1']"),
        ("puzzles", "/puzzles", "svg.board .cell"),
    ]
    for what, path, ready in pages:
        page.goto(server + path)
        page.wait_for_selector(ready, state="attached")
        page.wait_for_timeout(300)  # the page's later fetches (names, counts) drawn
        check_both_themes(page, what, problems)
    for name, params in SMALL.items():
        created = api_create(server, {"game": name, "params": params, "mode": "ai", "ai_level": 1, "seat": 0})
        page.goto(server + created["links"]["0"])
        page.wait_for_selector("svg.board .cell")
        page.wait_for_selector("#status:not(:empty)")
        time.sleep(0.2)
        check_both_themes(page, f"game {name}", problems)
        if name == "nume":  # a cell pressed from the keyboard: its number question, the focus ring, the keys
            page.keyboard.press("Tab")
            page.keyboard.press("Enter")
            page.keyboard.press("Enter")
            page.wait_for_selector("#number-input")
            check_both_themes(page, "game nume, a number asked", problems)
    # a finished game: the result banner, the replay, the rematch; and a game page on a phone
    page.goto(f"{server}/g/{gid}")
    page.wait_for_selector("#banner:not([hidden])")
    check_both_themes(page, "finished game", problems)
    page.set_viewport_size({"width": 390, "height": 844})
    created = api_create(server, {"game": "nelaxtam", "params": SMALL["nelaxtam"], "mode": "ai", "seat": 0})
    page.goto(server + created["links"]["0"])
    page.wait_for_selector("#submit-order")
    check_both_themes(page, "game nelaxtam, phone", problems)
    assert not problems, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in problems.items())
    page.context.close()
