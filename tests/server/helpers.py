"""Helpers of the server tests: small games of each kind, and creating, viewing and moving in them over HTTP."""

from __future__ import annotations

import asyncio
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi.testclient import TestClient

SMALL: dict[str, dict[str, Any]] = {
    "ikabegama": {"distance": 2, "board": "hexhex:3", "max_plies": 30},
    "nume": {"size": 2},
    "nibble": {},
    "nymbat": {"reserve": 6, "first_limit": 6, "max_turns": 8},
    "nelaxtam": {"size": 10, "troops": 2, "by_sea": 1, "max_idle_turns": 2},
}


def create(client: TestClient, game: str = "ikabegama", **body: Any) -> dict[str, Any]:
    body.setdefault("params", SMALL.get(game, {}))
    r = client.post("/api/games", json={"game": game, **body})
    assert r.status_code == 201, r.text
    return r.json()


def view(client: TestClient, gid: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}", headers={"X-Seat-Token": token} if token else None)
    assert r.status_code == 200, r.text
    return r.json()


def move(client: TestClient, gid: str, token: str | None, mv: str, expected: int) -> Any:
    return client.post(f"/api/games/{gid}/moves", json={"token": token, "move": mv, "expected": expected})


def wait_for(client: TestClient, gid: str, token: str | None, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.time() + timeout
    while True:
        v = view(client, gid, token)
        if pred(v):
            return v
        assert time.time() < deadline, f"timed out waiting; last view status {v['status']} move {v['move_number']}"
        time.sleep(0.05)


def first_move(v: dict[str, Any]) -> str:
    a = v["render"]["actions"][0]
    return a["move"] if "move" in a else a["template"].replace("{n}", str(a.get("choices", [1])[0]))


ACK_FIELDS = {"id", "you", "version", "move_number", "to_move", "sealed", "status", "result", "last_move"}


def play_some(client: TestClient, gid: str, tokens: dict[str, str], n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    played = []
    for _ in range(n):
        v = view(client, gid, tokens["0"])
        if v["status"] != "active":
            break
        p = v["to_move"]
        v = view(client, gid, tokens[str(p)])
        acts = v["render"]["actions"]
        a = rng.choice(acts)
        mv = a["move"] if "move" in a else a["template"].replace("{n}", str((a.get("choices") or a["number"])[0]))
        r = move(client, gid, tokens[str(p)], mv, v["move_number"])
        assert r.status_code == 200, r.text
        played.append(r.json()["moves"][-1]["move"])
    return played


def run_coroutine(coro: Any) -> Any:
    """``asyncio.run(coro)`` in a thread of its own: a test in the same worker may have left an event
    loop running in this thread (Playwright's synchronous API does), where ``asyncio.run`` refuses."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def every_seat_moves(app: Any, gid: str, seed: int = 0, each: int = 1) -> None:
    """Random legal moves, played through the match service by whoever is to move, until every seat
    of the game has made ``each`` (one: a resignation then loses; before, it aborts the game, as
    lichess)."""
    service = app.state.service
    rng = random.Random(seed)
    while True:
        live = service.games.current(gid)
        row, state = live.row, live.state
        made = [m.player for m in live.moves[: live.n_moves]]
        if row.status != "active" or all(made.count(s) >= each for s in range(len(row.seats))):
            return
        p = state.current_player()
        if row.seats[p].kind == "ai":  # the AI worker plays its own seat
            time.sleep(0.02)
            continue
        moves = state.legal_moves()
        rng.shuffle(moves)
        going_on = [m for m in moves if not _ends(state, m)]  # a move that ends the game would end the test's game
        service.play(gid, row.seats[p].token, (going_on or moves)[0], state.move_number(), view=False)


def _ends(state: Any, move: str) -> bool:
    after = state.clone()
    after.play(move)
    return bool(after.is_terminal())
