"""The analysis board shows the exact solver's proof in a Nibble endgame ("Forced win in N steps for …").

Issue 28: "The analysis board says 'forced win in N' / 'lost with best play' when the solver proves it."
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import tessera
from tessera.agents.endgame import NibbleSolver
from tessera.core.records import text_record


def test_the_analysis_board_says_forced_win_in_n_when_the_solver_proves_it(
    server: str, browser: Any, artifacts: Path
) -> None:
    """A Nibble game played at random down to at most 12 blocks, read as a record into the analysis
    board: the line under the evaluation says who wins with best play and in how many
    steps, as the solver finds it, and the bar is full or empty accordingly."""
    seed = 11
    state = tessera.load_game("nibble").new_initial_state(seed=seed)
    rng = random.Random(5)
    while len(state.to_dict()["cells"]) > 12:
        state.play(state.random_move(rng))
        assert not state.is_terminal(), "the random game ended before its endgame: pick another seed"
    record = text_record("nibble", seed, state.history())
    truth = NibbleSolver(16).solve(state, None)
    assert truth is not None and truth.plies is not None
    names = state.game.info.player_names
    cp = state.current_player()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/analysis")  # the record handed over as the lobby does, read without creating a game
    page.evaluate("(text) => sessionStorage.setItem('tessera.analysis.record', text)", record)
    page.goto(server + "/analysis?record=paste")
    try:
        page.wait_for_selector("#exact:not([hidden])", timeout=60000)
    except Exception:
        shown = (page.locator("#eval").inner_text(), page.locator("#error").inner_text(), errors)
        raise AssertionError(f"no exact line: {shown}") from None
    text = page.locator("#exact").inner_text()
    if truth.value > 0:
        want = rf"^Forced win in {truth.plies} steps? for {names[cp]} \(proved by the exact solver\) · a best step: \S+"
        bar = 100.0
    elif truth.value < 0:
        want = rf"^{names[cp]} is lost with best play: {names[1 - cp]} wins in {truth.plies} steps? · a best step: \S+"
        bar = 0.0
    else:
        want, bar = r"^Draw with best play", 50.0
    assert re.match(want, text), text
    assert page.locator("#eval-fill").evaluate("e => parseFloat(e.style.height)") == bar
    page.screenshot(path=str(artifacts / "analysis-exact.png"), full_page=True)
    assert not errors, errors
    page.close()
