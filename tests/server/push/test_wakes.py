"""What a game's change wakes in a process (issue 42: server CPU per move, several processes on one database)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tessera.server.events import Changed
from tessera.server.match.service import MatchService
from tessera.server.push.hub import Connection, Hub
from tessera.server.store.storage import Storage


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
