"""The server's seat-independent render sharing (issue 42): the part of a render every viewer sees
alike is rendered once per version and each viewer's own part added to it
(:meth:`tessera.server.match.views.Views.render`); a spectator's render computes no legal moves."""

from __future__ import annotations

import itertools
import json
import random
import threading
from types import SimpleNamespace
from typing import Any

import pytest

import tessera
from tessera.core.game import SIMULTANEOUS, State
from tessera.server.match.views import Views
from tests.core.test_render_sharing import SPECS, positions

RESIGNED = {"winner": 1, "returns": [-1.0, 1.0], "reason": "resign", "text": "White wins by resignation"}


def render_before(state: State, seat: int | None, sealed: dict[int, str], status: str, result: Any) -> dict[str, Any]:
    """The server's render for ``seat`` as it was before the sharing (one whole render per seat):
    what a viewer must still get."""
    cp = state.current_player()
    shown = state
    if cp == SIMULTANEOUS and sealed and len(sealed) < state.game.num_players:
        shown = state.view(seat, sealed)
    render = shown.render(seat)
    if seat is None or status != "active":
        render["actions"] = []
    if status != "active" and result is not None:
        render["result"] = result
        render["status"] = result["text"]
        render["status_key"], render["status_args"] = result.get("key"), result.get("args", {})
    order = render.get("order")
    if cp == SIMULTANEOUS:
        if isinstance(order, dict) and seat is not None:
            if seat in sealed or status != "active":
                render["actions"] = []
                order["units"] = [] if status != "active" else order.get("units", [])
        elif isinstance(order, dict):
            render["order"] = None
    return render


def _views() -> Views:
    return Views(SimpleNamespace(guard=threading.Lock()), None)  # type: ignore[arg-type]


def _live(state: State, version: int, sealed: dict[int, str], status: str, result: Any) -> Any:
    row = SimpleNamespace(id="g", version=version, status=status, result=result)
    return SimpleNamespace(row=row, state=state, sealed=sealed)


def _cases(state: State, rng: random.Random) -> list[tuple[dict[int, str], str, Any]]:
    """(sealed orders, status, result): the game going on, resigned, and at a simultaneous turn
    each seat's order sealed alone."""
    out: list[tuple[dict[int, str], str, Any]] = [({}, "active", None), ({}, "finished", RESIGNED)]
    if state.current_player() == SIMULTANEOUS:
        for p in range(state.game.num_players):
            out.append(({p: state.random_move(rng, p)}, "active", None))
    return out


def _text(x: Any) -> str:
    return json.dumps(x, sort_keys=True)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_viewer_gets_exactly_the_render_he_got_before_the_sharing(name: str) -> None:
    """ "a spectator and each seat get exactly what they got before": for random positions of
    every game (going on, resigned, a sealed order pending), the shared render with each seat's
    part over it equals the whole render of that seat as the server built it before."""
    rng = random.Random(11)
    for spec in SPECS[name]:
        views, version = _views(), 0
        for state in positions(spec, seeds=1):
            for sealed, status, result in _cases(state, rng):
                version += 1
                live = _live(state, version, sealed, status, result)
                for seat in (None, *range(state.game.num_players)):
                    old = render_before(state, seat, sealed, status, result)
                    assert _text(views.render(live, seat)) == _text(old), f"{spec} {status} {sealed} seat {seat}"


