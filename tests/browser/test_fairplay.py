"""Fair play in the browser (issue 39): no engine for a game in progress, for players and
spectators alike, and the analysis board refusing a live game's link with the reason."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return dict(json.loads(urllib.request.urlopen(req, timeout=120).read()))


def get(base: str, path: str, seat: str | None = None) -> dict[str, Any]:
    """``seat``: a seat token, sent as the ``X-Seat-Token`` header (never in the URL)."""
    req = urllib.request.Request(base + path, headers={"X-Seat-Token": seat} if seat else {})
    return dict(json.loads(urllib.request.urlopen(req, timeout=120).read()))


def status_of(base: str, path: str) -> int:
    try:
        return int(urllib.request.urlopen(base + path, timeout=120).status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def page_of(browser: Any, url: str) -> Any:
    page = browser.new_page(viewport=DESKTOP)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    return page


def first_move(base: str, gid: str, token: str) -> str:
    """The first legal move the seat's view offers."""
    a = get(base, f"/api/games/{gid}", seat=token)["render"]["actions"][0]
    return str(a["move"] if "move" in a else a["template"].replace("{n}", str(a.get("choices", [1])[0])))


def a_game_between_two_people(server: str) -> tuple[str, dict[str, str]]:
    """A public online Nume game, both seats taken, two moves played."""
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 3}, "mode": "online", "public": True})
    gid = created["id"]
    joined = post(server, f"/api/games/{gid}/join", {})
    tokens = {"0": created["tokens"]["0"], str(joined["seat"]): joined["token"]}
    for n in range(2):
        token = tokens[str(n % 2)]
        post(server, f"/api/games/{gid}/moves", {"token": token, "move": first_move(server, gid, token), "expected": n})
    return gid, tokens


def test_no_analysis_link_for_players_or_spectators_while_a_game_between_people_goes_on(
    server: str, browser: Any, artifacts: Path
) -> None:
    """ "the analysis link hidden during play for players and spectators"; "the analysis board
    refusing a live game's link": the analysis page says why and offers no board (no TypeError,
    no "Thinking…" for ever); once the game is over the link is back for everyone."""
    gid, tokens = a_game_between_two_people(server)
    player = page_of(browser, server + f"/g/{gid}#t0={tokens['0']}")
    watcher = page_of(browser, server + f"/g/{gid}")
    for page in (player, watcher):
        page.wait_for_selector("svg.board .cell")
        page.wait_for_function("document.querySelectorAll('#moves li').length >= 2")
        assert page.locator("#analyse-wrap").is_hidden()
    assert status_of(server, f"/api/games/{gid}/analysis") == 403
    board = page_of(browser, server + f"/analysis?game={gid}")
    board.wait_for_selector("#error:not([hidden])")
    assert "game in progress" in board.locator("#error").inner_text()
    assert board.locator(".board-wrap").is_hidden() and board.locator("#best").is_hidden()
    assert board.locator("#back").get_attribute("href") == f"/g/{gid}"
    assert board.errors == []
    board.screenshot(path=str(artifacts / "analysis-live-game-refused.png"), full_page=True)
    post(server, f"/api/games/{gid}/resign", {"token": tokens["1"]})
    for page in (player, watcher):
        page.wait_for_selector("#analyse-wrap:not([hidden])")
        assert page.errors == []
        page.close()
    board.reload()
    board.wait_for_selector("svg.board .cell")
    assert board.locator("#error").is_hidden()
    board.close()


def test_an_unrated_game_against_the_ai_alone_keeps_its_analysis_link(server: str, browser: Any) -> None:
    """ "games against the AI alone excepted": no human opponent to cheat against."""
    created = post(
        server, "/api/games", {"game": "nume", "params": {"size": 3}, "mode": "ai", "seat": 0, "ai_level": 1}
    )
    gid = created["id"]
    token = created["tokens"]["0"]
    post(server, f"/api/games/{gid}/moves", {"token": token, "move": first_move(server, gid, token), "expected": 0})
    page = page_of(browser, server + f"/g/{gid}#t0={created['tokens']['0']}")
    page.wait_for_selector("#analyse-wrap:not([hidden])")
    assert get(server, f"/api/games/{gid}/analysis")["moves"]
    assert page.errors == []
    page.close()


