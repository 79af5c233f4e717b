"""The first minute without jargon (issue 26), checked in Chromium at desktop and phone sizes:
the lobby's loading status, the new-game form in the player's language, board clarity (Nume's
groups, Nibble's numbers and palette, Nelaxtam's legal orders, Nymbat's pieces and points, the
turn counter, the evaluation bar), My games first on a phone, sounds with a mute switch, a dark
theme, and translations with a switcher.

Each test quotes what it checks; screenshots go to test-artifacts/ (looked at when written).
"""

from __future__ import annotations

import json
import re
import struct
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
LOCALES = Path(__file__).resolve().parents[2] / "tessera" / "web" / "locales"


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return dict(json.loads(urllib.request.urlopen(req, timeout=60).read()))


def get(base: str, path: str, token: str | None = None) -> dict[str, Any]:
    req = urllib.request.Request(base + path, headers={"X-Seat-Token": token} if token else {})
    return dict(json.loads(urllib.request.urlopen(req, timeout=60).read()))


def hash_of(created: dict[str, Any]) -> str:
    return "#" + "&".join(f"t{s}={t}" for s, t in created["tokens"].items())


def new_page(browser: Any, viewport: dict[str, int], locale: str = "en-US", **kw: Any) -> Any:
    ctx = browser.new_context(viewport=viewport, locale=locale, **kw)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def open_game(browser: Any, base: str, created: dict[str, Any], viewport: dict[str, int], locale: str = "en-US") -> Any:
    page = new_page(browser, viewport, locale)
    page.goto(base + created["url"] + hash_of(created))
    page.wait_for_selector("svg.board .cell")
    page.wait_for_selector("#status:not(:empty)")
    return page


def open_lobby(browser: Any, base: str, viewport: dict[str, int], query: str = "", locale: str = "en-US") -> Any:
    page = new_page(browser, viewport, locale)
    page.goto(base + "/" + query)
    page.wait_for_selector("body[data-ready='1']")
    return page


def catalogue(lang: str, ns: str) -> dict[str, Any]:
    return dict(json.loads((LOCALES / lang / f"{ns}.json").read_text(encoding="utf-8")))


