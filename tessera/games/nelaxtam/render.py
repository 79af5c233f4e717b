"""Nelaxtam's render description (docs/render.md): what :meth:`NelaxtamState.render` returns."""

from __future__ import annotations

from typing import Any

from tessera.core.geometry import bits
from tessera.core.render import cell_entry, describe, piece
from tessera.games.nelaxtam.game import (
    COLORS,
    DESTROY,
    HOLD,
    INVASION,
    MOVE,
    NAMES,
    OVER,
    PLACE,
    SEA_FILL,
    TERRITORY_FILL,
    NelaxtamState,
)


def render(state: NelaxtamState, player: int | None = None) -> dict[str, Any]:
    """The render description for ``player`` (``None``: a spectator); never the opponent's order."""
    g = state.game
    lab = g.labels
    cells = []
    terr = state.terr
    pos = state.pos
    for c in g.grid.cells:
        x, y = g.grid.center(c)
        if terr[0] >> c & 1:
            fill, sym, title = TERRITORY_FILL[0], "x", "Black territory"
        elif terr[1] >> c & 1:
            fill, sym, title = TERRITORY_FILL[1], "o", "White territory"
        else:
            fill, sym, title = SEA_FILL, ".", "removed"
        cells.append(cell_entry(lab[c], x, y, fill=fill, symbol=sym, title=title))
    pieces = []
    for p in (0, 1):
        for t, c in enumerate(pos[p]):
            if c >= 0:
                pieces.append(
                    piece(
                        lab[c],
                        p,
                        text=str(t + 1),
                        color=COLORS[p],
                        symbol="XO"[p],
                        title=f"{NAMES[p]} troop {t + 1}",
                    )
                )
    last = [lab[c] for c in state._last_cells]
    highlights: list[dict[str, Any]] = [{"cell": c, "kind": "last"} for c in last]
    sealed = ["yes" if state._pending[p] is not None else "no" for p in (0, 1)]
    panel: list[dict[str, Any]] = [
        {"label": "Territory", "values": state.scores()},
        {"label": "Troops", "values": [len(state.living(0)), len(state.living(1))]},
        {"label": "Turn", "values": [f"{state.turn} ({state.phase})"]},
        {"label": "Turns without destruction", "values": [f"{state.idle} / {g._params['max_idle_turns']}"]},
    ]
    if state.phase != OVER:
        panel.append({"label": "Order sealed", "values": sealed})
    if state.phase == INVASION:
        need = g._params["by_sea"]
        panel.append({"label": "Invasion", "values": [f"at least {need} troops land on the outlined edge (by sea)"]})
        for p in (0, 1) if player is None else (player,):
            highlights += [
                {"cell": lab[c], "kind": "setup", "owner": p, "title": "edge square: troops by sea land here"}
                for c in bits(terr[p] & g.edge)
            ]
    order = None
    if player in (0, 1) and state.phase != OVER:
        order = _order_section(state, player)
    return describe(
        state,
        board={"kind": "square", "cells": cells, "unbounded": False, "coords": "chess"},
        pieces=pieces,
        players=[{"name": NAMES[i], "color": COLORS[i]} for i in (0, 1)],
        highlights=highlights,
        panel=panel,
        actions=[],
        last_move=last,
        viewer=player,
        order=order,
    )


def _order_section(state: NelaxtamState, player: int) -> dict[str, Any]:
    g = state.game
    lab = g.labels
    units = []
    invasion = state.phase == INVASION
    pos = state.pos[player]
    for k, acts in state.troop_actions(player).items():
        cell = pos[k - 1]
        choices = []
        for a in acts:
            _, kind, target = g.decode(a)
            tok = g.tokens[a]
            if kind == HOLD:
                label = "nobody acts" if state._quiet_battle() else "hold"
                choices.append({"token": tok, "path": [], "label": label})
            else:
                verb = {MOVE: "move to", DESTROY: "destroy", PLACE: "land on"}[kind]
                choices.append({"token": tok, "path": [lab[target]], "label": f"{verb} {lab[target]}"})
        unit: dict[str, Any] = {
            "id": str(k),
            "cell": None if invasion or cell < 0 else lab[cell],
            "label": f"Troop {k}",
            "choices": choices,
        }
        if not invasion and not state._quiet_battle():
            unit["default"] = f"{k}="
        units.append(unit)
    mine = state._pending[player]
    return {
        "player": player,
        "submitted": mine is not None,
        "pending": mine,
        "opponent_submitted": state._pending[1 - player] is not None,
        "separator": " ",
        "single": state._quiet_battle(),
        "units": units,
    }
