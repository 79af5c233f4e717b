"""Rules pages with diagrams and the lessons page, in Chromium at desktop and phone sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SIZES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE, id="phone")]


def open_page(browser: Any, url: str, viewport: dict[str, int], ready: str) -> Any:
    page = browser.new_page(viewport=viewport)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector(ready)
    return page


def click_cell(page: Any, cell: str) -> None:
    """Click a cell where a player would: on whatever is drawn on top of it (piece, target ring)."""
    page.locator(f'#lesson svg.board .cell[data-cell="{cell}"]').click(force=True)


def name(viewport: dict[str, int]) -> str:
    return "phone" if viewport is PHONE else "desktop"


@pytest.mark.parametrize("viewport", SIZES)
def test_the_rules_page_draws_every_diagram_and_steps_a_sequence(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """Issue 26: "each game's rules page rewritten for players, every rule with a diagram drawn by the
    same renderer ... (static, and steppable where it shows a sequence)"; "each rules page has Play and
    Learn buttons"."""
    page = open_page(browser, f"{server}/rules/nymbat", viewport, "figure.diagram svg.board .cell")
    page.wait_for_function("document.querySelectorAll('figure.diagram svg.board').length === 12")
    fig = page.locator('figure[data-diagram="nymbat-breakthrough"]')
    fig.scroll_into_view_if_needed()
    assert fig.locator("svg.board .piece").count() == 6
    for _ in range(3):
        fig.locator("button.step-next").click()
    assert fig.locator("svg.board .piece").count() == 1, "after the breakthrough one red 2 is left"
    assert "xh7" in fig.locator(".diagram-note").inner_text()
    assert fig.locator("button.step-next").is_disabled()
    fig.screenshot(path=str(artifacts / f"learn-rules-breakthrough-{name(viewport)}.png"))
    assert page.locator("#play").get_attribute("href") == "/?game=nymbat"
    assert page.locator("#learn").get_attribute("href") == "/learn/nymbat"
    assert page.errors == []


def test_every_rules_page_draws_its_diagrams(server: str, browser: Any, artifacts: Path) -> None:
    page = browser.new_page(viewport=DESKTOP)
    for game, count in (("ikabegama", 5), ("nelaxtam", 7), ("nume", 4), ("nibble", 5)):
        page.goto(f"{server}/rules/{game}")
        drawn = "document.querySelectorAll('figure.diagram svg.board .cell').length > 0"
        page.wait_for_function(f"{drawn} && document.querySelectorAll('figure.diagram svg.board').length === {count}")
        assert "(no diagram" not in page.inner_text("#rules")
    split = page.locator('figure[data-diagram="nibble-no-split"] svg.board .target-ring')
    assert sorted(split.nth(i).get_attribute("data-cell") for i in range(split.count())) == ["a1", "c3"]
    page.goto(f"{server}/rules/ikabegama")
    fig = page.locator('figure[data-diagram="ikabegama-jumps"] svg.board')
    fig.wait_for()
    fig.scroll_into_view_if_needed()
    before = (page.evaluate("window.scrollY"), fig.get_attribute("viewBox"))
    fig.hover()
    page.mouse.wheel(0, 400)
    page.wait_for_function(f"window.scrollY > {before[0]}")  # the page scrolls: a diagram is a picture
    assert fig.get_attribute("viewBox") == before[1]
    page.goto(f"{server}/rules/nibble")
    page.wait_for_selector('figure[data-diagram="nibble-three-adjacent"] svg.board .cell')
    page.locator('figure[data-diagram="nibble-three-adjacent"]').screenshot(
        path=str(artifacts / "learn-rules-nibble-table.png")
    )


@pytest.mark.parametrize("viewport", SIZES)
def test_a_lesson_is_solved_by_clicking_and_the_progress_is_kept(
    server: str, browser: Any, artifacts: Path, viewport: dict[str, int]
) -> None:
    """Issue 26: "a position, a task ("capture the red 2 and break the group through"), the engine
    checks the answer ... hints, progress kept in the browser"."""
    page = open_page(browser, f"{server}/learn/nymbat#nymbat-break-through", viewport, "#lesson svg.board .cell")
    assert "break the group through" in page.inner_text(".lesson-task")
    page.locator(".hint-btn").click()
    assert page.locator(".lesson-hints li").count() == 1
    click_cell(page, "f6")
    click_cell(page, "h6")
    page.wait_for_selector(".continue-hint")
    click_cell(page, "h5")
    page.wait_for_selector(".lesson-result.right")
    page.screenshot(path=str(artifacts / f"learn-lesson-right-{name(viewport)}.png"), full_page=True)
    assert page.evaluate("JSON.parse(localStorage.getItem('tessera.learn.progress'))['nymbat-break-through']")
    assert page.locator('#lesson-list li.solved a[data-lesson="nymbat-break-through"]').count() == 1
    page.reload()
    page.wait_for_selector("#lesson svg.board .cell")
    assert page.locator('#lesson-list li.solved a[data-lesson="nymbat-break-through"]').count() == 1
    assert page.errors == []


