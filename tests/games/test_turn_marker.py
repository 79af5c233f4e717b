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


def test_nymbat_offers_ready_made_set_ups_on_a_first_turn() -> None:
    """Issue 15: "Nymbat's first turn is 20–30 clicks: offer a few good ready-made set-ups ... that
    the player can place in one click and then adjust" — each set-up is legal placement steps within
    the first-turn allowance ("at most first_limit"), the turn goes on after it, and none is offered
    once the player has placed a piece or his first turn is done."""
    state = tessera.load_game("nymbat").new_initial_state(seed=1)
    setups = state.render()["setups"]
    assert [s["label"] for s in setups] == ["Shields of 3s", "Twins of 4s", "Horde of 1s", "Spearhead"]
    for s in setups:
        st = state.clone()
        for m in s["moves"]:
            st.play(m)
        assert sum(int(m.split("=")[1]) for m in s["moves"]) <= 30 - 6, "some allowance is left to adjust with"
        assert st.current_player() == 0, "the turn goes on: adjust, then End turn"
    shield = setups[0]["moves"]
    assert shield == [m for m in shield if m[0] in "mn" and m.endswith("=3")] and len(shield) == 6, "two shields"
    state.play(setups[1]["moves"][0])
    assert state.render()["setups"] == []
    assert state.render(1)["setups"] == [], "only the player to move sees them"
