"""Nymbat's ready-made set-ups include the designer's shield and twins (issue 26, point 4)."""

from __future__ import annotations

import math

import pytest

import tessera
from tessera.core.game import State


def formations(state: State, moves: list[str]) -> list[list[str]]:
    """The groups the set-up's pieces form, by the board's own hex centres (neighbours are √3 apart)."""
    xy = {c["id"]: (c["x"], c["y"]) for c in state.render()["board"]["cells"]}
    cells = [m.split("=")[0] for m in moves]

    def touch(a: str, b: str) -> bool:
        return math.dist(xy[a], xy[b]) < 1.8

    groups: list[list[str]] = []
    for c in cells:
        joined = [g for g in groups if any(touch(c, o) for o in g)]
        merged = [c] + [o for g in joined for o in g]
        groups = [g for g in groups if g not in joined] + [merged]
    return groups


@pytest.mark.parametrize("players", [2, 4])
def test_the_shield_set_up_is_the_designers_shield(players: int) -> None:
    """Seed (Nymbat): "A group which consists of three hexes directly adjacent to each other is safe
    against a 'breakthrough'. This formation (I call it a 'shield')" — each group of the set-up is
    three mutually adjacent 3s, apart from the others; no straight wall."""
    state = tessera.load_game("nymbat", players=players).new_initial_state(seed=1)
    for _seat in range(players):
        setups = {s["label"]: s["moves"] for s in state.render()["setups"]}
        shield, twins = setups["Shields of 3s"], setups["Twins of 4s"]
        groups = formations(state, shield)
        assert len(groups) >= 2 and all(len(g) == 3 for g in groups)
        assert all(m.endswith("=3") for m in shield)
        pairs = formations(state, twins)
        assert len(pairs) >= 2 and all(len(g) == 2 for g in pairs), "twins: two adjacent pieces each"
        for m in shield:
            state.play(m)
        state.play("end")


def test_a_set_up_shield_holds_against_a_blue_6() -> None:
    """The shield of the set-up against a blue 6: the attacker is lost and nothing breaks through."""
    state = tessera.load_game("nymbat").new_initial_state(seed=1)
    shield = {s["label"]: s["moves"] for s in state.render()["setups"]}["Shields of 3s"]
    first = [m.split("=")[0] for m in shield[:3]]
    pieces = {c: [0, 3] for c in first}
    target = first[0]
    row, col = target[0], int(target[1:])
    attacker = f"{chr(ord(row) - 2)}{col}"
    pieces[attacker] = [1, 6]
    d = {"to_move": 1, "pieces": pieces, "reserves": [30, 30], "delays": [0, 0], "first_turn_done": [True, True]}
    st = tessera.load_game("nymbat").state_from_dict(d)
    move = next(m for m in st.legal_moves() if m.startswith(f"{attacker}-") and m.endswith(target))
    st.play(move)
    left = st.to_dict()["pieces"]
    assert attacker not in left and target not in left
    assert st.current_player() == 0, "no breakthrough: Blue's turn is over"
