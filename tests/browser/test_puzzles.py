"""The puzzles page in Debian's Chromium: a guest solves a puzzle by typing the steps (keyboard only),
an account solves one by clicking the board and sees its rating move, "view the solution" scores a
loss, a wrong step shows its refutation, and the page speaks the player's language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tessera.puzzles.model import Puzzle, shipped
from tests.browser.test_accounts_pages import sign_up

pytestmark = pytest.mark.browser


def puzzle(steps: int) -> Puzzle:
    return next(p for p in shipped("nibble") if len(p.refutations) == steps)


def mine(p: Puzzle) -> list[str]:
    return [p.line[i] for i in p.player_steps()]


def open_puzzle(page: Any, server: str, p: Puzzle, lang: str = "en") -> None:
    page.goto(f"{server}/puzzles?id={p.id}&lang={lang}")
    page.wait_for_selector("svg.board .cell")
    page.wait_for_function("document.querySelector('#status').textContent.length > 0")


def test_a_guest_solves_a_puzzle_with_the_keyboard_alone(server: str, browser: Any, artifacts: Path) -> None:
    """'keyboard-playable': focus starts in the move box; each typed step is judged; guests play unrated."""
    p = puzzle(2)
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    open_puzzle(page, server, p)
    assert "find the only winning" in page.locator("#status").text_content()
    assert page.evaluate("document.activeElement.id") == "move-input"
    first, second = mine(p)
    page.keyboard.type(first)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Correct')")
    page.screenshot(path=str(artifacts / "puzzles-correct-desktop.png"), full_page=True)
    page.keyboard.type(second)
    page.keyboard.press("Enter")
    page.wait_for_selector("#status:has-text('Solved')")
    assert "Guests play unrated" in page.locator("#result").text_content()
    assert page.locator("#hint").is_disabled() and page.locator("#solution").is_disabled()
    # Tab reaches the next puzzle (the focus moved there) and Enter loads another one
    assert page.evaluate("document.activeElement.id") == "next"
    page.keyboard.press("Enter")
    page.wait_for_function(f"!location.search.includes('{p.id}')")


def test_an_account_solves_by_clicking_and_its_rating_moves(server: str, browser: Any, artifacts: Path) -> None:
    p = puzzle(1)
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    sign_up(page, server, "PuzzleClicker")
    open_puzzle(page, server, p)
    page.locator("#hint").click()
    page.wait_for_selector("#status:has-text('starts on')")
    (move,) = mine(p)
    page.locator(f"svg.board .cell[data-cell='{move}']").click(force=True)
    page.wait_for_selector("#status:has-text('Solved')")
    page.wait_for_selector("#result:has-text('Your rating: 1500 →')")
    page.wait_for_selector("#me:has-text('streak 1')")
    page.screenshot(path=str(artifacts / "puzzles-solved-phone.png"), full_page=True)


def test_a_wrong_step_shows_its_refutation_and_the_solution(server: str, browser: Any) -> None:
    p = puzzle(1)
    wrong, refutation = sorted((m, r) for m, r in p.refutations[0].items() if r)[0]
    page = browser.new_context().new_page()
    open_puzzle(page, server, p)
    page.locator("#move-input").fill(wrong)
    page.locator("#move-input").press("Enter")
    page.wait_for_selector("#status:has-text('Wrong')")
    assert " ".join(refutation) in page.locator("#status").text_content()
    assert f"Solution: {' '.join(p.line)}" in page.locator("#result").text_content()


def test_viewing_the_solution_counts_as_a_loss_in_korean(server: str, browser: Any) -> None:
    """'"view the solution" which then scores a loss'; 'pages in the five languages'."""
    p = puzzle(1)
    page = browser.new_context().new_page()
    sign_up(page, server, "PuzzleViewer")
    open_puzzle(page, server, p, lang="ko")
    assert page.locator("#solution").text_content() == "정답 보기"
    page.locator("#solution").click()
    page.wait_for_selector("#result:has-text('패배')")
    assert "(-" in page.locator("#result").text_content()
    page.wait_for_selector("#me:has-text('연속 0')")


def test_a_puzzle_board_numbers_the_blocks_as_the_game_page_does(server: str, browser: Any) -> None:
    """Issue 36: the game's client module is "loaded by the game's declaration" wherever its board is
    drawn: a Nibble puzzle's blocks carry their colour's place in the table (Nibble's client module,
    as on the game page: issue 26, "Nibble's nine colours get symbols or numbers")."""
    p = puzzle(1)
    page = browser.new_context(viewport={"width": 1100, "height": 800}).new_page()
    open_puzzle(page, server, p)
    page.wait_for_selector("svg.board .piece .piece-label")
    pieces = page.locator("svg.board .piece").count()
    labels = page.locator("svg.board .piece .piece-label")
    assert pieces > 0 and labels.count() == pieces, (pieces, labels.count())
    assert all(t.strip().isdigit() for t in labels.all_text_contents())
