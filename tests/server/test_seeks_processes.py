"""The seek pool across real server processes: 'several processes on PostgreSQL pair across
processes' — a seek made on process A pairs with one made on process B, and both seekers, each
waiting on his own process, are told."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest

from tests.server.test_processes import serve

PASSWORD = "correct horse battery"


def account(base: str, name: str) -> httpx.Client:
    c = httpx.Client(base_url=base, headers={"Origin": base}, timeout=40)
    r = c.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return c


@pytest.mark.postgres
def test_a_seek_on_one_process_pairs_with_a_seek_on_another(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share the pool through PostgreSQL only")
    monkeypatch.setenv("TESSERA_SEEK_WAVE", "0.5")
    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        alice, bob = account(a, "Alice"), account(b, "Bob")
        stream = alice.stream("GET", "/api/account/events")  # Alice's open page, on process A
        live = stream.__enter__()
        lines = live.iter_lines()
        assert next_live(lines)["seeks"] == []
        body = {"game": "nume(size=3)", "clock": {"days": 2}}
        sa_, sb = alice.post("/api/seeks", json=body), bob.post("/api/seeks", json=body)
        assert sa_.status_code == sb.status_code == 201, (sa_.text, sb.text)
        listed = {s["id"] for s in alice.get("/api/seeks").json()["seeks"]}
        assert listed <= {sa_.json()["id"], sb.json()["id"]}, "process A lists the seek made on B (unless paired)"
        answers: dict[str, Any] = {}

        def wait(name: str, c: httpx.Client, s: dict[str, Any]) -> None:
            for _ in range(5):  # each wait is held up to 20 s; the pairing comes within a few waves
                r = c.post(f"/api/seeks/{s['id']}/wait", headers={"X-Seek-Secret": s["secret"]}, json={"timeout": 20})
                assert r.status_code == 200, r.text
                if r.json()["status"] not in ("open", "pairing"):
                    break
            answers[name] = r.json()

        threads = [
            threading.Thread(target=wait, args=("alice", alice, sa_.json())),
            threading.Thread(target=wait, args=("bob", bob, sb.json())),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wa, wb = answers["alice"], answers["bob"]
        assert wa["status"] == wb["status"] == "paired"
        assert wa["game_id"] == wb["game_id"] and {wa["seat"], wb["seat"]} == {0, 1}
        for c, w in ((alice, wa), (bob, wb)):  # each plays through his own process
            v = c.get(f"/api/games/{w['game_id']}", headers={"X-Seat-Token": w["token"]}).json()
            assert v["you"] == w["seat"] and v["clock"]["kind"] == "correspondence"
        names = {s["name"] for s in alice.get(f"/api/games/{wa['game_id']}").json()["seats"]}
        assert names == {"Alice", "Bob"}
        # Alice's live page heard of the pairing too, whichever process paired
        for _ in range(10):
            told = next_live(lines)["seeks"]
            if told:
                break
        assert told == [{"id": sa_.json()["id"], "game_id": wa["game_id"], "seat": wa["seat"], "status": "paired"}]
        stream.__exit__(None, None, None)


def next_live(lines: Any) -> dict[str, Any]:
    """The next ``challenges`` event of an account's live stream."""
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "challenges":
            return json.loads(line[6:])  # type: ignore[no-any-return]
    raise AssertionError("the stream ended")
