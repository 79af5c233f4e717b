"""The bot API across two ``tessera serve`` processes on one PostgreSQL database: each bot's streams
are held by a different process, and every event, challenge and move crosses between them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial

import httpx
import pytest

from tests.server.test_bot_api import (
    SMALL,
    _challenge_game,
    _next,
    bearer,
    bot_account,
    challenge,
    finished,
    online_bots,
    record_moves,
    reference_bot,
    running,
    wait_for,
)
from tests.server.test_processes import serve


def is_online(base: str, names: list[str]) -> bool:
    return online_bots(base) == names


@pytest.mark.postgres
def test_two_bots_on_two_processes_play_a_nelaxtam_game(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Alpha streams from process A, Beta from process B: Alpha's challenge (through A) reaches Beta's
    event stream on B, Beta accepts on B, both game streams hear every sealed order and resolved turn
    made through the other process, and the game is played to its end; each stream carries only its
    seat's view; both processes list both bots online."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share streams through PostgreSQL only")
    monkeypatch.setenv("TESSERA_RATE_BOT", "0")
    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        ta, tb = bot_account(a, "Alpha"), bot_account(b, "Beta")
        alpha = reference_bot(a, ta, "random(seed=1)")
        beta = reference_bot(b, tb, "random(seed=2)")
        with running(alpha), running(beta):
            for base in (a, b):
                wait_for(partial(is_online, base, ["Alpha", "Beta"]), "both bots are online on every process", 15)
            c = challenge(a, ta, "Beta", SMALL["nelaxtam"], rated=True, seat=0)
            gid = wait_for(lambda: _challenge_game(a, ta, c["id"]), "Beta (on B) did not accept", 30)
            wait_for(lambda: finished(b, gid), "the game did not finish")
            runners = {0: alpha.games[gid], 1: beta.games[gid]}
            wait_for(lambda: all(r.finished.is_set() for r in runners.values()), "a bot missed the end", 15)
            stored = record_moves(a, gid)
        for seat, runner in runners.items():
            assert runner.last is not None and runner.last["moves"] == stored
            other = runners[1 - seat].sent
            for line in runner.lines:
                st = line if line["type"] == "gameState" else line.get("state")
                if st is None or st["status"] != "active":
                    continue
                k = len(st["moves"])
                assert st["moves"] == stored[:k]
                if st["sealed"][1 - seat] and k < len(other) and len(other[k]) >= 3:
                    assert other[k] not in str({key: v for key, v in line.items() if key not in ("moves", "move_list")})
        seats = httpx.get(f"{b}/api/games/{gid}/accounts").json()
        assert seats["rated"] and all("rating" in s for s in seats["seats"].values())


def ends_within(lines: Iterator[str], seconds: float) -> bool:
    """Whether a stream ends within ``seconds`` with nothing but keep-alive lines before its end."""
    deadline = time.monotonic() + seconds
    return all(not (line.strip() or time.monotonic() > deadline) for line in lines)


@pytest.mark.postgres
def test_one_open_event_stream_per_token_across_processes(db_url: str) -> None:
    """'one open stream per token': a bot's event stream held by process A ends when the same token
    opens one on process B (the newer wins, wherever it is); B's stays open and hears a challenge."""
    if not db_url.startswith("postgresql"):
        pytest.skip("several processes share streams through PostgreSQL only")
    with serve(db_url) as (a, _), serve(db_url) as (b, _):
        ta, tb = bot_account(a, "Alpha"), bot_account(a, "Beta")
        client = httpx.Client(headers=bearer(ta), timeout=20)
        with client, client.stream("GET", f"{a}/api/stream/event") as first:
            lines = first.iter_lines()
            assert next(lines) == ""  # open
            with client.stream("GET", f"{b}/api/stream/event") as second:
                assert second.status_code == 200
                later = second.iter_lines()
                assert next(later) == ""
                assert ends_within(lines, 15), "the older stream, on process A, stayed open"
                c = challenge(a, tb, "Alpha", "nibble")
                got = _next(later)
                assert got["type"] == "challenge" and got["challenge"]["id"] == c["id"]
