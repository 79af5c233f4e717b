"""The first game without a wait (issue 39, point 5): while the games are still being prepared the
lobby's "Create game" button says so and shows the progress (``GET /api/status``).

The server's own status is real (tests/server/test_warmup_status.py); here the page is shown the
status of a server half-way through its preparation (the request answered by the test), then a
ready one, and must follow it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _status(ready: bool, warming: list[str], done: int, total: int) -> dict[str, Any]:
    return {"ready": ready, "warming": warming, "done": done, "total": total}


def test_the_create_button_says_a_game_is_being_prepared_and_shows_the_progress(
    server: str, browser: Any, artifacts: Path
) -> None:
    """'While anything is still being prepared the button says so and shows progress': with Nume
    still compiling (2 of 5 games ready) the button names Nume and the count, the progress bar holds
    2 of 5; once the server is ready the button is "Create game" again and the bar is gone."""
    state = {"body": _status(False, ["nume", "nibble", "nymbat"], 2, 5)}
    for lang, theme in (("en", "light"), ("de", "dark")):
        ctx = browser.new_context(viewport={"width": 1100, "height": 800}, color_scheme=theme, locale=lang)
        page = ctx.new_page()
        page.route(
            "**/api/status",
            lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(state["body"])),
        )
        state["body"] = _status(False, ["nume", "nibble", "nymbat"], 2, 5)
        page.goto(f"{server}/?game=nume&lang={lang}")
        page.wait_for_selector("body[data-ready='1']")
        btn = page.locator("#create-btn")
        page.wait_for_selector("#create-btn[data-preparing='1']")
        text = btn.inner_text()
        assert "Nume" in text and "2" in text and "5" in text, text
        assert text != ("Create game" if lang == "en" else "Partie starten")
        assert btn.get_attribute("aria-busy") == "true"
        bar = page.locator("#warm-progress")
        assert bar.is_visible()
        assert bar.evaluate("b => [b.value, b.max]") == [2, 5]
        page.screenshot(path=str(artifacts / f"first-game-preparing-{lang}-{theme}.png"))
        # another game that is ready already: the button is the usual one
        page.select_option("#game", "ikabegama")
        assert btn.inner_text() == ("Create game" if lang == "en" else "Partie starten")
        assert not bar.is_visible()
        page.select_option("#game", "nume")
        assert btn.get_attribute("data-preparing") == "1"
        state["body"] = _status(True, [], 5, 5)  # the next poll: every game is ready
        page.wait_for_function("() => !document.querySelector('#create-btn').dataset.preparing")
        assert btn.inner_text() == ("Create game" if lang == "en" else "Partie starten")
        assert btn.get_attribute("aria-busy") is None
        assert not bar.is_visible()
        ctx.close()
