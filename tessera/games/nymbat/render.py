"""Nymbat's render description (docs/render.md): what :meth:`NymbatState.render` returns."""

from __future__ import annotations

from typing import Any

import numpy as np

from tessera.core.game import IllegalMove
from tessera.core.geometry import bits
from tessera.core.render import (
    END_TURN,
    PASS_LABEL,
    PLAYER_COLORS,
    cell_entry,
    describe,
    describe_seat,
    piece,
    without_seat,
)
from tessera.core.texts import Text, name_text
from tessera.games.nymbat import kernels as _k
from tessera.games.nymbat.board import (
    BRING,
    CELLS,
    END,
    GRID,
    LABEL,
    LOSE_BASE,
    MOVE,
    PASS,
    PLACE_BASE,
    REMOVE_BASE,
    RESIGN,
    START,
    N,
)
from tessera.games.nymbat.state import NymbatState

_SHADES = {
    PLAYER_COLORS["red"]: ("#e9b3ad", "#f6dcd8"),
    PLAYER_COLORS["blue"]: ("#b3c6ec", "#dce5f7"),
    PLAYER_COLORS["green"]: ("#b2d9bb", "#dcefe0"),
    PLAYER_COLORS["yellow"]: ("#f1d98c", "#f9edc6"),
}
"""Board tints of each player colour: (home row, rest of the setup area)."""


def _mix(a: str, b: str) -> str:
    """The colour halfway between two ``#rrggbb`` colours, darkened a little (shared corner hexes)."""
    ca = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{int((x + y) / 2 * 0.88):02x}" for x, y in zip(ca, cb, strict=True))


MAY_MOVE = Text("highlight.may_move", "may still move")


def render(state: NymbatState, player: int | None = None, *, with_actions: bool = True) -> dict[str, Any]:
    """The render description for ``player`` (None: a spectator); ``with_actions=False``: no action list
    nor set-ups."""
    L = state.L
    names = L.names
    cells = [dict(c) for c in _board_cells(state)]
    pieces = []
    on_board = [0] * state.n
    for i in np.flatnonzero(state.s[_k.NUM : _k.NUM + N]).tolist():
        o, k = int(state.s[_k.OWNER + i]), int(state.s[_k.NUM + i])
        on_board[o] += 1
        pieces.append(
            piece(
                LABEL[i],
                o,
                text=str(k),
                color=L.colors[o],
                symbol=L.symbols[o],
                title=Text("piece.numbered", f"{names[o]} {k}", name=name_text(names[o]), n=k),
            )
        )
    highlights: list[dict[str, Any]] = []
    for pl in range(state.n):
        for c in bits(L.home[pl]):
            highlights.append({"cell": GRID.label(c), "kind": "home", "owner": pl, "color": L.colors[pl]})
    if state.phase == MOVE:
        for c in bits(state.unmoved):
            highlights.append({"cell": GRID.label(c), "kind": "target", "title": MAY_MOVE})
        if state.brk_cell >= 0:
            highlights.append(
                {
                    "cell": GRID.label(state.brk_cell),
                    "kind": "warning",
                    "title": Text(
                        "highlight.breakthrough",
                        f"breakthrough: remove adjacent pieces totalling at most {state.brk_budget}",
                        budget=state.brk_budget,
                    ),
                }
            )
    last: list[str] = []
    # the last-move marker covers the whole turn: every step of the trailing run of one player
    who = state._history[-1][0] if state._history else None
    for p_step, a_step in reversed(state._history):
        if p_step != who:
            break
        s = state.action_to_string(a_step) if a_step != RESIGN else ""
        if "-" in s:
            step_cells = s.split("-")
        elif "=" in s:
            step_cells = [s.split("=")[0]]
        elif s.startswith("x"):
            step_cells = [s[1:]]
        elif s.startswith("lose "):
            step_cells = [s[5:]]
        else:
            step_cells = []
        last = [c for c in step_cells if c not in last] + last
    highlights += [{"cell": c, "kind": "last"} for c in last]
    actions = _actions(state, player) if with_actions else []
    period = state.game.delay_period
    turn_text: Text
    if state.phase == START:
        turn_text = Text("phase.start", "start of turn")
    elif state.phase == BRING:
        turn_text = Text("phase.bringing", f"bringing in ({state.placed} placed)", count=state.placed)
    elif state.phase == MOVE and state.brk_cell >= 0:
        turn_text = Text(
            "phase.moving_breakthrough",
            f"moving a group at speed {state.speed}; breakthrough: {state.brk_budget} may be removed",
            speed=state.speed,
            budget=state.brk_budget,
        )
    elif state.phase == MOVE:
        turn_text = Text("phase.moving", f"moving a group at speed {state.speed}", speed=state.speed)
    else:
        turn_text = Text("phase.penalty", "penalty at reserve 0: remove one of your pieces")
    panel: list[dict[str, Any]] = [
        {"label": Text("panel.reserve", "Reserve"), "values": list(state.reserves)},
        {"label": Text("panel.delays", f"Delays (every {period}th costs 1)", n=period), "values": list(state.delays)},
        # the points on the board, and beside them how many pieces carry them
        {
            "label": Text("panel.on_board", "On board"),
            "values": [state._on_board(i) for i in range(state.n)],
            "pieces": on_board,
        },
        {"label": Text("panel.turn", "Turn"), "values": [state.turn]},  # the safeguard limit is in params
        {"label": Text("panel.this_turn", "This turn"), "values": [turn_text]},
    ]
    return describe(
        state,
        board={"kind": "hex", "cells": cells, "unbounded": False, "coords": "rows"},
        pieces=pieces,
        players=[
            {"name": names[i], "color": L.colors[i], **({"resigned": True} if state.resigned[i] else {})}
            for i in range(state.n)
        ],
        highlights=highlights,
        panel=panel,
        actions=actions,
        last_move=last,
        viewer=player,
        hint=_hint(state),
        setups=_setups(state) if with_actions and (player is None or player == state.current_player()) else [],
    )


