"""Nelaxtam's observation planes for the research adapters (docs/research.md lists them).

Each encoder reads the observer's own :meth:`~tessera.core.game.State.view`."""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import square
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes, mark
from tessera.games.nelaxtam.game import NelaxtamGame, NelaxtamState


def observation_spec(game: NelaxtamGame) -> ObservationSpec:
    """The planes over the square board; the last three come from the observer's own
    :class:`~tessera.core.observation.Decisions` (a turn split into one decision per troop)."""
    p = game.params
    size = int(p["size"])
    troops = int(p["troops"])
    lay = Layout(square(size))
    planes = ["my territory", "opponent's territory", "removed squares"]
    planes += [f"my troop {k}" for k in range(1, troops + 1)]
    planes += [f"opponent's troop {k}" for k in range(1, troops + 1)]
    planes += [
        "edge squares (where troops by sea land)",
        "invasion turn (constant)",
        "idle turns / max_idle_turns (constant)",
        "my troop deciding now",
        "end squares of my pending decisions this turn",
        "squares my pending decisions destroy this turn",
    ]
    edge = np.zeros((size, size), dtype=np.float32)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = 1.0
    idle_max = float(p["max_idle_turns"])

    def encode(st: State, player: int, decisions: Decisions) -> Planes:
        assert isinstance(st, NelaxtamState)
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

    return ObservationSpec(planes, lay, encode)


__all__ = ["observation_spec"]
