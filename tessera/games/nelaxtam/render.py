"""Nelaxtam's render description (docs/render.md): what :meth:`NelaxtamState.render` returns."""

from __future__ import annotations

from typing import Any

from tessera.core.geometry import bits
from tessera.core.render import cell_entry, describe, describe_seat, piece, without_seat
from tessera.core.texts import Text, name_text
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

TERRITORY = tuple(Text("cell.territory", f"{NAMES[p]} territory", name=name_text(NAMES[p])) for p in (0, 1))
REMOVED = Text("cell.removed", "removed")
EDGE = Text("highlight.edge", "edge square: troops by sea land here")
YES, NO = Text("word.yes", "yes"), Text("word.no", "no")
NOBODY_ACTS = Text("order.nobody_acts", "nobody acts")
HOLD_LABEL = Text("order.hold", "hold")


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
            fill, sym, title = TERRITORY_FILL[0], "x", TERRITORY[0]
        elif terr[1] >> c & 1:
            fill, sym, title = TERRITORY_FILL[1], "o", TERRITORY[1]
        else:
            fill, sym, title = SEA_FILL, ".", REMOVED
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
                        title=Text("piece.troop", f"{NAMES[p]} troop {t + 1}", name=name_text(NAMES[p]), n=t + 1),
                    )
                )
    last = [lab[c] for c in state._last_cells]
    sealed = [YES if state._pending[p] is not None else NO for p in (0, 1)]
    phase = Text(f"nelaxtam.phase_{state.phase}", state.phase)
    limit = g._params["max_idle_turns"]
    panel: list[dict[str, Any]] = [
        {"label": Text("panel.territory", "Territory"), "values": state.scores()},
        {"label": Text("panel.troops", "Troops"), "values": [len(state.living(0)), len(state.living(1))]},
        {
            "label": Text("panel.turn", "Turn"),
            "values": [Text("nelaxtam.turn", f"{state.turn} ({phase})", turn=state.turn, phase=phase)],
        },
        {
            "label": Text("panel.turns_without_destruction", "Turns without destruction"),
            "values": [Text("nelaxtam.idle", f"{state.idle} / {limit}", idle=state.idle, limit=limit)],
        },
    ]
    if state.phase != OVER:
        panel.append({"label": Text("panel.order_sealed", "Order sealed"), "values": sealed})
    if state.phase == INVASION:
        need = g._params["by_sea"]
        panel.append(
            {
                "label": Text("panel.invasion", "Invasion"),
                "values": [
                    Text(
                        "nelaxtam.invasion",
                        f"at least {need} troops land on the outlined edge (by sea)",
                        count=need,
                    )
                ],
            }
        )
    return describe(
        state,
        board={"kind": "square", "cells": cells, "unbounded": False, "coords": "chess"},
        pieces=pieces,
        players=[{"name": NAMES[i], "color": COLORS[i]} for i in (0, 1)],
        highlights=_highlights(state, player),
        panel=panel,
        actions=[],
        last_move=last,
        viewer=player,
        order=_order(state, player),
    )


def _highlights(state: NelaxtamState, player: int | None) -> list[dict[str, Any]]:
    """The last turn's squares, and in the invasion the edge ``player``'s troops land on (a
    spectator: both players' edges)."""
    g = state.game
    lab = g.labels
    highlights: list[dict[str, Any]] = [{"cell": lab[c], "kind": "last"} for c in state._last_cells]
    if state.phase == INVASION:
        for p in (0, 1) if player is None else (player,):
            highlights += [
                {"cell": lab[c], "kind": "setup", "owner": p, "title": EDGE} for c in bits(state.terr[p] & g.edge)
            ]
    return highlights


def _order(state: NelaxtamState, player: int | None) -> dict[str, Any] | None:
    """``player``'s order builder (None: a spectator, or the game is over)."""
    if player in (0, 1) and state.phase != OVER:
        return _order_section(state, player)
    return None


def render_shared(state: NelaxtamState) -> dict[str, Any]:
    """The fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`): drawn
    from this state, so from the spectator's view when orders are sealed (no order then)."""
    return without_seat(render(state, None), state.render_seat_fields)


def render_seat(state: NelaxtamState, player: int | None, *, actions: bool = True) -> dict[str, Any]:
    """The seat's fields for ``player`` (:meth:`tessera.core.game.State.render_seat`): the
    invasion's edges and the order builder are the seat's own (never another seat's order).
    Orders are given through the order builder, so the action list is always empty."""
    return describe_seat(player, [], highlights=_highlights(state, player), order=_order(state, player))


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
                label = NOBODY_ACTS if state._quiet_battle() else HOLD_LABEL
                choices.append({"token": tok, "path": [], "label": label})
            else:
                verb, key = {
                    MOVE: ("move to", "move_to"),
                    DESTROY: ("destroy", "destroy"),
                    PLACE: ("land on", "land_on"),
                }[kind]
                square = lab[target]
                choices.append(
                    {
                        "token": tok,
                        "path": [square],
                        "label": Text(f"order.{key}", f"{verb} {square}", cell=square),
                    }
                )
        unit: dict[str, Any] = {
            "id": str(k),
            "cell": None if invasion or cell < 0 else lab[cell],
            "label": Text("order.troop", f"Troop {k}", n=k),
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
