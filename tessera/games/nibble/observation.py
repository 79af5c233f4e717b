"""Nibble's observation planes for the research adapters (docs/research.md lists them).

Each encoder reads the observer's own :meth:`~tessera.core.game.State.view`."""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import hexagon, square
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes, mark
from tessera.games.nibble.game import NibbleGame


def observation_spec(game: NibbleGame) -> ObservationSpec:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    p = game.params
    ncol = int(p["colors"])
    lay = Layout(hexagon(8) if p["board"] == "hex" else square(ncol))
    planes = [f"blocks of the colour at table position {i}" for i in range(ncol)]
    planes += [f"my blocks taken of the colour at table position {i} / colors (constant)" for i in range(ncol)]
    planes += [f"opponent's blocks taken of the colour at table position {i} / colors (constant)" for i in range(ncol)]
    planes += [
        "blocks of the colour being taken this turn",
        "empty cells",
        "on the board",
        "I am to move (constant)",
    ]

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

    return ObservationSpec(planes, lay, encode)


__all__ = ["observation_spec"]
