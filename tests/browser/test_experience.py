"""What a new player hits first (issue 15), checked in Chromium at desktop and phone sizes.

Each test quotes the requirement it checks; screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import random
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import tessera
from tests.browser.moving import every_seat_moves

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return dict(json.loads(urllib.request.urlopen(req, timeout=10).read()))


def get(base: str, path: str) -> dict[str, Any]:
    return dict(json.loads(urllib.request.urlopen(base + path, timeout=10).read()))


def hash_of(created: dict[str, Any]) -> str:
    return "#" + "&".join(f"t{s}={t}" for s, t in created["tokens"].items())


def open_game(browser: Any, base: str, created: dict[str, Any], viewport: dict[str, int]) -> Any:
    page = browser.new_page(viewport=viewport)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(base + created["url"] + hash_of(created))
    page.wait_for_selector("svg.board .cell")
    return page


RECORD_THINKING = """
window.__thinking = [];
new MutationObserver(() => {
  const box = document.getElementById('thinking');
  if (box && !box.hidden) window.__thinking.push(box.innerText);
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_thinking_indicator_shows_elapsed_time_and_the_steps_chosen(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "A thinking indicator that shows elapsed time and the AI's progress (e.g. iterations, or its
    current best line)": while the AI plans its Nymbat turn the page shows the seconds against the
    turn's budget and the steps chosen so far; the AI seat is labelled once ("AI level 5")."""
    created = post(server, "/api/games", {"game": "nymbat", "mode": "ai", "seat": 0, "ai_level": 5})
    page = browser.new_page(viewport=viewport)
    page.add_init_script(RECORD_THINKING)
    page.goto(server + created["url"] + hash_of(created))
    page.wait_for_selector("svg.board .cell")
    page.wait_for_selector("#conn.conn-online")
    # the person's first turn (random legal steps, sent as the page would), then the AI's turn
    gid, token = created["id"], created["tokens"]["0"]
    state = tessera.load_game("nymbat").new_initial_state(seed=get(server, f"/api/games/{gid}")["seed"])
    rng = random.Random(5)
    while state.current_player() == 0:
        move = state.random_move(rng)
        post(server, f"/api/games/{gid}/moves", {"token": token, "move": move, "expected": state.move_number()})
        state.play(move)
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 2", timeout=60000)
    seen = page.evaluate("window.__thinking")
    assert any(re.search(r"Blue \(AI\) is thinking… \d+\.\d s of about 0\.05 s for the turn", t) for t in seen), seen
    assert any(re.search(r"\d+ steps? chosen: \S+", t) for t in seen), seen
    ai_seat = page.locator('.seat[data-seat="1"]').inner_text()
    assert ai_seat.count("AI level 5") == 1, ai_seat
    page.wait_for_selector("#thinking", state="hidden")
    page.screenshot(path=str(artifacts / f"ai-turn-done-{viewport['width']}.png"))
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_result_names_the_rule_beside_the_board_with_rematch_and_new_game(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Results carry a machine-readable reason and a sentence naming the rule that decided ...,
    shown without covering the board, with Rematch (seats swapped) and New game buttons"."""
    created = post(server, "/api/games", {"game": "nibble", "mode": "ai", "seat": 0, "ai_level": 1})
    page = open_game(browser, server, created, viewport)
    every_seat_moves(server, created["id"], {0: created["tokens"]["0"]})  # the AI's move too: else an abort
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 2")
    page.locator("#resign").click()
    page.locator("#resign").click()
    page.wait_for_selector("#banner:not([hidden])")
    why = page.locator("#result-why")
    assert why.inner_text() == "First resigned: Second wins"
    assert why.get_attribute("data-reason") == "resign"
    assert "you lose" in page.locator("#banner").inner_text()
    banner, board = page.locator("#banner").bounding_box(), page.locator("svg.board").bounding_box()
    assert banner["y"] + banner["height"] <= board["y"] + 0.5, "the result strip is above the board, not over it"
    page.screenshot(path=str(artifacts / f"result-{viewport['width']}.png"))
    assert page.locator("#new-game").get_attribute("href") == "/?game=nibble"
    old_url = page.url
    page.locator("#rematch").click()
    page.wait_for_url(lambda url: url != old_url and "/g/" in url)
    page.wait_for_selector("svg.board .cell")
    assert "(you)" in page.locator('.seat[data-seat="1"]').inner_text(), "seats swapped: now Second"
    assert not page.errors, page.errors
    page.close()


def test_a_rules_ending_says_which_rule_decided(server: str, browser: Any) -> None:
    """ "The result never says why" is fixed: a game the rules end (Ikabegamá, a nest reached)
    carries reason and the sentence in the view, and the page shows the sentence."""
    created = post(
        server, "/api/games", {"game": "ikabegama", "params": {"distance": 2, "board": "hexhex:3"}, "mode": "hotseat"}
    )
    gid = created["id"]
    # Light grows next to the Dark nest (2,0): "every enemy token adjacent to the destination flips
    # to the mover's colour", and "a flip onto a nest counts"
    post(server, f"/api/games/{gid}/moves", {"token": created["tokens"]["0"], "move": "1,0", "expected": 0})
    view = get(server, f"/api/games/{gid}")
    assert view["result"]["reason"] == "nest"
    assert view["result"]["text"] == "Light occupies the Dark nest: Light wins"
    page = open_game(browser, server, created, DESKTOP)
    assert page.locator("#result-why").inner_text() == "Light occupies the Dark nest: Light wins"
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_clock_waits_for_the_first_move_and_a_game_without_one_is_aborted(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Clocks start with each player's first move (lichess-style) and a game with no first move
    within a set time is aborted without a result": the seat shows its first-move countdown while
    its clock stands still, then the page says the game was aborted, with no winner."""
    created = post(
        server, "/api/games", {"game": "nume", "params": {"size": 2}, "mode": "hotseat", "clock": {"initial": 8}}
    )
    page = open_game(browser, server, created, viewport)
    badge = page.locator('.first-move[data-seat="0"]')
    assert re.fullmatch(r"first move: 0:0\d\.\d", badge.inner_text()), badge.inner_text()
    assert page.locator('.clock[data-seat="0"]').inner_text() == "0:08.0", "the clock itself does not run yet"
    page.screenshot(path=str(artifacts / f"first-move-{viewport['width']}.png"))
    page.wait_for_selector("#banner:not([hidden])", timeout=30000)
    why = page.locator("#result-why")
    assert why.get_attribute("data-reason") == "abort"
    assert why.inner_text() == "Game aborted: Black made no first move in time (no result)"
    assert (
        "you win" not in page.locator("#banner").inner_text() and "you lose" not in page.locator("#banner").inner_text()
    )
    page.screenshot(path=str(artifacts / f"aborted-{viewport['width']}.png"))
    assert not page.errors, page.errors
    page.close()


def play_random(base: str, created: dict[str, Any], name: str, params: dict[str, Any], n: int, seed: int = 1) -> None:
    """``n`` random legal moves through the API (hot-seat: every token is known)."""
    gid = created["id"]
    state = tessera.load_game(name, **params).new_initial_state(seed=get(base, f"/api/games/{gid}")["seed"])
    rng = random.Random(seed)
    for _ in range(n):
        if state.is_terminal():
            break
        p = state.current_player()
        move = state.random_move(rng)
        token = created["tokens"][str(p)]
        post(base, f"/api/games/{gid}/moves", {"token": token, "move": move, "expected": state.move_number()})
        state.play(move)


def test_quick_replay_clicks_count_from_the_position_asked_for(server: str, browser: Any) -> None:
    """Replay: a click made before the previous click's position has arrived counts from the position that
    click asked for ("first", then "next" twice shows move 2 even when the first answer is slow), and a
    late answer never replaces a later one."""
    params = {"distance": 3}
    created = post(server, "/api/games", {"game": "ikabegama", "params": params, "mode": "hotseat"})
    play_random(server, created, "ikabegama", params, 6)
    page = open_game(browser, server, created, DESKTOP)
    total = len(get(server, f"/api/games/{created['id']}")["moves"])

    def slow(route: Any) -> None:
        page.wait_for_timeout(600)  # the answer for position 0 comes late
        route.continue_()

    page.route(re.compile(r".*/positions/0$"), slow)
    page.locator("#rp-first").click()
    page.locator("#rp-next").click()
    page.locator("#rp-next").click()
    page.wait_for_function(f"document.getElementById('replay-pos').textContent === '2 / {total}'")
    page.wait_for_timeout(900)  # the slow answer has come and gone: it must not move the replay back
    assert page.locator("#replay-pos").inner_text() == f"2 / {total}"
    assert page.errors == []
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_analysis_board_explores_variations_as_a_tree_and_continues_against_the_ai(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Analysis board: from any position of a game ..., an evaluation bar for the side to move from our
    AI, the AI's best move on request, and free exploration of variations as a move tree (branches
    kept, click to go back), with 'continue from here against the AI' or as a new hot-seat game"."""
    params = {"distance": 3}
    created = post(server, "/api/games", {"game": "ikabegama", "params": params, "mode": "hotseat"})
    play_random(server, created, "ikabegama", params, 6)
    page = open_game(browser, server, created, viewport)
    for button, at in (("#rp-first", 0), ("#rp-next", 1), ("#rp-next", 2)):  # one step at a time
        page.locator(button).click()
        page.wait_for_function(f"document.getElementById('replay-pos').textContent.startsWith('{at} /')")
    href = page.locator("#analyse").get_attribute("href")
    assert href.endswith("&n=2"), href
    page.goto(server + href)
    page.wait_for_selector("svg.board .cell")
    page.wait_for_function("document.getElementById('eval').dataset.value !== undefined", timeout=30000)
    assert re.match(r"Evaluation for Light \(to move\): [+-]?\d\.\d\d", page.locator("#eval").inner_text())
    fill = page.locator("#eval-fill").evaluate("e => parseFloat(e.style.height)")
    value = float(page.locator("#eval").get_attribute("data-value"))
    assert abs(fill - round((value + 1) * 50)) <= 1, "the bar shows the side to move's share"
    main_line = page.locator("#tree > .tree-move").count()
    assert main_line == 7, "start and the six moves of the game"
    assert (
        page.locator("#tree .tree-move.current")
        .inner_text()
        .endswith(page.locator("#tree > .tree-move").nth(2).inner_text().split()[-1])
    )
    # a move of our own: click a target (twice for a jump when needed) until the position changes
    for _ in range(3):
        page.locator("svg.board .target-dot").first.click()
        try:
            page.wait_for_selector("#tree .variation .tree-move.current", timeout=3000)
            break
        except Exception:  # a jump's source was selected: its targets are shown now
            continue
    page.wait_for_selector("#tree .variation .tree-move.current")
    assert page.locator("#tree > .tree-move").count() == main_line, "the game's line is kept"
    # best move on request, played as the next move of the variation
    page.locator("#best").click()
    page.wait_for_selector("#play-best:not([hidden])", timeout=30000)
    best = page.locator("#best-text").get_attribute("data-best")
    page.locator("#play-best").click()
    page.wait_for_function(
        "(best) => document.querySelector('#tree .tree-move.current').textContent.trim().endsWith(best)", arg=best
    )
    page.screenshot(path=str(artifacts / f"analysis-{viewport['width']}.png"), full_page=True)
    # click back to the game's line, then forward to the variation's end is still there
    page.locator("#tree > .tree-move").nth(4).click()
    page.wait_for_function("document.querySelector('#tree > .tree-move.current') !== null")
    assert page.locator("#tree .variation .tree-move").count() == 2, "the branch is kept"
    # continue from the variation's end against the AI
    page.locator("#tree .variation .tree-move").nth(1).click()
    page.wait_for_selector("#tree .variation .tree-move.current")
    page.locator("#cont-level").select_option("1")
    page.locator("#cont-ai").click()
    page.wait_for_url(re.compile(r"/g/"))
    page.wait_for_selector("svg.board .cell")
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 4")
    assert "against the AI" in page.locator("#spec").inner_text()
    assert not page.errors, page.errors
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_lobby_form_is_private_by_default_readable_and_lists_my_games(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Online games are private (invite link only) unless the creator ticks 'list in the lobby'";
    "human labels, choices as selects"; the Nibble colour count follows the hex board; '"My games":
    the lobby lists the games this browser holds seats in (ongoing first, whose turn it is)'."""
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    page.goto(server + "/?game=nibble")
    page.wait_for_selector("#param-board")
    assert page.locator("label:has(#param-shuffle_table)").inner_text().startswith("Shuffle the colour table")
    assert page.locator("#param-colors").evaluate("e => e.tagName") == "SELECT"
    assert page.locator("#param-colors").input_value() == "", "the colour count is automatic by default"
    page.locator("#param-board").select_option("hex")
    page.locator("input[name=mode][value=online]").check()
    assert not page.locator("#public").is_checked(), "private unless ticked"
    page.screenshot(path=str(artifacts / f"lobby-form-{viewport['width']}.png"), full_page=True)
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/"))
    page.wait_for_selector("svg.board .cell")
    private_id = page.url.split("/g/")[1].split("#")[0]
    view = get(server, f"/api/games/{private_id}")
    assert view["public"] is False and view["params"]["colors"] == 13 and view["params"]["board"] == "hex"
    assert private_id not in [g["id"] for g in get(server, "/api/games?status=open")["games"]]
    # a listed one
    page.goto(server + "/?game=nume")
    page.wait_for_selector("#param-size")
    page.locator("input[name=mode][value=online]").check()
    page.locator("#public").check()
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/"))
    public_id = page.url.split("/g/")[1].split("#")[0]
    assert public_id in [g["id"] for g in get(server, "/api/games?status=open")["games"]]
    # My games: both, with whose turn it is (Nume: Black, this browser's seat, moves first)
    page.goto(server + "/")
    page.wait_for_selector(f'#my-games li[data-game="{public_id}"]')
    mine = page.locator("#my-games li")
    assert mine.count() == 2
    assert "your turn" in page.locator(f'#my-games li[data-game="{public_id}"]').inner_text()
    page.screenshot(path=str(artifacts / f"lobby-my-games-{viewport['width']}.png"), full_page=True)
    ctx.close()


def test_nibble_move_list_shows_colours_and_the_table_rule_and_nelaxtam_coordinates_stay_readable(
    server: str, browser: Any, artifacts: Path
) -> None:
    """ "Nothing says that neighbours on Nibble's colour table matter, and the move list shows cells,
    not colours"; "coordinates on dark Nelaxtam squares are dark on dark"."""
    created = post(server, "/api/games", {"game": "nibble", "mode": "hotseat"})
    play_random(server, created, "nibble", {}, 6)
    page = open_game(browser, server, created, DESKTOP)
    notes = page.locator("#moves .move-note")
    assert notes.count() >= 2
    colours = {"red", "green", "yellow", "blue", "orange", "purple", "cyan", "magenta", "brown"}
    assert all(set(n.strip("()").split(", ")) <= colours for n in notes.all_inner_texts())
    assert "neighbours in the table" in page.locator("#panel-table").inner_text()
    page.screenshot(path=str(artifacts / "nibble-move-colours.png"))
    page.close()
    created = post(server, "/api/games", {"game": "nelaxtam", "mode": "hotseat"})
    page = open_game(browser, server, created, DESKTOP)
    on_dark = page.locator("svg.board text.coord-on-dark")
    assert on_dark.count() > 0, "dark squares get light lettering"
    # read in one step from the board as it is then: the board may be drawn again (the socket's
    # first view) between finding a label and reading its style, and a detached label has none
    fill = page.evaluate("() => getComputedStyle(document.querySelector('svg.board text.coord-on-dark')).fill")
    assert fill == "rgb(246, 241, 228)", fill
    page.screenshot(path=str(artifacts / "nelaxtam-coordinates.png"))
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_nymbat_set_up_is_placed_in_one_click_then_adjusted(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Offer a few good ready-made set-ups (e.g. shields of 3s, a horde of 1s) that the player can
    place in one click and then adjust"."""
    created = post(server, "/api/games", {"game": "nymbat", "mode": "ai", "seat": 0, "ai_level": 1})
    page = open_game(browser, server, created, viewport)
    page.locator('[data-setup="Spearhead"]').click()
    page.wait_for_function("document.querySelectorAll('#moves li code').length === 1")
    page.wait_for_function("document.querySelector('#moves li code').textContent.split(' ').length === 6")
    assert page.locator("#moves li code").inner_text().startswith("m5=6")
    assert page.locator('#status[data-turn="yours"]').count() == 1, "the turn goes on: adjust"
    page.screenshot(path=str(artifacts / f"nymbat-setup-{viewport['width']}.png"))
    page.locator("#prompt .action-btn", has_text="End turn").click()
    page.wait_for_function("document.querySelectorAll('#moves li').length >= 2", timeout=60000)
    assert not page.errors, page.errors
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_draw_offer_is_answered_online_and_watched_by_a_spectator(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "There is no draw offer where draws exist": online, a seated player offers a draw, the
    opponent sees Accept/Decline, a spectator sees the offer live; accepted, the game ends drawn
    and the result strip says "Draw by agreement"."""
    created = post(server, "/api/games", {"game": "ikabegama", "mode": "online", "seat": 0})
    light = open_game(browser, server, created, viewport)
    dark = browser.new_page(viewport=viewport)
    dark.errors = []
    dark.on("pageerror", lambda e: dark.errors.append(str(e)))
    dark.goto(server + created["invites"]["1"])  # the invite link
    dark.wait_for_selector("svg.board .cell")
    watcher = browser.new_page(viewport=viewport)
    watcher.goto(server + created["url"])
    watcher.wait_for_selector("svg.board .cell")
    for page in (light, dark, watcher):
        page.wait_for_selector("#conn.conn-online")
    light.locator("#offer-draw").click()
    light.wait_for_selector("#draw-offer >> text=waiting for the answer")
    dark.wait_for_selector("#draw-accept")
    assert "Light offers a draw" in dark.locator("#draw-offer").inner_text()
    watcher.wait_for_selector("#draw-offer >> text=Light offers a draw")
    dark.screenshot(path=str(artifacts / f"draw-offer-{viewport['width']}.png"))
    dark.locator("#draw-decline").click()
    watcher.wait_for_selector("#draw-offer", state="detached")  # declined: the offer is gone
    # Light, declined, may offer again only after 20 more moves (as lichess); Dark may offer now
    dark.locator("#offer-draw").click()
    light.locator("#draw-accept").click()
    for page in (light, dark, watcher):
        page.wait_for_selector("#banner:not([hidden])")
        why = page.locator("#result-why")
        assert why.inner_text() == "Draw by agreement: Dark offered a draw and Light accepted"
        assert why.get_attribute("data-reason") == "agreement"
    light.screenshot(path=str(artifacts / f"draw-agreed-{viewport['width']}.png"))
    assert not light.errors and not dark.errors, light.errors + dark.errors
    for page in (light, dark, watcher):
        page.close()


def test_draw_offers_at_one_screen_and_against_the_ai(server: str, browser: Any) -> None:
    """Hot-seat: the other player answers at the same screen; against the AI: the AI declines at the
    start (its evaluation is not losing) and says so; Nibble, which has no draws, offers none."""
    hot = post(server, "/api/games", {"game": "nymbat", "mode": "hotseat"})
    page = open_game(browser, server, hot, DESKTOP)
    page.locator("#offer-draw").click()
    page.wait_for_selector("#draw-accept")
    assert "Red offers a draw to Blue" in page.locator("#draw-offer").inner_text()
    page.locator("#draw-accept").click()
    page.wait_for_selector("#banner:not([hidden])")
    assert page.locator("#result-why").get_attribute("data-reason") == "agreement"
    page.close()
    vs_ai = post(server, "/api/games", {"game": "ikabegama", "mode": "ai", "seat": 0, "ai_level": 1})
    page = open_game(browser, server, vs_ai, DESKTOP)
    page.locator("#offer-draw").click()
    page.wait_for_selector("#draw-offer >> text=declines the draw")
    assert page.locator("#banner").is_hidden()
    page.close()
    nibble = post(server, "/api/games", {"game": "nibble", "mode": "hotseat"})
    page = open_game(browser, server, nibble, DESKTOP)
    page.wait_for_selector("#resign")
    assert page.locator("#offer-draw").count() == 0
    assert not page.errors, page.errors
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_creation_form_follows_dependent_parameters_live(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """ "Parameters that depend on each other follow each other in the form (Nibble hex ⇒ 13
    colours)": the choices, defaults and ranges change as soon as the controlling choice does."""
    page = browser.new_page(viewport=viewport)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/?game=nibble")
    page.wait_for_selector("#param-board")
    colours = page.locator("#param-colors")
    texts = "e => [...e.options].map(o => o.textContent)"
    assert colours.evaluate(texts) == ["automatic (9)", "9", "13"]
    colours.select_option("9")
    page.locator("#param-board").select_option("hex")
    assert colours.evaluate(texts) == ["automatic (13)", "13"], "the hex board has 13 colours only"
    assert colours.input_value() == "", "9 is no longer possible: back to automatic"
    assert "Now one of 13" in page.locator("label:has(#param-colors)").inner_text()
    page.screenshot(path=str(artifacts / f"form-follows-{viewport['width']}.png"), full_page=True)
    page.locator("#param-board").select_option("square")
    colours.select_option("13")
    page.locator("#param-board").select_option("hex")
    assert colours.input_value() == "13", "a value still accepted is kept"
    # Nume: the size's range and default follow the variant; komi bidding fixes the komi
    page.goto(server + "/?game=nume")
    page.wait_for_selector("#param-size")
    size = page.locator("#param-size")
    assert (size.get_attribute("min"), size.get_attribute("max"), size.get_attribute("placeholder")) == (
        "2",
        "12",
        "automatic (5)",
    )
    size.fill("2")
    page.locator("#param-variant").select_option("square")
    assert (size.get_attribute("min"), size.get_attribute("max"), size.get_attribute("placeholder")) == (
        "3",
        "19",
        "automatic (9)",
    )
    assert size.input_value() == "", "size 2 is too small for the square board: back to automatic"
    page.locator("#param-komi").fill("1")
    page.locator("#param-komi_bidding").check()
    assert page.locator("#param-komi").is_disabled() and page.locator("#param-komi").input_value() == "0.5"
    assert page.locator("#param-komi_to").is_disabled()
    # Nelaxtam: troops coming by sea are at most the troops
    page.goto(server + "/?game=nelaxtam")
    page.wait_for_selector("#param-troops")
    page.locator("#param-troops").fill("2")
    page.locator("#param-troops").dispatch_event("change")
    assert page.locator("#param-by_sea").get_attribute("max") == "2"
    assert page.locator("#param-by_sea").input_value() == "2", "3 by sea of 2 troops is clamped"
    page.locator("#param-variant").select_option("quiet")
    assert page.locator("#param-size").get_attribute("min") == "8"
    # the form's choice creates the game
    page.goto(server + "/?game=nibble")
    page.wait_for_selector("#param-board")
    page.locator("#param-board").select_option("hex")
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/"))
    gid = page.url.split("/g/")[1].split("#")[0]
    assert get(server, f"/api/games/{gid}")["params"]["board"] == "hex"
    assert not errors, errors
    page.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_record_opens_straight_in_the_analysis_board(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """Analysis board "from ... an imported record": a text record pasted in the lobby, or a JSON
    record pasted on the analysis page, opens in the board without creating a game."""
    params = {"distance": 3}
    created = post(server, "/api/games", {"game": "ikabegama", "params": params, "mode": "hotseat"})
    play_random(server, created, "ikabegama", params, 5)
    text = urllib.request.urlopen(server + f"/api/games/{created['id']}/record.txt", timeout=10).read().decode()
    record = get(server, f"/api/games/{created['id']}/record")
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.wait_for_selector("#import-text")
    page.locator("#import-text").fill(text)
    page.locator("#import-analyse").click()
    page.wait_for_url(re.compile(r"/analysis\?spec="))
    page.wait_for_function("document.querySelectorAll('#tree > .tree-move').length === 6")
    assert "(imported record)" in page.locator("#title").inner_text()
    assert page.locator("#tree > .tree-move.current").count() == 1, "the board opens at the record's end"
    page.wait_for_function("document.getElementById('eval').dataset.value !== undefined", timeout=30000)
    page.screenshot(path=str(artifacts / f"analysis-record-{viewport['width']}.png"), full_page=True)
    # a JSON record on the analysis page itself, one move shorter
    record["turns"] = record["turns"][:-1]
    record["result"] = None
    if not page.locator("#record-box").evaluate("e => e.open"):
        page.locator("#record-box summary").click()
    page.locator("#record-text").fill(json.dumps(record))
    page.locator("#record-open").click()
    page.wait_for_function("document.querySelectorAll('#tree > .tree-move').length === 5")
    page.locator("#record-text").fill('[Game "chess"]\n\n1. e4\n')
    page.locator("#record-open").click()
    page.wait_for_selector("#record-error:not([hidden])")
    assert "cannot be imported" in page.locator("#record-error").inner_text()
    assert page.locator("#tree > .tree-move").count() == 5, "a bad record leaves the board as it was"
    assert not errors, errors
    ctx.close()
