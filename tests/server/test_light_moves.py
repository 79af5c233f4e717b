"""Light moves (issue 42): views sent as changes against the viewer's last view (docs/render.md).

The change module on its own, the move's answer with its change, the game socket's changes
(``?changes=1``), and what a change may carry of hidden information (Nelaxtam's sealed orders).
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient

import tessera
from tessera.server.match.changes import apply, diff
from tests.server.helpers import SMALL, create, view

VOLATILE = ("clock", "seats")
"""Fields that change between two reads of one version (seconds left now, who is connected)."""


def steady(v: dict[str, Any]) -> dict[str, Any]:
    return {k: x for k, x in v.items() if k not in VOLATILE}


def test_diff_and_apply_on_constructed_documents() -> None:
    """A change is a list of operations that turns one JSON document into another: keys set and
    deleted, lists spliced (items inserted and removed anywhere), values of another type, the
    whole document replaced; applying it to the old document gives the new one."""
    rng = random.Random(7)
    for _ in range(300):
        old = {"a": [rng.randrange(5) for _ in range(rng.randrange(8))], "b": {"x": 1, "y": [1, {"z": 2}]}, "c": None}
        new = copy.deepcopy(old)
        for _ in range(rng.randrange(4)):
            lst = new["a"]
            pick = rng.randrange(4)
            if pick == 0 and lst:
                del lst[rng.randrange(len(lst))]
            elif pick == 1:
                lst.insert(rng.randrange(len(lst) + 1), {"cell": rng.randrange(9)})
            elif pick == 2:
                new["b"]["y"][1]["z"] = rng.choice([3, "3", None, [3]])
            else:
                new.pop("c", None)
                new["d"] = True
        ops = diff(old, new)
        assert json.loads(json.dumps(ops)) == ops, "a change is plain JSON"
        assert apply(copy.deepcopy(old), ops) == new
        assert (ops == []) == (old == new)
    assert apply({"a": 1}, diff({"a": 1}, [1, 2])) == [1, 2]


def test_apply_refuses_operations_that_do_not_fit() -> None:
    """A change that does not fit the document is refused (the client then asks the whole view)."""
    for ops in ([[["a", "b"], 1]], [[["x"], 0, 1, []]], [["a"]], [[[], 1, 2, []]]):
        with pytest.raises(ValueError):
            apply({"a": 1, "x": 2}, ops)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", ["ikabegama", "nume", "nibble", "nymbat"])
def test_each_viewers_change_rebuilds_his_new_view(client: TestClient, game: str) -> None:
    """Views pushed as changes against the viewer's last version: for every seat and for the
    spectators, the change from one move's view to the next, applied to the first, is the next."""
    g = create(client, game, seed=3)
    gid, tokens = g["id"], g["tokens"]
    state = tessera.load_game(game, **SMALL[game]).new_initial_state(seed=3)
    rng = random.Random(5)
    prev: dict[str | None, dict[str, Any]] = {}
    small = 0
    for _ in range(10):
        views = {s: view(client, gid, t) for s, t in tokens.items()} | {None: view(client, gid)}
        for s, v in views.items():
            if s in prev:
                ops = diff(prev[s], v)
                assert apply(copy.deepcopy(prev[s]), ops) == v
                small += len(json.dumps(ops)) < len(json.dumps(v))
            prev[s] = v
        if state.is_terminal():
            break
        mv = state.random_move(rng)
        r = client.post(
            f"/api/games/{gid}/moves",
            json={"token": tokens[str(state.current_player())], "move": mv, "expected": state.move_number()},
        )
        assert r.status_code == 200, r.text
        state.play(mv)
    assert small > 0


