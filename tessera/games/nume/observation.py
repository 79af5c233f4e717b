"""Nume's observation planes for the research adapters (docs/research.md lists them).

Each encoder reads the observer's own :meth:`~tessera.core.game.State.view`."""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import alternating_hexagon, square
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes, mark
from tessera.games.nume.game import NumeGame


def observation_spec(game: NumeGame) -> ObservationSpec:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    p = game.params
    grid = square(p["size"]) if p["variant"] == "square" else alternating_hexagon(p["size"])
    lay = Layout(grid)
    cells = float(lay.cells)
    planes = [
        "my stones",
        "opponent's stones",
        "written number / cells, on numbered stones",
        "numbered stones (either colour)",
        "empty cells",
        "on the board",
        "komi I receive / cells (constant)",
        "komi the opponent receives / cells (constant)",
        "I am to move (constant)",
        "komi bidding still going on (constant)",
    ]

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
                out[6] = d["komi"] / cells
            else:
                out[7] = d["komi"] / cells
        else:
            out[9] = 1.0
        if st.current_player() == player:
            out[8] = 1.0
        return out

    return ObservationSpec(planes, lay, encode)


__all__ = ["observation_spec"]
