"""AI seats (``server/ai/seats.py``, ``server/ai/worker.py``): the AI answers in every game, its time covers
its whole turn, and it reports its progress while it thinks.

"AI budgets are per turn (a level's time covers the whole multi-step turn ...), with a thinking
indicator that shows elapsed time and the AI's progress."  No timed assertions: the budget
arithmetic is checked exactly, the worker's behaviour by what it reports and plays.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("fastapi", reason="the server extras are not installed: pip install -e '.[server]'")

import tessera
from tessera.server.ai.thinking import STEP_FLOOR, multi_step, step_budget, think_step
from tessera.server.ai.worker import AIWorker
from tessera.server.events import Changed, Event, Thinking
from tessera.server.match.service import MatchService
from tessera.server.store.storage import Storage
from tests.server.helpers import SMALL, create, first_move, move, view, wait_for


@given(total=st.floats(0.01, 30.0), steps=st.integers(1, 60))
def test_the_step_budgets_of_a_multi_step_turn_never_add_up_to_more_than_the_turn(total: float, steps: int) -> None:
    """A level's time covers the whole multi-step turn: searched steps share what is left, and
    once less than the floor is left the rest are greedy (no search budget at all)."""
    left = total
    spent = 0.0
    for _ in range(steps):
        b = step_budget(total, left, True)
        if b is None:
            assert left < STEP_FLOOR * total
            continue
        assert 0 < b <= left
        spent += b
        left -= b
    assert spent <= total + 1e-9


def test_a_one_step_turn_gets_the_whole_budget() -> None:
    """A game whose turn is one move (Ikabegamá) keeps the level's full time for it."""
    assert step_budget(3.0, 3.0, False) == 3.0
    assert step_budget(3.0, -0.5, False) == 0.0


def test_multi_step_turns_are_recognised_without_naming_the_game() -> None:
    """Nymbat's turn goes on after a step (placing, then more steps); Ikabegamá's never does."""
    rng = random.Random(1)
    nymbat = tessera.load_game("nymbat").new_initial_state(seed=1)
    assert multi_step(nymbat, nymbat.current_player(), rng)
    ika = tessera.load_game("ikabegama").new_initial_state(seed=1)
    assert not multi_step(ika, ika.current_player(), rng)


def test_think_step_says_whether_the_turn_goes_on() -> None:
    """``more`` is true exactly when the same player is still to move after the chosen step."""
    g = tessera.load_game("nymbat")
    state = g.new_initial_state(seed=2)
    moves: list[tuple[int, str]] = []
    player = state.current_player()
    for i in range(200):
        out = think_step(str(g), 2, moves, player, 3, 0.05, 0.05 - 0.01 * i, i)
        state.play(out["move"])
        moves.append((player, out["move"]))
        assert out["more"] == (state.current_player() == player)
        if not out["more"]:
            break
    assert state.current_player() != player, "the AI's turn ended"


