"""Nume's render description (docs/render.md): what :meth:`NumeState.render` returns."""

from __future__ import annotations

from typing import Any

from tessera.core.render import describe, describe_seat, grid_cells, without_seat
from tessera.core.texts import Text, name_text
from tessera.games.nume import kernels as kern
from tessera.games.nume.constants import (
    BID,
    BLACK,
    CHOOSE,
    COLOUR_NAMES,
    COLOUR_WORDS,
    COLOURS,
    NO_COLOUR,
    PLAY,
    WHITE,
    _fmt_komi,
)
from tessera.games.nume.kernels import GID, GPRICE, GSIZE, NUM, STONE
from tessera.games.nume.state import NumeState

GROUPS_KEPT = 4096
"""Group entries kept per board between renders (a game's groups over its whole length are far fewer)."""

STONES_KEPT = 8192
"""Stone entries kept per board between renders (a stone's entry changes only with its group)."""


class _Shared:
    """What every render of one board shares, built once per game: the board entry and each cell's
    action, and the entries of the groups and stones seen lately (a view is drawn after every move,
    and a move changes one or two groups). Shared, so a render of this game is read, never changed in
    place — as the server already treats its cached renders."""

    def __init__(self, g: Any) -> None:
        hexes = g.params["variant"] == "hex"
        self.board = {
            "kind": "hex" if hexes else "square",
            "cells": grid_cells(g.grid),
            "unbounded": False,
            "coords": "rows" if hexes else "chess",
        }
        span = [0, g.cells]
        self.join = [{"move": lab, "path": [lab]} for lab in g.labels]
        self.place = [
            {"template": t, "path": [lab], "number": span} for t, lab in zip(g.templates, g.labels, strict=True)
        ]
        self.numbers = [str(k) for k in range(g.cells + 1)]
        self.groups: dict[tuple[int, ...], tuple[str, str, dict[str, Any], dict[str, int]]] = {}
        self.stones: dict[tuple[int, int, int | None, int], tuple[Any, dict[str, Any]]] = {}


def _shared(g: Any) -> _Shared:
    shared: _Shared | None = g.__dict__.get("_render_shared")
    if shared is None:
        shared = g._render_shared = _Shared(g)
    return shared


def render(state: NumeState, player: int | None = None, *, with_actions: bool = True) -> dict[str, Any]:
    """The render description for ``player`` (None: a spectator); ``with_actions=False``: no action list."""
    g = state.game
    shared = _shared(g)
    board = shared.board
    owner = {c: i for i, c in enumerate(state._colors)} if state._colors is not None else {}
    stone, num, gid = state._field(STONE), state._field(NUM), state._field(GID)
    # a stone's title and ``group`` are its group's: (title, its key, its args, ``group``) made once
    # per group, and kept for the next renders of this board (a move changes one or two groups)
    group_of: dict[int, tuple[str, str, dict[str, Any], dict[str, int]]] = {}
    known, made = shared.groups, shared.stones
    if len(known) > GROUPS_KEPT or len(made) > STONES_KEPT:
        known.clear()  # (together: a stone is kept under its group entry's id)
        made.clear()
    ngroups = [0, 0]
    gsize, gprice = state._field(GSIZE), state._field(GPRICE)
    numbers_of: dict[int, list[int]] = {}  # each group's written numbers, by its root (one pass)
    for c, col in enumerate(stone):
        if col >= 0:
            listed = numbers_of.get(gid[c])
            if listed is None:
                listed = numbers_of[gid[c]] = []
            if num[c] >= 0:
                listed.append(num[c])
    for root, nums in numbers_of.items():
        nums.sort()
        colour, size, price = stone[root], gsize[root], gprice[root]
        key = (colour, size, price, *nums)
        entry = known.get(key)
        if entry is None:
            stones = name_text(COLOUR_NAMES[colour])
            numbers = ", ".join(map(str, nums))
            title = Text(
                "piece.group",
                f"{stones} group of {size}, number{'s' if len(nums) > 1 else ''} {numbers}, price {price}",
                colour=stones,
                size=size,
                count=len(nums),
                numbers=numbers,
                price=price,
            )
            entry = known[key] = (str(title), title.key, title.as_json()["args"], {"size": size, "price": price})
        group_of[root] = entry
        ngroups[colour] += 1
    labels, written = g.labels, shared.numbers
    look = [(owner.get(col), COLOURS[col], "BW"[col]) for col in (BLACK, WHITE)]  # by stone colour
    pieces = []
    for c, col in enumerate(stone):
        if col >= 0:
            entry = group_of[gid[c]]
            who = look[col][0]
            k = num[c]
            at = (c, k, who, id(entry))  # a stone's entry is the same until its group changes
            kept = made.get(at)
            # (the entry is kept with it: its id cannot be another entry's while the stone is kept)
            piece = kept[1] if kept is not None and kept[0] is entry else None
            if piece is None:
                title_s, title_key, title_args, group = entry
                _, colour_name, symbol = look[col]
                piece = {
                    "cell": labels[c],
                    "owner": who,
                    "text": "" if k < 0 else written[k],
                    "shape": "disc",
                    "color": colour_name,
                    "symbol": symbol,
                    "title": title_s,
                    "group": group,
                    "title_key": title_key,
                    "title_args": title_args,
                }
                made[at] = (entry, piece)
            pieces.append(piece)
    last: list[str] = []
    highlights: list[dict[str, Any]] = []
    if state._history:
        a = state._history[-1][1]
        if a < g.place_actions:
            last = [g.labels[a // g.K]]
            highlights.append({"cell": last[0], "kind": "last"})
    acts = _actions(state, player) if with_actions else []
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
        actions=acts,
        last_move=last,
        status=status,
        viewer=player,
    )


def _actions(state: NumeState, player: int | None) -> list[dict[str, Any]]:
    """The actions ``player`` (None: a spectator, who is shown the mover's) may take now."""
    g = state.game
    shared = _shared(g)
    cp = state.current_player()
    actions: list[dict[str, Any]] = []
    if cp >= 0 and (player is None or player == cp):
        if state._phase == PLAY:
            occupied, joins, join, place = kern.OCCUPIED, kern.JOINS, shared.join, shared.place
            actions = [join[c] if st == joins else place[c] for c, st in enumerate(state._statuses()) if st != occupied]
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
    return actions


def render_shared(state: NumeState) -> dict[str, Any]:
    """The fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
    return without_seat(render(state, None, with_actions=False), state.render_seat_fields)


def render_seat(state: NumeState, player: int | None, *, actions: bool = True) -> dict[str, Any]:
    """The seat's fields for ``player`` (:meth:`tessera.core.game.State.render_seat`)."""
    return describe_seat(player, _actions(state, player) if actions else [])
