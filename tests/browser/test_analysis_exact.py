"""The analysis board shows the exact solver's proof in a Nibble, Nume or Ikabegamá ending ("Forced win in N …").

Issue 28: "The analysis board says 'forced win in N' / 'lost with best play' when the solver proves it."
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

import tessera
from tessera.agents.endgame import endgame_verdict
from tessera.core.records import text_record
from tessera.games.ikabegama.solver import IkabegamaSolver
from tessera.games.nibble.solver import NibbleSolver


def exact_line(page: Any, errors: list[str]) -> str:
    """The analysis board's exact line once shown; else what the page shows instead (its evaluation,
    its error, the script errors), so that a failure says why."""
    try:
        page.wait_for_selector("#exact:not([hidden])", timeout=60000)
    except Exception:
        shown = (page.locator("#eval").inner_text(), page.locator("#error").inner_text(), errors)
        raise AssertionError(f"no exact line: {shown}") from None
    return str(page.locator("#exact").inner_text())


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
    text = exact_line(page, errors)
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


def _nume_ending() -> tessera.State:
    """A Nume game (size 3) of random placements, new groups numbered 1–3, down to 8 empty cells."""
    state = tessera.load_game("nume(size=3)").new_initial_state()
    rng = random.Random(3)
    k = state.game.K  # type: ignore[attr-defined]
    while state._nempty() > 8:  # type: ignore[attr-defined]
        c, code = divmod(state.random_action(rng), k)
        state.apply_action(c * k + (1 + rng.randint(1, 3) if code else 0))
    return state


def _ikabegama_race() -> tessera.State:
    """A random Ikabegamá race (nests 4 apart) where the player to move has a forced win of at least 3 plies."""
    game = tessera.load_game("ikabegama(distance=4)")
    rng = random.Random(8)
    while True:
        state = game.new_initial_state()
        for _ in range(rng.randint(2, 7)):
            if not state.is_terminal():
                state.apply_action(state.random_action(rng))
        if state.is_terminal():
            continue
        got = IkabegamaSolver(16).solve(state, horizon=5)
        if got is not None and got.value > 0 and (got.plies or 0) >= 3:
            return state


@pytest.mark.parametrize("which", ["nume", "ikabegama"])
def test_the_analysis_board_shows_the_proof_in_nume_and_ikabegama(
    server: str, browser: Any, artifacts: Path, which: str
) -> None:
    """Nume's last empty cells and Ikabegamá's short races have solvers too: the same line appears, with the
    steps the solver finds (Nume: the empty cells left; Ikabegamá: the fastest win)."""
    state = _nume_ending() if which == "nume" else _ikabegama_race()
    truth = endgame_verdict(state, 10.0)
    assert truth is not None and truth.plies is not None
    record = text_record(str(state.game), 0, state.history())
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/analysis")
    page.evaluate("(text) => sessionStorage.setItem('tessera.analysis.record', text)", record)
    page.goto(server + "/analysis?record=paste")
    text = exact_line(page, errors)
    names = state.game.info.player_names
    cp = state.current_player()
    if truth.winner == cp:
        want = rf"^Forced win in {truth.plies} steps? for {names[cp]} \(proved by the exact solver\) · a best step: \S+"
    else:
        want = rf"^{names[cp]} is lost with best play: {names[1 - cp]} wins in {truth.plies} steps? · a best step: \S+"
    assert re.match(want, text), text
    page.screenshot(path=str(artifacts / f"analysis-exact-{which}.png"), full_page=True)
    assert not errors, errors
    page.close()
