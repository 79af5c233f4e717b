"""The web client under its Content-Security-Policy: every page loads and works with no violation
(no inline script, no ``eval``, nothing from another origin)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def _game(server: str) -> str:
    body = json.dumps({"game": "nibble", "mode": "ai", "public": False}).encode()
    req = urllib.request.Request(
        server + "/api/games", data=body, headers={"Content-Type": "application/json", "Origin": server}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return str(json.loads(r.read())["id"])


@pytest.mark.parametrize(
    ("path", "ready"),
    [
        ("/", "main"),
        ("/account", "main"),
        ("/learn/nibble", "#lesson-list li"),
        ("/rules/nibble", "#rules h1, #rules h2"),
        ("/analysis", "main"),
        ("/stats/nibble", "main"),
        ("/stats/nume", "#plot svg"),
        ("/design/nume", "body[data-ready='1']"),
        ("/puzzles", "main"),
        ("/tournaments", "main"),
        ("/leaderboard/nibble", "main"),
        ("/g/{game}", "svg"),
    ],
)
def test_a_page_runs_under_the_csp_without_a_violation(browser: Any, server: str, path: str, ready: str) -> None:
    if "{game}" in path:
        path = path.replace("{game}", _game(server))
    context = browser.new_context(bypass_csp=False)  # the site's CSP, as a visitor's browser applies it
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.add_init_script(WATCH)
    try:
        response = page.goto(server + path)
        assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_selector(ready, timeout=20_000)
        page.wait_for_timeout(500)
        assert page.evaluate("window.__violations") == []
        assert not [m for m in console if "Content Security Policy" in m], console
    finally:
        context.close()


def test_the_seat_swatches_keep_their_colours_under_the_csp(browser: Any, server: str) -> None:
    """Colours written by the page are set through the CSSOM (``data-bg``), which the policy allows:
    each seat's swatch is painted, not left transparent."""
    context = browser.new_context(bypass_csp=False)
    page = context.new_page()
    page.add_init_script(WATCH)
    try:
        page.goto(server + f"/g/{_game(server)}")
        page.wait_for_selector("#seats .swatch")
        # painted once the page has applied its data-bg colours (a redraw may come between two reads)
        painted = (
            "() => { const s = [...document.querySelectorAll('.swatch')].map(e => getComputedStyle(e).backgroundColor);"
            " return s.length > 0 && s.every(c => c && c !== 'transparent' && c !== 'rgba(0, 0, 0, 0)'); }"
        )
        try:
            page.wait_for_function(painted, timeout=10_000)
        except Exception as e:  # Playwright's TimeoutError: the assertion below says what was seen
            if type(e).__name__ != "TimeoutError":
                raise
        colours = page.eval_on_selector_all(".swatch", "els => els.map(e => getComputedStyle(e).backgroundColor)")
        assert colours and all(c not in ("", "transparent", "rgba(0, 0, 0, 0)") for c in colours), colours
        assert page.evaluate("window.__violations") == []
    finally:
        context.close()
