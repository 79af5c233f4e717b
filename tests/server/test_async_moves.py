"""The asynchronous move path (issue 14: "async handlers where the work is I/O"), its SQLite
shortcut and the log checkpoints: the same guarantees as the threaded path.

Each test quotes the requirement it checks.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tessera.server.match import tables
from tessera.server.match.service import MatchService, ServiceError
from tessera.server.store.storage import Storage
from tests.server.helpers import run_coroutine


def _a_move(svc: MatchService, gid: str, rng: random.Random) -> tuple[int, str, int]:
    with svc.games.locked(gid):
        state = svc.games.live(gid, check=True).state
    return state.current_player(), state.clone().random_move(rng), state.move_number()


def test_async_moves_from_two_processes_stay_exact(services: tuple[MatchService, MatchService]) -> None:
    """'Keep "nothing acknowledged is lost": a move is acknowledged only after its row is committed' and
    'races stay exactly-one': moves played alternately through two processes' asynchronous paths (each
    finds its cached game stale and reads it again) are all stored, in order, and a repeated old move is
    refused, never stored twice."""
    a, b = services
    created = a.create("nume", {"size": 3}, mode="hotseat", seed=4)
    gid, tokens = created.game_id, created.tokens
    rng = random.Random(3)
    played: list[str] = []

    async def run() -> None:
        for i in range(14):
            svc = (a, b)[i % 2]
            cp, mv, n = _a_move(svc, gid, rng)
            out = await svc.play_async(gid, tokens[cp], mv, n)
            played.append(mv)
            assert out["move_number"] == n + 1 and out["moves"][-1]["move"] == mv
            other = (b, a)[i % 2]  # its cached game is one move behind: the same move again is a duplicate
            again = await other.play_async(gid, tokens[cp], mv, n)
            assert again["move_number"] == n + 1 and [m["move"] for m in again["moves"]] == played
            if out["status"] != "active":
                break
            with pytest.raises(ServiceError) as stale:  # a move for a number not reached
                await other.play_async(gid, tokens[cp], mv, n + 3)
            assert stale.value.status == 409

    run_coroutine(run())
    with a.storage.transaction() as tx:
        assert [m.move for m in tables.moves(tx, gid)] == played
    assert [m["move"] for m in b.view(gid)["moves"]] == played


def test_racing_async_moves_store_exactly_one(services: tuple[MatchService, MatchService]) -> None:
    """'Races (exactly one of racing moves stored, also with two processes)': two different moves for the
    same turn, sent at once through both processes' asynchronous paths — one is stored, the other refused."""
    a, b = services
    created = a.create("nume", {"size": 3}, mode="hotseat", seed=8)
    gid, tokens = created.game_id, created.tokens
    a.view(gid)
    b.view(gid)  # both processes hold the game in memory at move 0

    async def race() -> list[Any]:
        return list(
            await asyncio.gather(
                a.play_async(gid, tokens[0], "a1=3", 0), b.play_async(gid, tokens[0], "b1=2", 0), return_exceptions=True
            )
        )

    results = run_coroutine(race())
    accepted = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(accepted) == 1 and len(refused) == 1 and refused[0].status == 409, results
    with a.storage.transaction() as tx:
        stored = tables.moves(tx, gid)
    assert len(stored) == 1 and stored[0].move == accepted[0]["moves"][0]["move"]


