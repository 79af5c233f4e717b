"""The designer's lab and the statistics page in Debian's Chromium: a signed-in designer compares two Nume
variants by self-play on the server's AI pool, watches the progress, reads the figures side by side and opens an
example game in the analysis board; the statistics page shows the lab's budgets, scores and fitted fair values.
Screenshots in test-artifacts/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_accounts_pages import PASSWORD
from tests.browser.test_accounts_stats import call
from tests.server.test_processes import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of this module's own (a fresh database)."""
    db = tmp_path_factory.mktemp("design") / "tessera.db"
    with serve(f"sqlite:///{db}") as (base, _):
        yield base


def test_a_designer_compares_two_variants_and_opens_an_example(site: str, browser: Any, artifacts: Path) -> None:
    """'pick parameters as in the new-game form, run N self-play games on the server's AI pool …, watch
    progress, compare two or more variants side by side …, open example games'."""
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    call(page, site, "POST", "/api/account/signup", {"username": "Designer", "password": PASSWORD})
    page.goto(f"{site}/design/nume")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#study-form").is_visible()
    page.fill("#v0-size", "2")
    page.click("#add-variant")
    page.fill("#v1-size", "2")
    page.fill("#v1-komi", "2.5")
    specs = [t.strip() for t in page.locator(".variant .spec").all_inner_texts()]
    assert specs == ["nume(size=2)", "nume(size=2,komi=2.5)"]
    page.select_option("#agent", "level1")
    page.fill("#games", "3")
    page.click("#run")
    page.wait_for_selector("#study[data-status='done']", timeout=120_000)
    assert "6" in page.locator("#progress-text").inner_text()
    header = page.locator("#figures tr").first.inner_text()
    assert "nume(size=2)" in header and "nume(size=2,komi=2.5)" in header
    table = page.locator("#figures").inner_text()
    assert "First seat's score" in table and "First seat's wins" in table and "Lead changes" in table
    assert page.locator("#plot-score svg circle").count() == 2
    assert page.locator("#plot-length svg").count() == 2
    assert page.locator("#studies li").count() == 1
    page.screenshot(path=str(artifacts / "design-nume.png"), full_page=True)
    page.locator(".open-example").first.click()
    page.wait_for_url(f"{site}/analysis?record=paste")
    page.wait_for_function("document.querySelector('#board svg') !== null")
    page.context.close()


def test_a_guest_is_asked_to_sign_in(site: str, browser: Any) -> None:
    """Studies cost the server's CPU: they are for signed-in accounts, and the page says so."""
    page = browser.new_context().new_page()
    page.goto(f"{site}/design/nibble")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#signin").is_visible() and not page.locator("#study-form").is_visible()
    page.context.close()


def test_the_stats_page_names_budgets_scores_and_fair_values(site: str, browser: Any, artifacts: Path) -> None:
    """'/stats/<game>' keeps the agent's budget, sorts variants as numbers, plots the score and lists the
    fitted fair values."""
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    page.goto(f"{site}/stats/nume")
    page.wait_for_selector("body[data-ready='1']")
    api = call(page, site, "GET", "/api/stats/nume")
    assert all(x["budget"] for x in api["self_play"]) and api["fair_values"]
    variants = page.locator("#variants tr[data-variant]").evaluate_all("rows => rows.map(r => r.dataset.variant)")
    sizes = [int(v.split("size=")[1].split(",")[0].rstrip(")")) for v in variants if "size=" in v]
    assert sizes == sorted(sizes)
    assert "iterations/move" in page.locator("#variants").inner_text()
    assert page.locator("#fair tr").count() == len(api["fair_values"]) + 1
    assert page.locator("#plot svg circle").count() == len(api["self_play"])
    page.screenshot(path=str(artifacts / "stats-nume-fair.png"), full_page=True)
    page.context.close()


def test_the_stats_page_shows_the_verdicts_at_several_strengths(site: str, browser: Any, artifacts: Path) -> None:
    """Issue 44: "reports the verdict per strength with its interval and whether they agree … every row
    labelled with the agent's full spec and budget" — /stats shows the stored strength studies beside the
    single-agent figures, so that a designer sees when a verdict is one program's only."""
    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    page.goto(f"{site}/stats/nibble")
    page.wait_for_selector("body[data-ready='1']")
    api = call(page, site, "GET", "/api/stats/nibble")
    rows = [r for study in api["strengths"] for q in study["questions"] for r in q["rows"]]
    assert rows and page.locator("#strengths-card").is_visible()
    assert page.locator("#strengths tr[data-variant]").count() == len(rows)
    text = page.locator("#strengths").inner_text()
    assert "s/move (cpu)" in text and "alphabeta" in text
    # the 13×13 board with the table in order: decided by alpha-beta only, said as such
    # the square board (the default) with 13 colours: board=square is left out of the variant
    square13 = [q for s in api["strengths"] for q in s["questions"] if q["variant"].startswith("nibble(colors=13")]
    assert any(q["agreement"] == {"code": "only_at", "agents": ["alphabeta"]} for q in square13)
    assert page.locator("#strengths td.agreement", has_text="decided only by alphabeta").count() >= 1
    page.screenshot(path=str(artifacts / "stats-nibble-strengths.png"), full_page=True)
    page.context.close()
