"""docs/architecture.md's walk of one move, counted by ``benchmarks/move_walk.py``: "one move pipeline
(prepare → commit → publish)", "the hub … is told of changes through one event interface (no callbacks
wired back and forth)", and no entry into the service facade on the way."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_one_move_runs_the_pipeline_and_is_published_through_the_event_interface() -> None:
    spec = importlib.util.spec_from_file_location("move_walk", ROOT / "benchmarks" / "move_walk.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = module.walk()
    assert {"MovePipeline.submit", "MovePipeline.prepare", "MovePipeline.commit"} <= set(seen["match/moves.py"])
    assert "Events.publish" in seen["events.py"]
    assert {"Hub.on_event", "Hub.broadcast"} <= set(seen["push/hub.py"])
    assert "match/service.py" not in seen  # the facade is for callers outside the server, not on the move's path
    assert not any("on_change" in name for names in seen.values() for name in names)  # no wired-in callback


def test_the_walks_returns_are_told_apart_by_kind() -> None:
    """A return into a file still running below the call, into a file first entered in another flow, and
    to a file left earlier in the same flow are counted apart (the last are the returns to a module left)."""
    spec = importlib.util.spec_from_file_location("move_walk", ROOT / "benchmarks" / "move_walk.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    request, push = (1, 1), (1, 2)
    trail = ["a.py", "b.py", "a.py", "c.py", "b.py", "b.py", "a.py"]
    context = [
        (request, frozenset()),
        (request, frozenset({"a.py"})),
        (request, frozenset({"a.py"})),  # a's driver goes on: still running
        (request, frozenset({"a.py"})),
        (request, frozenset({"a.py"})),  # b again, b's frame gone: left
        (request, frozenset({"a.py", "b.py"})),  # a stay
        (push, frozenset()),  # a again, first in the push: another flow
    ]
    moves = module.entries(trail, context)
    assert (moves["stays"], moves["returns"]) == (1, 3)
    assert moves["returns_by_kind"] == {"still running": 1, "another flow": 1, "left": 1}
    assert moves["left"] == ["b.py"]
    assert "returns_by_kind" not in module.entries(trail)
