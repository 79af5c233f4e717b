"""A second reading of every game's observation planes, in plain Python over ``State.to_dict()``.

The games write their planes with compiled kernels (``tessera/games/<name>/observation.py``),
the one implementation the adapters and the vector engine share; these encoders, written
from the plane lists of docs/research.md without the kernels, are what the kernels are
checked against (``test_observation_planes.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tessera.core.game import Game, State
from tessera.core.geometry import alternating_hexagon, hexagon, square
from tessera.core.observation import AxialLayout, Decisions, Layout, Planes, mark

Encoder = Callable[[State, int, Decisions], Planes]


def ikabegama(game: Any) -> Encoder:
    """The planes over the game's board, a regular hexagon (``board="hexhex:N"``): the unbounded
    plane has no planes (the adapters play it on a window, a ``hexhex`` board around the nests)."""
    if game.hexhex is None:
        raise ValueError("ikabegama: observation planes need a bounded board (board='hexhex:N')")
    lay = AxialLayout(game.center, game.hexhex)
    max_plies = float(game.params["max_plies"])
    nests = game.light_nest, game.dark_nest
    nest_labels = [f"{q},{r}" for q, r in nests]

    planes = game.observation_spec().planes

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        own = [h for h, o in d["tokens"].items() if o == player]
        opp = [h for h, o in d["tokens"].items() if o != player]
        mark(out[0], lay, own)
        mark(out[1], lay, opp)
        mark(out[2], lay, [nest_labels[player]])
        mark(out[3], lay, [nest_labels[1 - player]])
        out[4] = lay.mask
        if st.current_player() == player:
            out[5] = 1.0
        out[6] = d.get("ply", 0) / max_plies
        out[7] = 1.0 if d.get("passes", 0) else 0.0
        return out

    return encode


def nelaxtam(game: Any) -> Encoder:
    """The planes over the square board; the last three come from the observer's own
    :class:`~tessera.core.observation.Decisions` (a turn split into one decision per troop)."""
    p = game.params
    size = int(p["size"])
    troops = int(p["troops"])
    lay = Layout(square(size))
    edge = np.zeros((size, size), dtype=np.float32)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = 1.0
    idle_max = float(p["max_idle_turns"])

    planes = game.observation_spec().planes

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        d = st.to_dict()
        out = np.zeros((len(planes), size, size), dtype=np.float32)
        mine, theirs = ("x", "o") if player == 0 else ("o", "x")
        for row, line in enumerate(d["board"]):
            for col, ch in enumerate(line):
                out[0 if ch == mine else 1 if ch == theirs else 2, row, col] = 1.0
        for who, k0 in ((player, 3), (1 - player, 3 + troops)):
            for k, lab in d["troops"][who].items():
                mark(out[k0 + int(k) - 1], lay, [lab])
        k = 3 + 2 * troops
        out[k] = edge
        out[k + 1] = 1.0 if d["phase"] == "invasion" else 0.0
        out[k + 2] = d.get("idle", 0) / idle_max
        troop = decisions.unit
        if troop is not None:
            lab = d["troops"][player].get(str(troop))
            if lab is not None:
                mark(out[k + 3], lay, [lab])
        ends, destroyed = st.pending_squares(player, decisions.pending)
        mark(out[k + 4], lay, ends)
        mark(out[k + 5], lay, destroyed)
        return out

    return encode


def nibble(game: Any) -> Encoder:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    p = game.params
    ncol = int(p["colors"])
    lay = Layout(hexagon(8) if p["board"] == "hex" else square(ncol))

    planes = game.observation_spec().planes

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        pos = {c: i for i, c in enumerate(d["table"])}
        by: dict[int, list[str]] = {}
        for lab, c in d["cells"].items():
            by.setdefault(c, []).append(lab)
        for c, labs in by.items():
            mark(out[pos[c]], lay, labs)
        for c in range(ncol):
            out[ncol + pos[c]] = d["taken"][player][c] / ncol
            out[2 * ncol + pos[c]] = d["taken"][1 - player][c] / ncol
        k = 3 * ncol
        taking = d.get("taking")
        if taking is not None:
            out[k] = out[pos[taking]]
        out[k + 1] = lay.mask - out[:ncol].sum(axis=0)
        out[k + 2] = lay.mask
        if st.current_player() == player:
            out[k + 3] = 1.0
        return out

    return encode


def nume(game: Any) -> Encoder:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    p = game.params
    grid = square(p["size"]) if p["variant"] == "square" else alternating_hexagon(p["size"])
    lay = Layout(grid)
    cells = float(lay.cells)

    planes = game.observation_spec().planes

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        colors = d.get("colors")
        mine = "b" if (colors[player] if colors else ("black", "white")[player]) == "black" else "w"
        own: list[str] = []
        opp: list[str] = []
        numbered: list[str] = []
        nums: list[float] = []
        for lab, (col, num) in d["stones"].items():
            (own if col == mine else opp).append(lab)
            if num is not None:
                numbered.append(lab)
                nums.append(num / cells)
        mark(out[0], lay, own)
        mark(out[1], lay, opp)
        mark(out[2], lay, numbered, np.asarray(nums, dtype=np.float32))
        mark(out[3], lay, numbered)
        out[4] = lay.mask - out[0] - out[1]
        out[5] = lay.mask
        if d.get("komi") is not None and colors:
            to = d["komi_to"]
            if to == colors[player]:
                out[6] = d["komi"] / (d["komi"] + cells)
            else:
                out[7] = d["komi"] / (d["komi"] + cells)
        else:
            out[9] = 1.0
        if st.current_player() == player:
            out[8] = 1.0
        return out

    return encode


def nymbat(game: Any) -> Encoder:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    lay = Layout(hexagon(8))
    n = game.num_players
    p = game.params
    reserve = float(p["reserve"])

    planes = game.observation_spec().planes

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        d = st.to_dict()
        out = np.zeros((len(planes), lay.height, lay.width), dtype=np.float32)
        by: dict[tuple[int, int], list[str]] = {}
        for lab, (owner, num) in d["pieces"].items():
            by.setdefault(((owner - player) % n, num), []).append(lab)
        for (rel, num), labs in by.items():
            mark(out[rel * 6 + num - 1], lay, labs)
        base = 6 * n
        for rel in range(n):
            q = (player + rel) % n
            out[base + 3 * rel] = d["reserves"][q] / reserve
            out[base + 3 * rel + 1] = (d["delays"][q] % p["delay_period"]) / p["delay_period"]
            out[base + 3 * rel + 2] = 1.0 if d["first_turn_done"][q] else 0.0
        k = base + 3 * n
        it = d.get("in_turn")
        if it:
            phase = it["phase"]
            if phase == "bring":
                out[k] = 1.0
                out[k + 8] = it.get("placed", 0) / reserve  # a later turn may place more than first_limit
            elif phase == "penalty":
                out[k + 2] = 1.0
            else:
                out[k + 1] = 1.0
                mark(out[k + 3], lay, it.get("unmoved", []))
                mark(out[k + 4], lay, it.get("group", []))
                out[k + 5] = it.get("speed", 0) / 6.0
                brk = it.get("breakthrough")
                if brk:
                    mark(out[k + 6], lay, [brk["hex"]])
                    out[k + 7] = brk["budget"] / 6.0
        out[k + 9] = lay.mask
        if st.current_player() == player:
            out[k + 10] = 1.0
        return out

    return encode


ENCODERS: dict[str, Callable[[Game], Encoder]] = {
    "ikabegama": ikabegama,
    "nelaxtam": nelaxtam,
    "nibble": nibble,
    "nume": nume,
    "nymbat": nymbat,
}
