"""The moderation page in Debian's Chromium: refused to an account without the admin role, then
(after ``tessera admin grant``) the reports queue shows a report with its evidence, the account
opens from it with its chat, a warning and a chat mute are given by keyboard and appear in the log,
and the page speaks the moderator's language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tessera.cli import main as cli_main
from tests.browser.conftest import DATABASES
from tests.browser.test_accounts_pages import sign_up

pytestmark = pytest.mark.browser


def post(page: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A JSON POST from the page (its session cookie and origin)."""
    out: dict[str, Any] = page.evaluate(
        """async ([path, body]) => {
            const r = await fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                         body: JSON.stringify(body)});
            return {status: r.status, body: await r.json()};
        }""",
        [path, body],
    )
    return out


def test_a_moderator_reviews_a_report_warns_and_mutes_by_keyboard(server: str, browser: Any, artifacts: Path) -> None:
    reporter = browser.new_context().new_page()
    sign_up(reporter, server, "Reporter7")
    troll = browser.new_context().new_page()
    sign_up(troll, server, "Troll7")
    r = post(reporter, "/api/reports", {"reason": "abuse", "text": "rude in chat", "username": "Troll7"})
    assert r["status"] == 201, r

    warden = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    sign_up(warden, server, "Warden7")
    answer = warden.goto(server + "/mod")
    assert answer is not None and answer.status == 403, "the page is for admins only"
    assert cli_main(["admin", "grant", "Warden7", "--db", DATABASES[server]]) == 0

    warden.goto(server + "/mod?lang=en")
    warden.wait_for_selector("body[data-ready='1']")
    row = warden.locator("#queue tbody tr").filter(has_text="Troll7")
    row.wait_for()
    assert "rude in chat" in row.inner_text() and "the profile of Troll7" in row.inner_text()

    # keyboard only: open the account from the queue, write a note, warn, then mute
    row.get_by_role("button", name="Troll7").focus()
    warden.keyboard.press("Enter")
    warden.wait_for_selector("#account:not([hidden])")
    assert "Troll7" in warden.locator("#account-standing").inner_text()
    warden.locator("#act-note").focus()
    warden.keyboard.type("Be kind in chat.")
    warden.keyboard.press("Tab")  # the first action: Warn
    warden.keyboard.press("Enter")
    warden.wait_for_function("document.querySelector('#account-standing').textContent.includes('1 warning')")
    warden.locator("#act button[data-action=mute]").focus()
    warden.keyboard.press("Enter")
    warden.wait_for_function("document.querySelector('#account-standing').textContent.includes('chat muted')")
    log = warden.locator("#log tbody")
    log.locator("tr").first.wait_for()
    assert "chat muted" in log.locator("tr").nth(0).inner_text()
    assert "warned" in log.locator("tr").nth(1).inner_text() and "Be kind in chat." in log.inner_text()
    assert troll.evaluate("fetch('/api/warnings').then(r => r.json())")["warnings"][0]["note"] == "Be kind in chat."

    # the signal, computed on demand (no rated games yet: none of the account's moves to count)
    warden.locator("#signal-form button").click()
    warden.wait_for_function("document.querySelector('#status').textContent === 'Signal computed.'")
    assert "0 of 0" in warden.locator("#signal-text").inner_text()
    warden.screenshot(path=str(artifacts / "moderation.png"), full_page=True)

    # the reporter's report is closed from the queue
    row.get_by_role("button", name="Close the report").click()
    warden.wait_for_selector("#queue-empty:not([hidden])")

    # in French
    warden.goto(server + "/mod?lang=fr")
    warden.wait_for_selector("body[data-ready='1']")
    assert warden.locator("#queue-title").inner_text() == "Signalements"
    assert "chat coupé" in warden.locator("#log tbody").inner_text()


def test_a_player_blocks_and_reports_from_a_profile_and_reports_a_chat_line(server: str, browser: Any) -> None:
    """The profile's controls (a logged-in visitor other than the player) block and report; the
    game page's chat reports a line, kept with its text for the moderators."""
    victim = browser.new_context().new_page()
    sign_up(victim, server, "Victim8")
    rude = browser.new_context().new_page()
    sign_up(rude, server, "Rude8")

    victim.goto(f"{server}/u/Rude8?lang=en")
    victim.wait_for_selector("#moderation-card:not([hidden])")
    victim.locator("#block").click()
    victim.wait_for_function("document.querySelector('#moderation-status').textContent === 'Rude8 is blocked.'")
    assert victim.locator("#block").get_attribute("aria-pressed") == "true"
    assert victim.evaluate("fetch('/api/blocks').then(r => r.json())")["blocks"] == ["Rude8"]
    refused = post(rude, "/api/challenges", {"to": "Victim8", "game": "nibble"})
    assert refused["status"] == 403 and refused["body"]["key"] == "refusal.moderation.challenge_blocked"
    victim.locator("#block").click()
    victim.wait_for_function("document.querySelector('#block').getAttribute('aria-pressed') === 'false'")
    victim.locator("#report-reason").select_option("spam")
    victim.locator("#report-text").fill("sends links")
    victim.locator("#report-form button[type=submit]").click()
    victim.wait_for_function("document.querySelector('#moderation-status').textContent.startsWith('Thank you')")
    rude.goto(f"{server}/u/Rude8")
    rude.wait_for_selector("#profile-card:not([hidden])")
    assert rude.locator("#moderation-card").is_hidden(), "no block or report of oneself"

    ch = post(rude, "/api/challenges", {"to": "Victim8", "game": "nibble", "seat": 0})
    assert ch["status"] in (200, 201), ch
    gid = post(victim, f"/api/challenges/{ch['body']['id']}/accept", {})["body"]["game_id"]
    assert post(rude, f"/api/games/{gid}/chat", {"room": "player", "text": "you are slow"})["status"] == 201
    victim.goto(f"{server}/g/{gid}?lang=en")
    line = victim.locator(".chat-msg").filter(has_text="you are slow")
    line.wait_for()
    line.locator(".chat-report").click()
    victim.wait_for_function("document.querySelector('.chat-note').textContent === 'Reported to the moderators.'")
    assert cli_main(["admin", "grant", "Victim8", "--db", DATABASES[server]]) == 0
    queue = victim.evaluate("fetch('/api/mod/reports').then(r => r.json())")["reports"]
    mine = [r for r in queue if r["reporter"] == "Victim8"]
    assert {r["reason"] for r in mine} == {"spam", "abuse"}
    chat = next(r for r in mine if r["evidence"]["kind"] == "chat")
    assert chat["evidence"]["text"] == "you are slow" and chat["evidence"]["game_id"] == gid
