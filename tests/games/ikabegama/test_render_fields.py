"""Ikabegamá's panel gives the ply alone (docs/render.md): the safeguard limit is a parameter."""

from __future__ import annotations

import tessera


def test_the_ply_row_carries_no_safeguard_limit() -> None:
    """ "No safeguard limit in the game page's turn counter": after one growth the Ply row is 1."""
    state = tessera.load_game("ikabegama").new_initial_state()
    state.play("1,0")
    assert [r["values"] for r in state.render()["panel"] if r["label"] == "Ply"] == [[1]]
    assert state.render()["params"]["max_plies"] == 400