@pytest.mark.parametrize("game", ["nume", "nibble"])
def test_a_moves_answer_is_the_acknowledgement_plus_the_change(client: TestClient, game: str) -> None:
    """The move's answer is the acknowledgement plus the change (``"change": true``): applied to
    the mover's view of the version the move was played on, it gives his new view."""
    g = create(client, game, seed=1)
    gid, tokens = g["id"], g["tokens"]
    state = tessera.load_game(game, **SMALL[game]).new_initial_state(seed=1)
    rng = random.Random(2)
    for _ in range(6):
        if state.is_terminal():
            break
        seat = str(state.current_player())
        before = view(client, gid, tokens[seat])
        mv = state.random_move(rng)
        body = {"token": tokens[seat], "move": mv, "expected": state.move_number(), "change": True}
        r = client.post(f"/api/games/{gid}/moves", json=body)
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["version"] == before["version"] + 1 and answer["you"] == int(seat)
        assert answer["change"]["from"] == before["version"] and answer["change"]["version"] == answer["version"]
        assert "render" not in answer, "the acknowledgement, not the view"
        after = apply(copy.deepcopy(before), answer["change"]["ops"])
        assert steady(after) == steady(view(client, gid, tokens[seat]))
        state.play(mv)
        again = client.post(f"/api/games/{gid}/moves", json=body)  # the same move sent again
        assert again.status_code == 200 and again.json()["change"] is None


def collect(ws: Any, until_version: int) -> list[dict[str, Any]]:
    """The socket's ``state`` and ``change`` messages up to the one reaching ``until_version``."""
    out = []
    while True:
        msg = ws.receive_json()
        if msg["type"] in ("state", "change"):
            out.append(msg)
            version = msg["view"]["version"] if msg["type"] == "state" else msg["version"]
            if version >= until_version:
                return out


