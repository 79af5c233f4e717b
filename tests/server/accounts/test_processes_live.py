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
