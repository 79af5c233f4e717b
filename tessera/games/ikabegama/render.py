"""Ikabegamá's render description (docs/render.md): what :meth:`IkabegamaState.render` returns."""

from __future__ import annotations

from typing import Any

from tessera.core.hexplane import (
    hex_center,
)
from tessera.core.render import PASS_LABEL, cell_entry, describe, describe_seat, piece, without_seat
from tessera.core.texts import Text, name_text
from tessera.games.ikabegama.game import COLORS, NAMES, IkabegamaState


def _view_cells(state: IkabegamaState) -> list[int]:
    g = state.game
    w = g.window
    if g.allowed is not None:
        return sorted(g.allowed)
    seen: set[int] = set()
    for h in [*state.tokens, *g.nest_ids]:
        q0, r0 = w.axial(h)
        for dq in range(-3, 4):
            for dr in range(-3, 4):
                if abs(dq + dr) <= 3 and w.contains(q0 + dq, r0 + dr):
                    seen.add(w.id(q0 + dq, r0 + dr))
    return sorted(seen)


def render(state: IkabegamaState, player: int | None = None, *, with_actions: bool = True) -> dict[str, Any]:
    """The render description for ``player`` (None: a spectator); ``with_actions=False``: no action list."""
    g = state.game
    w = g.window
    cells = []
    nest_symbol = {g.nest_ids[0]: "l", g.nest_ids[1]: "d"}
    for h in _view_cells(state):
        q, r = w.axial(h)
        x, y = hex_center(q, r)
        cells.append(cell_entry(w.label(h), x, y, symbol=nest_symbol.get(h)))
    pieces = [
        piece(
            w.label(h),
            o,
            color=COLORS[o],
            symbol="LD"[o],
            title=Text("piece.token", f"{NAMES[o]} token", name=name_text(NAMES[o])),
        )
        for h, o in sorted(state.tokens.items())
    ]
    highlights: list[dict[str, Any]] = [
        {
            "cell": w.label(h),
            "kind": "nest",
            "owner": i,
            "color": COLORS[i],
            "title": Text("highlight.nest", f"{NAMES[i]} nest", name=name_text(NAMES[i])),
        }
        for i, h in enumerate(g.nest_ids)
    ]
    last: list[str] = []
    if state._history:
        _, a = state._history[-1]
        s = state.action_to_string(a)
        last = [] if s == "pass" else s.split(">")
        highlights += [{"cell": c, "kind": "last"} for c in last]
    actions = _actions(state, player) if with_actions else []
    board: dict[str, Any] = {
        "kind": "hexplane" if g.allowed is None else "hex",
        "cells": cells,
        "unbounded": g.allowed is None,
        "coords": "axial",
    }
    return describe(
        state,
        board=board,
        pieces=pieces,
        players=[{"name": NAMES[i], "color": COLORS[i]} for i in (0, 1)],
        highlights=highlights,
        panel=[
            {"label": Text("panel.tokens", "Tokens"), "values": state.counts},
            {"label": Text("panel.ply", "Ply"), "values": [state.ply]},  # the safeguard limit is in params
        ],
        actions=actions,
        last_move=last,
        viewer=player,
    )


def _actions(state: IkabegamaState, player: int | None) -> list[dict[str, Any]]:
    """The actions ``player`` (None: a spectator, who is shown the mover's) may take now."""
    cp = state.current_player()
    actions: list[dict[str, Any]] = []
    if cp >= 0 and (player is None or player == cp):
        for a in state._legal_actions():
            s = state.action_to_string(a)
            if s == "pass":
                actions.append({"move": "pass", "path": [], "label": PASS_LABEL})
            else:
                actions.append({"move": s, "path": s.split(">")})
    return actions


def render_shared(state: IkabegamaState) -> dict[str, Any]:
    """The fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
    return without_seat(render(state, None, with_actions=False), state.render_seat_fields)


def render_seat(state: IkabegamaState, player: int | None, *, actions: bool = True) -> dict[str, Any]:
    """The seat's fields for ``player`` (:meth:`tessera.core.game.State.render_seat`)."""
    return describe_seat(player, _actions(state, player) if actions else [])
