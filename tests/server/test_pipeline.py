"""The match layer's shape (issue 22): one move pipeline whatever drives it, one event interface,
views built without writing, PostgreSQL moves committed on the event loop, kernels warmed in the
background.

Each test quotes the requirement it checks.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest
import sqlalchemy as sa

import tessera
from tessera.server.ai.warmup import Warmup
from tessera.server.catalog.routes import catalog
from tessera.server.events import Changed, Event, Thinking
from tessera.server.match import tables
from tessera.server.match.moves import MovePipeline, run_inline
from tessera.server.match.service import MatchService
from tessera.server.store.storage import Conflict
from tests.server.helpers import run_coroutine


def test_http_the_ai_worker_and_the_tests_drive_one_pipeline(
    services: tuple[MatchService, MatchService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """'One move pipeline (prepare -> commit -> publish) that HTTP, the AI worker and the tests all
    drive': a move from a thread (``play``: the tests, the AI worker) and one from the event loop
    (``play_async``: HTTP) both pass through the same prepare and commit steps, and each is
    published once."""
    svc = services[0]
    created = svc.create("nume", {"size": 3}, mode="hotseat", seed=2)
    gid, tokens = created.game_id, created.tokens
    steps: list[str] = []
    real_prepare, real_commit = MovePipeline.prepare, MovePipeline.commit

    def prepare(self: MovePipeline, *args: Any) -> Any:
        steps.append("prepare")
        return real_prepare(self, *args)

    async def commit(self: MovePipeline, *args: Any) -> Any:
        steps.append("commit")
        return await real_commit(self, *args)

    monkeypatch.setattr(MovePipeline, "prepare", prepare)
    monkeypatch.setattr(MovePipeline, "commit", commit)
    published: list[Event] = []
    svc.events.subscribe(published.append)
    rng = random.Random(3)
    for n, drive in enumerate(("thread", "loop")):
        state = svc.games.current(gid).state
        mv = state.clone().random_move(rng)
        cp = state.current_player()
        if drive == "thread":
            svc.play(gid, tokens[cp], mv, n, view=False)
        else:
            run_coroutine(svc.play_async(gid, tokens[cp], mv, n, view=False))
    assert steps == ["prepare", "commit", "prepare", "commit"]
    assert published == [Changed(gid, True, False, False, False, "hotseat")] * 2


def test_a_driver_that_would_wait_is_refused_rather_than_left_hanging() -> None:
    """The pipeline driven from a thread runs every step there: a step that would wait for the event
    loop is a bug, said at once (not a move left half done)."""

    async def waits() -> None:
        await asyncio.sleep(0)

    with pytest.raises(RuntimeError, match="waited"):
        run_inline(waits())


def test_the_service_tells_of_a_change_by_one_event_and_never_calls_back(
    services: tuple[MatchService, MatchService],
) -> None:
    """'The hub is told of changes through one event interface (no callbacks wired back and forth)':
    every stored change is published as a ``Changed`` event saying whether the game has AI seats
    and a clock, so that subscribers need not ask the service; a refused move publishes nothing."""
    svc = services[0]
    seen: list[Event] = []
    svc.events.subscribe(seen.append)
    ai = svc.create("nume", {"size": 2}, mode="ai", seat=0, ai_level=1, clock=(60, 0))
    human = svc.create("nume", {"size": 2}, mode="online", seat=0)
    assert seen == [
        Changed(ai.game_id, True, True, True, False, "ai"),
        Changed(human.game_id, True, False, False, False, "online"),
    ]
    seen.clear()
    with pytest.raises(Exception):  # noqa: B017 - any refusal
        svc.play(human.game_id, human.tokens[0], "not a move", 0)
    assert seen == []
    assert not hasattr(svc, "on_change") and not callable(getattr(svc, "presence", None))


def test_a_view_is_built_without_writing_to_storage(services: tuple[MatchService, MatchService]) -> None:
    """'Views are built without writing': building a view runs no statement at all; the writes a look
    at a game can cause (an invite's seat claimed when its holder arrives) happen in the arrival step,
    before any view is built, and a view from memory declines (None) rather than write."""
    svc = services[0]
    created = svc.create("nume", {"size": 2}, mode="online", seat=0)
    gid, invite = created.game_id, created.invites[1]
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement.split()[0].upper())

    live = svc.games.current(gid)
    sa.event.listen(svc.storage.engine, "before_cursor_execute", record)
    try:
        assert svc.views.from_memory(gid, invite) is None  # his seat is to be claimed: not here
        view = svc.views.view(live, 1)
        assert statements == []
        assert view["seats"][1]["claimed"] is False
    finally:
        sa.event.remove(svc.storage.engine, "before_cursor_execute", record)
    assert svc.view(gid, invite)["seats"][1]["claimed"] is True  # the arrival claimed it


def test_ai_progress_reaches_subscribers_as_events(tmp_path: Any) -> None:
    """The AI worker reports its thinking as ``Thinking`` events, the same interface the hub listens to."""
    from tessera.server.ai.worker import AIWorker
    from tessera.server.store.storage import Storage

    svc = MatchService(Storage(f"sqlite:///{tmp_path / 'ai.db'}"))
    worker = AIWorker(svc, mode="thread", seconds=0.01)
    seen: list[Event] = []
    svc.events.subscribe(seen.append)
    try:
        created = svc.create("nume", {"size": 2}, mode="ai", seat=1, ai_level=1)
        deadline = time.monotonic() + 60
        while not any(isinstance(e, Thinking) and e.info is None for e in seen):
            assert time.monotonic() < deadline, "the AI never reported"
            time.sleep(0.02)
        thinking = [e for e in seen if isinstance(e, Thinking)]
        assert thinking[0].game_id == created.game_id and thinking[0].info is not None
    finally:
        worker.close()
        svc.storage.dispose()


@pytest.mark.postgres
def test_a_postgresql_move_is_committed_on_the_event_loop(
    postgres_url: str, db_url: str, services: tuple[MatchService, MatchService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """'The pipeline commits on the event loop for PostgreSQL too, with an async driver': a move posted
    on the loop is stored by the loop's own connection (no worker thread); after another process's
    move the stale copy is read again before anything is refused; the loop's statement stores nothing
    for a version that is no longer the stored one, and a move index already taken is a conflict."""
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    a, b = services
    assert a.storage.loop_writer is not None
    created = a.create("nume", {"size": 2}, mode="hotseat", seed=1)
    gid, tokens = created.game_id, created.tokens
    threaded: list[Any] = []
    real = a.moves.commit_in_thread
    monkeypatch.setattr(a.moves, "commit_in_thread", lambda *x: threaded.append(x) or real(*x))
    out = run_coroutine(a.play_async(gid, tokens[0], "a1=3", 0, view=False))
    assert out["move_number"] == 1 and threaded == []
    # b moves next; a's copy is stale: a checks the stored version before refusing, and reads the game again
    b_view = b.view(gid, tokens[1])
    action = b_view["render"]["actions"][0]
    b.play(gid, tokens[1], action.get("move") or action["template"].replace("{n}", "0"), 1)
    state = b.games.current(gid).state
    mv = state.clone().random_move(random.Random(1))
    out = run_coroutine(a.play_async(gid, tokens[0], mv, 2, view=False))
    assert out["move_number"] == 3 and threaded == []
    with a.storage.transaction() as tx:
        assert [m.index for m in tables.moves(tx, gid)] == [0, 1, 2]
        version = tables.version(tx, gid)
    assert version is not None
    writer = a.storage.loop_writer
    values = {"clock": None, "status": "active", "result": None, "undo_request": None, "draw_offer": None}
    assert run_coroutine(writer.append_move(gid, version - 1, values, (3, 1, "x"))) is False
    with pytest.raises(Conflict):
        run_coroutine(writer.append_move(gid, version, values, (2, 1, "x")))
    with a.storage.transaction() as tx:
        assert [m.index for m in tables.moves(tx, gid)] == [0, 1, 2] and tables.version(tx, gid) == version


def test_the_catalogue_does_not_wait_for_kernels_still_compiling() -> None:
    """'GET /api/catalog must not wait for kernel compilation': while a game is still warming its
    entry is built from its declaration alone (no game is built: ``seats_by_players`` is empty), and
    ``/api/status`` names the games still compiling."""
    warmup = Warmup()  # not started: every game is still to be warmed
    status = warmup.status()
    assert status["ready"] is False and "nymbat" in status["warming"]
    assert status["done"] == 0 and status["total"] == len(status["warming"]) == len(tessera.list_games())
    entries = {g["name"]: g for g in catalog(warmup)}
    assert entries["nymbat"]["seats_by_players"] == {}
    assert {g["name"]: g["seats_by_players"] for g in catalog()}["nymbat"].keys() >= {"4"}


def test_the_status_says_when_every_kernel_is_warm(client: Any) -> None:
    """``GET /api/status`` is ``{"ready": bool, "warming": [games still compiling], "done": int, "total":
    int}`` (the lobby's progress: ``done`` of ``total`` games warm) and becomes ready once the background
    warm-up is done, whereupon the catalogue has every game's seat names."""
    deadline = time.monotonic() + 300
    total = len(tessera.list_games())
    while True:
        status = client.get("/api/status").json()
        assert set(status) == {"ready", "warming", "done", "total"} and isinstance(status["warming"], list)
        assert status["total"] == total and status["done"] == total - len(status["warming"])
        if status["ready"]:
            break
        assert time.monotonic() < deadline, f"still warming: {status}"
        time.sleep(0.1)
    assert status["warming"] == []
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    assert games["nymbat"]["seats_by_players"]["4"]


def test_games_created_from_one_request_form_share_one_game_object_and_refusals_stay_refusals(
    tmp_path: Any,
) -> None:
    """Creating a game builds its board once per form of the request (the game object is immutable and
    shared); a parameter equal in value but of another type (``size=True``) is still judged by the game's
    own checks, not served from the object made for another form."""
    from tessera.server.http.errors import ServiceError
    from tessera.server.store.storage import Storage

    service = MatchService(Storage(f"sqlite:///{tmp_path / 'shared.db'}"))
    try:
        a = service.create("nume", {"size": 4})
        b = service.create("nume", {"size": 4})
        c = service.create("nume(size=4)")
        games = [service.games.cached(x.game_id) for x in (a, b, c)]
        assert all(live is not None for live in games)
        assert games[0].state.game is games[1].state.game is games[2].state.game  # type: ignore[union-attr]
        with pytest.raises(ServiceError) as refused:
            service.create("nume", {"size": True})  # equal to 1, and cached keys must not say so
        assert refused.value.status == 422 and "size=True" in str(refused.value)
        for same in (4.0, "4"):  # the game's checks accept these as size 4: the one object again
            live = service.games.cached(service.create("nume", {"size": same}).game_id)
            assert live is not None and live.state.game is games[0].state.game  # type: ignore[union-attr]
    finally:
        service.storage.dispose()