def fetch_json(page: Any, method: str, path: str, body: Any = None) -> Any:
    """A request from the page (its session cookie, the site's own origin)."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const r = await fetch(path, {method, headers: {'Content-Type': 'application/json'},
                                         body: body === null ? undefined : JSON.stringify(body)});
            return {status: r.status, body: await r.json()};
        }""",
        [method, path, body],
    )


def test_your_games_follow_your_account_to_a_plain_link_and_the_lobby(
    server: str, browser: Any, artifacts: Path
) -> None:
    """ "a signed-in player who holds a seat (by account binding) opens `/g/<id>` from any link or
    device and gets his seat and every control"; ""My games" for an account lists its live, waiting
    and finished games from the server; a correspondence game waiting for the opponent is shown"."""
    from tests.browser.test_accounts_pages import sign_up

    ann = browser.new_context(viewport=DESKTOP).new_page()
    ben = browser.new_context(viewport=DESKTOP).new_page()
    sign_up(ann, server, "FairAnn")
    sign_up(ben, server, "FairBen")
    made = fetch_json(
        ann, "POST", "/api/challenges", {"to": "FairBen", "game": "nume(size=3)", "seat": 0, "clock": {"days": 3}}
    )
    assert made["status"] == 201, made
    took = fetch_json(ben, "POST", f"/api/challenges/{made['body']['id']}/accept")
    assert took["status"] == 200, took
    gid = took["body"]["game_id"]
    ann.wait_for_url(f"**/g/{gid}**", timeout=30_000)  # the challenger's pages are taken to the game
    ann.wait_for_selector("svg.board .cell")
    # Ann plays her first move through her session: the correspondence game now waits for Ben
    seat = fetch_json(ann, "GET", f"/api/account/games/{gid}/seat")["body"]
    post(
        server,
        f"/api/games/{gid}/moves",
        {"token": seat["token"], "move": first_move(server, gid, seat["token"]), "expected": 0},
    )
    # Ben opens the game's plain link (no #seat, nothing kept in this browser): his seat and its controls
    ben.errors = []
    ben.on("pageerror", lambda e: ben.errors.append(str(e)))
    ben.goto(server + f"/g/{gid}")
    ben.wait_for_selector("svg.board .cell")
    seen = ben.evaluate("fetch(location.pathname.replace('/g/', '/api/games/')).then(r => r.json())")
    assert seen["you"] == 1
    for control in ("#resign", "#undo", "#abort") + (("#offer-draw",) if seen["draws"] else ()):
        ben.wait_for_selector(control)
    assert ben.errors == []
    # the lobby of each lists the game from the server: Ben's turn, Ann waiting for him
    for page, state in ((ben, "your turn"), (ann, "waiting")):
        page.evaluate("localStorage.clear()")
        page.goto(server + "/")
        item = page.locator(f"#my-games li[data-game='{gid}']")
        item.wait_for(timeout=15_000)
        assert state in item.inner_text().lower(), item.inner_text()
        assert item.locator("a").get_attribute("href") == f"/g/{gid}"
        page.screenshot(path=str(artifacts / f"lobby-account-games-{state.replace(' ', '-')}.png"))
    # once the game is over it stays in the list, finished
    fetch_json(ben, "POST", f"/api/games/{gid}/resign")
    ann.reload()
    item = ann.locator(f"#my-games li[data-game='{gid}']")
    item.wait_for(timeout=15_000)
    assert "waiting" not in item.inner_text().lower()
    ann.close()
    ben.close()
