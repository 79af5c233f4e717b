"""The game page says what the games and the server write in the player's language.

"Texts that the games and the server write" — the status line, panel labels and values, a refused
move's reason and the sentence that ends the game — reach the page with their keys and arguments and
are shown from the engine catalogue: here in Korean and German, the screenshots looked at.
"""

from __future__ import annotations

import json
import random
import urllib.request
from pathlib import Path
from typing import Any

import tessera
from tessera.core.game import TERMINAL
from tests.browser.moving import every_seat_moves

DESKTOP = {"width": 1100, "height": 800}
NUME = {"size": 2}


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return dict(json.loads(urllib.request.urlopen(req, timeout=10).read()))


def open_game(browser: Any, base: str, created: dict[str, Any], lang: str) -> Any:
    """The hot-seat page of ``created`` (both seats on this screen) in ``lang``."""
    page = browser.new_page(viewport=DESKTOP)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    both = "&".join(f"t{s}={t}" for s, t in created["tokens"].items())
    page.goto(f"{base}{created['url']}?lang={lang}#{both}")
    page.wait_for_selector("svg.board .cell")
    return page


def refuse_a_number(page: Any) -> str:
    """Place a stone with a number no stone may carry: the server refuses it; the page's words."""
    page.locator("svg.board .target-dot").first.click()
    page.locator("#number-input").fill("100000")
    page.locator("#number-ok").click()
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    return str(page.locator("#error").inner_text())


def play_to_the_end(base: str, created: dict[str, Any], seed: int) -> str:
    """Play random legal moves through the API until the board is full; the English end sentence."""
    state = tessera.load_game("nume", **NUME).new_initial_state()
    rng = random.Random(seed)
    while state.current_player() != TERMINAL:
        seat = state.current_player()
        move = state.random_move(rng)
        body = {"token": created["tokens"][str(seat)], "move": move, "expected": state.move_number()}
        post(base, f"/api/games/{created['id']}/moves", body)
        state.play(move)
    out = state.outcome()
    assert out is not None
    return str(out["text"])


def test_a_game_page_in_korean_says_status_panel_refusal_and_end_in_korean(
    server: str, browser: Any, artifacts: Path
) -> None:
    """Korean: "흑 차례" (Black to move), the komi row "흑에게 0.5", the server's refusal of a number
    out of range, and the resignation that ends the game, each from its key."""
    created = post(server, "/api/games", {"game": "nume", "params": NUME, "mode": "hotseat"})
    page = open_game(browser, server, created, "ko")
    status = page.locator("#status").inner_text()
    assert status.startswith("흑 차례"), status
    panel = page.locator("#panel-table").inner_text()
    assert "흑에게 0.5" in panel and "빈칸" in panel, panel
    assert "to Black" not in panel and "Empty cells" not in panel, panel
    refusal = refuse_a_number(page)
    assert "돌에 쓰는 숫자는 0부터" in refusal, refusal
    assert "whole number" not in refusal
    page.screenshot(path=str(artifacts / "i18n-game-texts-ko-refusal.png"))
    every_seat_moves(server, created["id"], {int(s): t for s, t in created["tokens"].items()})  # else an abort
    post(server, f"/api/games/{created['id']}/resign", {"token": created["tokens"]["0"]})
    page.locator("#result-why").wait_for()
    page.wait_for_function("document.getElementById('result-why').textContent.includes('기권')")
    assert page.locator("#result-why").inner_text() == "흑 기권: 백 승리"
    page.screenshot(path=str(artifacts / "i18n-game-texts-ko-end.png"))
    assert not page.errors, page.errors
    page.close()


def test_a_game_page_in_german_says_status_panel_refusal_and_end_in_german(
    server: str, browser: Any, artifacts: Path
) -> None:
    """German: "Schwarz ist am Zug", Nymbat's turn panel ("Beginn des Zugs", then "bringt Reserven
    ein (… gesetzt)" with its number), the server's refusal, and the rules' end sentence of a full
    board ("Das Brett ist voll …")."""
    nymbat = post(server, "/api/games", {"game": "nymbat", "mode": "hotseat"})
    page = open_game(browser, server, nymbat, "de")
    assert page.locator("#status").inner_text().startswith("Rot ist am Zug")
    panel = page.locator("#panel-table")
    assert "Dieser Zug" in panel.inner_text() and "Beginn des Zugs" in panel.inner_text(), panel.inner_text()
    spearhead = page.locator('[data-setup="Spearhead"]')
    assert spearhead.inner_text() == "Speerspitze"
    assert spearhead.get_attribute("title").startswith("eine 6 vorne in der Mitte")
    spearhead.click()
    page.wait_for_function("document.getElementById('panel-table').textContent.includes('bringt Reserven ein (')")
    assert "gesetzt)" in panel.inner_text() and "bringing in" not in panel.inner_text()
    page.screenshot(path=str(artifacts / "i18n-game-texts-de-nymbat-panel.png"))
    assert not page.errors, page.errors
    page.close()

    created = post(server, "/api/games", {"game": "nume", "params": NUME, "mode": "hotseat"})
    page = open_game(browser, server, created, "de")
    assert page.locator("#status").inner_text().startswith("Schwarz ist am Zug")
    refusal = refuse_a_number(page)
    assert "die Zahl auf einem Stein muss eine ganze Zahl von 0 bis" in refusal, refusal
    english = play_to_the_end(server, created, seed=5)
    page.locator("#result-why").wait_for()
    why = page.locator("#result-why").inner_text()
    assert why.startswith("Das Brett ist voll"), (why, english)
    assert why != english
    page.screenshot(path=str(artifacts / "i18n-game-texts-de-end.png"))
    assert not page.errors, page.errors
    page.close()