def test_the_shared_part_is_rendered_once_per_version_and_spectators_compute_no_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "The server renders the shared part once per position and adds the seat part per viewer;
    spectators' renders don't list legal moves": three viewers of one version cost one shared
    render, only the mover's part is asked for its actions, and the viewers share the board."""
    state = tessera.load_game("nume").new_initial_state(seed=1)
    rng = random.Random(2)
    for _ in range(6):
        state.play(rng.choice(state.legal_moves()))
    cls = type(state)
    shared_calls: list[int] = []
    seat_calls: list[tuple[int | None, bool]] = []
    render_shared, render_seat = cls.render_shared, cls.render_seat

    def counted_shared(self: State) -> dict[str, Any]:
        shared_calls.append(1)
        return render_shared(self)

    def counted_seat(self: State, player: int | None, *, actions: bool = True) -> dict[str, Any]:
        seat_calls.append((player, actions))
        return render_seat(self, player, actions=actions)

    def no_whole_render(self: State, player: int | None = None) -> dict[str, Any]:
        raise AssertionError("the server rendered a whole picture (a spectator's lists the legal moves)")

    monkeypatch.setattr(cls, "render_shared", counted_shared)
    monkeypatch.setattr(cls, "render_seat", counted_seat)
    monkeypatch.setattr(cls, "render", no_whole_render)
    views = _views()
    live = _live(state, 1, {}, "active", None)
    renders = {seat: views.render(live, seat) for seat in (None, 0, 1)}
    assert len(shared_calls) == 1
    cp = state.current_player()
    assert sorted(seat_calls, key=str) == sorted([(None, False), (0, True), (1, True)], key=str)
    assert renders[None]["actions"] == [] and renders[1 - cp]["actions"] == [] and renders[cp]["actions"]
    assert renders[None]["board"] is renders[0]["board"] is renders[1]["board"]
    assert renders[None]["pieces"] is renders[cp]["pieces"]
    finished = _live(state, 2, {}, "finished", RESIGNED)
    for seat in (None, 0, 1):
        assert views.render(finished, seat)["actions"] == []
    assert seat_calls[-3:] == [(None, False), (0, False), (1, False)], "a finished game's viewers compute no moves"


def test_a_sealed_order_reaches_neither_the_shared_part_nor_another_seat() -> None:
    """Hidden information stays hidden: with Nelaxtam's order sealed by one seat, the spectator's
    and the other seat's renders (built over the one shared part) carry nothing of it; the sealer's
    shows it pending."""
    state = tessera.load_game("nelaxtam(size=10,troops=2,by_sea=1)").new_initial_state(seed=5)
    rng = random.Random(3)
    state.play_joint([state.random_move(rng, 0), state.random_move(rng, 1)])  # the invasion
    for sealer in (0, 1):
        order = state.random_move(rng, sealer)
        views = _views()
        live = _live(state, 1, {sealer: order}, "active", None)
        for seat in (None, 1 - sealer):
            text = json.dumps(views.render(live, seat))
            assert order not in text and '"pending": "' not in text, f"seat {seat} sees the sealed order"
        assert views.render(live, sealer)["order"]["pending"] == order
        assert order not in json.dumps(views._shared[("g", 1)])


@pytest.mark.parametrize("name", ["nume", "nymbat", "nelaxtam"])
def test_the_change_of_the_shared_part_is_computed_once_a_move_and_is_the_diff(name: str) -> None:
    """A change "is computed from two views of the same viewer": each viewer's change is exactly
    :func:`diff` of his two views, and the operations of the render's shared fields are computed
    for the first viewer only (the others get those very operations)."""
    from tessera.server.match.changes import apply, diff

    views = _views()
    states = positions(SPECS[name][0], seeds=1, plies=12)
    for version, (a, b) in enumerate(itertools.pairwise(states)):
        old, new = _live(a, 2 * version, {}, "active", None), _live(b, 2 * version + 1, {}, "active", None)
        first: dict[str, Any] = {}  # an operation of a shared field, by its JSON: the first viewer's
        for seat in (None, *range(a.game.num_players)):
            before = {"id": "g", "you": seat, "version": version, "render": views.render(old, seat)}
            after = {"id": "g", "you": seat, "version": version + 1, "render": views.render(new, seat)}
            ops = views.diff("g", before, after)
            assert ops == diff(before, after)
            assert _text(apply(json.loads(_text(before)), ops)) == _text(after)
            for op in ops:
                if op[0][0] == "render" and len(op[0]) > 1 and op[0][1] not in a.render_seat_fields:
                    kept = first.setdefault(_text(op), op)
                    assert kept is op, f"{name}: the change of {op[0][1]} was computed again for seat {seat}"
