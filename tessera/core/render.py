"""Render descriptions: one JSON-able picture of a state that any board renderer draws.

The format is documented in ``docs/render.md``.  Games build it with the
helpers here; the web client (one SVG renderer) and the terminal
(:func:`text_diagram`) both draw from it, so neither knows any game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from tessera.core.game import SIMULTANEOUS, TERMINAL, State
from tessera.core.geometry import Grid
from tessera.core.texts import Text, expand, json_args, name_text

RenderDict = dict[str, Any]

PLAYER_COLORS = {
    "black": "#1d1d1f",
    "white": "#f4f1ea",
    "red": "#c8372d",
    "blue": "#2d5fc8",
    "light": "#f0d890",
    "dark": "#4a2f6b",
    "green": "#2e8b47",
    "yellow": "#d9a514",
}

END_TURN = Text("action.end_turn", "End turn")
"""The label of the button that ends a turn of several steps."""
PASS_LABEL = Text("action.pass", "Pass")
"""The label of the button that passes."""


def cell_entry(label: str, x: float, y: float, **extra: Any) -> dict[str, Any]:
    """One board cell: its id/label and drawing centre (``fill``, ``title`` … optional)."""
    d: dict[str, Any] = {"id": label, "x": round(x, 4), "y": round(y, 4)}
    d.update({k: v for k, v in extra.items() if v is not None})
    expand(d, "title")
    return d


_GRID_CELLS: dict[int, tuple[Grid, list[tuple[int, dict[str, Any]]]]] = {}
"""Cell entries of each grid seen, by ``id(grid)`` (the grid is kept: its id stays its own)."""


def grid_cells(grid: Grid, fills: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """Cell entries of every cell of a finite grid (optionally with fill colours).

    The geometry is computed once per grid; every call returns fresh dicts (callers may add to them).
    """
    known = _GRID_CELLS.get(id(grid))
    if known is None or known[0] is not grid:
        entries = []
        for c in grid.cells:
            x, y = grid.center(c)
            entries.append((c, cell_entry(grid.label(c), x, y)))
        if len(_GRID_CELLS) > 256:  # boards are few; a program making grids without end keeps a bounded cache
            _GRID_CELLS.clear()
        known = _GRID_CELLS[id(grid)] = (grid, entries)
    if not fills:
        return [dict(e) for _, e in known[1]]
    out = []
    for c, e in known[1]:
        d = dict(e)
        f = fills.get(c)
        if f is not None:
            d["fill"] = f
        out.append(d)
    return out


def piece(
    cell: str,
    owner: int | None,
    *,
    text: str = "",
    color: str | None = None,
    symbol: str | None = None,
    shape: str = "disc",
    title: str | None = None,
) -> dict[str, Any]:
    """A piece on a cell: owner (or None), text on it, colour, one-char terminal symbol."""
    d: dict[str, Any] = {"cell": cell, "owner": owner, "text": text, "shape": shape}
    if color is not None:
        d["color"] = color
    if symbol is not None:
        d["symbol"] = symbol
    if title is not None:
        d["title"] = title
        expand(d, "title")
    return d


def status_line(state: State, names: Sequence[str]) -> str:
    """``"Black to move"`` / ``"Both players to move"`` / ``"White wins"`` / ``"Draw"`` (a :class:`Text`)."""
    cp = state.current_player()
    if cp == TERMINAL:
        w = state.winner()
        if w is None:
            return Text("status.draw", "Draw")
        return Text("status.wins", f"{names[w]} wins", name=name_text(names[w]))
    if cp == SIMULTANEOUS:
        return Text("status.both", "Both players to move")
    return Text("status.to_move", f"{names[cp]} to move", name=name_text(names[cp]))


TEXT_FIELDS = ("label", "title", "hint", "name")
"""Fields of a render description's objects that hold words for people: a :class:`Text` there is
written as the English string with ``<field>_key`` and ``<field>_args`` beside it."""


NESTED = ("units", "choices")
"""Lists inside those objects whose items are such objects too (Nelaxtam's order builder)."""

_WORTH_A_LOOK = frozenset((*TEXT_FIELDS, *NESTED, "values"))


def _keyed(obj: Any) -> Any:
    """``obj`` (an object or a list of objects) with every :class:`Text` in a text field, and in a
    panel row's ``values``, expanded; a row with keyed values gets ``value_keys`` beside them."""
    if isinstance(obj, list):
        for x in obj:
            if isinstance(x, dict) and not x.keys().isdisjoint(_WORTH_A_LOOK):  # most actions hold no words
                _keyed(x)
        return obj
    if not isinstance(obj, dict):
        return obj
    for f in TEXT_FIELDS:
        if type(obj.get(f)) is Text:
            expand(obj, f)
    for f in NESTED:
        inner = obj.get(f)
        if isinstance(inner, list):
            _keyed(inner)
    values = obj.get("values")
    if isinstance(values, list) and any(type(v) is Text for v in values):
        obj["value_keys"] = [
            {"key": v.key, "args": v.as_json()["args"]} if isinstance(v, Text) else None for v in values
        ]
        obj["values"] = [str(v) if isinstance(v, Text) else v for v in values]
    return obj


def describe(
    state: State,
    *,
    board: dict[str, Any],
    pieces: list[dict[str, Any]],
    players: list[dict[str, Any]],
    highlights: Iterable[dict[str, Any]] = (),
    panel: Iterable[dict[str, Any]] = (),
    actions: list[dict[str, Any]] | None = None,
    last_move: Sequence[str] = (),
    status: str | None = None,
    viewer: int | None = None,
    **extra: Any,
) -> RenderDict:
    """Assemble a render description with the fields every game shares."""
    cp = state.current_player()
    names = [p["name"] for p in players]
    result = None
    if cp == TERMINAL:
        w = state.winner()
        why = state.outcome()
        if why is None:
            line = status_line(state, names)
            why = {"reason": "rules", "text": str(line), "key": getattr(line, "key", None)}
            why["args"] = json_args(getattr(line, "args", {}))
        result = {"winner": w, "returns": state.returns(), "reason": why["reason"], "text": why["text"]}
        if why.get("key"):
            result["key"], result["args"] = why["key"], why.get("args", {})
    if actions is None:
        actions = []
        if viewer is None or viewer == cp:
            actions = [{"move": m, "path": []} for m in state.legal_moves()] if cp >= 0 else []
    d: RenderDict = {
        "format": 1,
        "game": state.game.name,
        "title": state.game.info.title,
        "params": state.game.params,
        "board": board,
        "pieces": pieces,
        "highlights": list(highlights),
        "players": players,
        "to_move": cp,
        "viewer": viewer,
        "move_number": state.move_number(),
        "status": status if status is not None else status_line(state, names),
        "result": result,
        "scores": state.scores(),
        "panel": list(panel),
        "actions": actions,
        "last_move": list(last_move),
    }
    d.update(extra)
    expand(d, "status")
    expand(d, "hint")
    for p in d["players"]:  # each seat's name with its key (names.red, names.player_n …)
        if isinstance(p.get("name"), str) and type(p["name"]) is not Text:
            p["name"] = name_text(p["name"])
    for part in ("players", "highlights", "panel", "actions", "setups", "order"):
        if d.get(part):
            d[part] = _keyed(d[part])
    return d


def describe_seat(viewer: int | None, actions: list[dict[str, Any]], **extra: Any) -> RenderDict:
    """The seat's fields of a render description (:meth:`tessera.core.game.State.render_seat`):
    ``viewer``, ``actions`` and a game's own (``extra``: its other
    :attr:`~tessera.core.game.State.render_seat_fields`), their words keyed as :func:`describe` keys them."""
    d: RenderDict = {"viewer": viewer, "actions": actions, **extra}
    for part in ("highlights", "actions", "setups", "order"):
        if d.get(part):
            d[part] = _keyed(d[part])
    return d


def without_seat(desc: RenderDict, fields: Iterable[str]) -> RenderDict:
    """``desc`` (a render description, changed in place) without the seat's ``fields``: its shared
    part (:meth:`tessera.core.game.State.render_shared`)."""
    for field in fields:
        desc.pop(field, None)
    return desc


# -- terminal --------------------------------------------------------------------------


def text_diagram(desc: RenderDict, *, cell_width: int = 3) -> str:
    """Draw a render description as text: rows of cells with coordinates.

    Hex boards are drawn in offset rows (half a cell per half hex), square
    boards as a grid with files below and ranks to the left.
    """
    board = desc["board"]
    cells = board["cells"]
    if not cells:
        return "(empty board)"
    by_cell = {p["cell"]: p for p in desc.get("pieces", [])}
    marks = {h["cell"] for h in desc.get("highlights", []) if h.get("kind") == "last"}
    hexes = board["kind"] in ("hex", "hexplane")
    unit_x = math.sqrt(3) / 2 if hexes else 1.0
    unit_y = 1.5 if hexes else 1.0
    grid: dict[tuple[int, int], dict[str, Any]] = {}
    for c in cells:
        grid[(round(c["y"] / unit_y), round(c["x"] / unit_x))] = c
    rows = sorted({r for r, _ in grid})
    cols = [col for _, col in grid]
    cmin, cmax = min(cols), max(cols)
    # hex columns count half hexes (neighbours are two apart); square columns whole cells
    unit = (cell_width + 1) // 2 if hexes else cell_width + 1
    span = (cmax - cmin) * unit + cell_width + 2
    row_labels = {r: _row_label(board, [grid[k] for k in grid if k[0] == r]) for r in rows}
    lw = max(len(v) for v in row_labels.values())
    lines = []
    for r in rows:
        line = [" "] * span
        for (rr, col), c in grid.items():
            if rr != r:
                continue
            p = by_cell.get(c["id"])
            text = _piece_text(p) if p else c.get("symbol", ".")
            if c["id"] in marks:
                text = text + "*" if len(text) < cell_width else text
            pos = (col - cmin) * unit
            for i, ch in enumerate(text.center(cell_width)[:cell_width]):
                line[pos + i] = ch
        lines.append(row_labels[r].rjust(lw) + " " + "".join(line).rstrip())
    if not hexes:
        files = sorted({(c["x"], c["id"].rstrip("0123456789")) for c in cells})
        foot = [" "] * span
        for x, f in files:
            pos = (round(x) - cmin) * unit
            for i, ch in enumerate(f.center(cell_width)):
                foot[pos + i] = ch
        lines.append(" " * lw + " " + "".join(foot).rstrip())
    head = f"{desc['title']} — {desc['status']} (move {desc['move_number']})"
    tail = [f"{row['label']}: {', '.join(str(v) for v in row['values'])}" for row in desc.get("panel", [])]
    return "\n".join([head, *lines, *tail])


def _row_label(board: dict[str, Any], row_cells: list[dict[str, Any]]) -> str:
    if board["kind"] == "hexplane":
        first: str = row_cells[0]["id"]
        return "r=" + first.split(",")[1]
    left = min(row_cells, key=lambda c: c["x"])
    lab: str = left["id"]
    return lab.lstrip("abcdefghijklmnopqrstuvwxyz") if board["kind"] == "square" else lab.rstrip("0123456789")


def _piece_text(p: dict[str, Any]) -> str:
    sym = p.get("symbol") or ("?" if p.get("owner") is None else "ABCD"[p["owner"]])
    return f"{sym}{p.get('text', '')}"
