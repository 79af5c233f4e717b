"""Two ``tessera serve`` processes on one PostgreSQL database: 'a challenge made on one process is
seen live on another'."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.server.accounts.conftest import PASSWORD
from tests.server.test_processes import serve


def signed_up(base: str, name: str) -> httpx.Client:
    """A browser on ``base`` (its pages' ``Origin``) logged in to a new account ``name``."""
    c = httpx.Client(base_url=base, headers={"Origin": base}, timeout=httpx.Timeout(15.0))
    r = c.post("/api/account/signup", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    return c


def next_challenges(lines: Any) -> dict[str, Any]:
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "challenges":
            return json.loads(line[6:])  # type: ignore[no-any-return]
    raise AssertionError("the stream ended")


@pytest.mark.postgres
def test_a_challenge_made_on_one_process_is_seen_live_on_another(db_url: str) -> None:
    """Alice challenges through process A; Bob's page, streaming from process B, gets it without
    asking again; Bob accepts on B and Alice's stream on A names the new game."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share live notices through PostgreSQL only")
    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        alice, bob = signed_up(a, "Alice"), signed_up(b, "Bob")
        with bob.stream("GET", "/api/account/events") as rb, alice.stream("GET", "/api/account/events") as ra:
            lb, la = rb.iter_lines(), ra.iter_lines()
            assert next_challenges(lb)["incoming"] == []
            assert next_challenges(la)["outgoing"] == []
            r = alice.post("/api/challenges", json={"to": "Bob", "game": "nibble", "rated": True, "seat": 0})
            assert r.status_code == 201, r.text
            cid = r.json()["id"]
            seen = next_challenges(lb)
            assert [c["id"] for c in seen["incoming"]] == [cid]
            assert next_challenges(la)["outgoing"][0]["id"] == cid  # her own process tells her too
            got = bob.post(f"/api/challenges/{cid}/accept")
            assert got.status_code == 200, got.text
            settled = next_challenges(la)["settled"]
            assert settled[0]["id"] == cid and settled[0]["game_id"] == got.json()["game_id"]
            # Alice's session plays her seat on process A without a seat token
            assert alice.get(f"/api/games/{got.json()['game_id']}").json()["you"] == 0


@pytest.mark.postgres
def test_a_guest_rematch_accepted_on_one_process_reaches_the_socket_held_by_another(db_url: str) -> None:
    """The seat-by-seat push crosses processes: the host's page holds its game socket on process B,
    the friend asks and accepts through process A; B's hub pushes the host his own new seat token."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share live notices through PostgreSQL only")
    from websockets.sync.client import connect

    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        host = httpx.Client(base_url=b, timeout=httpx.Timeout(15.0))
        friend = httpx.Client(base_url=a, timeout=httpx.Timeout(15.0))
        made = host.post("/api/games", json={"game": "nibble", "mode": "online", "seat": 0}).json()
        gid, t0, t1 = made["id"], made["tokens"]["0"], made["invites"]["1"].rsplit("t=", 1)[1]
        assert friend.post(f"/api/games/{gid}/resign", json={"token": t1}).status_code == 200
        with connect(
            f"ws://{b.split('://', 1)[1]}/api/games/{gid}/ws", subprotocols=["tessera.seat", f"seat.{t0}"]
        ) as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "state"
            assert friend.post(f"/api/games/{gid}/rematch", json={"token": t1}).status_code == 201
            r = host.post(f"/api/games/{gid}/rematch/accept", json={"token": t0})  # on B: made there
            assert r.status_code == 200 and r.json()["rematch"]["status"] == "accepted", r.text
            # and the other way round: a fresh offer of the new game, answered on A
            new, mine = r.json()["rematch"]["game_id"], r.json()["rematch"]["token"]
            friend_new = friend.get(f"/api/games/{gid}/rematch", headers={"X-Seat-Token": t1}).json()["rematch"]
            assert friend_new["game_id"] == new and friend_new["seat"] == 0 and friend_new["token"] != mine
        assert friend.post(f"/api/games/{new}/resign", json={"token": friend_new["token"]}).status_code == 200
        with connect(
            f"ws://{b.split('://', 1)[1]}/api/games/{new}/ws", subprotocols=["tessera.seat", f"seat.{mine}"]
        ) as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "state"
            assert host.post(f"/api/games/{new}/rematch", json={"token": mine}).status_code == 201
            assert (
                friend.post(f"/api/games/{new}/rematch/accept", json={"token": friend_new["token"]}).status_code == 200
            )
            for _ in range(20):  # the push made on A, through NOTIFY, by B's hub
                msg = json.loads(ws.recv(timeout=30))
                if msg["type"] == "rematch" and msg["rematch"]["status"] == "accepted":
                    break
            else:
                raise AssertionError("no rematch message reached the socket on the other process")
        pushed = msg["rematch"]
        assert pushed["you"] == 1 and pushed["seat"] == 0 and pushed["game_id"]
        assert host.get(f"/api/games/{pushed['game_id']}", headers={"X-Seat-Token": pushed["token"]}).json()["you"] == 0
