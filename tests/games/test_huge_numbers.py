"""Numbers too large for ``int()`` (over 4,300 digits) in move text, and exact komi.

docs/python-api.md: ``play``/``play_joint`` raise ``IllegalMove`` for an illegal move and ``is_legal`` returns a
bool — a number of any length is just an illegal move, never a plain ``ValueError``.
"""

from __future__ import annotations

import pytest

import tessera
from tessera.core.game import SIMULTANEOUS, IllegalMove

HUGE = "9" * 5000
"""Longer than CPython's 4,300-digit limit on converting text to an integer."""


@pytest.mark.parametrize(
    ("spec", "move"),
    [
        ("nume(size=3)", f"a1={HUGE}"),
        ("nume(size=3)", "a1=1" + "0" * 4400),
        ("nume(size=3,komi_bidding=true)", f"komi {HUGE}.5 white"),
        ("nymbat", f"m1={HUGE}"),
    ],
)
def test_a_huge_number_in_a_move_is_an_illegal_move(spec: str, move: str) -> None:
    """'a number over 4,300 digits makes play/why_illegal raise a plain ValueError' — it must be IllegalMove."""
    state = tessera.load_game(spec).new_initial_state(seed=1)
    before = state.to_dict()
    assert state.is_legal(move) is False
    reason = state.why_illegal(move)
    assert isinstance(reason, str) and reason
    with pytest.raises(IllegalMove):
        state.play(move)
    assert state.to_dict() == before


@pytest.mark.parametrize("order", [f"{HUGE}=", f"1{'0' * 5000}>d5", "1 9999999=", f"1= 2= {HUGE}xd6"])
def test_a_huge_troop_number_in_a_nelaxtam_order_is_illegal(order: str) -> None:
    """A Nelaxtam order with a huge troop number: is_legal False, why_illegal a reason, play_joint IllegalMove."""
    state = tessera.load_game("nelaxtam").new_initial_state(seed=1)
    assert state.current_player() == SIMULTANEOUS
    assert state.is_legal(order, 0) is False
    assert state.why_illegal(order, 1)
    legal = state.clone()
    with pytest.raises(IllegalMove):
        legal.play_joint([order, order])
    assert legal.to_dict() == state.to_dict()


@pytest.mark.parametrize("komi", [1e300, "1e300", 10_000.5, 2**60, 2**60 + 1, "1152921504606846976.5"])
def test_nume_komi_is_bounded(komi: object) -> None:
    """'Nume komi has no upper bound (1e300 accepted)': a komi above the bound is refused with the range."""
    with pytest.raises(ValueError, match="komi"):
        tessera.load_game("nume", komi=komi)


@pytest.mark.parametrize("komi", ["0.50000000000000001", "2.4999999999999999999"])
def test_nume_komi_is_exact_never_silently_rounded(komi: str) -> None:
    """'2**60+0.5 silently rounds to a whole number': a komi that is not exactly a multiple of 0.5 is refused."""
    with pytest.raises(ValueError, match="komi"):
        tessera.load_game("nume", komi=komi)


@pytest.mark.parametrize(("komi", "value"), [("3.5", 3.5), (7, 7.0), ("10000", 10000.0), (0, 0.0)])
def test_nume_komi_multiples_of_a_half_up_to_the_bound_are_kept_exactly(komi: object, value: float) -> None:
    """'komi (default 0.5, any multiple of 0.5 from 0)' — kept as given."""
    assert tessera.load_game("nume", komi=komi).params["komi"] == value
