"""Nelaxtam's invasion row names the edge as it is drawn (outlined)."""

from __future__ import annotations

import tessera


def test_the_invasion_row_says_outlined_edge() -> None:
    """Issue 26: "the prompt says 'shaded edge' while edge squares are outlined"."""
    state = tessera.load_game("nelaxtam", size=10, troops=3, by_sea=2).new_initial_state()
    rows = {r["label"]: r["values"] for r in state.render()["panel"]}
    assert rows["Invasion"] == ["at least 2 troops land on the outlined edge (by sea)"]
