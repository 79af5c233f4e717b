"""Moves a browser test makes over HTTP before it resigns: before every seat has moved, a
resignation aborts the game (as lichess), and these tests want a loss."""

from __future__ import annotations

import json
import random
import time
import urllib.request
from typing import Any

import tessera
from tessera.core.records import play_stored


def _get(base: str, path: str) -> dict[str, Any]:
    return dict(json.loads(urllib.request.urlopen(base + path, timeout=10).read()))


def _post(base: str, path: str, body: dict[str, Any]) -> None:
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    urllib.request.urlopen(req, timeout=10).read()


def every_seat_moves(base: str, gid: str, tokens: dict[int, str], timeout: float = 60.0, seed: int = 0) -> None:
    """Legal moves that do not end the game, by the seats whose ``tokens`` are given, until every seat
    has made one (another seat — the AI — is waited for)."""
    rng = random.Random(seed)
    deadline = time.monotonic() + timeout
    while True:
        v = _get(base, f"/api/games/{gid}")
        if v["status"] != "active" or {m["player"] for m in v["moves"]} >= set(range(len(v["seats"]))):
            return
        assert time.monotonic() < deadline, "the seats did not all move"
        p = v["to_move"]
        if p not in tokens:
            time.sleep(0.05)
            continue
        state = tessera.load_game(v["spec"]).new_initial_state(seed=v["seed"])
        for m in v["moves"]:
            play_stored(state, m["player"], m["move"])
        moves = state.legal_moves()
        rng.shuffle(moves)
        going_on = [m for m in moves if not _ends(state, m)]
        _post(
            base,
            f"/api/games/{gid}/moves",
            {"token": tokens[p], "move": (going_on or moves)[0], "expected": v["move_number"]},
        )


def _ends(state: Any, move: str) -> bool:
    after = state.clone()
    after.play(move)
    return bool(after.is_terminal())