def flat(data: Any, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in data.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def play_moves(base: str, created: dict[str, Any], moves: list[str]) -> dict[str, Any]:
    """Plays moves of a hot-seat game through the API, each by the seat to move."""
    view: dict[str, Any] = {}
    for m in moves:
        view = get(base, f"/api/games/{created['id']}")
        token = created["tokens"][str(view["to_move"])]
        post(base, f"/api/games/{created['id']}/moves", {"token": token, "move": m, "expected": view["move_number"]})
    return get(base, f"/api/games/{created['id']}")


# -- first start ------------------------------------------------------------------------------


@VIEWPORTS
def test_the_lobby_says_it_is_preparing_while_the_catalogue_loads(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "The lobby never shows a blank list while the catalogue loads — a visible status": with the
    catalogue held back and the server saying Nume still compiles, the lobby says "Preparing Nume…";
    once the catalogue comes, the status goes and the form appears."""
    page = new_page(browser, viewport)
    held: list[Any] = []
    page.route("**/api/catalog", lambda route: held.append(route))
    page.route(
        "**/api/status",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps({"ready": False, "warming": ["nume"]})
        ),
    )
    with page.expect_request("**/api/catalog"):
        page.goto(server + "/")
    page.wait_for_function("document.getElementById('catalog-status').textContent.includes('Nume')")
    status = page.locator("#catalog-status")
    assert status.is_visible()
    assert status.inner_text().startswith("Preparing Nume…"), status.inner_text()
    assert page.locator("#create").is_hidden(), "no half-built form while the games load"
    assert page.locator("#open-games").is_visible(), "the lists load meanwhile"
    page.screenshot(path=str(artifacts / f"lobby-preparing-{viewport['width']}.png"))
    page.unroute("**/api/status")
    page.route(
        "**/api/status",
        lambda route: route.fulfill(status=200, content_type="application/json", body='{"ready": true, "warming": []}'),
    )
    assert held, "the catalogue request was held"
    held[0].continue_()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#catalog-status", state="hidden")
    assert page.locator("#create").is_visible()
    assert not page.errors, page.errors
    page.context.close()


def test_a_form_pressed_before_its_page_is_wired_does_not_reload_the_page(server: str, browser: Any) -> None:
    """A button pressed while the page's script still loads its texts does nothing visible, not a
    native submission (a reload with the fields in the address, which lost the click and the form);
    the lobby's game form is not shown until its handler is attached."""
    page = new_page(browser, {"width": 1100, "height": 800})
    held: list[Any] = []
    page.route("**/static/locales/**", lambda route: held.append(route))
    with page.expect_request("**/static/locales/**"):
        page.goto(server + "/")
    assert page.locator("#create").is_hidden(), "the lobby's form is hidden until it is wired"
    page.goto(server + "/tournaments")
    page.wait_for_function("() => document.getElementById('new-tournament') !== null")
    assert held, "the texts were held"
    page.evaluate("document.getElementById('new-tournament').requestSubmit()")
    page.wait_for_timeout(300)
    assert page.url == server + "/tournaments", page.url
    page.context.close()


def test_without_a_status_route_the_lobby_still_says_it_loads(server: str, browser: Any) -> None:
    """ "Tolerate a 404 until that lands": an older server without /api/status still gets the
    'Loading the games…' status while the catalogue is on its way."""
    page = new_page(browser, DESKTOP)
    held: list[Any] = []
    page.route("**/api/catalog", lambda route: held.append(route))
    page.route("**/api/status", lambda route: route.fulfill(status=404, body='{"detail": "Not Found"}'))
    with page.expect_request("**/api/catalog"):
        page.goto(server + "/")
    page.wait_for_function("document.documentElement.lang === 'en' && document.querySelector('.lang-switch')")
    assert page.locator("#catalog-status").inner_text() == "Loading the games…"
    held[0].continue_()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#catalog-status").is_hidden()
    page.context.close()


# -- the new-game form in the player's language ------------------------------------------------

ENGINE_WORDS = re.compile(r"hexhex|'q,r'|distance,0|Max plies|overrides distance|\w+\(\w+=")


@VIEWPORTS
def test_every_parameter_has_a_label_and_an_explanation_a_player_understands(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Every parameter with a label and a one-line explanation a player understands (no 'Dark
    nest at distance,0', "'q,r' (overrides distance)", "'hexhex:N'", 'Max plies'), choices as
    selects, safeguard limits under an 'advanced' fold": for each game every field's label and
    explanation come from the catalogue, none reads like engine code, and the limits are folded."""
    catalog = get(server, "/api/catalog")["games"]
    params_en = catalogue("en", "params")
    page = open_lobby(browser, server, viewport)
    for game in catalog:
        page.locator("#game").select_option(game["name"])
        form = page.locator("#create")
        for p in game["params"]:
            field = page.locator(f"label.param[data-param='{p['name']}']")
            assert field.count() == 1, (game["name"], p["name"])
            words = params_en[game["name"]][p["name"]]
            # text_content: the folded fields are not rendered, their words are there all the same
            assert field.locator(".param-label").text_content() == words["label"]
            assert field.locator(".param-help").text_content() == words["help"]
            folded = page.locator(f"#params-advanced label.param[data-param='{p['name']}']").count() == 1
            safeguard = (p["doc"] or "").startswith("safeguard")
            assert folded == (safeguard or (game["name"], p["name"]) == ("ikabegama", "dark_nest")), p["name"]
            if p["choices"]:
                assert page.locator(f"#param-{p['name']}").evaluate("e => e.tagName") == "SELECT"
        text = (form.text_content() or "") + " ".join(form.locator("option").all_text_contents())
        assert not ENGINE_WORDS.search(text), (game["name"], ENGINE_WORDS.search(text))
        if any((p["doc"] or "").startswith("safeguard") for p in game["params"]):
            assert not page.locator("#advanced").get_attribute("open") and page.locator("#advanced").is_visible()
    page.locator("#game").select_option("ikabegama")
    board = page.locator("#param-board")
    assert board.evaluate("e => e.tagName") == "SELECT"
    assert board.locator("option[value='hexhex:4']").inner_text() == "hexagon, 4 hexes a side"
    assert board.locator("option[value='hexhex:3']").count() == 0, "a hexagon too small for the nests is not offered"
    page.locator("#param-distance").fill("2")
    page.locator("#param-distance").dispatch_event("change")
    assert board.locator("option[value='hexhex:2']").count() == 1, "a shorter race fits on a smaller hexagon"
    page.locator("#game").select_option("nymbat")
    variants = page.locator("#variant option").all_inner_texts()
    assert "Reserve points: 12 · Most points on the first turn: 8" in variants, variants
    page.locator("#variant").select_option("nymbat(reserve=20,first_limit=10,delay_period=3,max_turns=200)")
    assert page.locator("#param-reserve").input_value() == "20"
    assert page.locator("#param-max_turns").input_value() == "200"
    assert page.locator("#advanced").get_attribute("open") is not None, "a variant's limit shows where it went"
    page.screenshot(path=str(artifacts / f"lobby-form-words-{viewport['width']}.png"), full_page=True)
    assert not page.errors, page.errors
    page.context.close()


def test_each_ai_level_says_what_it_does_and_how_strong_it_measured(server: str, browser: Any) -> None:
    """ "Each AI level described by what it does and how strong it is measured to be (figures in
    docs/agents.md: results against the level below)": level 1 plays at random half of the time,
    Nume's level 5 scored 79 % against level 4 and 83 % against level 3, its level 3 search beat
    level 2 in 90 % of 100 games; four-player Nymbat has its own levels. "Where a game has no level 6, the
    form says level 5 is the top."""
    page = open_lobby(browser, server, DESKTOP, "?game=nume")
    about = page.locator("#level-about")
    page.locator("#ai-level").select_option("1")
    assert "random move" in about.inner_text()
    page.locator("#ai-level").select_option("3")
    assert "0.3 s" in about.inner_text() and "beat level 2 in 90 % of 100 games" in about.inner_text()
    page.locator("#ai-level").select_option("5")
    assert "79 % against level 4 and 83 % against level 3" in about.inner_text(), about.inner_text()
    # 'where a game has no level 6, the form says level 5 is the top'
    assert "Level 5 is the top level for this game" in about.inner_text()
    assert page.locator("#ai-level option").all_inner_texts() == [
        "1 · beginner",
        "2 · casual",
        "3 · club",
        "4 · strong",
        "5 · expert",
    ]
    page.locator("#game").select_option("nymbat")
    page.locator("#param-players").select_option("4")
    page.locator("#ai-level").select_option("5")
    assert "three level-4 players" in about.inner_text()
    assert "Level 5 is the top level for this game" in about.inner_text()
    page.locator("#game").select_option("ikabegama")  # a game's own note on its search levels
    page.locator("#ai-level").select_option("3")
    assert "whoever moves first wins" in about.inner_text() and "beat level 2 in 100 %" in about.inner_text()
    page.locator("#ai-level").select_option("2")
    assert "whoever moves first wins" not in about.inner_text()
    page.context.close()


# -- board clarity ------------------------------------------------------------------------------


@VIEWPORTS
def test_the_turn_counter_shows_no_safeguard_limit_and_on_board_counts_pieces(
    server: str, browser: Any, viewport: dict[str, int]
) -> None:
    """ "No safeguard limit in the game page's turn counter ('Turn 36 / 600' → 'Turn 36')";
    "Nymbat's 'On board' shows pieces and points"."""
    created = post(
        server, "/api/games", {"game": "nymbat", "params": {"reserve": 12, "first_limit": 8}, "mode": "hotseat"}
    )
    view = play_moves(server, created, ["o1=3", "o2=2", "end"])
    panel = {r["label"]: r for r in view["render"]["panel"]}
    assert panel["Turn"]["values"] == [1], "the render gives the turn alone (the limit is in params)"
    assert panel["On board"]["values"] == [5, 0] and panel["On board"]["pieces"] == [2, 0]
    page = open_game(browser, server, created, viewport)
    rows = {
        tr.locator("th").first.inner_text(): tr.locator("td").all_inner_texts()
        for tr in page.locator("#panel-table tr:not(.players)").all()
    }
    assert re.fullmatch(r"\d+", rows["Turn"][0]), rows["Turn"]
    assert rows["On board"][0] == "2 pieces, 5 points", rows["On board"]
    assert rows["On board"][1] == "0 pieces, 0 points"
    page.context.close()
    # Ikabegamá counts plies ("Ply 1 / 400"): the same, without the limit
    created = post(server, "/api/games", {"game": "ikabegama", "params": {}, "mode": "hotseat"})
    view = play_moves(server, created, ["1,0"])
    assert [r["values"] for r in view["render"]["panel"] if r["label_key"] == "panel.ply"] == [[1]]
    page = open_game(browser, server, created, viewport)
    row = page.locator("#panel-table tr", has=page.locator("th", has_text="Move"))
    assert row.locator("td").first.inner_text() == "1"
    page.context.close()


def nume_groups(render: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Title of each group (the game's words) -> (size, price), as the render's `group` gives them."""
    return {p["title"]: (p["group"]["size"], p["group"]["price"]) for p in render["pieces"]}


@VIEWPORTS
def test_nume_shows_each_groups_size_and_price_on_the_board(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Nume shows each group's size and price ON the board (no hover needed; phones)": one badge
    per group reading size·price, the figures the game gives for that group, drawn on one of its
    stones; a group's stones are linked."""
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "hotseat"})
    view = play_moves(server, created, ["a1=3", "e1=1", "a2", "a4=2", "b1"])
    groups = view["render"]["pieces"]
    page = open_game(browser, server, created, viewport)
    badges = page.locator("svg.board .badge")
    assert badges.count() == 3, "Black a1-a2-b1, White e1, White a4: three groups"
    by_cell = {p["cell"]: p for p in groups}
    for i in range(badges.count()):
        b = badges.nth(i)
        cell = b.get_attribute("data-cell")
        size, price = nume_groups({"pieces": [by_cell[cell]]})[by_cell[cell]["title"]]
        assert b.locator("text").text_content() == f"{size}·{price}"
    black = page.locator(", ".join(f"svg.board .badge[data-cell='{c}']" for c in ("a1", "a2", "b1")))
    assert black.locator("text").text_content() == "3·0", "three stones, number 3: price 0"
    assert page.locator("svg.board .links line.link").count() >= 2, "a1-a2 and a1-b1 (and a2-b1) are linked"
    assert page.locator("#board-legend").is_visible()
    page.screenshot(path=str(artifacts / f"nume-groups-{viewport['width']}.png"))
    page.context.close()


@VIEWPORTS
def test_nibble_blocks_carry_numbers_and_a_colour_blind_palette_is_a_setting(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Nibble's nine colours get symbols or numbers and a colour-blind-safe palette (a setting)":
    every block shows its colour's place in the colour table; the setting recolours the blocks with
    a shape on each and is kept after a reload."""
    created = post(server, "/api/games", {"game": "nibble", "params": {}, "mode": "hotseat"})
    page = open_game(browser, server, created, viewport)
    view = get(server, f"/api/games/{created['id']}")
    table = {r["color"]: r["label"].split(".")[0] for r in view["render"]["panel"] if r.get("color")}
    blocks = [p for p in view["render"]["pieces"] if p["shape"] == "block"]
    assert len(blocks) == 81
    labels = page.locator("svg.board .piece .piece-label")
    assert labels.count() == 81
    for p in blocks[:20]:
        assert (
            page.locator(f"svg.board .piece[data-cell='{p['cell']}'] .piece-label").text_content() == table[p["color"]]
        )
    before = page.locator("svg.board .piece").first.locator("rect").get_attribute("fill")
    assert page.locator("#safe-palette").is_visible()
    page.locator("#safe-palette").check()
    page.wait_for_selector("svg.board .piece-glyph")
    assert page.locator("svg.board .piece-glyph").count() == 81
    fills = set(page.locator("svg.board .piece rect").evaluate_all("els => els.map(e => e.getAttribute('fill'))"))
    assert len(fills) == 9 and before not in fills, fills
    page.screenshot(path=str(artifacts / f"nibble-safe-palette-{viewport['width']}.png"))
    page.reload()
    page.wait_for_selector("svg.board .piece-glyph")
    assert page.locator("#safe-palette").is_checked(), "the setting is kept in this browser"
    page.context.close()


def nelaxtam_battle(server: str) -> dict[str, Any]:
    """A Nelaxtam game after the invasion: Black's troops 1 and 2 diagonal neighbours (b9, c8)."""
    created = post(
        server, "/api/games", {"game": "nelaxtam", "params": {"size": 10, "troops": 3, "by_sea": 1}, "mode": "hotseat"}
    )
    gid = created["id"]
    for seat, order in (("0", "1@b9 2@c8 3@a10"), ("1", "1@a1 2@c1 3@e1")):
        view = get(server, f"/api/games/{gid}", created["tokens"][seat])
        post(
            server,
            f"/api/games/{gid}/moves",
            {"token": created["tokens"][seat], "move": order, "expected": view["move_number"]},
        )
    return created


@VIEWPORTS
def test_nelaxtam_builder_offers_only_legal_orders_and_says_why(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Nelaxtam's order builder offers only orders the rules allow and explains a disabled choice
    (a move onto a square another troop holds; an invasion with too few troops on the edge; the
    prompt says 'outlined edge' to match what is drawn; clicking a non-target square says why)"."""
    # the invasion: 3 troops, at least 2 by sea; after one inland landing the next must be on the edge
    created = post(
        server, "/api/games", {"game": "nelaxtam", "params": {"size": 10, "troops": 3, "by_sea": 2}, "mode": "hotseat"}
    )
    page = open_game(browser, server, created, viewport)
    page.locator("#reveal").click()
    builder = page.locator(".order-builder")
    assert "outlined edge" in builder.inner_text() and "shaded" not in page.locator("main").inner_text()

    def click(cell: str) -> None:
        node = page.locator(f"svg.board .cell[data-cell='{cell}']")
        node.dispatch_event("pointerdown")
        node.dispatch_event("pointerup")

    click("e5")  # a White square: no landing for Black
    assert "troops land only on squares of your own territory" in page.locator("#order-why").inner_text()
    click("b9")  # inland
    assert page.locator(".unit[data-unit='1'] .unit-token").inner_text() == "land on b9"
    assert page.locator("svg.board .target-disabled[data-cell='d9']").count() == 1, "inland is now ruled out"
    assert page.locator("svg.board .target-dot[data-cell='a10']").count() == 1, "the edge is still offered"
    click("d9")
    assert "at least 2 troops must land on the outlined edge squares" in page.locator("#order-why").inner_text()
    assert page.locator(".unit[data-unit='2'] .unit-token").inner_text() == "—", "nothing was chosen"
    page.screenshot(path=str(artifacts / f"nelaxtam-invasion-why-{viewport['width']}.png"))
    page.context.close()

    # a battle turn: troop 1 (b9) may not move onto c8 while troop 2 holds there
    created = nelaxtam_battle(server)
    page = open_game(browser, server, created, viewport)
    page.locator("#reveal").click()
    page.locator(".unit[data-unit='1'] .unit-name").click()
    move = page.locator(".unit[data-unit='1'] .unit-choices button[data-token='1>c8']")
    assert move.get_attribute("aria-disabled") == "true"
    move.dispatch_event("click")  # Playwright will not click an aria-disabled button; a person can
    why = page.locator("#order-why").inner_text()
    assert "Troop 2 ends its turn there" in why and "two of your troops may not end on the same square" in why, why
    assert page.locator(".unit[data-unit='1'] .unit-token").inner_text() == "hold"
    # give troop 2 a move away: c8 frees up for troop 1
    page.locator(".unit[data-unit='2'] .unit-name").click()
    page.locator(".unit[data-unit='2'] .unit-choices button[data-token='2>d7']").click()
    page.locator(".unit[data-unit='1'] .unit-name").click()
    assert (
        page.locator(".unit[data-unit='1'] .unit-choices button[data-token='1>c8']").get_attribute("aria-disabled")
        is None
    )
    click("f5")
    assert "cannot act on f5" in page.locator("#order-why").inner_text()
    page.screenshot(path=str(artifacts / f"nelaxtam-battle-why-{viewport['width']}.png"))
    assert not page.errors, page.errors
    page.context.close()


def test_the_evaluation_bar_is_labelled(server: str, browser: Any, artifacts: Path) -> None:
    """ "The analysis evaluation bar is labelled": whose chances it shows, its two ends, the share."""
    page = new_page(browser, DESKTOP)
    page.goto(server + "/analysis?spec=nume(size=2)")
    page.wait_for_function("document.getElementById('eval-pct').textContent.length > 0")
    assert page.locator("#eval-top").inner_text() == "Black wins"
    assert page.locator("#eval-bottom").inner_text() == "Black loses"
    assert re.fullmatch(r"\d+ %", page.locator("#eval-pct").inner_text())
    assert "chances according to our AI" in (page.locator("#eval-bar").get_attribute("title") or "")
    level = page.locator("#cont-level")
    assert level.locator("option").all_inner_texts()[2] == "3 · club" and level.input_value() == "3"
    page.screenshot(path=str(artifacts / "analysis-eval-labels.png"))
    page.context.close()


def test_on_a_phone_my_games_come_first_when_there_are_some(server: str, browser: Any, artifacts: Path) -> None:
    """ "On a phone, 'My games' comes first when you have games" (and stays beside the form on a
    desktop; without games the form comes first)."""
    page = open_lobby(browser, server, PHONE)
    assert page.locator("#games-card").bounding_box()["y"] > page.locator(".new-game-card").bounding_box()["y"]
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "ai", "ai_level": 1})
    page.goto(server + created["url"] + hash_of(created))  # the game page keeps its seat in this browser
    page.wait_for_selector("svg.board .cell")
    page.goto(server + "/")
    page.wait_for_selector(f"#my-games li[data-game='{created['id']}']")
    # the list comes before the catalogue (never blank) and names the variant once the catalogue is here
    item = page.locator(f"#my-games li[data-game='{created['id']}']")
    page.wait_for_function(
        "id => { const li = document.querySelector(`#my-games li[data-game='${id}']`); "
        "return !!li && li.innerText.includes('Board size'); }",
        arg=created["id"],
    )
    assert "(Board size: 2)" in item.inner_text() and "nume(" not in item.inner_text(), "the variant in words"
    assert page.locator("#games-card").bounding_box()["y"] < page.locator(".new-game-card").bounding_box()["y"]
    page.screenshot(path=str(artifacts / "lobby-my-games-first-390.png"))
    page.set_viewport_size(DESKTOP)
    games, form = page.locator("#games-card").bounding_box(), page.locator(".new-game-card").bounding_box()
    assert games["x"] > form["x"] and abs(games["y"] - form["y"]) < 2, "side by side on a desktop"
    page.context.close()


# -- sounds and the dark theme ----------------------------------------------------------------


def test_the_sounds_are_small_wave_files(server: str) -> None:
    """ "Sounds (move, your turn, game over)": three short WAV files served with the client."""
    for name in ("move", "turn", "end"):
        data = urllib.request.urlopen(f"{server}/static/sounds/{name}.wav", timeout=10).read()
        assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
        rate = struct.unpack("<I", data[24:28])[0]
        seconds = (len(data) - 44) / (rate * 2)
        assert 0.05 < seconds < 1.0, (name, seconds)


def test_sounds_play_for_moves_and_the_turn_and_the_mute_switch_silences_them(server: str, browser: Any) -> None:
    """ "Sounds (move, your turn, game over) with a mute switch": against the AI, the AI's reply
    plays "your turn"; the game's end plays "end"; muted, nothing plays; the choice is kept."""
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "ai", "ai_level": 1})
    page = open_game(browser, server, created, DESKTOP)
    count = lambda: int(page.evaluate("document.documentElement.dataset.soundCount || '0'"))  # noqa: E731
    assert count() == 0, "no sound for the page loading"
    token = created["tokens"]["0"]
    view = get(server, f"/api/games/{created['id']}", token)
    # a number on a cell: Black's first stone; the AI answers
    move = next(a for a in view["render"]["actions"] if a.get("number"))["template"].replace("{n}", "1")
    post(server, f"/api/games/{created['id']}/moves", {"token": token, "move": move, "expected": view["move_number"]})
    page.wait_for_function("document.documentElement.dataset.lastSound === 'turn'")
    heard = count()
    assert heard >= 1
    page.locator("#sound").click()
    assert page.locator("#sound").get_attribute("aria-pressed") == "true"
    view = get(server, f"/api/games/{created['id']}", token)
    move = view["render"]["actions"][0]
    text = move.get("move") or move["template"].replace("{n}", "1")
    post(server, f"/api/games/{created['id']}/moves", {"token": token, "move": text, "expected": view["move_number"]})
    page.wait_for_function(f"document.querySelectorAll('#moves li').length >= {view['move_number'] + 2}")
    page.wait_for_selector("#status[data-turn='yours'], #banner:not([hidden])")
    assert count() == heard, "muted: no sound"
    page.reload()
    page.wait_for_selector("#sound")
    assert page.locator("#sound").get_attribute("aria-pressed") == "true", "the mute switch is kept"
    page.context.close()