def _setups(state: NymbatState) -> list[dict[str, Any]]:
    """Ready-made first-turn set-ups for the player to move (render ``setups``): each a list of
    placement steps within his first-turn allowance, placed in one click and then adjusted with
    the allowance left.  Only at the start of a first turn."""
    if state._over or state.phase not in (START, BRING) or state.placed:
        return []
    p = state.to_move
    if state.first_done[p]:
        return []
    allowance = min(state.reserves[p], state.game.first_limit)
    spend = allowance - 6 if allowance > 12 else allowance  # leave some to adjust with
    lines = GRID.edge_lines(state.L.edges[p])
    centre = GRID.coords[CELLS[len(CELLS) // 2]]  # the centre hex
    assert centre is not None
    cq, cr = centre

    def from_centre(c: int) -> tuple[int, int]:
        """Hex distance to the centre, then sideways distance (twice the x offset): middle hexes first."""
        qr = GRID.coords[c]
        assert qr is not None
        q, r = qr
        return (abs(q - cq) + abs(r - cr) + abs(q - cq + r - cr)) // 2, abs(2 * (q - cq) + (r - cr))

    occupied = state._occupied()
    free = [c for c in CELLS if state.L.setup[p] >> c & 1 and not occupied >> c & 1]
    front = sorted((c for c in free if lines[c] == 2), key=from_centre)
    middle = sorted((c for c in free if lines[c] == 1), key=from_centre)

    def fill(cells_numbers: list[tuple[int, int]]) -> list[str]:
        out, left = [], spend
        for c, k in cells_numbers:
            k = min(k, left)
            if k < 1:
                break
            out.append(f"{GRID.label(c)}={k}")
            left -= k
        return out

    def formations(size: int) -> list[int]:
        """Groups of ``size`` mutually adjacent free hexes (2: twins on the front row; 3: a shield,
        two front hexes and the middle hex touching both), middle of the front first, none
        touching another, so that each stays a group of its own."""
        out: list[int] = []
        used = 0
        for a in front:
            for b in GRID.neighbors[a]:
                if b not in front:
                    continue
                third = [m for m in middle if GRID.neighbor_mask[a] >> m & 1 and GRID.neighbor_mask[b] >> m & 1]
                cells = [a, b, *third[:1]] if size == 3 else [a, b]
                if len(cells) < size:
                    continue
                zone = 0
                for c in cells:
                    zone |= 1 << c | GRID.neighbor_mask[c]
                if zone & used:
                    continue
                used |= sum(1 << c for c in cells)
                out += cells
                break
        return out

    plans = [
        (
            "shields",
            "Shields of 3s",
            "triangles of three 3s, each piece touching the other two: safe from breakthrough",
            fill([(c, 3) for c in formations(3)[: spend // 9 * 3]]),  # whole shields only
        ),
        (
            "twins",
            "Twins of 4s",
            "pairs of 4s: a pair beats any single attacker",
            fill([(c, 4) for c in formations(2)[: spend // 8 * 2]]),
        ),
        ("horde", "Horde of 1s", "1s on your two front rows: many fast pieces", fill([(c, 1) for c in front + middle])),
        (
            "spearhead",
            "Spearhead",
            "a 6 in the front centre with 5s beside it, 3s behind",
            fill([(c, k) for c, k in zip(front[:3], (6, 5, 5), strict=False)] + [(c, 3) for c in middle]),
        ),
    ]
    out = []
    for key, label, title, moves in plans:
        probe = state.clone()
        try:
            for m in moves:
                probe.play(m)
        except IllegalMove:
            continue
        if moves:
            total = sum(int(m.split("=")[1]) for m in moves)
            note = Text(
                "setup.note",
                f"{len(moves)} pieces, {total} of your {allowance}",
                count=len(moves),
                total=total,
                allowance=allowance,
            )
            about = Text(f"setup.{key}_title", title)
            out.append(
                {
                    "label": Text(f"setup.{key}", label),
                    "title": Text("setup.title", f"{about} ({note})", about=about, note=note),
                    "moves": moves,
                }
            )
    return out


def _hint(state: NymbatState) -> Text | None:
    """What the player to move may do that the board alone does not say (render ``hint``)."""
    if state._over or state.phase != MOVE or state.brk_cell < 0:
        return None
    at = GRID.label(state.brk_cell)
    return Text(
        "hint.breakthrough",
        f"Breakthrough at {at}: your attack split the defender's group, so you may now remove opponent "
        f"pieces next to {at} whose numbers total at most {state.brk_budget} (click them, one step each); "
        "any other step closes the breakthrough.",
        hex=at,
        budget=state.brk_budget,
    )


_BOARD_CELLS: dict[int, tuple[object, list[dict[str, Any]]]] = {}
"""The board's cell entries (fills and titles of the home rows and setup areas) of each layout seen."""


def _board_cells(state: NymbatState) -> list[dict[str, Any]]:
    """The cell entries of ``state``'s layout, built once (callers copy them)."""
    L = state.L
    known = _BOARD_CELLS.get(id(L))
    if known is None or known[0] is not L:
        names = L.names
        fills: dict[int, str] = {}
        titles: dict[int, Text] = {}
        shades = [_SHADES[L.colors[pl]] for pl in range(state.n)]
        for c in CELLS:
            owners = [pl for pl in range(state.n) if L.setup[pl] >> c & 1]
            if not owners:
                continue
            parts = []
            tints = []
            for pl in owners:
                home = bool(L.home[pl] >> c & 1)
                seat = name_text(names[pl])
                if home:
                    parts.append(Text("cell.home_row", f"{seat} home row", name=seat))
                else:
                    parts.append(Text("cell.setup_area", f"{seat} setup area", name=seat))
                tints.append(shades[pl][0] if home else shades[pl][1])
            if len(owners) == 1:
                fills[c], titles[c] = tints[0], parts[0]
            else:  # a shared corner hex: its own tint (the two mixed), both names in its title
                fills[c] = _mix(tints[0], tints[1])
                titles[c] = Text("cell.shared", f"shared: {parts[0]} and {parts[1]}", a=parts[0], b=parts[1])
        cells = []
        for c in CELLS:
            x, y = GRID.center(c)
            cells.append(cell_entry(GRID.label(c), x, y, fill=fills.get(c), title=titles.get(c)))
        if len(_BOARD_CELLS) > 16:  # layouts are two (2 and 4 players): a bounded cache all the same
            _BOARD_CELLS.clear()
        known = _BOARD_CELLS[id(L)] = (L, cells)
    return known[1]


def _actions(state: NymbatState, player: int | None) -> list[dict[str, Any]]:
    """The actions ``player`` (None: a spectator, who is shown the mover's) may take now."""
    cp = state.current_player()
    actions: list[dict[str, Any]] = []
    if cp >= 0 and (player is None or player == cp):
        legal = state._legal_actions()
        choices = list(range(1, state._allowance() + 1))
        placed_cells: set[int] = set()
        for a in sorted(legal):
            s = state.action_to_string(a)
            if a == END:
                actions.append({"move": "end", "path": [], "label": END_TURN})
            elif a == PASS:
                actions.append({"move": "pass", "path": [], "label": PASS_LABEL})
            elif a < PLACE_BASE:
                actions.append({"move": s, "path": s.split("-")})
            elif a < REMOVE_BASE:
                i = (a - PLACE_BASE) // 6
                if i not in placed_cells:
                    placed_cells.add(i)
                    actions.append({"template": f"{LABEL[i]}={{n}}", "path": [LABEL[i]], "choices": choices})
            elif a < LOSE_BASE:
                actions.append({"move": s, "path": [s[1:]]})
            else:
                actions.append({"move": s, "path": [s[5:]]})
    return actions


def render_shared(state: NymbatState) -> dict[str, Any]:
    """The fields every viewer sees alike (:meth:`tessera.core.game.State.render_shared`)."""
    return without_seat(render(state, None, with_actions=False), state.render_seat_fields)


def render_seat(state: NymbatState, player: int | None, *, actions: bool = True) -> dict[str, Any]:
    """The seat's fields for ``player`` (:meth:`tessera.core.game.State.render_seat`)."""
    setups = _setups(state) if player is None or player == state.current_player() else []
    return describe_seat(player, _actions(state, player) if actions else [], setups=setups)
