"""Nume's render description (docs/render.md): what :meth:`NumeState.render` returns."""

from __future__ import annotations

from typing import Any

from tessera.core.render import describe, grid_cells
from tessera.core.texts import Text, expand, name_text
from tessera.games.nume import kernels as kern
from tessera.games.nume.game import (
    BID,
    BLACK,
    CHOOSE,
    COLOUR_NAMES,
    COLOUR_WORDS,
    COLOURS,
    NO_COLOUR,
    PLAY,
    WHITE,
    NumeState,
    _fmt_komi,
)
from tessera.games.nume.kernels import GID, NUM, STONE


def render(state: NumeState, player: int | None = None) -> dict[str, Any]:
    g = state.game
    n = g.cells
    hexes = g.params["variant"] == "hex"
    board = {
        "kind": "hex" if hexes else "square",
        "cells": grid_cells(g.grid),
        "unbounded": False,
        "coords": "rows" if hexes else "chess",
    }
    owner = {c: i for i, c in enumerate(state._colors)} if state._colors is not None else {}
    stone, num, gid = state._field(STONE), state._field(NUM), state._field(GID)
    # a stone's title and ``group`` are its group's: one dict per group, shared by its stones
    group_of: dict[int, tuple[Text, dict[str, int]]] = {}
    ngroups = [0, 0]
    for gr in state._group_table():
        nums = gr["numbers"]
        stones = name_text(COLOUR_NAMES[gr["color"]])
        numbers = ", ".join(map(str, nums))
        group_of[gr["root"]] = (
            Text(
                "piece.group",
                f"{stones} group of {gr['size']}, number{'s' if len(nums) > 1 else ''} {numbers}, price {gr['price']}",
                colour=stones,
                size=gr["size"],
                count=len(nums),
                numbers=numbers,
                price=gr["price"],
            ),
            {"size": gr["size"], "price": gr["price"]},
        )
        ngroups[gr["color"]] += 1
    labels = g.labels
    look = [(owner.get(col), COLOURS[col], "BW"[col]) for col in (BLACK, WHITE)]  # by stone colour
    pieces = []
    for c, col in enumerate(stone):
        if col >= 0:
            title, group = group_of[gid[c]]
            who, colour, symbol = look[col]
            k = num[c]
            stone_d = {
                "cell": labels[c],
                "owner": who,
                "text": "" if k < 0 else str(k),
                "shape": "disc",
                "color": colour,
                "symbol": symbol,
                "title": title,
                "group": group,
            }
            expand(stone_d, "title")
            pieces.append(stone_d)
    last: list[str] = []
    highlights: list[dict[str, Any]] = []
    if state._history:
        a = state._history[-1][1]
        if a < g.place_actions:
            last = [g.labels[a // g.K]]
            highlights.append({"cell": last[0], "kind": "last"})
    cp = state.current_player()
    actions: list[dict[str, Any]] = []
    if cp >= 0 and (player is None or player == cp):
        if state._phase == PLAY:
            occupied, joins, templates = kern.OCCUPIED, kern.JOINS, g.templates
            actions = [
                {"move": labels[c], "path": [labels[c]]}
                if st == joins
                else {"template": templates[c], "path": [labels[c]], "number": [0, n]}
                for c, st in enumerate(state._statuses())
                if st != occupied
            ]
        elif state._phase == BID:
            # one button per bid (docs/render.md: a button is a move with an empty path; the
            # generic client lists a long group of buttons as a drop-down)
            for a in range(g.place_actions, g.choose_base):
                v, r = divmod(a - g.place_actions, 2)
                actions.append(
                    {
                        "move": state.action_to_string(a),
                        "path": [],
                        "label": Text(
                            "action.komi",
                            f"Komi {v}.5 to {COLOUR_NAMES[r]}",
                            komi=f"{v}.5",
                            name=name_text(COLOUR_NAMES[r]),
                        ),
                        "group": "komi",
                    }
                )
        else:
            for r in (BLACK, WHITE):
                actions.append(
                    {
                        "move": COLOUR_WORDS[r],
                        "path": [],
                        "label": Text("action.play_colour", f"Play {COLOUR_NAMES[r]}", name=name_text(COLOUR_NAMES[r])),
                        "group": "colour",
                    }
                )
    names = state._player_names()
    if state._colors is None:
        players = [{"name": names[i], "color": NO_COLOUR[i]} for i in (0, 1)]
    else:
        players = [{"name": names[i], "color": COLOURS[state._colors[i]]} for i in (0, 1)]
    status = None
    if state._phase == BID:
        status = Text("status.nume_bid", "Player 0 to bid the komi and its receiver")
    elif state._phase == CHOOSE:
        status = Text("status.nume_choose", "Player 1 to choose a colour")
    panel: list[dict[str, Any]] = []
    if state._komi is not None and state._komi_to is not None:
        komi, to = _fmt_komi(state._komi), name_text(COLOUR_NAMES[state._komi_to])
        panel.append(
            {
                "label": Text("panel.komi", "Komi"),
                "values": [Text("nume.komi_to", f"{komi} to {to}", komi=komi, name=to)],
            }
        )
    if state._colors is not None:
        prices = state._prices()
        panel.append({"label": Text("panel.prices", "Prices"), "values": [prices[c] for c in state._colors]})
        panel.append({"label": Text("panel.groups", "Groups"), "values": [ngroups[c] for c in state._colors]})
    panel.append({"label": Text("panel.empty_cells", "Empty cells"), "values": [state._nempty()]})
    return describe(
        state,
        board=board,
        pieces=pieces,
        players=players,
        highlights=highlights,
        panel=panel,
        actions=actions,
        last_move=last,
        status=status,
        viewer=player,
    )
