"""The last-move marker shows the whole multi-step turn (issue 15), not only its last step."""

from __future__ import annotations

import random

import tessera


def test_nymbat_marks_every_cell_of_the_last_turn() -> None:
    """Nymbat: a turn brings in several pieces ('n5=3' …): after it, every placed hex is marked
    'last', and the marker follows the steps of the turn in progress too."""
    state = tessera.load_game("nymbat").new_initial_state(seed=3)
    rng = random.Random(3)
    placed: list[str] = []
    while state.current_player() == 0:
        move = state.random_move(rng)
        state.play(move)
        if "=" in move:
            placed.append(move.split("=")[0])
            assert set(placed) <= set(state.render()["last_move"])
    assert len(placed) > 1, "the first turn brings in several pieces"
    desc = state.render()
    assert set(placed) == set(desc["last_move"])
    assert {h["cell"] for h in desc["highlights"] if h["kind"] == "last"} == set(placed)


def test_nymbat_explains_a_breakthrough_where_the_player_looks() -> None:
    """Nymbat: "If removing the defender split its contiguous group ..., the attacker may then remove,
    one step ``xg6`` each, any opponent pieces adjacent to the defender's hex whose numbers total at
    most the attacker's number ... any other step closes it" — said in the render's ``hint`` while
    a breakthrough is open, and only then."""
    g = tessera.load_game("nymbat")
    for seed in range(300):
        st = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not st.is_terminal() and st.move_number() < 3000:
            st.play(st.random_move(rng))
            open_at = st.brk_cell  # type: ignore[attr-defined]
            hint = st.render()["hint"]
            if open_at < 0:
                assert hint is None
                continue
            budget = st.brk_budget  # type: ignore[attr-defined]
            assert hint.startswith("Breakthrough at ") and f"total at most {budget}" in hint
            assert "any other step closes the breakthrough" in hint
            return
    raise AssertionError("no breakthrough in 300 random Nymbat games")
