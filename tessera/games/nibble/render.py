"""Nibble's render description (docs/render.md): what :meth:`NibbleState.render` returns."""

from __future__ import annotations

from typing import Any

from tessera.core.game import TERMINAL
from tessera.core.render import describe, grid_cells, piece
from tessera.games.nibble.game import EMPTY_FILL, NAMES, PALETTE, PLAYER_COLORS, SYMBOLS, NibbleState


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


def render(state: NibbleState, player: int | None = None) -> dict[str, Any]:
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
                title=f"{name} block (colour {colour})",
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
        panel.append({"label": f"{pos + 1}. {name}", "values": counts, "color": fill})
    panel.append({"label": "Majorities", "values": state.majorities()})
    panel.append(
        {
            "label": "Wins at once",
            "values": [
                f"all {n} blocks of one colour, or {g.triple_need} or more of each of three colours that are "
                f"neighbours in the table above (e.g. 1, 2, 3 or 2, 3, 4)"
            ],
        }
    )
    cp = state.current_player()
    actions: list[dict[str, Any]] = []
    if cp >= 0 and (player is None or player == cp):
        for a in state._legal_actions():
            if a == g.end_action:
                actions.append({"move": "end", "path": [], "label": "End turn"})
            else:
                lab = grid.label(g.cells[a])
                actions.append({"move": lab, "path": [lab]})
    status = None
    if cp >= 0 and state.taking is not None:
        status = f"{NAMES[cp]} to move, taking {PALETTE[state.taking][0]} blocks"
    elif cp == TERMINAL and state._winner is not None:
        how = "by majority of majorities" if not blocks else "at once"
        status = f"{NAMES[state._winner]} wins {how}"
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