def replay(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The view a light client rebuilds from a socket's messages (each change from the last view)."""
    v: dict[str, Any] = {}
    for msg in messages:
        if msg["type"] == "state":
            v = msg["view"]
        else:
            assert msg["from"] == v["version"]
            v = apply(v, msg["ops"])
            v["version"] = msg["version"]
    return v


def test_a_light_socket_gets_the_whole_view_once_then_changes(client: TestClient) -> None:
    """The full view only on (re)connect or when asked again (a gap); the rest as changes, smaller
    than the views they stand for, from which the client rebuilds each view; a socket that did not
    ask for changes still gets whole views."""
    g = create(client, "nume", params={"size": 3}, seed=2)
    gid, tokens = g["id"], g["tokens"]
    state = tessera.load_game("nume", size=3).new_initial_state(seed=2)
    rng = random.Random(3)
    with (
        client.websocket_connect(f"/api/games/{gid}/ws?changes=1") as light,
        client.websocket_connect(f"/api/games/{gid}/ws") as heavy,
    ):
        start = view(client, gid)["version"]
        msgs = collect(light, start)
        collect(heavy, start)
        for _ in range(4):
            mv = state.random_move(rng)
            seat = str(state.current_player())
            body = {"token": tokens[seat], "move": mv, "expected": state.move_number()}
            assert client.post(f"/api/games/{gid}/moves", json=body).status_code == 200
            state.play(mv)
            version = view(client, gid)["version"]
            msgs += collect(light, version)
            whole = collect(heavy, version)
            assert {m["type"] for m in whole} == {"state"}
        assert [m["type"] for m in msgs] == ["state"] + ["change"] * (len(msgs) - 1)
        assert len(msgs) > 1
        assert all(len(json.dumps(m)) < len(json.dumps(whole[-1])) / 2 for m in msgs[1:])
        assert steady(replay(msgs)) == steady(view(client, gid))
        light.send_json({"type": "ping"})  # the pong names the version last sent: a client behind it asks again
        pong = light.receive_json()
        while pong["type"] != "pong":
            pong = light.receive_json()
        assert pong["version"] == version
        light.send_json({"type": "refresh"})  # what a client with a gap asks
        again = collect(light, version)
        assert again[-1]["type"] == "state" and steady(again[-1]["view"]) == steady(view(client, gid))


def test_a_move_while_a_light_socket_joins_comes_as_a_change(client: TestClient, monkeypatch: Any) -> None:
    """A move that lands after a joining socket's first view was read, and after it joined the hub,
    reaches it twice: by the move's broadcast and by the join's own check of the stored version
    (which is there for a move before the join, that no broadcast brings). A light socket still
    gets the whole view once, then the change (the race that once failed the test above, with
    PostgreSQL's slower check); the move is played inside that check to make the order certain."""
    g = create(client, "nume", params={"size": 3}, seed=4)
    gid, tokens = g["id"], g["tokens"]
    state = tessera.load_game("nume", size=3).new_initial_state(seed=4)
    service = client.app.state.service  # type: ignore[attr-defined]
    version = service.version
    played: list[int] = []

    def move_then_version(game_id: str) -> int:
        if game_id == gid and not played:
            mv = state.random_move(random.Random(1))
            played.append(service.play(gid, tokens[str(state.current_player())], mv, state.move_number())["version"])
        return int(version(game_id))

    monkeypatch.setattr(service, "version", move_then_version)
    with client.websocket_connect(f"/api/games/{gid}/ws?changes=1") as light:
        msgs = collect(light, 1)
        light.send_json({"type": "ping"})  # the join's check is done before the ping is read
        msg = light.receive_json()
        while msg["type"] != "pong":
            assert msg["type"] != "state", "a second whole view"
            msgs += [msg] if msg["type"] == "change" else []
            msg = light.receive_json()
        assert played == [1] and msg["version"] == 1
        assert [m["type"] for m in msgs] == ["state"] + ["change"] * (len(msgs) - 1) and len(msgs) > 1
        assert steady(replay(msgs)) == steady(view(client, gid))


def test_a_sealed_order_is_in_no_other_viewers_change(client: TestClient) -> None:
    """Hidden information: a viewer's change is computed from his own views only, so Nelaxtam's
    sealed order reaches its player (his answer's change shows it pending) and never the other
    seat's socket or a spectator's, until the turn resolves."""
    params = {"size": 10, "troops": 2, "by_sea": 1}
    g = create(client, "nelaxtam", params=params, seed=5)
    gid, t0, t1 = g["id"], g["tokens"]["0"], g["tokens"]["1"]
    state = tessera.load_game("nelaxtam", **params).new_initial_state(seed=5)
    o0 = state.random_move(random.Random(1), 0)
    with (
        client.websocket_connect(f"/api/games/{gid}/ws?changes=1", subprotocols=["tessera.seat", f"seat.{t1}"]) as ws1,
        client.websocket_connect(f"/api/games/{gid}/ws?changes=1") as spectator,
    ):
        start = view(client, gid)["version"]
        before1, before_s = collect(ws1, start), collect(spectator, start)
        r = client.post(f"/api/games/{gid}/moves", json={"token": t0, "move": o0, "expected": 0, "change": True})
        assert r.status_code == 200, r.text
        mine = json.dumps(r.json()["change"])
        assert o0 in mine, "the sealer's own change shows his pending order"
        version = r.json()["version"]
        other, watching = collect(ws1, version), collect(spectator, version)
        for name, msgs in (("the other seat", other), ("a spectator", watching)):
            assert msgs[-1]["type"] == "change"
            text = json.dumps(msgs)
            assert o0 not in text and '"pending"' not in text, f"{name}'s change carries the sealed order"
        assert replay(before1 + other)["sealed"] == [True, False]
        assert replay(before_s + watching)["render"]["order"] is None


def test_a_viewers_base_is_the_view_built_for_it_not_its_json_read_back(tmp_path: Any) -> None:
    """ "each distinct view is built once per version": the base of a viewer's change is the view
    object built for the version before the move, still kept after his new view was built (the hub
    builds every viewer's new view first), so it is not decoded from its JSON again."""
    from tessera.server.match.service import MatchService
    from tessera.server.store.storage import Storage

    service = MatchService(Storage(f"sqlite:///{tmp_path / 'v.db'}"))
    made = service.create("nume", seed=7)
    views = service.views
    before = service.games.current(made.game_id)
    texts = {seat: views.encoded(before, seat) for seat in (0, 1, None)}
    state = before.state
    service.moves.play(made.game_id, made.tokens[0], state.random_move(random.Random(1)), state.move_number())
    after = service.games.current(made.game_id)
    assert after.row.version == before.row.version + 1
    for seat in (0, 1, None):
        views.encoded(after, seat)  # the new view first, as the hub does
        kept = views.decoded(made.game_id, seat, before.row.version, texts[seat])
        assert kept is not None and kept == json.loads(texts[seat])
