"""Nibble's render description (docs/render.md): what :meth:`NibbleState.render` returns."""

from __future__ import annotations

from typing import Any

from tessera.core.game import TERMINAL
from tessera.core.render import END_TURN, describe, describe_seat, grid_cells, piece, without_seat
from tessera.core.texts import Text, colour_text, name_text
from tessera.games.nibble.constants import EMPTY_FILL, NAMES, PALETTE, PLAYER_COLORS, SYMBOLS
from tessera.games.nibble.state import NibbleState


def _last_turn_cells(state: NibbleState) -> list[str]:
    """Labels of the blocks taken in the trailing run of steps of one player."""
    if not state._history:
        return []
    g = state.game
    who = state._history[-1][0]
    out: list[str] = []
    for p, a in reversed(state._history):
        if p != who:
            break
        if a != g.end_action:
            out.append(g.grid.label(g.cells[a]))
    return out[::-1]


def render(state: NibbleState, player: int | None = None, *, with_actions: bool = True) -> dict[str, Any]:
    """The render description for ``player`` (None: a spectator); ``with_actions=False``: no action list."""
    g = state.game
    grid = g.grid
    n = g.colors
    board = {
        "kind": grid.kind,
        "cells": grid_cells(grid, {c: EMPTY_FILL for c in grid.cells}),
        "unbounded": False,
        "coords": "chess" if grid.kind == "square" else "rows",
    }
    pieces = []
    blocks = state.blocks()
    taken = state.taken
    for c, colour in blocks.items():
        name, fill = PALETTE[colour]
        pieces.append(
            piece(
                grid.label(c),
                None,
                color=fill,
                symbol=SYMBOLS[colour],
                shape="block",
                title=Text("piece.block", f"{name} block (colour {colour})", colour=colour_text(name), n=colour),
            )
        )
    last = _last_turn_cells(state)
    highlights = [{"cell": lab, "kind": "last"} for lab in last]
    m = g.majority
    on_board = [0] * n
    for colour in blocks.values():
        on_board[colour] += 1
    table_view = []
    panel: list[dict[str, Any]] = []
    for pos, colour in enumerate(state.table):
        name, fill = PALETTE[colour]
        counts = [taken[0][colour], taken[1][colour]]
        owner = 0 if counts[0] >= m else 1 if counts[1] >= m else None
        table_view.append(
            {
                "position": pos,
                "color": colour,
                "name": name,
                "fill": fill,
                "counts": counts,
                "on_board": on_board[colour],
                "majority": owner,
            }
        )
        row = Text("panel.table_row", f"{pos + 1}. {name}", n=pos + 1, colour=colour_text(name))
        panel.append({"label": row, "values": counts, "color": fill})
    panel.append({"label": Text("panel.majorities", "Majorities"), "values": state.majorities()})
    panel.append(
        {
            "label": Text("panel.wins_at_once", "Wins at once"),
            "values": [
                Text(
                    "nibble.wins_at_once",
                    f"all {n} blocks of one colour, or {g.triple_need} or more of each of three colours that are "
                    f"neighbours in the table above (e.g. 1, 2, 3 or 2, 3, 4)",
                    n=n,
                    need=g.triple_need,
                )
            ],
        }
    )
    cp = state.current_player()
    actions = _actions(state, player) if with_actions else []
    status: Text | None = None
    if cp >= 0 and state.taking is not None:
        name, taking = name_text(NAMES[cp]), colour_text(PALETTE[state.taking][0])
        status = Text("status.taking", f"{name} to move, taking {taking} blocks", name=name, colour=taking)
    elif cp == TERMINAL and state._winner is not None:
        name = name_text(NAMES[state._winner])
        if blocks:
            status = Text("status.wins_at_once", f"{name} wins at once", name=name)
        else:
            status = Text("status.wins_majority", f"{name} wins by majority of majorities", name=name)
    return describe(
        state,
        board=board,
        pieces=pieces,
        players=[{"name": NAMES[i], "color": PLAYER_COLORS[i]} for i in (0, 1)],
        highlights=highlights,
        panel=panel,
        actions=actions,
        last_move=last,
        status=status,
        viewer=player,
        table=table_view,
        taking=state.taking,
        thresholds={"all_of_one": n, "three_adjacent": g.triple_need, "majority": m},
        move_notes=_move_notes(state),
    )


def _move_notes(state: NibbleState) -> list[str] | None:
    """The colour of the block each step of the history took (``"end"`` for End turn), for the move list."""
    if state.seed is None or not state._history:
        return None
    g = state.game
    dealt, _ = g.deal(state.seed)  # grid cell id -> colour, as dealt
    return ["end" if a == g.end_action else PALETTE[dealt[g.cells[a]]][0] for _, a in state._history]


def _actions(state: NibbleState, player: int | None) -> list[dict[str, Any]]:
    """The actions ``player`` (None: a spectator, who is shown the mover's) may take now."""
    g = state.game
    grid = g.grid
    cp = state.current_player()
    actions: list[dict[str, Any]] = []
    if cp >= 0 and (player is None or player == cp):
        for a in state._legal_actions():
            if a == g.end_action:
                actions.append({"move": "end", "path": [], "label": END_TURN})
            else:
                lab = grid.label(g.cells[a])
                actions.append({"move": lab, "path": [lab]})
    return actions


def render_shared(state: NibbleState) -> dict[str, Any]:
    """The fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
    return without_seat(render(state, None, with_actions=False), state.render_seat_fields)


def render_seat(state: NibbleState, player: int | None, *, actions: bool = True) -> dict[str, Any]:
    """The seat's fields for ``player`` (:meth:`tessera.core.game.State.render_seat`)."""
    return describe_seat(player, _actions(state, player) if actions else [])
