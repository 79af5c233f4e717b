"""Ikabegamá's observation planes for the research adapters (docs/research.md lists them).

Each encoder reads the observer's own :meth:`~tessera.core.game.State.view`."""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.observation import AxialLayout, Decisions, ObservationSpec, Planes, mark
from tessera.games.ikabegama.game import IkabegamaGame


def observation_spec(game: IkabegamaGame) -> ObservationSpec:
    """The planes over the game's board, a regular hexagon (``board="hexhex:N"``): the unbounded
    plane has no planes (the adapters play it on a window, a ``hexhex`` board around the nests)."""
    if game.hexhex is None:
        raise ValueError("ikabegama: observation planes need a bounded board (board='hexhex:N')")
    lay = AxialLayout(game.center, game.hexhex)
    max_plies = float(game.params["max_plies"])
    nests = game.light_nest, game.dark_nest
    nest_labels = [f"{q},{r}" for q, r in nests]
    planes = [
        "my tokens",
        "opponent's tokens",
        "my nest",
        "opponent's nest",
        "on the board (the window)",
        "I am to move (constant)",
        "plies played / max_plies (constant)",
        "the last ply was a pass (constant)",
    ]

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

    return ObservationSpec(planes, lay, encode)


__all__ = ["observation_spec"]