def test_a_wrong_answer_is_explained_and_can_be_tried_again(server: str, browser: Any, artifacts: Path) -> None:
    page = open_page(browser, f"{server}/learn/nymbat#nymbat-keep-attacker", PHONE, "#lesson svg.board .cell")
    click_cell(page, "g5")
    click_cell(page, "h7")
    page.wait_for_selector(".lesson-result.wrong")
    assert "supported by the two 3s" in page.inner_text(".lesson-result")
    page.screenshot(path=str(artifacts / "learn-lesson-wrong-phone.png"), full_page=True)
    page.locator(".retry-btn").click()
    assert page.locator(".lesson-result.wrong").count() == 0
    assert page.locator('svg.board .piece[data-cell="g5"]').count() == 1


def test_numbers_and_orders_are_entered_as_on_the_game_page(server: str, browser: Any, artifacts: Path) -> None:
    """Nume's number is asked after the cell is clicked; Nelaxtam's order is built troop by troop."""
    page = open_page(browser, f"{server}/learn/nume#nume-new-group", DESKTOP, "#lesson svg.board .cell")
    click_cell(page, "e2")
    page.fill("#number-input", "1")
    page.locator("#number-ok").click()
    page.wait_for_selector(".lesson-result.right")
    page.goto(f"{server}/learn/nelaxtam#nelaxtam-dodge")
    page.wait_for_selector("#lesson svg.board .cell")
    page.locator('.order-builder .unit[data-unit="1"] .unit-name').click()
    click_cell(page, "e5")
    page.locator('.order-builder .unit[data-unit="2"] .unit-name').click()
    page.locator('.order-builder .unit[data-unit="2"] button[data-token="2="]').click()
    page.locator(".submit-order").click()
    page.wait_for_selector(".lesson-result.right")
    page.screenshot(path=str(artifacts / "learn-lesson-nelaxtam.png"), full_page=True)
    page.goto(f"{server}/learn/nelaxtam#nelaxtam-land")  # the invasion: a square for each troop in turn
    page.wait_for_selector("#lesson svg.board .cell")
    for cell in ("a9", "e1", "i1", "f6", "h8"):
        click_cell(page, cell)
    assert page.locator('.order-builder .unit[data-unit="5"] .unit-token').inner_text() == "5@h8"
    page.locator(".submit-order").click()
    page.wait_for_selector(".lesson-result.right")


def test_the_lobby_offers_the_lessons_of_a_game_not_learned_yet(server: str, browser: Any) -> None:
    """Issue 26: "the first game of a game offers its lessons" — until one of its lessons is solved here."""
    page = open_page(browser, f"{server}/?game=nume", DESKTOP, "#lessons-link")
    assert page.locator("#lessons-link").get_attribute("href") == "/learn/nume"
    assert page.locator(".learn-offer").count() == 1
    page.evaluate("localStorage.setItem('tessera.learn.progress', JSON.stringify({'nume-grow': true}))")
    page.reload()
    page.wait_for_selector("#lessons-link")
    page.wait_for_function("document.getElementById('game').value === 'nume'")
    assert page.locator(".learn-offer").count() == 0


def test_rules_and_lessons_in_the_players_language(server: str, browser: Any, artifacts: Path) -> None:
    """Issue 26: "Translations of the client and the rules pages ... English, Korean, Spanish, German
    and French, picked from the browser's language with a switcher" — the rules text, the diagrams'
    captions and the lessons come in the chosen language, no English left on the learning pages."""
    import json

    root = Path(__file__).resolve().parents[2] / "tessera" / "web" / "locales"
    ko = json.loads((root / "ko" / "learn.json").read_text("utf-8"))
    en = json.loads((root / "en" / "learn.json").read_text("utf-8"))
    page = open_page(browser, f"{server}/rules/nume?lang=ko", PHONE, "figure.diagram svg.board .cell")
    assert page.locator("#rules h1, #rules h2").first.inner_text().startswith("누메")
    cap = page.locator('figure[data-diagram="nume-groups"] figcaption').inner_text()
    assert cap == ko["diagram"]["nume-groups"]["caption"]
    assert page.locator("#learn").inner_text() == ko["ui"]["learn"]
    assert page.locator(".lang-switch select").count() == 1, "the language switcher"
    page.screenshot(path=str(artifacts / "learn-rules-nume-ko-phone.png"), full_page=False)
    page.goto(f"{server}/learn/nymbat?lang=de#nymbat-keep-attacker")
    page.wait_for_selector("#lesson svg.board .cell")
    de = json.loads((root / "de" / "learn.json").read_text("utf-8"))
    assert page.inner_text(".lesson-task") == de["lesson"]["nymbat-keep-attacker"]["task"]
    assert page.locator(".hint-btn").inner_text() == de["ui"]["hint"]
    click_cell(page, "g5")
    click_cell(page, "h7")
    page.wait_for_selector(".lesson-result.wrong")
    assert de["lesson"]["nymbat-keep-attacker"]["explain"]["0"] in page.inner_text(".lesson-result")
    text = page.inner_text("body")
    english = [en["ui"][k] for k in ("hint", "reset", "retry", "lessons")] + [
        en["lesson"]["nymbat-keep-attacker"]["task"]
    ]
    assert [w for w in english if w in text] == []
    page.screenshot(path=str(artifacts / "learn-lesson-de-desktop.png"), full_page=True)