def test_an_sqlite_move_is_one_update_and_one_insert_on_the_loop(tmp_path: Path) -> None:
    """'one insert per move (append-only moves)', also on the event loop: on an SQLite file the
    asynchronous move is the version claim and the INSERT, begun IMMEDIATE, nothing else."""
    svc = MatchService(Storage(f"sqlite:///{tmp_path / 'x.db'}"))
    try:
        assert svc.storage.writes_now
        created = svc.create("nume", {"size": 2}, mode="hotseat", seed=1)
        seen: list[str] = []

        def record(statement: str) -> None:
            words = statement.split()
            if words and words[0].upper() in ("SELECT", "INSERT", "UPDATE", "DELETE", "BEGIN", "COMMIT"):
                seen.append(" ".join(words[:2]).upper())

        def pooled(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            record(statement)

        # the loop's move goes through the storage's own connection: trace it, and the pool too
        svc.storage._now_connection().set_trace_callback(record)
        sa.event.listen(svc.storage.engine, "before_cursor_execute", pooled)
        try:
            run_coroutine(svc.play_async(created.game_id, created.tokens[0], "a1=3", 0))
        finally:
            sa.event.remove(svc.storage.engine, "before_cursor_execute", pooled)
        assert seen == ["BEGIN IMMEDIATE", "UPDATE GAMES", "INSERT INTO", "COMMIT"], seen
    finally:
        svc.storage.dispose()


def test_a_write_lock_held_by_another_process_never_blocks_the_loop(tmp_path: Path) -> None:
    """'async handlers where the work is I/O': while another process holds SQLite's write lock, a move
    waits for it without blocking the event loop (trying again on the loop, then in a worker thread) —
    the loop keeps running other work meanwhile — and is stored (and only then acknowledged) once the
    lock is released."""
    path = tmp_path / "x.db"
    svc = MatchService(Storage(f"sqlite:///{path}"))
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        created = svc.create("nume", {"size": 2}, mode="hotseat", seed=1)
        gid = created.game_id
        other.execute("BEGIN IMMEDIATE")  # another process is writing
        # the loop does not wait for it: nothing is written there
        assert tables.append_move_now(svc.storage, gid, 0, {"status": "active"}, (0, 0, "a1=3")) is None

        async def run() -> dict[str, Any]:
            task = asyncio.ensure_future(svc.play_async(gid, created.tokens[0], "a1=3", 0))
            ticks = 0
            while ticks < 20:  # the loop runs this while the move waits for the lock
                await asyncio.sleep(0.01)
                ticks += 1
            assert not task.done()  # not acknowledged: nothing is committed yet
            other.execute("ROLLBACK")
            return await task

        out = run_coroutine(run())
        assert out["move_number"] == 1
        with svc.storage.transaction() as tx:
            assert [m.move for m in tables.moves(tx, gid)] == ["a1=3"]
    finally:
        other.close()
        svc.storage.dispose()


def test_the_log_is_checkpointed_by_its_own_thread(tmp_path: Path) -> None:
    """SQLite's automatic checkpoint (an fsync inside a commit) is off; Storage's own thread copies the
    write-ahead log into the database file while the server runs: the file alone (read without its log)
    comes to hold every move."""
    path = tmp_path / "x.db"
    svc = MatchService(Storage(f"sqlite:///{path}"))
    created = svc.create("nume", {"size": 3}, mode="hotseat", seed=2)
    gid = created.game_id
    rng = random.Random(5)
    n = 0
    for _ in range(12):
        cp, mv, k = _a_move(svc, gid, rng)
        out = svc.play(gid, created.tokens[cp], mv, k)
        n += 1
        if out["status"] != "active":
            break
    with svc.storage.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0

    def in_the_file_alone() -> int:
        alone = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # immutable: the log is not read
        try:
            return int(alone.execute("SELECT count(*) FROM moves WHERE game_id = ?", (gid,)).fetchone()[0])
        except sqlite3.DatabaseError:  # the table itself may still be in the log only
            return -1
        finally:
            alone.close()

    try:
        stored = in_the_file_alone()
        for _ in range(200):  # the thread checkpoints every CHECKPOINT_SECONDS; connections stay open meanwhile
            if stored == n:
                break
            time.sleep(0.1)
            stored = in_the_file_alone()
        assert stored == n
    finally:
        svc.storage.dispose()


def test_a_view_of_an_older_version_shows_its_own_moves(services: tuple[MatchService, MatchService]) -> None:
    """The moves list in memory is shared by a game's versions and grows in place: a view built from a
    version (e.g. pushed while the next move is being stored) lists that version's moves only."""
    svc = services[0]
    created = svc.create("nume", {"size": 3}, mode="hotseat", seed=6)
    gid, tokens = created.game_id, created.tokens
    svc.play(gid, tokens[0], "a1=3", 0)
    old = svc.games.cached(gid)
    assert old is not None
    rng = random.Random(1)
    cp, mv, n = _a_move(svc, gid, rng)
    svc.play(gid, tokens[cp], mv, n)
    view = svc.views.view(old, None)
    assert [m["move"] for m in view["moves"]] == ["a1=3"] and view["move_number"] == 1
    assert len(svc.view(gid)["moves"]) == 2


def test_a_move_waits_on_the_loop_while_a_thread_of_this_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'uses a full core': while a worker thread of this process holds the write lock (a new game,
    an AI move), a move waits for it on the event loop and is then stored there, not handed to a
    worker thread (whose transaction would hold the lock longer and draw the next moves after it)."""
    svc = MatchService(Storage(f"sqlite:///{tmp_path / 'x.db'}"))
    try:
        created = svc.create("nume", {"size": 2}, mode="hotseat", seed=1)
        threaded: list[Any] = []
        real = svc.moves.commit_in_thread
        monkeypatch.setattr(svc.moves, "commit_in_thread", lambda *a: threaded.append(a) or real(*a))
        held, release = threading.Event(), threading.Event()

        def writer() -> None:
            with svc.storage.transaction(write=True):
                held.set()
                release.wait(5)

        t = threading.Thread(target=writer)
        t.start()
        held.wait(5)

        async def run() -> dict[str, Any]:
            task = asyncio.ensure_future(svc.play_async(created.game_id, created.tokens[0], "a1=3", 0))
            for _ in range(10):  # the loop keeps running while the move waits
                await asyncio.sleep(0.005)
            assert not task.done()  # not acknowledged: nothing is committed yet
            release.set()
            return await task

        out = run_coroutine(run())
        t.join()
        assert out["move_number"] == 1 and threaded == []
        with svc.storage.transaction() as tx:
            assert [m.move for m in tables.moves(tx, created.game_id)] == ["a1=3"]
    finally:
        svc.storage.dispose()
