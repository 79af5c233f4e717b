"""The server's refusals in the player's language: the sign-up page in Korean says a taken name in
Korean (the refusal's key and the name from its arguments), not the server's English detail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tessera

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
LOCALES = Path(tessera.__file__).parent / "web" / "locales"


def sign_up_form(page: Any, base: str, name: str) -> Any:
    page.goto(base + "/account?lang=ko")
    form = page.locator("#signup")
    form.wait_for()
    form.locator("input[name=username]").fill(name)
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    return form


def test_the_korean_sign_up_page_says_a_taken_name_in_korean(server: str, browser: Any, artifacts: Path) -> None:
    """'the username … is taken' reaches a Korean page as the Korean catalogue's sentence with the name."""
    first = browser.new_context(viewport={"width": 1000, "height": 800}).new_page()
    sign_up_form(first, server, "Minji")
    first.wait_for_selector("#me-card:not([hidden])")
    first.context.close()
    page = browser.new_context(viewport={"width": 1000, "height": 800}, locale="ko-KR").new_page()
    form = sign_up_form(page, server, "minji")  # names are unique whatever their case
    error = form.locator(".error")
    error.wait_for(state="visible")
    ko = json.loads((LOCALES / "ko" / "refusals.json").read_text(encoding="utf-8"))
    expected = ko["refusal"]["account"]["username_taken"].replace("{{name}}", "minji")
    assert error.text_content() == expected
    assert "taken" not in expected and "이미 사용 중" in expected
    assert page.evaluate("document.documentElement.lang") == "ko"
    page.screenshot(path=str(artifacts / "refusal-signup-ko.png"), full_page=True)
    page.context.close()
