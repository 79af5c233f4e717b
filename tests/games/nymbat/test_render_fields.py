"""Nymbat's panel as data (docs/render.md): "On board" gives the pieces beside the points, and the
turn counter no safeguard limit."""

from __future__ import annotations

import tessera


def test_on_board_gives_pieces_and_points_and_the_turn_no_limit() -> None:
    """ "Nymbat's 'On board' shows pieces and points"; "no safeguard limit in the game page's turn
    counter": a 3 and a 2 placed are 2 pieces for 5 points; the Turn row is the turn alone."""
    state = tessera.load_game("nymbat", reserve=12, first_limit=8).new_initial_state()
    for m in ["o1=3", "o2=2", "end"]:
        state.play(m)
    panel = {r["label"]: r for r in state.render()["panel"]}
    assert panel["On board"]["values"] == [5, 0]
    assert panel["On board"]["pieces"] == [2, 0]
    assert panel["Turn"]["values"] == [1]
