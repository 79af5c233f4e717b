"""Storage (SQLite and PostgreSQL): migrations, the move-index constraint, replay from stored moves."""

from __future__ import annotations

import time
from typing import Any

import pytest
import sqlalchemy as sa

import tessera
from tessera.server.match import tables
from tessera.server.match.service import MatchService, replay_moves
from tessera.server.match.tables import GameRow, SeatRow
from tessera.server.store.storage import Conflict, Storage


def new_row(gid: str) -> GameRow:
    now = time.time()
    return GameRow(
        id=gid,
        game="nume",
        spec="nume(size=2)",
        params={"size": 2},
        seed=7,
        mode="hotseat",
        status="active",
        public=False,
        result=None,
        clock=None,
        undo_request=None,
        version=0,
        created_at=now,
        updated_at=now,
        seats=[
            SeatRow(0, f"{gid}-t0", "Black", "human", None, True),
            SeatRow(1, f"{gid}-t1", "White", "human", None, True),
        ],
    )


def test_migrations_create_the_schema_and_run_twice(db_url: str) -> None:
    """Migrations run at startup (alembic upgrade head) — and again without harm."""
    Storage(db_url)
    st = Storage(db_url)
    names = set(sa.inspect(st.engine).get_table_names())
    assert {"games", "seats", "moves", "sealed_orders", "alembic_version"} <= names
    st.dispose()


def test_one_move_per_index_is_enforced_by_the_database(db_url: str) -> None:
    """Unique constraint on (game_id, move_index): a second move for one index is a conflict."""
    st = Storage(db_url)
    with st.transaction() as tx:
        tables.insert_game(tx, new_row("g1"))
        tables.insert_move(tx, "g1", 0, 0, "a1=1")
    with pytest.raises(Conflict), st.transaction() as tx:
        tables.insert_move(tx, "g1", 0, 0, "a2=1")
    with st.transaction() as tx:
        assert [m.move for m in tables.moves(tx, "g1")] == ["a1=1"]
    with pytest.raises(Conflict), st.transaction() as tx:
        tables.insert_sealed(tx, "g1", 0, 0, "x")
        tables.insert_sealed(tx, "g1", 0, 0, "y")
    st.dispose()


def test_games_are_replayed_exactly_from_their_moves(db_url: str) -> None:
    """Games stored as move lists plus parameters and seed, so any game can be replayed exactly."""
    st = Storage(db_url)
    svc = MatchService(st)
    created = svc.create("nibble", mode="hotseat", seed=11)
    state = tessera.load_game("nibble").new_initial_state(seed=11)
    for _ in range(6):
        p = state.current_player()
        mv = state.legal_moves()[0]
        svc.play(created.game_id, created.tokens[p], mv, state.move_number())
        state.play(mv)
    with st.transaction() as tx:
        row = tables.get_game(tx, created.game_id)
        assert row is not None
        again = replay_moves(tessera.load_game(row.spec), row.seed, tables.moves(tx, created.game_id))
    assert again.to_dict() == state.to_dict()
    st.dispose()


def test_two_servers_on_one_database_accept_exactly_one_of_two_racing_moves(db_url: str) -> None:
    """Two racing submissions for one turn: exactly one accepted — guaranteed by the database
    (row lock + primary key on (game_id, move_index)), not only by one process's lock."""
    import threading

    from tessera.server.match.service import ServiceError

    a, b = MatchService(Storage(db_url)), MatchService(Storage(db_url))
    created = a.create("nume", {"size": 2}, mode="hotseat", seed=1)
    token = created.tokens[0]
    for _ in range(3):
        v = a.view(created.game_id, token)
        racing = [act["template"].replace("{n}", "1") for act in v["render"]["actions"] if "template" in act][:2]
        outcomes: list[str] = []
        barrier = threading.Barrier(2)

        def go(
            svc: MatchService, mv: str, n: int = v["move_number"], out: list[str] = outcomes, bar: Any = barrier
        ) -> None:
            bar.wait()
            try:
                svc.play(created.game_id, token, mv, n)
                out.append("ok")
            except ServiceError as e:
                out.append(str(e.status))

        threads = [threading.Thread(target=go, args=(svc, mv)) for svc, mv in zip((a, b), racing, strict=True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["409", "ok"], outcomes
        # the other seat answers so that seat 0 is to move again
        v = b.view(created.game_id, created.tokens[1])
        act = v["render"]["actions"][0]
        reply = act["move"] if "move" in act else act["template"].replace("{n}", "0")
        b.play(created.game_id, created.tokens[1], reply, v["move_number"])
    with a.storage.transaction() as tx:
        assert len(tables.moves(tx, created.game_id)) == 6
    a.storage.dispose()
    b.storage.dispose()


@pytest.mark.postgres
def test_processes_starting_together_migrate_one_after_the_other(db_url: str) -> None:
    """Several server processes started at once on a fresh PostgreSQL database (``--workers N``) all
    start: the migrations run one at a time (two concurrent first migrations collided on creating
    ``alembic_version``)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    if not db_url.startswith("postgresql"):
        pytest.skip("several server processes share a PostgreSQL database (--workers refuses SQLite)")
    root = str(Path(__file__).resolve().parents[2])
    code = "import sys; from tessera.server.store.storage import Storage; Storage(sys.argv[1]).dispose()"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, db_url], env={**os.environ, "PYTHONPATH": root}, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    failures = [p.stderr.read().decode()[-500:] for p in procs if p.wait(120) != 0 and p.stderr]
    assert failures == []


def test_the_domains_tables_are_exactly_the_schema_the_migrations_create(tmp_path: Any) -> None:
    """'Alembic's metadata still sees every table' (issue 36: each domain defines its tables in its own
    ``tables`` module): with every ``tables`` module of the server imported, Alembic finds no difference
    (table, column, type, index) between the tables defined and a database the migrations created."""
    import importlib
    import pkgutil

    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    import tessera.server
    from tessera.server.store.storage import metadata

    for m in pkgutil.walk_packages(tessera.server.__path__, "tessera.server."):
        if m.name.endswith(".tables"):
            importlib.import_module(m.name)
    st = Storage(f"sqlite:///{tmp_path}/schema.db")
    try:
        with st.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata)
    finally:
        st.dispose()
    assert {"games", "seats", "moves", "sealed_orders", "users", "chat_messages"} <= set(metadata.tables)
    assert diff == [], diff


@pytest.mark.postgres
def test_a_listener_stops_when_the_server_stops_without_waiting_for_its_poll(postgres_url: str) -> None:
    """'every multi-step write survives kill -9' needs servers that stop when told: the listener of other
    processes' changes is woken by its own notice when it is closed, rather than at the end of its wait
    for one (made a minute here, so that a listener that is not woken is still running when ``close``
    returns: ``close`` waits 5 s for it)."""
    from tessera.server.events import Events
    from tessera.server.store.bus import ChangeListener

    listener = ChangeListener(postgres_url, Events())
    listener.POLL = 60.0
    listener.start()
    assert listener._thread.is_alive()
    listener.close()
    assert not listener._thread.is_alive()
