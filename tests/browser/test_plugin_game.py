"""A game installed as a package plays in the browser with everything it brings (issue 36's proof).

"The example plugin game (``examples/tessera-nim``, installed as a package through the entry point)
plays in the browser with its rules page and a lesson, against AI levels … with no file outside its
own folder changed."  A server of this module's own runs with the package installed beside tessera.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.test_play import play_to_the_end, set_param
from tests.core.test_plugin_games import install_example
from tests.server.pg import free_port

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``tessera serve`` with the example package installed (on its ``PYTHONPATH``, as pip puts it)."""
    target = install_example(tmp_path_factory)
    port = free_port()
    db = tmp_path_factory.mktemp("nimsrv") / "tessera.db"
    log_path = tmp_path_factory.mktemp("nimlog") / "server.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    cmd = [sys.executable, "-m", "tessera", "serve", "--port", str(port), "--db", f"sqlite:///{db}"]
    with open(log_path, "w+") as log:
        proc = subprocess.Popen([*cmd, "--ai-seconds", "0.05"], stdout=log, stderr=subprocess.STDOUT, env=env)
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/api/catalog", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    proc.kill()
                    log.seek(0)
                    pytest.fail(f"the server did not start: {log.read()[-2000:]}")
                time.sleep(0.2)
        try:
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_an_installed_game_plays_in_the_browser_with_its_rules_page_and_lesson(
    site: str, browser: Any, artifacts: Path
) -> None:
    """The package's rules page draws its two diagrams with the one renderer, its lesson is judged in the
    page, and a person plays a whole game against AI level 1 from the lobby's form by clicking."""
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(site + "/rules/nim")
    page.wait_for_selector("text=Taking stones")
    page.wait_for_function("document.querySelectorAll('svg.board').length >= 2")
    assert page.locator(".diagram-title").all_inner_texts() == ["Taking stones", "The last stone"]
    page.goto(site + "/learn/nim")
    page.wait_for_selector("text=Leave four")
    page.get_by_role("button", name="2", exact=True).click()  # take two: four stones are left
    page.wait_for_selector(".lesson-result.right")
    page.screenshot(path=str(artifacts / "plugin-nim-lesson.png"))
    page.goto(site + "/?game=nim")
    page.wait_for_selector("#param-stones")
    set_param(page, "stones", 7)
    page.locator("input[name=mode][value=ai]").check()
    page.locator("#ai-level").select_option("1")
    page.locator("#create-btn").click()
    page.wait_for_url(re.compile(r"/g/"))
    page.wait_for_selector("svg.board")
    play_to_the_end(page, random.Random(7))
    assert page.locator("#result-why").inner_text().strip()
    page.screenshot(path=str(artifacts / "plugin-nim-game.png"))
    assert not errors, errors
    page.close()