def _wait(pred: Any, seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while not pred():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def _worker(tmp_path: Any) -> tuple[MatchService, AIWorker, list[tuple[str, dict[str, Any] | None]]]:
    service = MatchService(Storage(f"sqlite:///{tmp_path / 'ai.db'}"))
    worker = AIWorker(service, mode="thread", seconds=0.05)
    reports: list[tuple[str, dict[str, Any] | None]] = []
    lock = threading.Lock()

    def on_event(event: Event) -> None:  # the worker's progress comes as events, like the hub hears it
        if isinstance(event, Thinking):
            with lock:
                reports.append((event.game_id, event.info))

    service.events.subscribe(on_event)
    return service, worker, reports


def test_the_ai_plays_its_whole_multi_step_turn_and_reports_each_step(tmp_path: Any) -> None:
    """Nymbat level 5: the whole turn is planned in one budget and played; the progress reports
    carry the budget, the elapsed time and the steps chosen so far, and a final ``None``."""
    service, worker, reports = _worker(tmp_path)
    try:
        created = service.create("nymbat", mode="ai", seat=1, ai_level=5)
        gid = created.game_id
        _wait(lambda: service.view(gid)["to_move"] == 1)
        view = service.view(gid)
        first_turn = [m["move"] for m in view["moves"] if m["player"] == 0]
        assert len(first_turn) > 1, "Nymbat's first turn has several steps"
        _wait(lambda: any(info is None for _, info in reports))
        infos = [info for g, info in reports if g == gid and info is not None]
        assert infos[0]["steps"] == [] and infos[0]["budget"] == 0.05 and infos[0]["player"] == 0
        assert infos[-1]["steps"] == first_turn
        assert all(isinstance(i["elapsed"], float) for i in infos)
    finally:
        worker.close()


def test_progress_at_a_simultaneous_turn_never_reveals_the_order(tmp_path: Any) -> None:
    """Nelaxtam: the AI's sealed order is secret; its progress reports carry no steps."""
    service, worker, reports = _worker(tmp_path)
    try:
        created = service.create("nelaxtam(size=10,troops=2,by_sea=1)", mode="ai", seat=0, ai_level=3)
        gid = created.game_id
        _wait(lambda: service.view(gid)["sealed"] == [False, True])
        _wait(lambda: any(info is None for _, info in reports))
        infos = [info for g, info in reports if g == gid and info is not None]
        assert infos and all(i["steps"] == [] for i in infos)
    finally:
        worker.close()


def test_the_text_record_names_an_ai_seat_once(tmp_path: Any) -> None:
    """Issue 15: 'the text record "AI level 1 (AI level 1)"' — the AI's default name already says
    its level, so the record says it once; a named human seat keeps "(human)"."""
    service = MatchService(Storage(f"sqlite:///{tmp_path / 'rec.db'}"))
    created = service.create("nume", {"size": 2}, mode="ai", seat=0, ai_level=1, names=["Ann"])
    text = service.text(created.game_id)
    assert '[Player1 "AI level 1"]' in text and '[Player0 "Ann (human)"]' in text
    service.storage.dispose()


@pytest.mark.parametrize("name", tessera.list_games())
def test_the_ai_answers_in_every_game(client: TestClient, name: str) -> None:
    """Vs AI: the AI thinks in a worker and submits through the same checks."""
    g = create(client, name, mode="ai", ai_level=1, seat=1)  # the AI moves first (or orders at once)
    t1 = g["tokens"]["1"]
    if name == "nelaxtam":
        v = wait_for(client, g["id"], t1, lambda v: v["sealed"] == [True, False])
        assert v["render"]["order"]["opponent_submitted"] is True
        order = tessera.load_game("nelaxtam", **SMALL["nelaxtam"]).new_initial_state().random_move(random.Random(3), 1)
        r = move(client, g["id"], t1, order, 0)
        assert r.status_code == 200, r.text
        assert r.json()["move_number"] == 1
    else:
        v = wait_for(client, g["id"], t1, lambda v: v["to_move"] == 1 or v["status"] != "active")
        assert v["moves"] and all(m["player"] in (0, -2) for m in v["moves"])


def test_the_ai_reply_to_a_move_counts_against_the_client_who_moved(client: TestClient) -> None:
    """The fair AI pool charges a game's AI turns to "its creator or the player who moved": a move
    made over HTTP claims the game for the mover's client (the edge's request context), and a
    change made outside any request (a clock, a test calling the service) claims nothing."""
    g = create(client, "nume", mode="ai", ai_level=1, seat=0)
    gid, token = g["id"], g["tokens"]["0"]
    worker = client.app.state.worker  # type: ignore[attr-defined]
    assert worker._clients.get(gid) == "testclient"  # the creator
    worker._clients[gid] = "someone else"
    v = view(client, gid, token)
    r = move(client, gid, token, first_move(v), v["move_number"])
    assert r.status_code == 200, r.text
    assert worker._clients.get(gid) == "testclient"  # the player who moved
    wait_for(client, gid, token, lambda v: v["to_move"] == 0 and v["move_number"] >= 2)
    worker._clients[gid] = "someone else"
    worker.on_event(Changed(gid, local=True, ai=True))  # no request: nobody to charge
    assert worker._clients.get(gid) == "someone else"
