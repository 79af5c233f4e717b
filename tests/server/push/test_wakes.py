"""What a game's change wakes in a process (issue 42: server CPU per move, several processes on one database)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tessera.server.events import Changed
from tessera.server.http.encoding import dumps
from tessera.server.match.service import MatchService
from tessera.server.push.hub import Connection, Hub
from tessera.server.store.storage import Storage
from tests.server.helpers import first_move


class Loop:
    """Stands in for the event loop: records what is scheduled on it."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def is_closed(self) -> bool:
        return False

    def call_soon_threadsafe(self, *args: Any) -> None:
        self.calls.append(args)


def test_a_change_of_a_game_with_no_socket_here_does_not_wake_the_event_loop(tmp_path: Path) -> None:
    """Every move of every game is announced to every process: a process with no socket on that
    game schedules nothing on its event loop for it (a wake of the loop per move, for nothing); with
    a socket on the game it schedules the push."""
    service = MatchService(Storage(f"sqlite:///{tmp_path / 'w.db'}"))
    hub = Hub(service)
    loop = Loop()
    hub.loop = loop  # type: ignore[assignment]
    service.events.publish(Changed("g1", local=False))
    service.events.publish(Changed("g1", local=True))
    assert loop.calls == []
    hub.games["g1"] = {Connection(ws=None, game_id="g1", seat=None, token=None)}  # type: ignore[arg-type]
    service.events.publish(Changed("g1", local=False))
    assert [c[1:] for c in loop.calls] == [("g1", False)]


class Socket:
    """Stands in for a WebSocket: records the texts sent on it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))


def test_a_broadcast_that_read_an_older_version_sends_nothing_to_a_socket_already_ahead(tmp_path: Path) -> None:
    """Two pushes of one game can overlap (one waiting for a worker thread while the next runs from
    memory): a socket that already holds version 2 never gets version 1 after it — neither a whole view
    nor, on a light socket, a change from 2 back to 1 — and keeps 2 as the base of its next change."""
    service = MatchService(Storage(f"sqlite:///{tmp_path / 'w.db'}"))
    try:
        created = service.create("nume", {"size": 2}, mode="hotseat", seed=1)
        gid, token = created.game_id, created.tokens[0]
        hub = Hub(service)
        first = service.view(gid, token)
        older = (first["version"], dumps(first), first)
        service.play(gid, token, first_move(first), first["move_number"])
        newer_view = service.view(gid, token)
        assert newer_view["version"] > first["version"]
        newer = (newer_view["version"], dumps(newer_view), newer_view)
        sockets = {light: Socket() for light in (False, True)}
        conns = [
            Connection(ws=sockets[light], game_id=gid, seat=0, token=token, light=light, base=(newer[0], newer[1]))  # type: ignore[arg-type]
            for light in (False, True)
        ]
        hub.games[gid] = set(conns)

        def views_of(item: tuple[int, bytes, dict[str, Any]]) -> Any:
            return lambda game_id, tokens, *, fresh=True: {t: item for t in tokens}

        hub.encoded_views = views_of(older)  # type: ignore[method-assign]
        asyncio.run(hub.broadcast(gid, fresh=False))
        assert [s.sent for s in sockets.values()] == [[], []]
        assert all(c.base == (newer[0], newer[1]) for c in conns)
        newest = dict(newer_view, version=newer_view["version"] + 1)  # (the next version reaches both)
        hub.encoded_views = views_of((newest["version"], dumps(newest), newest))  # type: ignore[method-assign]
        asyncio.run(hub.broadcast(gid, fresh=False))
        assert [[m["type"] for m in s.sent] for s in sockets.values()] == [["state"], ["change"]]
        assert sockets[True].sent[0]["from"] == newer[0]
        assert all(c.base is not None and c.base[0] == newest["version"] for c in conns)
        # a refresh whose read is overtaken by a push gets the newer view again, not its own older one
        light = next(c for c in conns if c.light)
        service.view = lambda game_id, token=None, **kw: first  # type: ignore[method-assign]
        asyncio.run(hub.send_view(light))
        assert sockets[True].sent[-1] == {"type": "state", "view": newest}
        assert light.base is not None and light.base[0] == newest["version"]
    finally:
        service.storage.dispose()
