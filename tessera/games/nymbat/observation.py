"""Nymbat's observation planes for the research adapters (docs/research.md lists them).

Each encoder reads the observer's own :meth:`~tessera.core.game.State.view`."""

from __future__ import annotations

import numpy as np

from tessera.core.game import State
from tessera.core.geometry import hexagon
from tessera.core.observation import Decisions, Layout, ObservationSpec, Planes, mark
from tessera.games.nymbat.game import NymbatGame


def observation_spec(game: NymbatGame) -> ObservationSpec:
    """The planes (their names are ``spec.planes``), seen from the observer: ``my`` and ``opponent`` planes."""
    lay = Layout(hexagon(8))
    n = game.num_players
    p = game.params
    reserve = float(p["reserve"])
    seats = ["me"] + (["the opponent"] if n == 2 else [f"the player {k} seat(s) after me" for k in range(1, n)])
    planes: list[str] = []
    for who in seats:
        planes += [f"pieces of {who} numbered {k}" for k in range(1, 7)]
    for who in seats:
        planes += [
            f"reserve of {who} / reserve parameter (constant)",
            f"delays of {who} mod delay_period / delay_period (constant)",
            f"{who}: first turn played (constant)",
        ]
    planes += [
        "turn phase: bringing in reserves (constant)",
        "turn phase: moving a group (constant)",
        "turn phase: paying a penalty by losing a piece (constant)",
        "move phase: pieces of the group still to move",
        "move phase: pieces of the group",
        "move phase: the group's speed / 6 (constant)",
        "move phase: breakthrough hex",
        "move phase: breakthrough budget / 6 (constant)",
        "bring phase: placed this turn / reserve parameter (constant)",
        "on the board",
        "I am to move (constant)",
    ]

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

    return ObservationSpec(planes, lay, encode)


__all__ = ["observation_spec"]