def test_the_end_of_a_game_plays_its_sound(server: str, browser: Any) -> None:
    """ "Game over" has its sound: a resignation seen by the page plays "end"."""
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "hotseat"})
    page = open_game(browser, server, created, DESKTOP)
    post(server, f"/api/games/{created['id']}/resign", {"token": created["tokens"]["0"]})
    page.wait_for_function("document.documentElement.dataset.lastSound === 'end'")
    page.context.close()


@VIEWPORTS
def test_a_dark_theme_follows_the_system_and_a_switch(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "A dark theme (a switch, and prefers-color-scheme)": a dark system gives a dark page; the
    switch forces light or dark and is kept after a reload."""
    page = new_page(browser, viewport, color_scheme="dark")
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    bg = lambda: page.evaluate("getComputedStyle(document.documentElement).backgroundColor")  # noqa: E731
    assert bg() == "rgb(22, 24, 28)", "dark by the system"
    page.screenshot(path=str(artifacts / f"lobby-dark-{viewport['width']}.png"), full_page=True)
    page.locator("#theme").select_option("light")
    assert bg() == "rgb(246, 243, 236)"
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert bg() == "rgb(246, 243, 236)", "the choice is kept"
    page.locator("#theme").select_option("dark")
    created = post(server, "/api/games", {"game": "nume", "params": {"size": 3}, "mode": "hotseat"})
    page.goto(server + created["url"] + hash_of(created))
    page.wait_for_selector("svg.board .cell")
    assert bg() == "rgb(22, 24, 28)"
    page.screenshot(path=str(artifacts / f"game-dark-{viewport['width']}.png"))
    page.goto(server + "/rules/nume")  # a page without the switch follows the choice too
    page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
    assert bg() == "rgb(22, 24, 28)"
    page.context.close()


# -- translations -------------------------------------------------------------------------------


def english_patterns(lang: str) -> list[tuple[str, str, int]]:
    """(English text, a regular expression of it, its length without {{values}}) for every
    catalogue value that differs in `lang`; {{values}} match any text."""
    out = []
    for ns_file in sorted((LOCALES / "en").glob("*.json")):
        en = flat(catalogue("en", ns_file.stem))
        other = flat(catalogue(lang, ns_file.stem))
        for key, value in en.items():
            if other.get(key) == value or not re.search(r"[A-Za-z]{2}", value):
                continue
            pattern = "".join(
                ".+" if part.startswith("{{") else re.escape(part) for part in re.split(r"(\{\{[^}]+\}\})", value)
            )
            out.append((value, pattern, len(re.sub(r"\{\{[^}]+\}\}", "", value))))
    return out


SCAN = """(patterns) => {
  const res = patterns.map(([text, p, literal]) => [text, new RegExp('^' + p + '$'), literal]);
  const found = [];
  // a text is the English catalogue text when it matches it and is mostly its own words (a
  // sentence of the server's that merely ends in " wins" is not "{{name}} wins")
  const check = (s, where) => {
    s = (s || '').trim();
    if (!s) return;
    for (const [text, re, literal] of res)
      if (re.test(s) && literal * 2 >= s.length)
        found.push(where + ': ' + JSON.stringify(s) + ' is English (' + text + ')');
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    // the rules' own text (the rules pages' work), move lists and code are not the client's words
    if (n.parentElement.closest('#rules, script, style, .moves, code')) continue;
    check(n.textContent, n.parentElement.tagName.toLowerCase() + (n.parentElement.id ? '#' + n.parentElement.id : ''));
  }
  for (const el of document.querySelectorAll('[title], [placeholder], [aria-label]'))
    for (const a of ['title', 'placeholder', 'aria-label']) if (el.hasAttribute(a)) check(el.getAttribute(a), a);
  check(document.title, 'title');
  return found;
}"""


@pytest.mark.parametrize("lang", ["ko", "es", "de", "fr"])
def test_no_page_shows_an_untranslated_string(server: str, browser: Any, artifacts: Path, lang: str) -> None:
    """ "A test fails when a page shows an untranslated string": the lobby (with its advanced fold
    open), a game page (Nume with groups, and Nelaxtam's order builder) and the analysis board,
    each in Korean, Spanish, German and French, show no text that is an English catalogue text
    differing from its translation."""
    patterns = english_patterns(lang)
    assert len(patterns) > 200
    problems: list[str] = []
    page = new_page(browser, PHONE if lang == "ko" else DESKTOP, locale=lang)
    for game in ("nymbat", "ikabegama", "nelaxtam", "nibble", "nume"):
        page.goto(f"{server}/?game={game}")
        page.wait_for_selector("body[data-ready='1']")
        page.evaluate("document.getElementById('advanced').open = true")
        problems += [f"lobby {game}: {x}" for x in page.evaluate(SCAN, patterns)]
    page.screenshot(path=str(artifacts / f"lobby-{lang}.png"), full_page=True)
    nume = post(server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "hotseat"})
    play_moves(server, nume, ["a1=3", "e1=1", "a2"])
    nelaxtam = post(
        server, "/api/games", {"game": "nelaxtam", "params": {"size": 10, "troops": 2, "by_sea": 1}, "mode": "hotseat"}
    )
    for created, name in ((nume, "nume"), (nelaxtam, "nelaxtam")):
        page.goto(server + created["url"] + hash_of(created))
        page.wait_for_selector("svg.board .cell")
        page.wait_for_selector("#status:not(:empty)")
        if name == "nelaxtam":
            page.locator("#reveal").click()
            cell = page.locator("svg.board .cell[data-cell='e5']")
            cell.dispatch_event("pointerdown")
            cell.dispatch_event("pointerup")
            page.wait_for_selector("#order-why")
        problems += [f"game {name}: {x}" for x in page.evaluate(SCAN, patterns)]
        page.screenshot(path=str(artifacts / f"game-{name}-{lang}.png"))
    page.goto(server + "/analysis?spec=nymbat(reserve=12,first_limit=8)")
    page.wait_for_function("document.getElementById('eval-pct').textContent.length > 0")
    problems += [f"analysis: {x}" for x in page.evaluate(SCAN, patterns)]
    page.screenshot(path=str(artifacts / f"analysis-{lang}.png"))
    assert not problems, "\n".join(problems)
    assert page.evaluate("document.documentElement.lang") == lang
    page.context.close()


def test_the_language_switcher_changes_and_keeps_the_language(server: str, browser: Any) -> None:
    """ "Picked from the browser's language with a switcher": a German browser gets German; the
    switcher turns the page French and the choice is kept on the next page."""
    page = new_page(browser, DESKTOP, locale="de-DE")
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#create-btn").inner_text() == "Partie starten"
    page.locator(".lang-switch select").select_option("fr")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert page.locator("#create-btn").inner_text() == "Créer la partie"
    page.goto(server + "/analysis?spec=nume(size=2)")
    page.wait_for_selector("#best")
    page.wait_for_function("document.documentElement.lang === 'fr'")
    assert page.locator("#best").inner_text() == "Meilleur coup"
    page.context.close()


def _name(n: str) -> dict[str, Any]:
    return {"key": f"names.{n.lower()}", "args": {}, "text": n}


def _colour(c: str) -> dict[str, Any]:
    return {"key": f"colours.{c}", "args": {}, "text": c}


def _scores(a: str, x: str, b: str, y: str) -> dict[str, Any]:
    return {"key": "nume.scores", "args": {"a": _name(a), "x": x, "b": _name(b), "y": y}, "text": f"{a} {x}, {b} {y}"}


# every form of the sentence that ends a game, as the games and the server write it: the English,
# and its key and arguments (tessera.core.texts)
RESULTS: list[tuple[str, str, dict[str, Any]]] = [
    ("Light occupies the Dark nest: Light wins", "result.nest", {"name": _name("Light"), "nest": _name("Dark")}),
    ("Both players passed with 3 tokens each: a draw", "result.passes_draw", {"n": 3}),
    (
        "Both players passed; Dark has more tokens (5 to 3) and wins",
        "result.passes_win",
        {"name": _name("Dark"), "a": 5, "b": 3},
    ),
    ("Draw: the 400-ply safeguard was reached", "result.safeguard_plies", {"n": 400}),
    ("Draw: the 600-turn safeguard was reached", "result.safeguard_turns", {"n": 600}),
    ("Draw: 30 turns in a row without a destruction", "result.safeguard_idle", {"n": 30}),
    ("Every other player resigned: Yellow wins", "result.others_resigned", {"name": _name("Yellow")}),
    (
        "Red has a piece on Blue's home row and Blue has none there: Red wins",
        "result.home_row",
        {"name": _name("Red"), "other": _name("Blue")},
    ),
    (
        "The board and every reserve are empty: Blue took the last turn and wins",
        "result.empty_board",
        {"name": _name("Blue")},
    ),
    (
        "The board is full: White has the lower score (Black 31.5, White 28) and wins",
        "result.full_win",
        {"name": _name("White"), "scores": _scores("Black", "31.5", "White", "28")},
    ),
    (
        "The board is full and the scores are equal (Black 30, White 30): a draw",
        "result.full_draw",
        {"scores": _scores("Black", "30", "White", "30")},
    ),
    ("First took all 9 cyan blocks", "result.colour", {"name": _name("First"), "n": 9, "colour": _colour("cyan")}),
    (
        "Second took 7 or more blocks of each of red, green, blue (neighbours on the colour table)",
        "result.neighbours",
        {"name": _name("Second"), "n": 7, "colours": [_colour("red"), _colour("green"), _colour("blue")]},
    ),
    ("The board is empty: each player holds 4 colours: a draw", "result.majority_draw", {"n": 4}),
    (
        "The board is empty: First holds the majority in 5 of 9 colours (Second: 4)",
        "result.majority",
        {"name": _name("First"), "k": 5, "n": 9, "other": _name("Second"), "m": 4},
    ),
    (
        "No troop can destroy any more; both control 40 territory pieces: a draw",
        "result.territory_draw",
        {"n": 40},
    ),
    (
        "No troop can destroy any more: Black controls more territory (45 pieces to 40) and wins",
        "result.territory",
        {"name": _name("Black"), "a": 45, "b": 40},
    ),
    ("Black resigned: White wins", "result.resigned", {"loser": _name("Black"), "winner": _name("White")}),
    ("Red ran out of time: Blue wins", "result.flag", {"loser": _name("Red"), "winner": _name("Blue")}),
    ("Draw by agreement between the players", "result.agreement", {}),
    (
        "Draw by agreement: Red offered a draw and Blue accepted",
        "result.agreement_offer",
        {"a": _name("Red"), "b": _name("Blue")},
    ),
    ("Game aborted: Black made no first move in time (no result)", "result.aborted", {"name": _name("Black")}),
]
RESULT_SENTENCES = [text for text, _, _ in RESULTS]


@pytest.mark.parametrize("lang", ["en", "de", "ko"])
def test_the_sentence_that_ends_a_game_is_in_the_players_language(server: str, browser: Any, lang: str) -> None:
    """ "Translations of the whole client (… messages)": every form of the sentence that ends a game
    (the games' and the server's) reads the same in English and is translated in the other languages,
    names and colours included."""
    page = open_lobby(browser, server, DESKTOP, locale=lang)
    results = [{"text": text, "key": key, "args": args} for text, key, args in RESULTS]
    shown = page.evaluate(
        "async (xs) => { const m = await import('/static/js/decorate.js'); return xs.map((r) => m.resultText(r)); }",
        results,
    )
    if lang == "en":
        assert shown == RESULT_SENTENCES
    else:
        for english, text in zip(RESULT_SENTENCES, shown, strict=True):
            assert text != english, english
            assert not re.search(r"\b(wins|draw|Draw|resigned|Black|White|Red|Blue|cyan)\b", text), text
    page.context.close()
