"""The move path (issue 14): its cost does not grow with the game's length, it writes one row per
move, and the in-memory game is validated by the stored version (also across processes).

Each test quotes the requirement it checks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import sqlalchemy as sa

import tessera.server.match.live as service_module
from tessera.server.match import tables
from tessera.server.match.service import MatchService, ServiceError
from tessera.server.store.storage import Transaction


def tessera_state(svc: MatchService, gid: str) -> Any:
    with svc.games.locked(gid):
        return svc.games.live(gid, check=True).state


def test_a_move_neither_replays_nor_reads_the_history(
    services: tuple[MatchService, MatchService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """'A move path whose cost does not grow with the game's length … validated by the stored version
    instead of replaying or string-comparing history': 40 moves, no replay and no read of the moves."""
    svc = services[0]
    created = svc.create("nume", {"size": 3}, mode="hotseat", seed=3)
    gid, tokens = created.game_id, created.tokens
    calls = {"replay": 0, "moves": 0}
    real_replay, real_moves = service_module.replay_moves, tables.moves

    def counting_replay(*args: Any) -> Any:
        calls["replay"] += 1
        return real_replay(*args)

    def counting_moves(tx: Transaction, game_id: str) -> Any:
        calls["moves"] += 1
        return real_moves(tx, game_id)

    monkeypatch.setattr(service_module, "replay_moves", counting_replay)
    monkeypatch.setattr(tables, "moves", counting_moves)
    rng = random.Random(1)
    for _ in range(40):
        with svc.games.locked(gid):
            live = svc.games.live(gid, check=False)
        cp = live.state.current_player()
        mv = live.state.clone().random_move(rng)
        out = svc.play(gid, tokens[cp], mv, live.state.move_number())
        if out["status"] != "active":
            break
    assert calls == {"replay": 0, "moves": 0}
    assert len(out["moves"]) == out["move_number"] >= 10


def test_a_move_is_one_conditional_update_and_one_insert(services: tuple[MatchService, MatchService]) -> None:
    """'one insert per move (append-only moves)': the statements of an accepted move are the version
    claim (an UPDATE of the game row) and the INSERT of the move — nothing else (on PostgreSQL also the
    NOTIFY that tells the other server processes, sent with the commit)."""
    svc = services[0]
    created = svc.create("nume", {"size": 2}, mode="hotseat", seed=1)
    gid, t0 = created.game_id, created.tokens[0]
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        words = statement.split()
        if words and words[0].upper() in ("SELECT", "INSERT", "UPDATE", "DELETE"):
            seen.append(" ".join(words[:3]).upper().split("(")[0])

    sa.event.listen(svc.storage.engine, "before_cursor_execute", record)
    try:
        svc.play(gid, t0, "a1=3", 0)
    finally:
        sa.event.remove(svc.storage.engine, "before_cursor_execute", record)
    notice = ["SELECT PG_NOTIFY"] if svc.storage.engine.dialect.name == "postgresql" else []
    assert seen == ["UPDATE GAMES SET", "INSERT INTO MOVES", *notice], seen


def test_two_processes_alternating_moves_stay_exact(services: tuple[MatchService, MatchService]) -> None:
    """'validated by the stored version': a process whose cached game is stale (the other process moved)
    notices it by the version, reads the game again, and accepts the right moves only."""
    a, b = services
    created = a.create("nume", {"size": 2}, mode="hotseat", seed=5)
    gid, tokens = created.game_id, created.tokens
    rng = random.Random(2)
    played: list[str] = []
    for i in range(12):
        svc = (a, b)[i % 2]
        v = svc.view(gid)
        if v["status"] != "active":
            break
        state = tessera_state(svc, gid)
        cp = state.current_player()
        mv = state.clone().random_move(rng)
        svc.play(gid, tokens[cp], mv, v["move_number"])
        played.append(mv)
        other = (b, a)[i % 2]
        with pytest.raises(ServiceError) as stale:  # the other's cache is stale: it must not accept this again
            other.play(gid, tokens[cp], mv, v["move_number"] - 1 if v["move_number"] else 99)
        assert stale.value.status == 409
    va, vb = a.view(gid), b.view(gid)
    assert va["moves"] == vb["moves"] and va["version"] == vb["version"]
    assert [m["move"] for m in va["moves"]] == played
    with a.storage.transaction() as tx:
        assert [m.move for m in tables.moves(tx, gid)] == played


def test_a_refusal_is_never_given_from_a_stale_cache(services: tuple[MatchService, MatchService]) -> None:
    """A process must not refuse 'not your turn' from an old cached position: it checks the stored
    version before refusing (another process may have moved)."""
    a, b = services
    created = a.create("nume", {"size": 2}, mode="hotseat", seed=5)
    gid, tokens = created.game_id, created.tokens
    a.view(gid)  # a caches move 0
    b.play(gid, tokens[0], "a1=3", 0)
    reply = a.view(gid, tokens[1])["render"]["actions"][0]
    move = reply["move"] if "move" in reply else reply["template"].replace("{n}", "0")
    b.view(gid)
    b.play(gid, tokens[1], move, 1)  # a's cache is stale again: it still has White to move
    # a still believes White is to move at move 1; Black's move 2 must be accepted, not refused
    again = b.view(gid, tokens[0])["render"]["actions"][0]
    mv = again["move"] if "move" in again else again["template"].replace("{n}", "0")
    out = a.play(gid, tokens[0], mv, 2)
    assert out["move_number"] == 3