def test_a_jump_and_a_multi_block_turn_are_clicked_as_on_the_game_page(server: str, browser: Any) -> None:
    """Ikabegamá's jump is the token then its target; Nibble's turn takes two blocks of one colour."""
    page = open_page(browser, f"{server}/learn/ikabegama#ikabegama-jump-three", DESKTOP, "#lesson svg.board .cell")
    click_cell(page, "0,0")
    click_cell(page, "2,0")
    page.wait_for_selector(".lesson-result.right")
    page.goto(f"{server}/learn/nibble#nibble-several")
    page.wait_for_selector("#lesson svg.board .cell")
    click_cell(page, "a1")
    page.wait_for_selector(".continue-hint")
    click_cell(page, "c2")
    page.wait_for_selector(".lesson-result.right")
    assert page.errors == []


def test_diagrams_and_lessons_draw_what_the_games_client_module_adds(
    server: str, browser: Any, artifacts: Path
) -> None:
    """Issue 36: "its client module (whatever the browser needs beyond the generic render description:
    e.g. ... Nume's group badges — loaded by the game's declaration)" and "one renderer draws every
    board, diagrams in the rules included": the rules page's diagram "Groups, sizes and prices" shows
    the badge of each group (size·price) as the game page does — "Black's group of 3 carries a 5: price
    2; Black's lone 1 costs 0. White's group of 3 carries a 2 and a 4: price 1; White's lone 0 costs
    1." — and a lesson board does too."""
    page = open_page(browser, f"{server}/rules/nume", DESKTOP, "figure.diagram svg.board .cell")
    fig = page.locator('figure[data-diagram="nume-groups"]')
    fig.scroll_into_view_if_needed()
    fig.locator("svg.board .badge").first.wait_for()
    texts = sorted(fig.locator("svg.board .badge text").all_text_contents())
    assert texts == sorted(["3·2", "1·0", "3·1", "1·1"]), texts
    assert fig.locator("svg.board .links line.link").count() >= 2, "the stones of a group are linked"
    fig.screenshot(path=str(artifacts / "learn-rules-nume-badges.png"))
    assert page.errors == []
    page.close()
    page = open_page(browser, f"{server}/learn/nume", DESKTOP, "#lesson svg.board .cell")
    board = page.locator("#lesson svg.board")
    assert board.locator(".piece").count() >= 1, "the first Nume lesson starts with stones on the board"
    board.locator(".badge").first.wait_for()
    assert board.locator(".badge").count() >= 1
    page.screenshot(path=str(artifacts / "learn-lesson-nume-badges.png"))
    assert page.errors == []
    page.close()


def test_a_lessons_order_builder_keeps_the_games_order_rules(server: str, browser: Any, artifacts: Path) -> None:
    """Issue 36: a game's order rules live in its client module (the `order` hook), and every builder of
    orders asks it — the lessons' too. Nelaxtam's invasion: "at least by_sea troops land on the edge
    squares" ("three of them come by sea and must stand on an edge square"): with two troops on the
    edge and two inside, the fifth troop's inner square is refused with the reason and the order is
    left as it was; an edge square is taken, and the order is right."""
    page = open_page(browser, f"{server}/learn/nelaxtam#nelaxtam-land", DESKTOP, "#lesson svg.board .cell")
    for cell in ("a9", "e1", "f6", "h8"):
        click_cell(page, cell)
    click_cell(page, "d6")
    why = page.locator(".order-builder .order-why")
    why.wait_for()
    assert "3" in why.inner_text() and "edge" in why.inner_text(), why.inner_text()
    assert page.locator('.order-builder .unit[data-unit="5"] .unit-token').inner_text() == "…"
    assert page.locator(".submit-order").is_disabled()
    page.screenshot(path=str(artifacts / "learn-lesson-nelaxtam-by-sea.png"), full_page=True)
    click_cell(page, "i1")
    assert page.locator('.order-builder .unit[data-unit="5"] .unit-token').inner_text() == "5@i1"
    assert page.locator(".order-builder .order-why").count() == 0
    page.locator(".submit-order").click()
    page.wait_for_selector(".lesson-result.right")
    assert page.errors == []
    page.close()
